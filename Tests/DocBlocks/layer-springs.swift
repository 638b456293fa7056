// A doc comment's example in MotionInteractions that reads springs: a runtime already running one
// (an AttachWithSpring), and a Spring to a destination.
import Foundation
import MotionInteractions

let runtime = MotionRuntime()
let view = MotionElement(), targetView = MotionElement(position: CGPoint(x: 0, y: 200))
try runtime.add(AttachWithSpring(position: view.position, to: targetView.position, springSource: springSource))
try runtime.advance(by: 1.0 / 60)
let destination = ReactiveProperty(CGPoint(x: 100, y: 0)), position = ReactiveProperty(CGPoint(x: 0, y: 0))
let spring = Spring(to: destination, initialValue: position, threshold: 1)
// DOC BLOCK
for _ in 0..<10 { try runtime.advance(by: 1.0 / 60) }
