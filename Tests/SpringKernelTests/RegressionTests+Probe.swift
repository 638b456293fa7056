import Foundation
import Testing
@testable import SpringKernel

/// Defects a probe of the library with hostile input found (issue 15), each now fixed.
extension KernelRegressionTests {
    /// Was: ω·dt overflowed to ∞ for an undamped spring stepped with dt ≥ ~10³⁰⁷ s, sin and cos of
    /// ∞ are NaN, the lanes went NaN, and the predictor then called the spring at rest and snapped
    /// it. The phase is now reduced modulo the period before it can overflow.
    @Test("an undamped spring stepped up to the largest Double stays finite and keeps swinging", arguments: [1e307, 1.7e308, .greatestFiniteMagnitude])
    func undampedLongestStep(dt: Double) throws {
        for configuration in [try SpringConfiguration(tension: 1e6, friction: 0, mass: 1e-6), try SpringConfiguration(tension: 1, friction: 0)] {
            let p = SpringMotion(configuration).propagator(over: dt)
            let finite = [p.a11, p.a12, p.a21, p.a22].allSatisfy { $0.isFinite }
            #expect(finite, "\(configuration) dt \(dt)")
            // Still a rotation of the (d, v/ω) plane: undamped motion keeps its energy.
            let omega = configuration.naturalFrequency
            #expect(abs(p.a11 * p.a22 - p.a12 * p.a21 - 1) < 1e-9)
            #expect(abs(p.a11 * p.a11 + p.a21 * p.a21 / (omega * omega) - 1) < 1e-9)

            let bank = SpringBank<Float32Lanes>()
            let spring = try bank.add(value: 0, target: 100, configuration: configuration, tolerance: 0.5)
            for _ in 0..<3 {
                try bank.step(dt: dt)
                #expect(try bank.value(of: spring).isFinite && bank.velocity(of: spring).isFinite, "\(configuration) dt \(dt)")
                #expect(bank.restedInLastStep.isEmpty, "an undamped spring swinging 100 units rests only if its motion is in its band")
                #expect(try bank.restTime(of: spring) == .infinity)
            }
            let fixed = FixedSpringBank()
            let q = try fixed.add(value: 0, target: 100, configuration: configuration, tolerance: Q16(0.5)!)
            for _ in 0..<3 {
                try fixed.step(dt: dt)
                #expect(fixed.restedInLastStep.isEmpty && fixed.awakeCount == 1, "\(configuration) dt \(dt)")
            }
            _ = q
        }
    }

    /// Was: tension 5·10⁻³²⁴ over mass 10⁶ underflows to ω₀² = 0, which the closed form takes for a
    /// free particle (critically damped with σ = 0, or over-damped with a zero slow rate): the
    /// spring was reported at rest and snapped while its exact motion went on. Such configurations
    /// are refused now (ω₀² = k/m at least 10⁻³⁰⁰); at the edge, the motion never rests early.
    @Test("a configuration whose tension/mass underflows is refused; at the edge it never rests early")
    func underflowingNaturalFrequency() throws {
        let minimum = SpringConfiguration.minimumStiffnessPerMass, tiny = Double.leastNonzeroMagnitude  // 5e-324
        for (k, c, m) in [(tiny, 0.0, 1e6), (tiny, 1e-9, 1e6), (tiny, 0, 1e-6), (1e-301, 0, 1), (minimum, 0, 1e6)] {
            #expect(throws: SpringKernelError.invalidConfiguration(.naturalFrequency)) {
                try SpringConfiguration(tension: k, friction: c, mass: m)
            }
        }
        // The edge, for each mass: the smallest tension accepted, and the one below it refused.
        for mass in [SpringConfiguration.minimumMass, 1, 1e6] {
            var edge = minimum * mass
            while edge / mass < minimum { edge = edge.nextUp }
            while (edge.nextDown / mass) >= minimum { edge = edge.nextDown }
            #expect(throws: SpringKernelError.invalidConfiguration(.naturalFrequency)) {
                try SpringConfiguration(tension: edge.nextDown, mass: mass)
            }
            for friction in [0, 1e-9, 1, 1e6] {
                let configuration = try SpringConfiguration(tension: edge, friction: friction, mass: mass)
                let bank = SpringBank<Float32Lanes>()
                let spring = try bank.add(value: 0, target: 100, configuration: configuration, tolerance: 0.5)
                // Its exact motion takes longer than 10¹⁰⁰ s to come within 0.5 of its target (or
                // never does): no step may report it at rest.
                #expect(try bank.restTime(of: spring) > 1e100, "\(configuration)")
                for dt in [1.0 / 60, 1, 1e6, 1e12] {
                    try bank.step(dt: dt)
                    #expect(bank.restedInLastStep.isEmpty, "\(configuration) rested after a step of \(dt) s")
                }
                let fixed = FixedSpringBank()
                _ = try fixed.add(value: 0, target: 100, configuration: configuration, tolerance: Q16(0.5)!)
                for _ in 0..<3 { try fixed.step(dt: 1.0 / 60) }
                #expect(fixed.awakeCount == 1, "\(configuration)")
            }
        }
    }

    /// Was: `clearSaturation(of:)` and the `threading` setter changed the bank from inside a
    /// resume's restart closure, where every change is refused. Both are refused now (threading is
    /// set with ``SpringBank/setThreading(_:)``, which can say so).
    @Test("clearSaturation and setThreading are refused inside a restart closure")
    func changesInsideRestartClosure() throws {
        let bank = FixedSpringBank()
        let spring = try bank.add(value: 0, target: Q16.max, velocity: .max, configuration: try SpringConfiguration(tension: 0.01, friction: 0), tolerance: Q16(raw: 1))
        try bank.step(dt: 1)
        #expect(try bank.wasSaturated(spring))
        let mask = try bank.makePauseMask([spring])
        try bank.pause(mask)
        let before = bank.stateHash()
        var refused: [SpringKernelError?] = []
        try bank.resume(mask) { _ in
            refused.append(Self.refusal { () throws(SpringKernelError) in try bank.clearSaturation(of: spring) })
            refused.append(Self.refusal { () throws(SpringKernelError) in try bank.setThreading(.fixed(2)) })
            return nil
        }
        #expect(refused == [.reentrantMutation, .reentrantMutation])
        #expect(try bank.wasSaturated(spring))
        #expect(bank.threading == .automatic)
        _ = before
        try bank.clearSaturation(of: spring)
        try bank.setThreading(.single)
        #expect(try !bank.wasSaturated(spring) && bank.threading == .single)
    }

    /// Was: taking a spring out of a mask that did not list it succeeded silently, hiding a caller
    /// that had lost track of its masks. It is a typed error now, and changes nothing.
    @Test("removing a spring from a mask that does not list it is refused")
    func removeFromMaskNotListing() throws {
        let bank = SpringBank<Float32Lanes>()
        let a = try bank.add(value: 0, target: 10, tolerance: 0.5)
        let b = try bank.add(value: 0, target: 20, tolerance: 0.5)
        let mask = try bank.makePauseMask([a])
        try bank.pause(mask)
        let before = bank.stateHash()
        #expect(throws: SpringKernelError.notInMask(b, mask)) { try bank.remove(b, from: mask) }
        let members = try bank.springs(in: mask)
        #expect(bank.stateHash() == before && members == [a])
        try bank.remove(a, from: mask)
        #expect(throws: SpringKernelError.notInMask(a, mask)) { try bank.remove(a, from: mask) }
        #expect(try !bank.isPaused(a))
        try bank._checkInvariants()
    }

    /// Was: `SpringBank(capacity:)` aborted above 2³⁰ and trapped at `Int.max` (and so did
    /// `MotionRuntime(capacity:)`, through it). A capacity no bank can hold is a typed error now.
    @Test("a capacity outside 0...maximumSpringCount is refused", arguments: [-1, SpringBank<Float32Lanes>.maximumSpringCount + 1, .max, .min])
    func capacityOutOfRange(capacity: Int) {
        #expect(throws: SpringKernelError.invalidCapacity(capacity)) { try SpringBank<Float32Lanes>(capacity: capacity) }
        #expect(throws: SpringKernelError.invalidCapacity(capacity)) { try FixedSpringBank(threading: .single, capacity: capacity) }
    }

    /// `restTime(of:)` says `.infinity` (not a huge finite number) for a spring that never rests,
    /// and 0 for one at rest.
    @Test("restTime of a spring that never rests is infinity")
    func restTimeNeverResting() throws {
        let bank = SpringBank<Float32Lanes>()
        let undamped = try SpringConfiguration(tension: 342, friction: 0)
        let swinging = try bank.add(value: 0, target: 100, configuration: undamped, tolerance: 0.5)
        let inside = try bank.add(value: 100.25, target: 100, configuration: undamped, tolerance: 0.5)
        let resting = try bank.add(value: 3, target: 3, tolerance: 0.5)
        #expect(try bank.restTime(of: swinging) == .infinity)
        #expect(try bank.restTime(of: inside) == 0)
        #expect(try bank.restTime(of: resting) == 0)
        for _ in 0..<600 { try bank.step(dt: 1.0 / 60) }
        #expect(try bank.restTime(of: swinging) == .infinity && !bank.isAtRest(swinging))
    }

    /// The error `body` throws, or nil.
    static func refusal(_ body: () throws(SpringKernelError) -> Void) -> SpringKernelError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
