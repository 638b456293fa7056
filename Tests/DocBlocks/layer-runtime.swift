// A doc comment's example in MotionInteractions, with an engine's objects: a runtime, elements,
// gesture recognizers, positions and an input timestamp.
import Foundation
import MotionInteractions

let runtime = MotionRuntime()
let element = MotionElement(), card = MotionElement(), view = MotionElement(), container = MotionElement()
let targetView = MotionElement(position: CGPoint(x: 0, y: 200))
let drag = GestureRecognizer(), rotation = RotationGestureRecognizer(), pinch = PinchGestureRecognizer()
let closedPosition = CGPoint(x: 0, y: 0), home = CGPoint(x: 0, y: 0)
let destination = ReactiveProperty(CGPoint(x: 100, y: 0)), position = ReactiveProperty(CGPoint(x: 0, y: 0))
let t = 0.0
// DOC BLOCK
for _ in 0..<10 { try runtime.advance(by: 1.0 / 60) }
