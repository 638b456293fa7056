// An engine's objects for the interaction layer's examples: a runtime, two elements and a
// container, three input timestamps and a display-link timestamp.
import Foundation
import MotionInteractions

let runtime = MotionRuntime()
let view = MotionElement()
let targetView = MotionElement(position: CGPoint(x: 0, y: 200))
let container = MotionElement()
let t0 = 0.0, t1 = 1.0 / 60, t2 = 2.0 / 60
let displayLinkTimestamp = 3.0 / 60
// DOC BLOCK
precondition(runtime.contains(tossable) && !runtime.isAllAtRest, "the tossable is not running")
