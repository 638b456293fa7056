import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

@Suite("MotionRuntime")
struct MotionRuntimeTests {
    @Test("values are delivered only for streams whose springs moved")
    func onlyMovedStreams() throws {
        let runtime = MotionRuntime()
        let moving = StreamRecorder<Float>()
        let resting = StreamRecorder<Float>()
        let paused = StreamRecorder<Float>()
        moving.record(springSource(Spring(to: ReactiveProperty(Float(50)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        resting.record(springSource(Spring(to: ReactiveProperty(Float(5)), initialValue: ReactiveProperty(Float(5)))), in: runtime)
        let pausedSubscription = paused.record(
            springSource(Spring(to: ReactiveProperty(Float(50)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        pausedSubscription.pause()
        try runtime.advanceFrames(4)
        #expect(moving.values.count == 4)
        #expect(resting.values.isEmpty)
        #expect(paused.values.isEmpty)
        #expect(runtime.lastFrameDeliveryCount == 1)
        #expect(runtime.activeSpringStreamCount == 2)
    }

    @Test("whenAllAtRest runs at once when nothing moves, else once on the frame the last spring rests")
    func whenAllAtRest() throws {
        let runtime = MotionRuntime()
        var immediate = 0
        runtime.whenAllAtRest { immediate += 1 }
        #expect(immediate == 1)

        let short = StreamRecorder<Float>(), long = StreamRecorder<Float>()
        short.record(springSource(Spring(to: ReactiveProperty(Float(1)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        long.record(springSource(Spring(to: ReactiveProperty(Float(1000)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        var restFrames: [Int] = []
        runtime.whenAllAtRest { [unowned runtime] in restFrames.append(runtime.kernel.frame) }
        let cancelled = runtime.whenAllAtRest { Issue.record("a cancelled action ran") }
        cancelled.cancel()
        try runtime.advanceUntilAllAtRest()
        try runtime.advanceFrames(2)
        #expect(restFrames == [long.stateFrames.last])
        #expect(short.stateFrames.last! < long.stateFrames.last!)
    }

    @Test("display-link timestamps that jitter advance the springs by exactly the elapsed time, and they rest on time, never early")
    func timestamps() throws {
        let reference = MotionRuntime(), jittered = MotionRuntime()
        let a = StreamRecorder<Float>(), b = StreamRecorder<Float>()
        a.record(springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)))), in: reference)
        b.record(springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)))), in: jittered)
        try jittered.advance(toTimestamp: 0)
        #expect(jittered.kernel.frame == 0)
        // A display link at 60 Hz with ±15 % jitter, against the same durations passed directly.
        var generator = SplitMix64(seed: 3)
        var timestamp = 0.0, previous = 0.0
        var restTimestamp: Double?
        for _ in 0..<120 {
            timestamp += frame60 * (1 + Double.random(in: -0.15...0.15, using: &generator))
            try reference.advance(by: timestamp - previous)
            try jittered.advance(toTimestamp: timestamp)
            previous = timestamp
            if restTimestamp == nil, b.states.last == .atRest { restTimestamp = timestamp }
        }
        #expect(a.values == b.values)
        #expect(jittered.kernel.time == reference.kernel.time)
        // The default spring 0 → 100 leaves its 0.5 band for the last time at T*: found here by
        // sampling the exact Float64 motion every 10 µs (after 2 s it is far inside for good).
        let rest = try #require(restTimestamp)
        let step = SpringMotion(.default).propagator(over: 1e-5)
        var (d, v) = (-100.0, 0.0), oracle = 0.0
        for i in 1...200_000 {
            (d, v) = step.apply(displacement: d, velocity: v)
            if abs(d) > 0.5 { oracle = Double(i) * 1e-5 }
        }
        #expect(rest >= oracle && rest < oracle + 1e-5 + frame60 * 1.15)
        // A repeated timestamp, or one a sliver earlier, steps nothing.
        let frames = jittered.kernel.frame
        try jittered.advance(toTimestamp: timestamp)
        try jittered.advance(toTimestamp: timestamp - MotionRuntime.minimumTimestampStep / 2)
        #expect(jittered.kernel.frame == frames)
        #expect(throws: MotionRuntimeError.invalidTimestamp(.infinity)) { try jittered.advance(toTimestamp: .infinity) }
    }

    @Test("a display clock that restarts (1000 s, then 0) resets: one frame of the last duration, then on from the new clock; nothing freezes")
    func clockRestart() throws {
        let runtime = MotionRuntime()
        let recorder = StreamRecorder<Float>()
        recorder.record(springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        try runtime.advance(toTimestamp: 1000)
        try runtime.advance(toTimestamp: 1000 + frame60)
        #expect(runtime.kernel.frame == 1)
        let before = runtime.kernel.time
        try runtime.advance(toTimestamp: 0)
        #expect(runtime.kernel.frame == 2)
        #expect(abs(runtime.kernel.time - (before + frame60)) < 1e-9)
        for i in 1...5 { try runtime.advance(toTimestamp: Double(i) * frame60) }
        #expect(runtime.kernel.frame == 7)
        #expect(abs(runtime.kernel.time - (before + 6 * frame60)) < 1e-9)
        for i in 6...120 { try runtime.advance(toTimestamp: Double(i) * frame60) }
        #expect(recorder.states.last == .atRest)
    }

    @Test("after a hitch, display-link frames step again at once")
    func hitch() throws {
        let runtime = MotionRuntime()
        let recorder = StreamRecorder<Float>()
        recorder.record(springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        try runtime.advance(toTimestamp: 0)
        try runtime.advance(toTimestamp: frame60)
        try runtime.advance(toTimestamp: frame60 + 0.1)
        for frame in 1...3 { try runtime.advance(toTimestamp: frame60 + 0.1 + Double(frame) * frame60) }
        #expect(runtime.kernel.frame == 5)
        #expect(recorder.values.count == 5)
    }

    @Test("a runtime that goes away disconnects what it connected from properties and recognizers that live on")
    func runtimeReleased() throws {
        let element = MotionElement()
        let drag = GestureRecognizer()
        let target = ReactiveProperty(CGPoint(x: 10, y: 10))
        do {
            let runtime = MotionRuntime()
            try runtime.add(DragToOpen(element: element, dragGestureRecognizer: drag))
            try runtime.add(AttachWithSpring(position: MotionElement().position, to: target, springSource: springSource))
            try runtime.advanceFrames(2)
        }
        drag.handle(.began(timestamp: 0))
        drag.handle(.changed(translation: CGPoint(x: 0, y: 150), timestamp: 0.1))
        drag.handle(.ended(translation: CGPoint(x: 0, y: 150), timestamp: 0.2))
        target.value = CGPoint(x: 20, y: 20)
        // Everything the runtime connected went with it: the drag moves nothing any more.
        #expect(element.position.value == .zero)
    }

    /// Found by the interaction fuzzer on this branch (issue 13): once streams reached their
    /// runtime unchecked, the runtime's deinit disconnected the streams of interactions and
    /// plans as if they had been cancelled, which ran a waiting whenAllAtRest action (and sent
    /// `.atRest`) from inside the deinit, into objects being torn down with it.
    @Test("a runtime that goes away sends nothing more and runs no waiting action")
    func releasedRuntimeCallsNothing() throws {
        let element = MotionElement()
        let attach = AttachWithSpring(
            position: MotionElement().position, to: ReactiveProperty(CGPoint(x: 100, y: 0)), springSource: springSource)
        var ranWaitingAction = false
        do {
            let runtime = MotionRuntime()
            runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 0, y: 200)), to: element)
            try runtime.add(attach)
            try runtime.advanceFrames(2)
            runtime.whenAllAtRest { ranWaitingAction = true }
        }
        #expect(!ranWaitingAction)
        #expect(attach.state.value == .active)
    }

    @Test("an invalid frame duration throws and changes nothing")
    func invalidDuration() throws {
        let runtime = MotionRuntime()
        let recorder = StreamRecorder<Float>()
        recorder.record(springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        for dt in [0, -frame60, .infinity] {
            #expect(throws: MotionRuntimeError.invalidFrameDuration(dt)) { try runtime.advance(by: dt) }
        }
        #expect(throws: MotionRuntimeError.self) { try runtime.advance(by: .nan) }
        #expect(runtime.kernel.frame == 0)
        #expect(recorder.values.isEmpty)
    }

    @Test("advancing from inside a delivery's callback throws and the frame completes")
    func reentrantAdvance() throws {
        let runtime = MotionRuntime()
        var errors: [MotionRuntimeError] = []
        var values = 0
        let stream = springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0))))
        let advanceFromCallback: (Float) -> Void = { [unowned runtime] _ in
            values += 1
            do throws(MotionRuntimeError) {
                try runtime.advance(by: frame60)
            } catch {
                errors.append(error)
            }
        }
        stream.subscribe(in: runtime, next: advanceFromCallback)
        try runtime.advanceFrames(2)
        #expect(errors == [.reentrantAdvance, .reentrantAdvance])
        #expect(values == 2)
        #expect(runtime.kernel.frame == 2)
    }

    @Test("the kernel step and the delivery can be run as separate phases; no rest event is lost")
    func separatePhases() throws {
        let runtime = MotionRuntime()
        let recorder = StreamRecorder<Float>()
        recorder.record(springSource(Spring(to: ReactiveProperty(Float(1)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        try runtime.stepSprings(by: frame60)
        #expect(recorder.values.isEmpty)
        runtime.deliverFrame()
        runtime.deliverFrame()
        #expect(recorder.values.count == 1)
        // Steps without deliveries: each step delivers the one before it first.
        for _ in 0..<200 { try runtime.stepSprings(by: frame60) }
        runtime.deliverFrame()
        #expect(recorder.states == [.active, .atRest])
        #expect(recorder.values.last == 1)
    }

    @Test("interactions own what their set-up connected; removing one cancels it all")
    func interactionOwnership() throws {
        let runtime = MotionRuntime()
        let view = MotionElement()
        let attach = AttachWithSpring(position: view.position, to: ReactiveProperty(CGPoint(x: 50, y: 50)), springSource: springSource)
        try runtime.add(attach)
        try runtime.add(attach)
        #expect(runtime.kernel.count == 2)
        #expect(runtime.contains(attach))
        runtime.remove(attach)
        #expect(runtime.kernel.count == 0)
        #expect(!runtime.contains(attach))
        #expect(attach.runtime == nil)
        // Added again, it connects again and finishes the journey.
        try runtime.add(attach)
        #expect(runtime.kernel.count == 2)
        try runtime.advanceUntilAllAtRest()
        #expect(view.position.value == CGPoint(x: 50, y: 50))
    }
}

@Suite("Operators")
struct OperatorTests {
    @Test("toggled prefers the gesture while it is active and reports each state change once")
    func toggled() throws {
        let runtime = MotionRuntime()
        let drag = GestureRecognizer()
        let position = ReactiveProperty(Float(0))
        let spring = Spring(to: ReactiveProperty(Float(100)), initialValue: position)
        let fingerStream = gestureSource(drag).translated(from: ReactiveProperty(CGPoint.zero), in: nil)
        let finger = MotionObservable<Float> { observer in
            fingerStream.connect(MotionObserver(runtime: observer.runtime, next: { observer.next(Float($0.y)) }, state: observer.state))
        }
        let recorder = StreamRecorder<Float>()
        recorder.record(springSource(spring).toggled(with: finger), in: runtime)
        try runtime.advanceFrames(2)
        #expect(recorder.states == [.active])
        drag.handle(.began(timestamp: 0))
        drag.handle(.changed(translation: CGPoint(x: 0, y: 7), timestamp: 0.02))
        try runtime.advanceFrames(2)
        #expect(recorder.values.suffix(2) == [0, 7])
        #expect(recorder.states == [.active])
        position.value = 7
        drag.handle(.ended(translation: CGPoint(x: 0, y: 7), timestamp: 0.04))
        try runtime.advanceUntilAllAtRest()
        #expect(recorder.values.last == 100)
        #expect(recorder.states == [.active, .atRest])
    }

    @Test("onRecognitionState and velocity(in:) pick the release and measure it")
    func releaseVelocity() {
        let runtime = MotionRuntime()
        let drag = GestureRecognizer()
        let space = MotionElement(coordinateScale: 4)
        var velocities: [CGPoint] = []
        var states: [MotionState] = []
        gestureSource(drag).onRecognitionState(.ended).velocity(in: space)
            .subscribe(in: runtime, next: { velocities.append($0) }, state: { states.append($0) })
        var script = ScriptedDrag(drag)
        script.begin()
        script.move(to: CGPoint(x: 40, y: 0), after: 0.05)
        script.end(at: CGPoint(x: 80, y: 0), after: 0.05)
        #expect(velocities.count == 1)
        #expect(abs(velocities[0].x - 200) < 1e-9)
        #expect(states == [.atRest, .active, .atRest])
    }

    @Test("translated(from:in:) anchors at the position when the gesture began")
    func translated() {
        let runtime = MotionRuntime()
        let drag = GestureRecognizer()
        let position = ReactiveProperty(CGPoint(x: 10, y: 20))
        var points: [CGPoint] = []
        gestureSource(drag).translated(from: position, in: nil).subscribe(in: runtime, next: {
            points.append($0)
            position.value = $0
        })
        drag.handle(.began(timestamp: 0))
        drag.handle(.changed(translation: CGPoint(x: 5, y: 5), timestamp: 0.1))
        drag.handle(.changed(translation: CGPoint(x: 6, y: 6), timestamp: 0.2))
        drag.handle(.cancelled(timestamp: 0.3))
        #expect(points == [CGPoint(x: 10, y: 20), CGPoint(x: 15, y: 25), CGPoint(x: 16, y: 26)])
    }
}
