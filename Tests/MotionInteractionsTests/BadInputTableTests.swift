import Foundation
@testable import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

/// A value type that breaks `SpringAnimatable`'s documented requirement (1 to 4 components).
struct FiveComponents: SpringAnimatable {
    static var springComponentCount: Int { 5 }
    init(springComponents components: SIMD4<Float>) {}
    var springComponents: SIMD4<Float> { .zero }
}

struct NoComponents: SpringAnimatable {
    static var springComponentCount: Int { 0 }
    init(springComponents components: SIMD4<Float>) {}
    var springComponents: SIMD4<Float> { .zero }
}

/// Rows of the bad-input table (Tests/RELIABILITY.md) for the interaction layer that no other
/// test covered.
@Suite("Bad input table (interaction layer)")
struct InteractionBadInputTableTests {
    /// Was: `MotionRuntime(capacity:)` passed any capacity to the kernel, which aborted above 2³⁰
    /// and trapped at `Int.max`. It throws now; a runtime made without a capacity cannot fail.
    @Test("a runtime capacity outside 0...2^30 is refused", arguments: [-1, SpringBank<Float32Lanes>.maximumSpringCount + 1, .max])
    func runtimeCapacity(capacity: Int) throws {
        #expect(throws: MotionRuntimeError.invalidCapacity(capacity)) { try MotionRuntime(capacity: capacity) }
        let runtime = try MotionRuntime(capacity: 64)
        #expect(runtime.isAllAtRest)
    }

    @Test("advancing by timestamp or stepping from inside a delivery's callback throws reentrantAdvance and the frame completes")
    func reentrantFromCallbacks() throws {
        let runtime = MotionRuntime()
        var errors: [MotionRuntimeError] = []
        var values = 0
        let stream = springSource(Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0))))
        let meddle: (Float) -> Void = { [unowned runtime] _ in
            values += 1
            do throws(MotionRuntimeError) { try runtime.advance(toTimestamp: 99) } catch { errors.append(error) }
            do throws(MotionRuntimeError) { try runtime.stepSprings(by: 1.0 / 60) } catch { errors.append(error) }
        }
        let other = StreamRecorder<Float>()
        stream.subscribe(in: runtime, next: meddle)
        other.record(springSource(Spring(to: ReactiveProperty(Float(-100)), initialValue: ReactiveProperty(Float(0)))), in: runtime)
        try runtime.advanceFrames(2)
        #expect(errors == Array(repeating: .reentrantAdvance, count: 4))
        #expect(values == 2 && other.values.count == 2 && runtime.kernel.frame == 2)
    }

    @Test("a kernel that refuses the stream's springs (65,536 configurations already): the stream is at rest and inert")
    func kernelFull() throws {
        let runtime = MotionRuntime()
        for i in 0..<SpringBank<Float32Lanes>.maximumConfigurationCount {
            try runtime.bank.add(value: 0, target: 0, configuration: try SpringConfiguration(tension: Double(i + 1)), tolerance: 1)
        }
        let count = runtime.kernel.count
        let spring = Spring(to: ReactiveProperty(CGPoint(x: 50, y: 50)), initialValue: ReactiveProperty(CGPoint.zero))
        spring.configuration.value = try SpringConfiguration(tension: 0.5, friction: 3)
        let recorder = StreamRecorder<CGPoint>()
        let subscription = recorder.record(springSource(spring), in: runtime)
        #expect(recorder.states == [.atRest])
        #expect(runtime.kernel.count == count)  // the first component's spring was taken out again
        spring.destination.value = CGPoint(x: 1, y: 1)
        subscription.pause()
        subscription.resume()
        try runtime.advanceFrames(2)
        #expect(recorder.states == [.atRest] && recorder.values.isEmpty)
        subscription.cancel()
    }

    @Test("a rubber band with a zero, negative or non-finite reach clamps to its bounds")
    func rubberBandReach() {
        let bounds = CGRect(x: 0, y: 0, width: 100, height: 50)
        for reach in [0, -10, CGFloat.nan, .infinity] {
            let band = RubberBand(bounds: bounds, maximumOverflow: reach)
            #expect(band.apply(to: CGPoint(x: 150, y: -20)) == CGPoint(x: 100, y: 0), "reach \(reach)")
            #expect(band.apply(to: CGPoint(x: 20, y: 30)) == CGPoint(x: 20, y: 30))
        }
        let finite = RubberBand(bounds: bounds, maximumOverflow: 40).apply(to: CGPoint(x: 1e300, y: -1e300))
        #expect(finite.x <= 140 && finite.y >= -40)
    }

    @Test("a recognizer made with a non-finite or non-positive speed limit or window uses no limit and a 0.1 s window")
    func recognizerParameters() {
        for (speed, window) in [(Double.nan, Double.nan), (0, 0), (-5, -1), (.infinity, .infinity)] {
            let drag = GestureRecognizer(maximumSpeed: speed, velocityWindow: window)
            #expect(drag.maximumSpeed == .greatestFiniteMagnitude && drag.velocityWindow == 0.1)
            drag.handle(.began(timestamp: 0))
            drag.handle(.changed(translation: CGPoint(x: 1e300, y: 0), timestamp: 1e-9))
            #expect(drag.velocity.x.isFinite && drag.velocity.y.isFinite)
        }
    }

    @Test("an element's coordinate scale must be finite and positive: a zero scale is a precondition failure")
    func coordinateScale() async {
        await #expect(processExitsWith: .failure) { _ = MotionElement(coordinateScale: 0) }
        await #expect(processExitsWith: .failure) { _ = MotionElement(coordinateScale: .nan) }
        await #expect(processExitsWith: .failure) { _ = MotionElement(coordinateScale: -1) }
    }

    @Test("a SpringAnimatable type outside 1 to 4 components is a precondition failure when it is subscribed")
    func componentCount() async {
        await #expect(processExitsWith: .failure) {
            let runtime = MotionRuntime()
            _ = springSource(Spring(to: ReactiveProperty(FiveComponents(springComponents: .zero)), initialValue: ReactiveProperty(FiveComponents(springComponents: .zero))))
                .subscribe(in: runtime, next: { _ in })
        }
        await #expect(processExitsWith: .failure) {
            let runtime = MotionRuntime()
            _ = springSource(Spring(to: ReactiveProperty(NoComponents(springComponents: .zero)), initialValue: ReactiveProperty(NoComponents(springComponents: .zero))))
                .subscribe(in: runtime, next: { _ in })
        }
    }
}
