// MotionRuntime's example, which makes the runtime: an engine's elements and its display link
// (here a value with the next frame's timestamp).
import Foundation
import MotionInteractions

let card = MotionElement(), slot = MotionElement(position: CGPoint(x: 40, y: 300)), container = MotionElement()
struct DisplayLink { var targetTimestamp: Double }
let displayLink = DisplayLink(targetTimestamp: 1.0 / 60)
// DOC BLOCK
// The first timestamp starts the clock; the next frames move the card toward its slot.
for frame in 2...4 { try runtime.advance(toTimestamp: Double(frame) / 60) }
precondition(card.position.value != .zero, "the card did not move toward its slot")
