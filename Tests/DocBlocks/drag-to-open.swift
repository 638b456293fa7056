// The PausesSpring specification's DragToOpen, driven as an engine would: a drag past the
// boundary, released, must spring to the open position.
import Foundation
import MotionInteractions

// DOC BLOCK

let runtime = MotionRuntime()
let element = MotionElement()
let drag = GestureRecognizer()
element.addGestureRecognizer(drag)
let dragToOpen = DragToOpen(element: element, dragGestureRecognizer: drag)
try runtime.add(dragToOpen)
var time = 0.0
precondition(drag.handle(.began(timestamp: time)))
for y in [40.0, 90, 130, 160] {
    time += 1.0 / 60
    precondition(drag.handle(.changed(translation: CGPoint(x: 0, y: y), timestamp: time)))
    try runtime.advance(toTimestamp: time)
}
time += 1.0 / 60
precondition(drag.handle(.ended(translation: CGPoint(x: 0, y: 170), timestamp: time)))
for _ in 0..<300 where !runtime.isAllAtRest {
    time += 1.0 / 60
    try runtime.advance(toTimestamp: time)
}
precondition(runtime.isAllAtRest && element.position.value == dragToOpen.openPosition && dragToOpen.willOpen,
             "DragToOpen did not open: \(element.position.value)")
print("DragToOpen: released at y = 170, at rest on \(element.position.value)")
