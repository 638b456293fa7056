import Foundation
@testable import MotionInteractions
import Testing

@Suite("Sample ring pool")
struct SampleRingPoolTests {
    /// The pool doubles as a new peak of gestures is reached: rings stay a power of two, at least
    /// the gestures active and at most twice the most ever active, and a peak that stays under the
    /// last doubling makes no ring (issue 35's steady state: no allocation once warmed up).
    @Test("an element's sample rings double with a new peak of gestures, and a lower peak makes none")
    func ringsDoubleWithPeaks() {
        let container = MotionElement()
        let drags = (0..<40).map { _ in GestureRecognizer() }
        for drag in drags { container.addGestureRecognizer(drag) }
        var time = 0.0
        var mostActive = 0
        // Peaks that rise, fall back and rise again: 1, 3, 2, 5, 9, 4, 17, 33, 20, 40.
        for peak in [1, 3, 2, 5, 9, 4, 17, 33, 20, 40] {
            let before = container.sampleRingCount
            for (active, drag) in drags.prefix(peak).enumerated() {
                time += 1.0 / 60
                drag.handle(.began(timestamp: time))
                let rings = container.sampleRingCount
                #expect(rings >= active + 1)
                #expect(rings.nonzeroBitCount == 1, "\(rings) rings with \(active + 1) gestures active")
                #expect(rings <= 2 * max(mostActive, active + 1))
            }
            if peak <= mostActive { #expect(container.sampleRingCount == before) }
            mostActive = max(mostActive, peak)
            for drag in drags.prefix(peak) {
                time += 1.0 / 60
                drag.handle(.ended(translation: .zero, timestamp: time))
            }
        }
        #expect(container.sampleRingCount == 64)
    }
}
