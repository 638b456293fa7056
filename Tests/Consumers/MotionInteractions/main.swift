// A Swift user's first program with the interaction layer: it imports MotionInteractions and
// nothing else (no Foundation: points are written `.init(x:y:)`, their type inferred), so it links
// with only what the product itself brings. .ci/consumers builds it in a fresh package outside the
// checkout that depends on the checkout by path, debug and release, runs both, and compares them.
import MotionInteractions

let frame = 1.0 / 60

// Tossable: a drag moves the view, the release hands its velocity to the spring toward the target.
let runtime = MotionRuntime()
let view = MotionElement()
let targetView = MotionElement(position: .init(x: 0, y: 200))
let tossable = Tossable(position: view.position, to: targetView.position, containerView: MotionElement(), springSource: springSource)
try runtime.add(tossable)
var states = ["\(tossable.state.value)"]
var time = 0.0
let drag = tossable.panGestureRecognizer
precondition(drag.handle(.began(timestamp: time)))
states.append("\(tossable.state.value)")
for y in [10.0, 30, 60, 90] {
    time += frame
    precondition(drag.handle(.changed(translation: .init(x: 0, y: y), timestamp: time)))
    try runtime.advance(toTimestamp: time)
}
time += frame
precondition(drag.handle(.ended(translation: .init(x: 0, y: 110), timestamp: time)))
let released = view.position.value
states.append("\(tossable.state.value)")
var frames = 0
while !runtime.isAllAtRest && frames < 600 {
    time += frame
    try runtime.advance(toTimestamp: time)
    frames += 1
}
states.append("\(tossable.state.value)")
precondition(runtime.isAllAtRest && view.position.value == targetView.position.value, "the view did not come to rest on the target")
print("tossable: released at \(released), at rest on \(view.position.value) after \(frames) frames; states \(states.joined(separator: ", "))")

// AttachWithSpring: a destination that moves while the spring runs.
let attached = MotionElement()
let anchor = MotionElement(position: .init(x: 120, y: -80))
try runtime.add(AttachWithSpring(position: attached.position, to: anchor.position, springSource: springSource))
for _ in 0..<5 { try runtime.advance(by: frame) }
anchor.position.value = .init(x: -50, y: 300)
frames = 5
while !runtime.isAllAtRest && frames < 600 {
    try runtime.advance(by: frame)
    frames += 1
}
precondition(attached.position.value == anchor.position.value, "the attached element is not on its anchor")
print("attach: at rest on \(attached.position.value) after \(frames) frames; \(runtime.kernel.count) springs in the runtime's bank")
