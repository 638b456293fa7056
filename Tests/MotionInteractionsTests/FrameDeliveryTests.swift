import Foundation
@testable import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

/// The frame's delivery reads the kernel's moving springs once, in storage order, as it begins
/// (`FrameSnapshot`), and sends each stream its values from there. These tests hold it to what
/// reading each stream from the kernel at its turn gives, whatever callbacks do mid-walk.
@Suite("Frame delivery from the kernel's snapshot")
struct FrameDeliveryTests {
    /// Float streams whose every value is checked, as it arrives, against the kernel's value of
    /// the stream's spring at that moment.
    final class CheckedStreams {
        let runtime = MotionRuntime()
        var springs: [Spring<Float>] = []
        var subscriptions: [Subscription] = []
        var handles: [SpringHandle] = []
        var received: [[Float]] = []
        var mismatches: [String] = []
        /// Called with (stream, frame) after each value is checked.
        var onValue: (Int, Int) -> Void = { _, _ in }

        init(starts: [Float], destinations: [Float]) {
            for (stream, (start, destination)) in zip(starts, destinations).enumerated() {
                let spring = Spring(to: ReactiveProperty(destination), initialValue: ReactiveProperty(start))
                springs.append(spring)
                received.append([])
                subscriptions.append(springSource(spring).subscribe(in: runtime, next: { [unowned self] value in
                    let kernel = try? runtime.kernel.value(of: handles[stream])
                    if kernel?.bitPattern != value.bitPattern {
                        mismatches.append("stream \(stream) frame \(runtime.kernel.frame): sent \(value), kernel \(String(describing: kernel))")
                    }
                    received[stream].append(value)
                    onValue(stream, runtime.kernel.frame)
                }))
            }
            // One spring per stream, added in order.
            handles = runtime.springHandles
        }
    }

    @Test("a callback that restarts, retargets or reconfigures streams later in the walk: each is sent the kernel's value at its turn")
    func callbacksChangeOtherStreams() throws {
        let streams = CheckedStreams(starts: [0, 0, 0, 0, 0], destinations: [100, 200, 300, 400, 500])
        streams.springs[2].initialValue.value = 1_000
        streams.onValue = { [unowned streams] stream, frame in
            guard frame == 3 else { return }
            switch stream {
            case 0:
                // Restarts stream 2 from its initial value (1,000), and pulls stream 3 elsewhere.
                streams.subscriptions[2].pause()
                streams.subscriptions[2].resume()
                streams.springs[3].destination.value = -400
            case 1:
                streams.springs[4].configuration.value = try! SpringConfiguration(tension: 900, friction: 10)
            default: break
            }
        }
        try streams.runtime.advanceFrames(6)
        #expect(streams.mismatches.isEmpty, "\(streams.mismatches)")
        // Stream 2 was sent its restart on frame 3, not the value the step left it at.
        #expect(streams.received[2].count == 6 && streams.received[2][2] == 1_000)
        try streams.runtime.advanceUntilAllAtRest()
        #expect(streams.mismatches.isEmpty, "\(streams.mismatches)")
        #expect(streams.received[3].last == -400)
    }

    @Test("a callback that pauses a stream later in the walk, or cancels it, leaves it unsent; one it starts waits for the next frame")
    func callbacksStopAndStartStreams() throws {
        let streams = CheckedStreams(starts: [0, 0, 0, 7], destinations: [100, 200, 300, 7])
        streams.onValue = { [unowned streams] stream, frame in
            guard frame == 2, stream == 0 else { return }
            streams.subscriptions[1].pause()
            streams.subscriptions[2].cancel()
            streams.springs[3].destination.value = 50
        }
        try streams.runtime.advanceFrames(3)
        #expect(streams.mismatches.isEmpty, "\(streams.mismatches)")
        #expect(streams.received[0].count == 3)
        #expect(streams.received[1].count == 1)
        #expect(streams.received[2].count == 1)
        // Started on frame 2 (at rest until then): its first value comes with frame 3.
        #expect(streams.received[3].count == 1)
    }

    @Test("a component at rest while another moves is sent exactly as the kernel holds it, before and after a retarget")
    func restingComponentBesideAMovingOne() throws {
        let runtime = MotionRuntime()
        let destination = ReactiveProperty(CGPoint(x: 40, y: 300))
        let spring = Spring(to: destination, initialValue: ReactiveProperty(CGPoint(x: 40, y: 0)))
        var values: [CGPoint] = [], states: [(MotionState, Int)] = []
        var mismatches = 0
        let subscription = springSource(spring).subscribe(in: runtime, next: { [unowned runtime] value in
            let handles = runtime.springHandles
            let kernel = CGPoint(x: CGFloat((try? runtime.kernel.value(of: handles[0])) ?? .nan),
                                 y: CGFloat((try? runtime.kernel.value(of: handles[1])) ?? .nan))
            if kernel != value { mismatches += 1 }
            values.append(value)
        }, state: { [unowned runtime] state in states.append((state, runtime.kernel.frame)) })
        try runtime.advanceFrames(5)
        #expect(values.count == 5 && values.allSatisfy { $0.x == 40 })
        // x starts too, mid-flight; it rests long before y.
        destination.value = CGPoint(x: 41, y: 300)
        var restFrames: [Int] = []
        while !runtime.isAllAtRest, runtime.kernel.frame < 600 {
            try runtime.advance(by: frame60)
            if !runtime.kernel.restedInLastStep.isEmpty { restFrames.append(runtime.kernel.frame) }
        }
        #expect(mismatches == 0)
        #expect(values.last == CGPoint(x: 41, y: 300))
        // x rests first, y later: one rest for the stream, on the frame the last component rests.
        #expect(restFrames.count == 2)
        #expect(states.map(\.0) == [.active, .atRest])
        #expect(states.last?.1 == restFrames.last)
        subscription.cancel()
    }

    @Test("a stream's observer says where its closures keep what they captured")
    func closureContexts() {
        let runtime = MotionRuntime()
        let property = ReactiveProperty(CGPoint.zero)
        let state = ReactiveProperty(MotionState.atRest)
        let observer = MotionObserver<CGPoint>(runtime: runtime, next: { property.value = $0 }, state: { state.value = $0 })
        let contexts = observer.closureContexts
        #expect(contexts.next == UnsafeRawPointer(Unmanaged.passUnretained(property).toOpaque()))
        #expect(contexts.state == UnsafeRawPointer(Unmanaged.passUnretained(state).toOpaque()))
    }

    @Test("a Tossable holds its kernel spring stream: removing it, or losing its runtime, lets everything go")
    func tossableReleasesItsStream() throws {
        weak var weakTossable: Tossable?
        weak var weakRuntime: MotionRuntime?
        let container = MotionElement()
        do {
            let runtime = MotionRuntime()
            let kept = Tossable(
                position: ReactiveProperty(CGPoint.zero), to: ReactiveProperty(CGPoint(x: 0, y: 100)), containerView: container,
                springSource: springSource)
            let removed = Tossable(
                position: ReactiveProperty(CGPoint.zero), to: ReactiveProperty(CGPoint(x: 0, y: 100)), containerView: container,
                springSource: springSource)
            try runtime.add(kept)
            try runtime.add(removed)
            var script = ScriptedDrag(kept.panGestureRecognizer)
            script.begin()
            script.move(to: CGPoint(x: 0, y: 30))
            try runtime.advanceFrames(2)
            #expect(kept.position.value == CGPoint(x: 0, y: 30))
            script.end(at: CGPoint(x: 0, y: 60))
            try runtime.advanceFrames(2)
            runtime.remove(removed)
            #expect(runtime.kernel.count == 2)
            weakTossable = kept
            weakRuntime = runtime
        }
        #expect(weakRuntime == nil)
        #expect(weakTossable == nil)
    }

    @Test("a Tossable given another spring source's stream drags and tosses as with the kernel's own")
    func tossableWithAnotherSpringSource() throws {
        func run(_ source: @escaping SpringSource<CGPoint>) throws -> [CGPoint] {
            let runtime = MotionRuntime()
            let position = ReactiveProperty(CGPoint.zero)
            let tossable = Tossable(position: position, to: ReactiveProperty(CGPoint(x: 0, y: 100)), containerView: MotionElement(),
                                    springSource: source)
            try runtime.add(tossable)
            var positions: [CGPoint] = []
            let observation = position.observe { positions.append($0) }
            var script = ScriptedDrag(tossable.panGestureRecognizer)
            script.begin()
            for step in 1...3 {
                script.move(to: CGPoint(x: 5 * Double(step), y: 20 * Double(step)))
                try runtime.advance(by: frame60)
            }
            script.end(at: CGPoint(x: 20, y: 80))
            try runtime.advanceUntilAllAtRest()
            observation.cancel()
            return positions
        }
        // The same stream, seen through an operator: no longer marked as the kernel's.
        let wrapped: SpringSource<CGPoint> = { spring in springSource(spring).map { $0 } }
        let direct = try run(springSource)
        #expect(try run(wrapped) == direct)
        #expect(direct.last == CGPoint(x: 0, y: 100))
    }
}
