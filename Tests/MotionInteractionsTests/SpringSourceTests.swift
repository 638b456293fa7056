import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

@Suite("springSource")
struct SpringSourceTests {
    @Test("sends .active at once, values until rest, then .atRest on the kernel's rest frame")
    func lifecycle() throws {
        let runtime = MotionRuntime()
        let spring = Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)), threshold: 0.5)
        let recorder = StreamRecorder<Float>()
        recorder.record(springSource(spring), in: runtime)
        #expect(recorder.states == [.active])
        #expect(recorder.values.isEmpty)
        #expect(runtime.kernel.count == 1)

        let frames = try #require(try runtime.advanceUntilAllAtRest())
        #expect(recorder.states == [.active, .atRest])
        #expect(recorder.values.count == frames)
        #expect(recorder.values.last == 100)
        #expect(recorder.values.allSatisfy { $0.isFinite })
    }

    @Test(".atRest arrives on exactly the frame the kernel scheduled")
    func restOnScheduledFrame() throws {
        let runtime = MotionRuntime()
        let destination = ReactiveProperty(CGPoint(x: 300, y: -40))
        let position = ReactiveProperty(CGPoint.zero)
        let spring = Spring(to: destination, initialValue: position, threshold: 0.5)
        let recorder = StreamRecorder<CGPoint>()
        recorder.record(springSource(spring), in: runtime)
        try runtime.advance(by: frame60)
        // After the first step the kernel has predicted each component's rest frame.
        let predicted = try restFrames(in: runtime)
        try #require(predicted.count == 2)
        try runtime.advanceUntilAllAtRest()
        #expect(recorder.states == [.active, .atRest])
        #expect(recorder.stateFrames.last == predicted.max())
        #expect(recorder.values.last == CGPoint(x: 300, y: -40))
    }

    @Test("a composite value rests when its last component does, not its first")
    func compositeRestsWithLastComponent() throws {
        let runtime = MotionRuntime()
        // x travels far, y barely: y rests many frames before x.
        let spring = Spring(to: ReactiveProperty(CGPoint(x: 500, y: 0.6)), initialValue: ReactiveProperty(CGPoint.zero), threshold: 0.5)
        let recorder = StreamRecorder<CGPoint>()
        recorder.record(springSource(spring), in: runtime)
        try runtime.advance(by: frame60)
        let predicted = try restFrames(in: runtime)
        try #require(predicted.count == 2)
        #expect(predicted.min()! < predicted.max()!)
        try runtime.advanceUntilAllAtRest()
        #expect(recorder.states == [.active, .atRest])
        #expect(recorder.stateFrames.last == predicted.max())
    }

    @Test("changing the destination while moving keeps the velocity")
    func retargetKeepsVelocity() throws {
        let runtime = MotionRuntime()
        let destination = ReactiveProperty(Float(100))
        let spring = Spring(to: destination, initialValue: ReactiveProperty(Float(0)))
        let recorder = StreamRecorder<Float>()
        recorder.record(springSource(spring), in: runtime)
        try runtime.advanceFrames(5)
        let handle = try #require(onlySpring(in: runtime))
        let velocity = try runtime.kernel.velocity(of: handle)
        let value = try runtime.kernel.value(of: handle)
        #expect(velocity > 0)
        destination.value = -50
        #expect(try runtime.kernel.velocity(of: handle) == velocity)
        #expect(try runtime.kernel.value(of: handle) == value)
        #expect(try runtime.kernel.target(of: handle) == -50)
        try runtime.advanceUntilAllAtRest()
        #expect(recorder.values.last == -50)
        #expect(recorder.states == [.active, .atRest])
    }

    @Test("a destination set after rest starts the spring again")
    func restartAfterRest() throws {
        let runtime = MotionRuntime()
        let destination = ReactiveProperty(Float(10))
        let spring = Spring(to: destination, initialValue: ReactiveProperty(Float(0)))
        let recorder = StreamRecorder<Float>()
        recorder.record(springSource(spring), in: runtime)
        try runtime.advanceUntilAllAtRest()
        destination.value = 20
        #expect(recorder.states == [.active, .atRest, .active])
        try runtime.advanceUntilAllAtRest()
        #expect(recorder.states == [.active, .atRest, .active, .atRest])
        #expect(recorder.values.last == 20)
    }

    @Test("the threshold is the kernel's tolerance, and the configuration the kernel's")
    func thresholdAndConfiguration() throws {
        let runtime = MotionRuntime()
        let spring = Spring(to: ReactiveProperty(SIMD3<Float>(1, 2, 3)), initialValue: ReactiveProperty(SIMD3<Float>(0, 0, 0)), threshold: 0.01)
        #expect(spring.configuration.value == (try SpringConfiguration(tension: 342, friction: 30)))
        let recorder = StreamRecorder<SIMD3<Float>>()
        recorder.record(springSource(spring), in: runtime)
        let handles = allSprings(in: runtime)
        #expect(handles.count == 3)
        for handle in handles {
            #expect(try runtime.kernel.tolerance(of: handle) == Double(Float(0.01)))
            #expect(try runtime.kernel.configuration(of: handle).tension == 342)
            #expect(try runtime.kernel.configuration(of: handle).friction == 30)
        }
        spring.configuration.value = try SpringConfiguration(tension: 1323, friction: 91)
        for handle in handles {
            #expect(try runtime.kernel.configuration(of: handle).tension == 1323)
            #expect(try runtime.kernel.configuration(of: handle).friction == 91)
        }
        try runtime.advanceUntilAllAtRest()
        #expect(recorder.values.last == SIMD3<Float>(1, 2, 3))
    }

    @Test("a configuration first read after its streams connected reconfigures them, a cancelled one not")
    func configurationMadeAfterConnecting() throws {
        let runtime = MotionRuntime()
        let spring = Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)), threshold: 0.5)
        let recorders = (0..<4).map { _ in StreamRecorder<Float>() }
        let subscriptions = recorders.map { $0.record(springSource(spring), in: runtime) }
        #expect(allSprings(in: runtime).count == 4)
        // Two streams leave the spring's waiting list before the property is made: one from its
        // middle, and the newest (its head).
        subscriptions[1].cancel()
        subscriptions[3].cancel()
        #expect(allSprings(in: runtime).count == 2)
        let stiff = try SpringConfiguration(tension: 1323, friction: 91)
        #expect(spring.configuration.value == (try SpringConfiguration(tension: 342, friction: 30)))
        spring.configuration.value = stiff
        // A stream connected after the property was made observes it too.
        let late = StreamRecorder<Float>()
        late.record(springSource(spring), in: runtime)
        for handle in allSprings(in: runtime) {
            #expect(try runtime.kernel.configuration(of: handle).tension == 1323)
        }
        spring.configuration.value = try SpringConfiguration(tension: 200, friction: 20)
        for handle in allSprings(in: runtime) {
            #expect(try runtime.kernel.configuration(of: handle).tension == 200)
        }
        try runtime.advanceUntilAllAtRest()
        for recorder in [recorders[0], recorders[2], late] { #expect(recorder.values.last == 100) }
    }

    @Test("a spring that starts at its destination starts at rest and sends no values")
    func startsAtRest() throws {
        let runtime = MotionRuntime()
        let spring = Spring(to: ReactiveProperty(Float(5)), initialValue: ReactiveProperty(Float(5)))
        let recorder = StreamRecorder<Float>()
        recorder.record(springSource(spring), in: runtime)
        try runtime.advanceFrames(3)
        #expect(recorder.states == [.atRest])
        #expect(recorder.values.isEmpty)
        #expect(runtime.lastFrameDeliveryCount == 0)
    }

    @Test("every animatable type arrives exactly at its destination", arguments: 0..<9)
    func everyValueType(kind: Int) throws {
        switch kind {
        case 0: try settles(Float(0), Float(42))
        case 1: try settles(Double(0), Double(-42))
        case 2: try settles(CGFloat(0), CGFloat(7.5))
        case 3: try settles(CGPoint.zero, CGPoint(x: 12, y: -30))
        case 4: try settles(CGSize(width: 10, height: 10), CGSize(width: 100, height: 40))
        case 5: try settles(CGRect.zero, CGRect(x: 5, y: 6, width: 70, height: 80))
        case 6: try settles(SIMD2<Float>(0, 0), SIMD2<Float>(3, 4))
        case 7: try settles(SIMD3<Float>(0, 0, 0), SIMD3<Float>(3, 4, 5))
        default: try settles(SIMD4<Float>(0, 0, 0, 0), SIMD4<Float>(3, 4, 5, -6))
        }
    }

    private func settles<T: SpringAnimatable & Equatable>(_ start: T, _ end: T) throws {
        let runtime = MotionRuntime()
        let spring = Spring(to: ReactiveProperty(end), initialValue: ReactiveProperty(start), threshold: 0.01)
        let recorder = StreamRecorder<T>()
        recorder.record(springSource(spring), in: runtime)
        #expect(runtime.kernel.count == T.springComponentCount)
        let frames = try runtime.advanceUntilAllAtRest()
        #expect(frames != nil)
        #expect(recorder.values.last == end)
        #expect(recorder.states == [.active, .atRest])
    }

    @Test("pausing holds the springs; resuming restarts from initialValue and initialVelocity")
    func pauseAndResume() throws {
        let runtime = MotionRuntime()
        let position = ReactiveProperty(Float(0))
        let spring = Spring(to: ReactiveProperty(Float(100)), initialValue: position)
        var values: [Float] = []
        let subscription = springSource(spring).subscribe(in: runtime, next: { values.append($0) })
        try runtime.advanceFrames(3)
        subscription.pause()
        let handle = try #require(onlySpring(in: runtime))
        #expect(try runtime.kernel.isPaused(handle))
        let count = values.count
        try runtime.advanceFrames(3)
        #expect(values.count == count)
        position.value = 30
        spring.initialVelocity.value = -200
        subscription.resume()
        #expect(try runtime.kernel.value(of: handle) == 30)
        #expect(try runtime.kernel.velocity(of: handle) == -200)
        try runtime.advanceUntilAllAtRest()
        #expect(values.last == 100)
    }

    @Test("cancelling removes the springs from the kernel and stops the stream")
    func cancelRemovesSprings() throws {
        let runtime = MotionRuntime()
        let spring = Spring(to: ReactiveProperty(CGPoint(x: 100, y: 100)), initialValue: ReactiveProperty(CGPoint.zero))
        let recorder = StreamRecorder<CGPoint>()
        let subscription = recorder.record(springSource(spring), in: runtime)
        try runtime.advanceFrames(2)
        subscription.cancel()
        #expect(runtime.kernel.count == 0)
        #expect(runtime.isAllAtRest)
        try runtime.advanceFrames(2)
        #expect(recorder.values.count == 2)
        #expect(recorder.states == [.active])
    }
}

func onlySpring(in runtime: MotionRuntime) -> SpringHandle? {
    let handles = runtime.springHandles
    return handles.count == 1 ? handles[0] : nil
}

func allSprings(in runtime: MotionRuntime) -> [SpringHandle] {
    runtime.springHandles
}

/// The frame on which every moving spring in the runtime rests at 60 Hz, from its rest time.
func restFrames(in runtime: MotionRuntime) throws -> [Int] {
    try runtime.springHandles.compactMap { try runtime.kernel.restFrame(of: $0) }
}
