import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

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
    /// are refused now (ω₀² = k/m at least 10⁻⁴⁰, which also keeps a slow spring's swing within
    /// float32); at the edge, the motion never rests early and its lanes stay finite.
    @Test("a configuration whose tension/mass underflows is refused; at the edge it never rests early")
    func underflowingNaturalFrequency() throws {
        let minimum = SpringConfiguration.minimumStiffnessPerMass, tiny = Double.leastNonzeroMagnitude  // 5e-324
        for (k, c, m) in [(tiny, 0.0, 1e6), (tiny, 1e-9, 1e6), (tiny, 0, 1e-6), (1e-41, 0, 1), (1e-300, 0, 1), (minimum, 0, 1e6)] {
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
            // Undamped, lightly damped, critically damped and at the largest damping ratio.
            let omega0 = (edge / mass).squareRoot()
            for zeta in [0, 1e-3, 1, SpringConfiguration.maximumDampingRatio * (1 - 1e-9)] {
                let configuration = try SpringConfiguration(tension: edge, friction: 2 * mass * zeta * omega0, mass: mass)
                let bank = SpringBank<Float32Lanes>()
                let spring = try bank.add(value: 0, target: 100, configuration: configuration, tolerance: 0.5)
                // Its exact motion takes longer than 10¹⁹ s to come within 0.5 of its target (or
                // never does): no step may report it at rest.
                #expect(try bank.restTime(of: spring) > 1e19, "\(configuration)")
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

    /// Found by the fuzzer (Fuzz/Corpus/bank/regression-early-rest-huge-damping-ratio): an
    /// over-damped spring with ζ ≈ 5·10¹³⁴ (tension 10⁻²⁹⁴, friction 10⁻⁹, mass 10⁶) pushed from
    /// its target rested after one step of 887 s while it drifted 443 units away: β/σ rounds to 1,
    /// so the predictor could not place the motion's extremum and took it for already falling.
    /// Damping ratios above 10⁶ are refused now; at 10⁶ the extremum is found.
    @Test("a damping ratio above 10^6 is refused; at the limit a pushed spring does not rest early")
    func hugeDampingRatio() throws {
        #expect(throws: SpringKernelError.invalidConfiguration(.dampingRatio)) {
            try SpringConfiguration(tension: 1e-30, friction: 1e-3, mass: 1e6)  // ζ = 5·10⁸
        }
        #expect(throws: SpringKernelError.invalidConfiguration(.dampingRatio)) {
            try SpringConfiguration(tension: 1e-12, friction: 2 * 1e-6 * 1e6 * 1.000001, mass: 1)  // ζ = 1.000001·10⁶
        }
        for (k, m) in [(0.25, 1.0), (1e-12, 1), (1e-34, 1e6)] {
            let omega0 = (k / m).squareRoot()
            let configuration = try SpringConfiguration(tension: k, friction: 2 * m * omega0 * 1e6 * (1 - 1e-12), mass: m)
            for format in 0..<2 {
                let rested: Bool
                if format == 0 {
                    let bank = SpringBank<Float32Lanes>()
                    _ = try bank.add(value: 0, target: 0, velocity: 0.5, configuration: configuration, tolerance: 1.0 / 65536)
                    try bank.step(dt: 887)
                    rested = !bank.restedInLastStep.isEmpty
                    try bank._checkInvariants()
                } else {
                    let bank = FixedSpringBank()
                    // The Q16.16 lanes hold motions of up to 2¹⁶ tolerances: a slow spring pushed
                    // this hard is refused, which cannot rest early either.
                    do {
                        _ = try bank.add(value: 0, target: 0, velocity: Q16(0.5)!, configuration: configuration, tolerance: .resolution)
                    } catch .outOfRange {
                        continue
                    }
                    try bank.step(dt: 887)
                    rested = !bank.restedInLastStep.isEmpty
                    try bank._checkInvariants()
                }
                // σ = 10⁶ ω₀: it drifts at 0.5/s for about 1/(2σ) s before its slow decay, so it is
                // still far outside a band of 2⁻¹⁶ after 887 s unless σ is very large.
                let exact = SpringMotion(configuration).displacement(after: 887, from: 0, velocity: 0.5)
                #expect(!rested || abs(exact) <= 1.0 / 65536, "\(configuration): rested at 887 s, exact d \(exact)")
            }
        }
    }

    /// Found by the fuzzer (Fuzz/Corpus/bank/regression-overflowing-lower-bound and
    /// -overflowing-amplitude), with ω₀ = 10⁻¹⁵⁰ rad/s (before the 10⁻⁴⁰ floor on ω₀²): an amplitude
    /// whose square overflows made the cheap lower bound ∞ (so the spring was never predicted)
    /// and the exact prediction ∞ (so it never rested), although the motion settles. Valid
    /// springs in a bank no longer get there, but the predictor's public entry point does
    /// (`settlingDuration` takes any finite distance): the bound is 0 when it overflows, and the
    /// amplitude is computed scaled.
    @Test("a rest prediction whose amplitude squared overflows is finite, and its lower bound below it")
    func overflowingAmplitude() throws {
        let slow = try SpringConfiguration(tension: 1e-40, friction: 1e-40, mass: 1)
        let motion = SpringMotion(slow)
        let restTime = SettlePredictor.restTime(displacement: 0, velocity: 1e15, tolerance: 1e-250, motion: motion)
        let bound = SettlePredictor.restTimeLowerBound(displacement: 0, velocity: 1e15, tolerance: 1e-250, motion: motion)
        #expect(restTime.isFinite && bound <= restTime, "rest \(restTime), bound \(bound)")
        let far = SpringConfiguration.default.settlingDuration(distance: 1e200, tolerance: 1)
        #expect(far.isFinite && far > 0, "settlingDuration from 1e200: \(far)")
        let slowFar = slow.settlingDuration(distance: 1e200, tolerance: 1)
        #expect(slowFar.isFinite && slowFar > 1e40, "\(slowFar)")
    }

    /// Found by the fuzzer (Fuzz/Corpus/bank/regression-float32-velocity-underflow): with ω₀ =
    /// 10⁻¹⁵⁰ (tension 10⁻²⁹⁴, mass 10⁶, undamped) a step of 1.7·10²¹² s gave the float32
    /// coefficient sin(ωt)/ω ≈ 10¹⁵⁰, ∞ in float32, and ∞ · 0 made the lanes NaN. The floor on ω₀²
    /// is 10⁻⁴⁰ now, where every valid spring's swing (at most 10¹⁵/ω₀ = 10³⁵) fits float32.
    @Test("the slowest valid springs keep finite float32 lanes from the extreme states at any dt")
    func slowestSpringsStayFinite() throws {
        let minimum = SpringConfiguration.minimumStiffnessPerMass
        let bank = SpringBank<Float32Lanes>()
        var springs: [SpringHandle] = []
        for mass in [1e-6, 1, 1e6] {
            var k = minimum * mass
            while k / mass < minimum { k = k.nextUp }
            let omega0 = (k / mass).squareRoot()
            for zeta in [0, 1e-6, 1, 1e6 * (1 - 1e-9)] {
                let c = 2 * mass * zeta * omega0
                guard c <= SpringConfiguration.parameterLimit else { continue }
                let configuration = try SpringConfiguration(tension: k, friction: c, mass: mass)
                for (value, target, velocity) in [(Float(1e15), Float(-1e15), Float(1e15)), (0, 0, -1e15), (Float.leastNonzeroMagnitude, -32768, 0)] {
                    springs.append(try bank.add(value: value, target: target, velocity: velocity, configuration: configuration, tolerance: 0.5))
                }
            }
        }
        // The fuzzer's configuration: refused now (underflowingNaturalFrequency); were it accepted,
        // its lanes would have to stay finite too.
        if let fuzzed = try? SpringConfiguration(tension: 1e-294, friction: 0, mass: 1e6) {
            springs.append(try bank.add(value: Float.leastNonzeroMagnitude, target: -32768, velocity: 0, configuration: fuzzed, tolerance: 4.4679956))
        }
        for dt in [1.0 / 60, 1e20, 1e39, 1.6832434884954795e212, .greatestFiniteMagnitude] {
            for _ in 0..<3 {
                try bank.step(dt: dt)
                for spring in springs {
                    let finite = try bank.value(of: spring).isFinite && bank.velocity(of: spring).isFinite
                    let configuration = try bank.configuration(of: spring)
                    #expect(finite, "\(configuration) after steps of \(dt) s")
                }
            }
        }
        try bank._checkInvariants()
    }

    /// Found by the fuzzer (Fuzz/Corpus/bank/regression-fixed-clock-extremum-past-horizon): under a
    /// fixed frame clock, an over-damped slow spring pushed from its target (ω₀ = 10⁻²⁰, ζ = 10⁶,
    /// d 0, v −32768) has its extremum 10¹⁵ s away, past the predictor's horizon of 2³¹ frames;
    /// the sampled prediction then skipped the rise and said 0 frames, and the next step snapped
    /// the spring 546 units from its target. It says "not within the horizon" now.
    @Test("under a fixed clock, a spring still rising at the horizon is not predicted at rest")
    func extremumPastHorizon() throws {
        let configuration = try SpringConfiguration(tension: 1e-34, friction: 1.999999998e-08, mass: 1e6)
        let prediction = SettlePredictor.restFrame(
            displacement: 0, velocity: -32768, tolerance: 1.0 / 256, motion: SpringMotion(configuration), frameDuration: 1.0 / 60)
        #expect(prediction == SettlePredictor.horizon)
        for critical in [false, true] {
            let slow = critical ? try SpringConfiguration(tension: 1e-34, friction: 2e-14, mass: 1e6) : configuration
            let bank = SpringBank<Float32Lanes>()
            try bank.setFrameClock(.fixed(frameDuration: 1.0 / 60))
            _ = try bank.add(value: 0, target: 0, velocity: -32768, configuration: slow, tolerance: 1.0 / 256)
            for _ in 0..<10 { try bank.step(dt: 1.0 / 60) }
            #expect(bank.restedInLastStep.isEmpty && bank.awakeCount == 1, "\(slow)")
            // The Q16.16 lanes hold motions of up to 2¹⁶ tolerances: this one is refused.
            #expect(throws: SpringKernelError.outOfRange(.velocity)) {
                try FixedSpringBank().add(value: 0, target: 0, velocity: .min, configuration: slow, tolerance: Q16(1.0 / 256)!)
            }
        }
    }

    /// Found by the fuzzer (Fuzz/Corpus/bank/regression-infinite-clock): the rest schedule used the
    /// bank's running sum of durations as its clock. After steps of the largest Double it was ∞
    /// and a spring added then was never due (never rested); after a step of 10³⁰⁰ s it could not
    /// tell 1/60 s from 0, and a spring changed then rested at the next step, early. The
    /// schedule's clock is rebased every 2²⁰ s now.
    @Test("after a step of any length, a spring changed later rests on the frame a fresh bank rests it", arguments: [1e17, 1e300, .greatestFiniteMagnitude])
    func restAfterHugeStep(dt: Double) throws {
        func restFrame(after hitches: Int) throws -> Int? {
            let bank = SpringBank<Float32Lanes>()
            for _ in 0..<hitches { try bank.step(dt: dt) }
            let start = bank.frame
            let spring = try bank.add(value: 0, target: 100, tolerance: 0.5)
            try bank._checkInvariants()
            for _ in 0..<600 {
                try bank.step(dt: 1.0 / 60)
                if bank.restedInLastStep == [spring] { return bank.frame - start }
            }
            return nil
        }
        let fresh = try restFrame(after: 0)
        #expect(fresh != nil)
        for hitches in [1, 2, 3] { #expect(try restFrame(after: hitches) == fresh, "after \(hitches) steps of \(dt) s") }
    }

    /// Was: `clearSaturation(of:)` and the `threading` setter changed the bank from inside a
    /// resume's restart closure, where every change is refused. Both are refused now (threading is
    /// set with ``SpringBank/setThreading(_:)``, which can say so).
    @Test("clearSaturation and setThreading are refused inside a restart closure")
    func changesInsideRestartClosure() throws {
        let bank = FixedSpringBank()
        let spring = try FixedPointEdgeTests.addSpringAtTheEdge(to: bank)
        try bank.step(dt: 1.0 / 60)
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
