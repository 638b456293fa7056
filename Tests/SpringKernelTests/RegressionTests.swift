import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

/// Bugs the reliability work found in the kernel, each now fixed; these tests keep them fixed.
/// See Tests/RELIABILITY.md.
@Suite("Kernel regressions")
struct KernelRegressionTests {
    /// Was: the common frame matched `dt.bitPattern` against the plan's duration, and a stale plan
    /// was marked by the pattern 0, which is also `+0.0`'s, so `step(dt: 0)` skipped validation and
    /// ran the stale plan. Staleness is now a flag of its own.
    @Test("step(dt: 0) is refused even when the step plan is stale")
    func zeroTimeStepWithStalePlan() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 100, tolerance: 0.5)
        try bank.step(dt: 1.0 / 60)
        try bank.retarget(spring, to: 50)  // the plan is stale; no buffer moves
        let before = bank.stateHash()
        #expect(throws: SpringKernelError.invalidTimeStep(0)) { try bank.step(dt: 0) }
        #expect(bank.frame == 1)
        #expect(bank.stateHash() == before)
        try bank._checkInvariants()
    }

    /// The same bug after the batch's lanes grew was a heap-use-after-free (the stale plan pointed at
    /// buffers `LaneBuffer.grow` had freed); AddressSanitizer runs this test in CI.
    @Test("step(dt: 0) after growth must not touch freed lanes")
    func zeroTimeStepAfterGrowth() throws {
        let bank = SpringBank<Float32Lanes>()
        _ = try bank.add(value: 0, target: 100, tolerance: 0.5)
        try bank.step(dt: 1.0 / 60)
        for i in 0..<100 { try bank.add(value: Float(i), target: 200, tolerance: 0.5) }  // the batch's buffers move
        #expect(throws: SpringKernelError.invalidTimeStep(0)) { try bank.step(dt: 0) }
    }

    /// Was: `retarget(_:to:)` and its bulk form recomputed the displacement of a spring retargeted
    /// to the target it already had, (target + displacement) − target, which rounds it by up to an
    /// ulp, while the storage-order retarget (which skips unchanged targets) kept it; the same
    /// writes then gave different bits through the two APIs (found by `.ci/cross check`'s stream
    /// comparison). Now every form leaves such a spring as it is.
    @Test("a retarget to the target a spring already has changes nothing, in every form")
    func retargetToOwnTargetChangesNothing() throws {
        // A displacement whose sum with the target rounds: 3 + 2^-20 · 1.5 is not a float.
        let target: Float = 3, value: Float = 3 + 0x1.8p-20 * 1000
        for form in 0..<3 {
            let bank = SpringBank<Float32Lanes>(threading: .single)
            var springs: [SpringHandle] = []
            for i in 0..<40 { springs.append(try bank.add(value: value + Float(i) * 0x1p-12, target: target, velocity: 7, tolerance: 1e-6)) }
            try bank.step(dt: 1.0 / 60)
            let before = bank.stateHash()
            switch form {
            case 0: for spring in springs { try bank.retarget(spring, to: target) }
            case 1: try bank.retarget(springs, to: [Float](repeating: target, count: springs.count))
            default:
                let layout = bank.storageLayout()
                let targets = [Float](repeating: target, count: layout.count)
                try targets.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
            }
            #expect(bank.stateHash() == before, "form \(form)")
            try bank._checkInvariants()
        }
    }

    /// Was: the last step's event lists were cleared before `dt` was validated, so a refused step
    /// lost them. `dt` is now checked before anything changes.
    @Test("a refused step keeps the previous step's rest events")
    func refusedStepKeepsEvents() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 0.25, tolerance: 0.5)
        try bank.step(dt: 1.0 / 60)
        #expect(bank.restedInLastStep == [spring])
        #expect(throws: SpringKernelError.invalidTimeStep(-1)) { try bank.step(dt: -1) }
        #expect(bank.restedInLastStep == [spring])
    }

    /// Was: reconfiguring a moving spring that had been set exactly onto its target filed it as
    /// resting with no rest event. A moving spring now stays awake through a reconfiguration.
    @Test("a moving spring set onto its target and reconfigured still reports its rest")
    func silentRestOnReconfiguration() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 100, tolerance: 0.5)
        try bank.step(dt: 1.0 / 60)
        try bank.setState(of: spring, value: 100, velocity: 0)
        #expect(try !bank.isAtRest(spring))  // awake until the next step rests it, with an event
        try bank.setConfiguration(of: spring, to: try SpringConfiguration(tension: 500, friction: 20))
        var events: [SpringHandle] = []
        for _ in 0..<3 {
            try bank.step(dt: 1.0 / 60)
            events += bank.restedInLastStep
        }
        #expect(events == [spring])
        #expect(try bank.isAtRest(spring) && bank.value(of: spring) == 100)
    }

    /// Was: a reused record kept the removed spring's saturation mark. A reused record now starts
    /// clean but for its generation. (Valid input saturates only at the edge of the admitted motion,
    /// where rounding carries a lane to 2³⁰.)
    @Test("a new spring does not inherit the saturation mark of a removed one")
    func saturationMarkSurvivesRemoval() throws {
        let bank = FixedSpringBank()
        let edge = try FixedPointEdgeTests.addSpringAtTheEdge(to: bank)
        try bank.step(dt: 1.0 / 60)
        #expect(try bank.wasSaturated(edge))
        try bank.remove(edge)
        let fresh = try bank.add(value: 0, target: 10, tolerance: 1)
        #expect(fresh.index == edge.index)
        let inherited = try bank.wasSaturated(fresh)
        #expect(!inherited)
        try bank._checkInvariants()
    }

    /// Was: `DeterministicMath.sinCos` left remainders far beyond π/4 for arguments past about 10¹⁷
    /// radians (NaN past 10³⁴), so an enormous but valid dt gave a NaN propagator. Such arguments are
    /// now reduced first by the exact remainder (fmod's, computed in Swift) by 2π, which is deterministic.
    @Test("any finite positive dt gives a finite step, however long")
    func hugeTimeStepFloat() throws {
        let undamped = try SpringConfiguration(tension: 1e6, friction: 0, mass: 1e-6)
        let propagator = SpringMotion(undamped).propagator(over: 1e300)
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 100, configuration: undamped, tolerance: 0.5)
        try bank.step(dt: 1e300)
        let finitePropagator = [propagator.a11, propagator.a12, propagator.a21, propagator.a22].allSatisfy { $0.isFinite }
        let finiteLanes = try bank.value(of: spring).isFinite && bank.velocity(of: spring).isFinite
        #expect(finitePropagator)
        #expect(finiteLanes)
        // Within 2²⁰·π/2 radians the propagator is exact, at any duration: a day is one step.
        let day = SpringMotion(try SpringConfiguration(tension: 1, friction: 0)).propagator(over: 86_400)
        #expect(abs(day.a11 * day.a22 - day.a12 * day.a21 - 1) < 1e-12)
    }

    /// Was: the fixed-point format converted that NaN coefficient with `Int32(_:)`, which traps.
    /// The propagator is finite now, and a non-finite coefficient would read as 0. Run in a child
    /// process (an exit test), so a trap fails the test instead of the run.
    @Test("a fixed-point step of any finite positive dt does not trap")
    func hugeTimeStepFixedPoint() async {
        await #expect(processExitsWith: .success) {
            do {
                let bank = FixedSpringBank()
                _ = try bank.add(value: 0, target: 100, configuration: try SpringConfiguration(tension: 342, friction: 30), tolerance: 1)
                try bank.step(dt: 1e33)
            } catch {
                // A typed refusal would be a fine outcome too.
            }
        }
    }
}
