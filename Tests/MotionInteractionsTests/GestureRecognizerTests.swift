import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

@Suite("GestureRecognizer")
struct GestureRecognizerTests {
    @Test("a steady drag at irregular frame times gives its exact velocity")
    func irregularFrameTimes() {
        let drag = GestureRecognizer()
        let speed = CGPoint(x: 300, y: -1200)
        var time = 10.0
        drag.handle(.began(timestamp: time))
        for gap in [0.016, 0.005, 0.031, 0.008, 0.017, 0.002, 0.024, 0.011] {
            time += gap
            let elapsed = time - 10
            drag.handle(.changed(translation: CGPoint(x: speed.x * elapsed, y: speed.y * elapsed), timestamp: time))
        }
        #expect(abs(drag.velocity.x - speed.x) < 1e-6)
        #expect(abs(drag.velocity.y - speed.y) < 1e-6)
        time += 0.009
        let elapsed = time - 10
        drag.handle(.ended(translation: CGPoint(x: speed.x * elapsed, y: speed.y * elapsed), timestamp: time))
        #expect(drag.state == .ended)
        #expect(abs(drag.velocity.x - speed.x) < 1e-6)
        #expect(abs(drag.velocity.y - speed.y) < 1e-6)
    }

    @Test("a burst of events with one timestamp merges into its latest sample")
    func burstWithOneTimestamp() {
        let drag = GestureRecognizer()
        drag.handle(.began(timestamp: 0))
        drag.handle(.changed(translation: CGPoint(x: 10, y: 0), timestamp: 0.016))
        // Three events delivered together, all stamped with the same time.
        drag.handle(.changed(translation: CGPoint(x: 12, y: 0), timestamp: 0.032))
        drag.handle(.changed(translation: CGPoint(x: 16, y: 0), timestamp: 0.032))
        drag.handle(.changed(translation: CGPoint(x: 20, y: 0), timestamp: 0.032))
        #expect(drag.translation == CGPoint(x: 20, y: 0))
        #expect(drag.velocity.x.isFinite)
        // The fit through (0, 0), (0.016, 10), (0.032, 20): 625 points per second.
        #expect(abs(drag.velocity.x - 625) < 1e-6)
    }

    @Test("a single-sample drag, or one whose samples share a timestamp, has zero velocity")
    func singleSample() {
        let tap = GestureRecognizer()
        tap.handle(.began(translation: CGPoint(x: 3, y: 4), timestamp: 1))
        #expect(tap.velocity == .zero)
        tap.handle(.ended(translation: CGPoint(x: 50, y: 80), timestamp: 1))
        #expect(tap.velocity == .zero)
        #expect(tap.translation == CGPoint(x: 50, y: 80))
    }

    @Test("samples a nanosecond apart give a finite velocity no faster than the limit")
    func tinyTimeSpread() {
        let drag = GestureRecognizer(maximumSpeed: 5_000)
        drag.handle(.began(timestamp: 1))
        drag.handle(.changed(translation: CGPoint(x: 1000, y: 0), timestamp: 1 + 1e-9))
        drag.handle(.ended(translation: CGPoint(x: 2000, y: 1000), timestamp: 1 + 2e-9))
        let velocity = drag.velocity
        #expect(velocity.x.isFinite && velocity.y.isFinite)
        #expect((velocity.x * velocity.x + velocity.y * velocity.y).squareRoot() <= 5_000 + 1e-9)
    }

    @Test("a fast flick is scaled down to the maximum speed, keeping its direction")
    func maximumSpeed() {
        let drag = GestureRecognizer(maximumSpeed: 1_000)
        drag.handle(.began(timestamp: 0))
        drag.handle(.changed(translation: CGPoint(x: 300, y: 400), timestamp: 0.01))
        drag.handle(.ended(translation: CGPoint(x: 600, y: 800), timestamp: 0.02))
        #expect(abs(drag.velocity.x - 600) < 1e-6)
        #expect(abs(drag.velocity.y - 800) < 1e-6)
    }

    @Test("holding still before the release gives zero release velocity")
    func holdBeforeRelease() {
        let drag = GestureRecognizer()
        var script = ScriptedDrag(drag)
        script.begin()
        for step in 1...6 { script.move(to: CGPoint(x: 0, y: 20 * Double(step))) }
        script.end(at: CGPoint(x: 0, y: 120), after: 0.5)
        #expect(drag.velocity == .zero)
    }

    @Test("a cancelled gesture has no velocity")
    func cancelled() {
        let drag = GestureRecognizer()
        var script = ScriptedDrag(drag)
        script.begin()
        script.move(to: CGPoint(x: 0, y: 30))
        #expect(drag.velocity.y > 0)
        drag.handle(.cancelled(timestamp: script.time + frame60))
        #expect(drag.state == .cancelled)
        #expect(drag.velocity == .zero)
    }

    @Test("an event out of time order is applied at the newest timestamp")
    func outOfOrder() {
        let drag = GestureRecognizer()
        drag.handle(.began(timestamp: 1.0))
        drag.handle(.changed(translation: CGPoint(x: 0, y: 10), timestamp: 1.016))
        drag.handle(.changed(translation: CGPoint(x: 0, y: 20), timestamp: 1.032))
        // Arrives late, stamped before the previous event.
        #expect(drag.handle(.changed(translation: CGPoint(x: 0, y: 25), timestamp: 1.020)))
        #expect(drag.translation == CGPoint(x: 0, y: 25))
        #expect(drag.timestamp == 1.032)
        #expect(drag.velocity.y.isFinite)
        // Merged into the newest sample: the fit through (1.0, 0), (1.016, 10), (1.032, 25).
        #expect(abs(drag.velocity.y - 781.25) < 1e-6)
        drag.handle(.ended(translation: CGPoint(x: 0, y: 25), timestamp: 0.5))
        #expect(drag.state == .ended)
        #expect(drag.velocity.y.isFinite)
        #expect(drag.timestamp == 1.032)
    }

    @Test("events that do not fit the state are ignored and counted")
    func ignoredEvents() {
        let drag = GestureRecognizer()
        var notified = 0
        let observation = drag.observe { _ in notified += 1 }
        #expect(!drag.handle(.changed(translation: CGPoint(x: 1, y: 1), timestamp: 0)))
        #expect(!drag.handle(.ended(translation: CGPoint(x: 1, y: 1), timestamp: 0)))
        #expect(!drag.handle(.cancelled(timestamp: 0)))
        #expect(drag.handle(.began(timestamp: 0)))
        #expect(!drag.handle(.began(timestamp: 0.1)))
        #expect(drag.ignoredEventCount == 4)
        #expect(drag.state == .began)
        #expect(drag.translation == .zero)
        #expect(notified == 1)
        observation.cancel()
    }

    @Test("non-finite translations and timestamps are replaced, never stored")
    func nonFiniteInput() {
        let drag = GestureRecognizer()
        drag.handle(.began(timestamp: 0))
        drag.handle(.changed(translation: CGPoint(x: 5, y: 5), timestamp: 0.016))
        drag.handle(.changed(translation: CGPoint(x: CGFloat.nan, y: 7), timestamp: 0.032))
        #expect(drag.translation == CGPoint(x: 5, y: 5))
        drag.handle(.changed(translation: CGPoint(x: 9, y: 9), timestamp: .infinity))
        #expect(drag.timestamp == 0.032)
        drag.handle(.ended(translation: CGPoint(x: CGFloat.infinity, y: 0), timestamp: .nan))
        #expect(drag.translation == CGPoint(x: 9, y: 9))
        #expect(drag.velocity.x.isFinite && drag.velocity.y.isFinite)
    }

    @Test("a recognizer is attached to one element at a time; attaching it elsewhere moves it, removing detaches it")
    func attachment() {
        let a = MotionElement(), b = MotionElement()
        let first = GestureRecognizer(), second = GestureRecognizer()
        a.addGestureRecognizer(first)
        a.addGestureRecognizer(second)
        a.addGestureRecognizer(first)  // already here: nothing changes
        #expect(a.gestureRecognizers.count == 2 && a.gestureRecognizers[0] === first)
        b.addGestureRecognizer(first)
        #expect(first.view === b && a.gestureRecognizers.count == 1 && a.gestureRecognizers[0] === second)
        a.removeGestureRecognizer(first)  // not a's: nothing
        #expect(first.view === b && b.gestureRecognizers.count == 1)
        b.removeGestureRecognizer(first)
        #expect(first.view == nil && b.gestureRecognizers.isEmpty)
    }

    @Test("detaching recognizers in any order keeps the others in the order they were added, across compactions")
    func detachingMany() {
        let container = MotionElement(), elsewhere = MotionElement()
        let recognizers = (0..<200).map { _ in GestureRecognizer() }
        for recognizer in recognizers { container.addGestureRecognizer(recognizer) }
        var expected = recognizers.map(ObjectIdentifier.init)
        // Every third one leaves, then most of the rest (enough to compact the list twice), some
        // by moving to another element; one comes back at the end.
        var generator = SplitMix64(seed: 11)
        for (index, recognizer) in recognizers.enumerated() where index % 3 == 0 || generator.unit() < 0.8 {
            if index % 2 == 0 { container.removeGestureRecognizer(recognizer) } else { elsewhere.addGestureRecognizer(recognizer) }
            expected.removeAll { $0 == ObjectIdentifier(recognizer) }
            #expect(recognizer.view !== container)
        }
        container.addGestureRecognizer(recognizers[0])
        expected.append(ObjectIdentifier(recognizers[0]))
        #expect(container.gestureRecognizers.map(ObjectIdentifier.init) == expected)
        #expect(container.gestureRecognizers.allSatisfy { $0.view === container })
        for recognizer in container.gestureRecognizers { container.removeGestureRecognizer(recognizer) }
        #expect(container.gestureRecognizers.isEmpty)
        #expect(elsewhere.gestureRecognizers.allSatisfy { $0.view === elsewhere })
    }

    @Test("translation and velocity convert into an element's coordinate space")
    func coordinateSpace() {
        let zoomed = MotionElement(coordinateScale: 2)
        let drag = GestureRecognizer()
        zoomed.addGestureRecognizer(drag)
        #expect(drag.view === zoomed)
        drag.handle(.began(timestamp: 0))
        drag.handle(.changed(translation: CGPoint(x: 40, y: -20), timestamp: 0.1))
        #expect(drag.translation(in: zoomed) == CGPoint(x: 20, y: -10))
        #expect(drag.translation(in: nil) == CGPoint(x: 40, y: -20))
        #expect(abs(drag.velocity(in: zoomed).x - 200) < 1e-9)
    }

    @Test("recognizers of one element share its sample rings: interleaved gestures, a move mid-gesture and a detach keep each velocity exact")
    func sharedSampleRings() {
        let container = MotionElement(), other = MotionElement()
        let drags = (0..<3).map { _ in GestureRecognizer() }
        for drag in drags { container.addGestureRecognizer(drag) }
        let speeds = [CGPoint(x: 300, y: -1200), CGPoint(x: -50, y: 80), CGPoint(x: 4000, y: 10)]
        // Two rounds: the second gestures run on the rings the first ones gave back.
        for round in 0..<2 {
            let start = Double(round)
            for drag in drags { drag.handle(.began(timestamp: start)) }
            for step in 1...6 {
                let time = start + Double(step) / 60
                for (drag, speed) in zip(drags, speeds) {
                    let elapsed = time - start
                    drag.handle(.changed(translation: CGPoint(x: speed.x * elapsed, y: speed.y * elapsed), timestamp: time))
                }
                // Mid-gesture, the second recognizer moves to another element and the third is detached.
                if round == 1, step == 3 {
                    other.addGestureRecognizer(drags[1])
                    container.removeGestureRecognizer(drags[2])
                }
            }
            for (drag, speed) in zip(drags, speeds) {
                #expect(abs(drag.velocity.x - speed.x) < 1e-6 && abs(drag.velocity.y - speed.y) < 1e-6)
                let elapsed = 7.0 / 60
                drag.handle(.ended(translation: CGPoint(x: speed.x * elapsed, y: speed.y * elapsed), timestamp: start + elapsed))
                #expect(abs(drag.velocity.x - speed.x) < 1e-6 && abs(drag.velocity.y - speed.y) < 1e-6)
            }
        }
        // A gesture that begins after the others ended, and a cancelled one, start from no samples.
        drags[0].handle(.began(timestamp: 5))
        #expect(drags[0].velocity == .zero)
        drags[0].handle(.cancelled(timestamp: 5.1))
        #expect(drags[0].velocity == .zero)
    }
}
