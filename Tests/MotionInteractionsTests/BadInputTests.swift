import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

/// A bystander: an AttachWithSpring whose every frame is recorded, to show that bad input to
/// another interaction leaves it exactly as it would be alone.
struct Bystander {
    let view = MotionElement(position: CGPoint(x: 0, y: 0))
    let attach: AttachWithSpring
    let trace = StreamRecorder<CGPoint>()
    let observation: Subscription

    init(in runtime: MotionRuntime) throws {
        attach = AttachWithSpring(position: view.position, to: ReactiveProperty(CGPoint(x: 200, y: -120)), springSource: springSource)
        try runtime.add(attach)
        let trace = self.trace
        observation = view.position.observe { trace.values.append($0) }
    }

    /// The trace of the same interaction alone in its own runtime.
    static func undisturbedTrace(frames: Int) throws -> [CGPoint] {
        let runtime = MotionRuntime()
        let alone = try Bystander(in: runtime)
        try runtime.advanceFrames(frames)
        return alone.trace.values
    }
}

@Suite("Bad input")
struct BadInputTests {
    @Test("NaN written to the position a moving spring drives is overwritten on the next frame")
    func nanPosition() throws {
        let runtime = MotionRuntime()
        let bystander = try Bystander(in: runtime)
        let view = MotionElement()
        let attach = AttachWithSpring(position: view.position, to: ReactiveProperty(CGPoint(x: 100, y: 100)), springSource: springSource)
        try runtime.add(attach)
        try runtime.advanceFrames(3)
        let before = view.position.value
        view.position.value = CGPoint(x: CGFloat.nan, y: CGFloat.nan)
        try runtime.advance(by: frame60)
        #expect(view.position.value.x.isFinite && view.position.value.y.isFinite)
        #expect(view.position.value.y > before.y)
        try runtime.advanceFrames(36)
        #expect(view.position.value == CGPoint(x: 100, y: 100))
        #expect(bystander.trace.values == (try Bystander.undisturbedTrace(frames: 40)))
    }

    @Test("a NaN destination is ignored: the spring keeps pulling toward the last usable one")
    func nanDestination() throws {
        let runtime = MotionRuntime()
        let bystander = try Bystander(in: runtime)
        let view = MotionElement()
        let destination = ReactiveProperty(CGPoint(x: 50, y: 60))
        let attach = AttachWithSpring(position: view.position, to: destination, springSource: springSource)
        try runtime.add(attach)
        try runtime.advanceFrames(2)
        destination.value = CGPoint(x: CGFloat.nan, y: 80)
        let handles = runtime.springHandles.filter { try! runtime.kernel.target(of: $0) != 200 && runtime.kernel.target(of: $0) != -120 }
        #expect(try handles.map { try runtime.kernel.target(of: $0) } == [50, 80])
        destination.value = CGPoint(x: CGFloat.infinity, y: 1e30)
        #expect(try handles.map { try runtime.kernel.target(of: $0) } == [50, 80])
        try runtime.advanceFrames(58)
        #expect(view.position.value == CGPoint(x: 50, y: 80))
        #expect(bystander.trace.values == (try Bystander.undisturbedTrace(frames: 60)))
    }

    @Test("a NaN start or velocity is replaced: start at the destination, zero velocity")
    func nanStart() throws {
        let runtime = MotionRuntime()
        let spring = Spring(to: ReactiveProperty(CGPoint(x: 10, y: 20)), initialValue: ReactiveProperty(CGPoint(x: CGFloat.nan, y: 0)))
        spring.initialVelocity.value = CGPoint(x: 0, y: CGFloat.nan)
        let recorder = StreamRecorder<CGPoint>()
        recorder.record(springSource(spring), in: runtime)
        let handles = runtime.springHandles
        #expect(try runtime.kernel.value(of: handles[0]) == 10)
        #expect(try runtime.kernel.isAtRest(handles[0]))
        #expect(try runtime.kernel.velocity(of: handles[1]) == 0)
        try runtime.advanceUntilAllAtRest()
        #expect(recorder.values.last == CGPoint(x: 10, y: 20))
    }

    @Test("a NaN position at the release of a paused spring: it continues from where it was paused")
    func nanAtRelease() throws {
        let runtime = MotionRuntime()
        let element = MotionElement()
        let drag = GestureRecognizer()
        runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 0, y: 100)), to: element)
        runtime.addPlan(PausesSpring(.position, whileActive: drag), to: element)
        try runtime.advanceFrames(3)
        let y = try #require(runtime.propertySpring(for: element.position)?.springs.last)
        drag.handle(.began(timestamp: 0))
        let held = try runtime.kernel.value(of: y)
        let heldVelocity = try runtime.kernel.velocity(of: y)
        element.position.value = CGPoint(x: 0, y: CGFloat.nan)
        drag.handle(.ended(translation: .zero, timestamp: 0.1))
        #expect(try runtime.kernel.value(of: y) == held)
        #expect(try runtime.kernel.velocity(of: y) == heldVelocity)
        try runtime.advanceUntilAllAtRest()
        #expect(element.position.value == CGPoint(x: 0, y: 100))
    }

    @Test("an invalid configuration cannot be made (the kernel's type refuses it); an invalid threshold is the default")
    func invalidConfiguration() throws {
        let runtime = MotionRuntime()
        let spring = Spring(to: ReactiveProperty(Float(10)), initialValue: ReactiveProperty(Float(0)), threshold: -1)
        #expect(spring.threshold == Spring<Float>.defaultThreshold)
        springSource(spring).subscribe(in: runtime, next: { _ in })
        #expect(throws: SpringKernelError.invalidConfiguration(.tension)) { try SpringConfiguration(tension: .nan, friction: 30) }
        #expect(throws: SpringKernelError.invalidConfiguration(.tension)) { try SpringConfiguration(tension: -5, friction: 30) }
        #expect(throws: SpringKernelError.invalidConfiguration(.duration)) { try SpringConfiguration(duration: 0, bounce: 0.2) }
        let handle = runtime.springHandles[0]
        #expect(try runtime.kernel.configuration(of: handle).tension == 342)
        #expect(try runtime.kernel.tolerance(of: handle) == 0.5)
    }

    @Test("a gesture event out of time order keeps a toss finite and lands it")
    func outOfOrderToss() throws {
        let runtime = MotionRuntime()
        let bystander = try Bystander(in: runtime)
        let view = MotionElement()
        let tossable = Tossable(position: view.position, to: ReactiveProperty(CGPoint.zero),
                                containerView: MotionElement(), springSource: springSource)
        try runtime.add(tossable)
        let pan = tossable.panGestureRecognizer
        pan.handle(.began(timestamp: 2.0))
        pan.handle(.changed(translation: CGPoint(x: 0, y: 20), timestamp: 2.016))
        try runtime.advance(by: frame60)
        pan.handle(.changed(translation: CGPoint(x: 0, y: 45), timestamp: 1.0))
        try runtime.advance(by: frame60)
        pan.handle(.ended(translation: CGPoint(x: 0, y: 50), timestamp: 2.010))
        #expect(view.position.value == CGPoint(x: 0, y: 50))
        #expect(tossable.initialVelocity.value.y.isFinite)
        #expect(tossable.initialVelocity.value.y > 0)
        try runtime.advanceFrames(58)
        #expect(view.position.value == .zero)
        #expect(bystander.trace.values == (try Bystander.undisturbedTrace(frames: 60)))
    }

    @Test("removing an interaction while it moves takes its springs out and disturbs no other")
    func removeWhileMoving() throws {
        let runtime = MotionRuntime()
        let bystander = try Bystander(in: runtime)
        let view = MotionElement()
        let attach = AttachWithSpring(position: view.position, to: ReactiveProperty(CGPoint(x: 300, y: 300)), springSource: springSource)
        try runtime.add(attach)
        var after = 0
        try runtime.advanceFrames(5)
        runtime.remove(attach)
        #expect(runtime.kernel.count == 2)
        let observation = view.position.observe { _ in after += 1 }
        try runtime.advanceFrames(55)
        #expect(after == 0)
        #expect(attach.state.value == .active)
        #expect(bystander.trace.values == (try Bystander.undisturbedTrace(frames: 60)))
        #expect(runtime.isAllAtRest)
        observation.cancel()
    }

    @Test("removing an interaction from inside its own callback: nothing more for it, every other stream once")
    func removeFromOwnCallback() throws {
        let runtime = MotionRuntime()
        // Streams on both sides of the removed one in the moving list.
        let before = StreamRecorder<Float>(), after = StreamRecorder<Float>()
        before.record(springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        let view = MotionElement()
        let attach = AttachWithSpring(position: view.position, to: ReactiveProperty(CGPoint(x: 100, y: 100)), springSource: springSource)
        try runtime.add(attach)
        after.record(springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        var removedValues = 0
        let observation = view.position.observe { [unowned runtime] _ in
            removedValues += 1
            if removedValues == 3 { runtime.remove(attach) }
        }
        for frame in 1...10 {
            try runtime.advance(by: frame60)
            #expect(before.values.count == frame)
            #expect(after.values.count == frame)
        }
        #expect(removedValues == 3)
        #expect(runtime.kernel.count == 2)
        observation.cancel()
    }

    @Test("removing another stream from a callback in the same frame: it gets nothing more, the rest once")
    func removeOtherFromCallback() throws {
        let runtime = MotionRuntime()
        let recorders = (0..<5).map { _ in StreamRecorder<Float>() }
        var subscriptions: [Subscription] = []
        // The first stream in the moving list cancels the fourth recorder (not yet delivered in
        // that frame) and itself on frame 2.
        var frameOfFirst = 0
        let killer = springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0))))
        var killerSubscription: Subscription?
        killerSubscription = killer.subscribe(in: runtime, next: { _ in
            frameOfFirst += 1
            if frameOfFirst == 2 {
                subscriptions[3].cancel()
                killerSubscription?.cancel()
            }
        })
        for recorder in recorders {
            subscriptions.append(recorder.record(
                springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)))), in: runtime))
        }
        try runtime.advanceFrames(4)
        #expect(frameOfFirst == 2)
        #expect(recorders.map(\.values.count) == [4, 4, 4, 1, 4])
    }

    @Test("adding one interaction to two runtimes throws and leaves both as they were")
    func twoRuntimes() throws {
        let first = MotionRuntime(), second = MotionRuntime()
        let view = MotionElement()
        let attach = AttachWithSpring(position: view.position, to: ReactiveProperty(CGPoint(x: 40, y: 0)), springSource: springSource)
        try first.add(attach)
        #expect(throws: MotionRuntimeError.interactionBelongsToAnotherRuntime) { try second.add(attach) }
        #expect(second.kernel.count == 0)
        #expect(first.kernel.count == 2)
        #expect(attach.runtime === first)
        try first.advanceUntilAllAtRest()
        #expect(view.position.value == CGPoint(x: 40, y: 0))
        // Once removed from the first, the second may take it.
        first.remove(attach)
        try second.add(attach)
        #expect(second.kernel.count == 2)
        #expect(first.kernel.count == 0)
    }
}
