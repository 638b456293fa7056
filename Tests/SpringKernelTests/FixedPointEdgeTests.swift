import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

/// The edges of the Q16.16 format: Int32 bounds at the API, the motion bound (an energy norm of
/// 2³⁰ lane steps), saturation in the step, the smallest and largest configurations, and frame
/// durations from a denormal to a million seconds. Every outcome is a typed error, or the
/// documented saturation (a lane beyond ±2³⁰ clamped to ±(2³⁰ − 1), reported, never wrapped);
/// nothing traps. Steps are compared with the format's arithmetic written out in `Double`
/// (``Q16Reference``).
@Suite("Fixed point at its edges")
struct FixedPointEdgeTests {
    static let extremeConfigurations: [SpringConfiguration] = [
        // Smallest tension per mass (ω₀² = 10⁻⁴⁰), with and without friction, heaviest and lightest.
        try! SpringConfiguration(tension: 1e-34, friction: 0, mass: 1e6),
        try! SpringConfiguration(tension: 1e-46, friction: 1e-20, mass: 1e-6),  // ζ = 5·10⁵
        try! SpringConfiguration(tension: 1e-40, friction: 1e-40, mass: 1),
        // Largest tension: stiffest per mass (ω₀ = 10⁶ rad/s), undamped and heavily damped.
        try! SpringConfiguration(tension: 1e6, friction: 0, mass: 1e-6),
        try! SpringConfiguration(tension: 1e6, friction: 1e6, mass: 1e-6),
        try! SpringConfiguration(tension: 1e6, friction: 1e6, mass: 1e6),
        try! SpringConfiguration(tension: 1e6, friction: 2000, mass: 1),  // critically damped, stiffest at mass 1
        .default,
    ]

    static let extremeDurations: [Double] = [.leastNonzeroMagnitude, 1e-9, 1e-6, 1.0 / 240, 1.0 / 60, 2, 3600, 1e6]

    /// Lane states at and next to the Int32 bounds and the motion bound ±2³⁰.
    static let extremeLanes: [(d: Int32, v: Int32)] = [
        (.max, .max), (.min, .min), (.max, .min), (.min, .max), (.max, 0), (0, .min), (1, -1), (.min + 1, .max - 1),
        (1 << 30, 0), ((1 << 30) - 1, 0), (-(1 << 30), 0), (-(1 << 30) - 1, 0), (0, 1 << 30), (0, -(1 << 30) - 1),
    ]

    /// Tolerances from a point-scale band to an opacity's and below: lane scales 0 to 10.
    static let tolerances: [Double] = [2, 0.5, 1.0 / 256, 0.001, 1.0 / 65536]

    /// The slow undamped spring (ω = 2⁻⁹ rad/s, so its lanes hold velocities 2⁹ finer than Q16) at
    /// the edge of the motion the format admits: its displacement lane 2³⁰ − 1 (16384 − 2⁻¹⁶
    /// units above `target`, tolerance 0.5), its velocity lane 80·2⁹, an energy norm 2³⁰ − 0.22.
    /// Its exact motion reaches 2³⁰ − 0.24 lane steps in the next 1/60 s (an increment of 0.76),
    /// and rounding to nearest carries the lane to 2³⁰: the one way valid input reaches a
    /// saturation.
    static let edgeConfiguration = try! SpringConfiguration(tension: 0x1p-18, friction: 0, mass: 1)

    static let edgeVelocity = Q16(raw: 80)

    static func addSpringAtTheEdge(to bank: FixedSpringBank, target: Q16 = .zero) throws -> SpringHandle {
        try bank.add(
            value: Q16(raw: target.raw + (1 << 30) - 1), target: target, velocity: edgeVelocity,
            configuration: edgeConfiguration, tolerance: Q16(raw: 1 << 15))
    }

    @Test("every configuration from the smallest to the largest, at every duration and lane scale: the step is the format's arithmetic, never wrapping")
    func extremesFollowTheArithmetic() throws {
        var saturated = 0, checked = 0
        for configuration in Self.extremeConfigurations {
            for tolerance in Self.tolerances {
                let scale = Q16Lanes.laneScale(tolerance: tolerance, naturalFrequency: configuration.naturalFrequency)
                for dt in Self.extremeDurations {
                    // The coefficients themselves: no trap, each finite and at most 4 in magnitude.
                    let coefficients = Q16Lanes.coefficients(of: SpringMotion(configuration).propagator(over: dt), scale: scale)
                    // (ω = 0, from a tension that underflows, leaves b12 = dt unscaled: no spring of
                    // it can be stored, its energy norm is NaN, so its coefficients never step a lane.)
                    for i in 0..<4 where configuration.naturalFrequency > 0 || i != 1 {
                        #expect(Float(bitPattern: coefficients[i]).magnitude <= 4, "\(configuration) dt \(dt) \(scale)")
                    }
                    #expect((4..<8).allSatisfy { coefficients[$0] == 0 })
                    for lanes in Self.extremeLanes {
                        let (d, v, outside) = Q16Reference.step(lanes.d, lanes.v, coefficients, clamp: false)
                        let kernel = Q16Lanes.step(displacement: lanes.d, velocity: lanes.v, coefficients: coefficients)
                        #expect(kernel.displacement == d && kernel.velocity == v && kernel.saturated == outside, "\(configuration) dt \(dt) from \(lanes)")
                        saturated += outside ? 1 : 0
                        checked += 1
                    }
                }
            }
        }
        #expect(saturated > 0)
        print("fixed-point edges: \(checked) extreme steps follow the reference arithmetic, \(saturated) of them saturated")
    }

    @Test("the step flags exactly the lanes beyond ±2³⁰, and a saturated lane clamps to ±(2³⁰ − 1)")
    func saturationFlagAndClamp() throws {
        // dt = 0.1 ns: a11 − 1 and a22 − 1 flush to 0 and a12, a21 are 10⁻¹⁰, so every increment
        // rounds to 0 and each lane steps onto itself.
        let still = Q16Lanes.coefficients(of: SpringMotion(try SpringConfiguration(tension: 1, friction: 0)).propagator(over: 1e-10))
        #expect(still[0] == 0 && still[3] == 0)
        #expect(Float(bitPattern: still[1]).magnitude * 0x1p31 < 0.5 && Float(bitPattern: still[2]).magnitude * 0x1p31 < 0.5)
        let bound: Int64 = 1 << 30
        let top: Int32 = 1 << 30
        let lanes: [Int32] = [.max, .min, top, top - 1, -top, -top - 1, 0, 1, -1]
        for lane in lanes {
            let states: [(Int32, Int32)] = [(lane, 0), (0, lane)]
            for (d, v) in states {
                let step = Q16Lanes.step(displacement: d, velocity: v, coefficients: still)
                #expect(step.displacement == d && step.velocity == v)
                let outside = Int64(lane) >= bound || Int64(lane) < -bound
                #expect(step.saturated == outside, "lane \(lane)")
                #expect(Q16Lanes.isSaturated(lanePattern: UInt32(bitPattern: lane)) == outside)
                let clamped = Int32(bitPattern: Q16Lanes.saturating(lanePattern: UInt32(bitPattern: lane)))
                #expect(Int64(clamped) == min(max(Int64(lane), -bound + 1), bound - 1))
                #expect(!Q16Lanes.isSaturated(lanePattern: UInt32(bitPattern: clamped)))
            }
        }
    }

    @Test("a bank at the edge of the admitted motion saturates by rounding, and clamps and reports it on the next frame that checks the bound, moving and paused springs alike, with every loop, never wrapped")
    func bankAtTheBounds() throws {
        for path in [StepPath.simd, .scalar] {
            for threading in [StepThreading.single, .fixed(2)] {
                let bank = FixedSpringBank(threading: threading)
                let reference = Q16Reference()
                // The edge springs join after frame 14: rounding carries them past the bound on
                // frame 15, which does not check it, and the check of frame 16 finds them there.
                _ = try bank.add(value: 0, target: 10, tolerance: 1)
                for _ in 0..<15 { try bank.step(dt: 1.0 / 60) }
                var springs: [(SpringHandle, Q16Reference.State)] = []
                // 40 springs at the edge, about targets across the range, so bundles split across threads.
                for i in 0..<40 {
                    let target = Q16(raw: Int32(i - 20) * (1 << 25))
                    let spring = try Self.addSpringAtTheEdge(to: bank, target: target)
                    let start = try reference.start(value: Q16(raw: target.raw + (1 << 30) - 1), target: target, velocity: Self.edgeVelocity)
                    springs.append((spring, try reference.stored(start, configuration: Self.edgeConfiguration, tolerance: 0.5)))
                }
                let paused = try bank.makePauseMask(springs.enumerated().filter { $0.offset % 5 == 0 }.map(\.element.0))
                try bank.pause(paused)
                var beyondBetweenChecks = 0
                for frame in 15..<50 {
                    let dt = frame == 24 ? 2.0 : 1.0 / 60
                    let checksBound = Q16Lanes.checksBound(frame: frame)
                    #expect(checksBound == (frame % Q16Lanes.boundCheckInterval == 0))
                    try bank.step(dt: dt, path: path)
                    var expected: Set<SpringHandle> = []
                    for index in springs.indices {
                        if try bank.isPaused(springs[index].0) { continue }
                        let next = reference.stepped(springs[index].1, configuration: Self.edgeConfiguration, dt: dt, checksBound: checksBound)
                        springs[index].1 = next.state
                        if next.saturated {
                            expected.insert(springs[index].0)
                            #expect(reference.isAtBounds(next.state))
                        }
                        let (d, v) = (next.state.d, next.state.v)
                        if !checksBound, d >= 1 << 30 || v >= 1 << 30 || d < -(1 << 30) || v < -(1 << 30) {
                            beyondBetweenChecks += 1
                            // Past the bound by rounding only: far inside Int32, never wrapped.
                            #expect(d.magnitude < 1 << 30 + 1 << 16 && v.magnitude < 1 << 30 + 1 << 16)
                        }
                    }
                    for (spring, state) in springs {
                        let mismatch = try reference.mismatch(state, configuration: Self.edgeConfiguration, bank: bank, spring: spring)
                        #expect(mismatch == nil, "frame \(frame)")
                    }
                    #expect(Set(bank.saturatedInLastStep) == expected, "frame \(frame)")
                    if !checksBound { #expect(expected.isEmpty) }
                    if frame == Q16Lanes.boundCheckInterval { #expect(expected.count == 32) }
                }
                #expect(beyondBetweenChecks > 0)
                #expect(bank.saturationCount > 0)
                for (spring, _) in springs { #expect(try bank.wasSaturated(spring) == !bank.isPaused(spring)) }
                try bank._checkInvariants()
            }
        }
    }

    @Test("values whose distance, sum, impulse or motion the format cannot hold are refused with a typed error and change nothing")
    func apiBounds() throws {
        let bank = FixedSpringBank()
        // The range's ends are targets a spring may rest on; one that moves needs its reach inside.
        _ = try bank.add(value: .max, target: .max, tolerance: 1)
        _ = try bank.add(value: .min, target: .min, tolerance: 1)
        let atTop = try bank.add(value: Q16(raw: .max - 1), target: Q16(raw: .max - 1), tolerance: 1)
        let atBottom = try bank.add(value: Q16(raw: .min + 2), target: Q16(raw: .min + 2), tolerance: 1)
        // The widest motion: an energy norm of 2³⁰ lane steps (Q16 steps for a tolerance of 1).
        let widest = try bank.add(value: Q16(raw: -(1 << 30)), target: .zero, tolerance: 1)
        #expect(try bank.displacement(of: widest) == Q16(raw: -(1 << 30)))
        let before = bank.stateHash()
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.add(value: .max, target: .min, tolerance: 1) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.add(value: .zero, target: .min, tolerance: 1) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.add(value: Q16(raw: -(1 << 30) - 1), target: .zero, tolerance: 1) }
        let slow = try SpringConfiguration(tension: 1, friction: 1)  // ω = 1: a velocity of 30000 swings 30000 units
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try bank.add(value: 0, target: 0, velocity: 30000, configuration: slow, tolerance: 1) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.retarget(atTop, to: .min) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.retarget(atBottom, to: Q16(raw: 1)) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.retarget(widest, to: Q16(raw: 1)) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.setState(of: atBottom, value: .max, velocity: 0) }
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try bank.setState(of: widest, value: Q16(raw: -(1 << 30)), velocity: 1) }
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try bank.addVelocity(1, to: atTop) }
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try bank.addVelocity(-1, to: atBottom) }
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try bank.addVelocity(1, to: widest) }
        // A finer band needs finer lanes, which cannot hold the widest motion.
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.setTolerance(of: widest, to: Q16(raw: 256)) }
        #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.add(value: 0, target: 0, tolerance: .min) }
        #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.setTolerance(of: atTop, to: .zero) }
        let mask = try bank.makePauseMask([atTop, atBottom])
        try bank.pause(mask)
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.resume(mask) { _ in (.max, 0) } }
        #expect(try bank.isPausing(mask))
        try bank.resume(mask)
        #expect(bank.stateHash() == before)
        // A move toward the middle is fine, up to the widest target the motion allows.
        try bank.retarget(atTop, to: Q16(raw: .max - 1 - (1 << 20)))
        #expect(try bank.displacement(of: atTop) == Q16(raw: 1 << 20))
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.retarget(atTop, to: .max) }
        try bank._checkInvariants()
    }

    @Test("extreme configurations and durations in a bank: no trap, the format's arithmetic or its refusal, rest predicted or deferred", arguments: [1e-9, 1.0 / 60, 2, 3600, 1e6])
    func extremeBanks(dt: Double) throws {
        let bank = FixedSpringBank()
        let reference = Q16Reference()
        var springs: [(SpringHandle, Q16Reference.State, SpringConfiguration)] = []
        var refused = 0
        for configuration in Self.extremeConfigurations {
            for tolerance in [Q16(raw: 1 << 15), Q16(raw: 64)] {
                for velocity: Q16 in [0, -20] {
                    let value: Q16 = 20, target: Q16 = -10
                    // The bank refuses exactly the motions the format documents it cannot hold.
                    let model: Result<Q16Reference.State, SpringKernelError> = Result { () throws(SpringKernelError) in
                        try reference.stored(
                            reference.start(value: value, target: target, velocity: velocity),
                            configuration: configuration, tolerance: tolerance.doubleValue)
                    }
                    let added: Result<SpringHandle, SpringKernelError> = Result { () throws(SpringKernelError) in
                        try bank.add(value: value, target: target, velocity: velocity, configuration: configuration, tolerance: tolerance)
                    }
                    switch (model, added) {
                    case (.success(let state), .success(let spring)): springs.append((spring, state, configuration))
                    case (.failure(let expected), .failure(let error)):
                        #expect(error == expected, "\(configuration) tolerance \(tolerance) velocity \(velocity)")
                        refused += 1
                    default: Issue.record("model \(model), bank \(added): \(configuration) tolerance \(tolerance) velocity \(velocity)")
                    }
                }
            }
        }
        #expect(springs.count >= Self.extremeConfigurations.count)
        for _ in 0..<3 {
            try bank.step(dt: dt)
            for index in springs.indices {
                let (spring, state, configuration) = springs[index]
                if try bank.isAtRest(spring) {
                    // Rested on its predicted frame: exactly on target.
                    #expect(try bank.displacement(of: spring) == .zero && bank.velocity(of: spring) == .zero)
                    springs[index].1 = reference.atRest(state)
                } else {
                    let next = reference.stepped(state, configuration: configuration, dt: dt).state
                    #expect(try reference.mismatch(next, configuration: configuration, bank: bank, spring: spring) == nil, "\(configuration)")
                    springs[index].1 = next
                }
            }
        }
        try bank._checkInvariants()
    }

    @Test("the tiniest durations step nothing out of place: a denormal dt leaves the lanes where they are")
    func denormalDuration() throws {
        for dt in [Double.leastNonzeroMagnitude, 1e-300] {
            let fixed = FixedSpringBank()
            let q = try fixed.add(value: 100, target: 0, velocity: 50, tolerance: 1)
            try fixed.step(dt: dt)
            #expect(try fixed.displacement(of: q) == 100 && fixed.velocity(of: q) == 50)
            let float = SpringBank<Float32Lanes>()
            let f = try float.add(value: 100, target: 0, velocity: 50, tolerance: 1)
            try float.step(dt: dt)
            #expect(try float.value(of: f) == 100 && float.velocity(of: f) == 50)
            #expect(try !float.isAtRest(f) && !fixed.isAtRest(q))
        }
    }

    @Test("a two-second hitch is one step of the format's arithmetic, and the spring still comes to rest exactly on its target")
    func hitch() throws {
        let bank = FixedSpringBank()
        let reference = Q16Reference()
        let configuration = try SpringConfiguration(tension: 120, friction: 6, mass: 2)
        for tolerance in [Q16(raw: 1 << 15), Q16(raw: 64)] {
            // 5000 units for a 0.5 band, 25 for a 0.001 band: both within the 2¹⁶ tolerances held.
            let scale: Int32 = tolerance.raw == 64 ? 200 : 1
            let value = Q16(raw: (-3000 << 16) / scale), target = Q16(raw: (2000 << 16) / scale), velocity = Q16(raw: (30000 << 16) / scale)
            let spring = try bank.add(value: value, target: target, velocity: velocity, configuration: configuration, tolerance: tolerance)
            var state = try reference.stored(
                reference.start(value: value, target: target, velocity: velocity), configuration: configuration, tolerance: tolerance.doubleValue)
            for dt in [1.0 / 60, 2, 1.0 / 60, 5] {
                try bank.step(dt: dt)
                if try bank.isAtRest(spring) {
                    // Rested on the frame its exact motion settles: snapped onto the target.
                    #expect(dt == 5)
                    state = reference.atRest(state)
                } else {
                    state = reference.stepped(state, configuration: configuration, dt: dt).state
                }
                let mismatch = try reference.mismatch(state, configuration: configuration, bank: bank, spring: spring)
                #expect(mismatch == nil, "\(mismatch ?? "") after \(dt) s, tolerance \(tolerance)")
            }
            while try !bank.isAtRest(spring) {
                try bank.step(dt: 1.0 / 60)
                #expect(bank.frame < 5000)
                if bank.frame >= 5000 { break }
            }
            #expect(try bank.value(of: spring) == target && bank.velocity(of: spring) == .zero)
        }
    }

    @Test("the reference arithmetic is the kernel's, over random states, coefficients and lane scales")
    func referenceArithmeticAgrees() {
        var generator = SeededGenerator(seed: 0xF1ED)
        var saturated = 0
        for index in 0..<20_000 {
            let (k, c, m) = (generator.logUniform(1e-3, 1e6), Double.random(in: 0...2000, using: &generator), generator.logUniform(1e-6, 1e3))
            // Within the largest damping ratio, 10⁶.
            let configuration = try! SpringConfiguration(tension: k, friction: min(c, 2 * m * (k / m).squareRoot() * 1e6 * 0.999), mass: m)
            let scale = Q16Lanes.laneScale(tolerance: generator.logUniform(0x1p-16, 4), naturalFrequency: configuration.naturalFrequency)
            let coefficients = Q16Lanes.coefficients(of: SpringMotion(configuration).propagator(over: generator.logUniform(1e-6, 10)), scale: scale)
            // Half the states anywhere in Int32, half within the ±2³⁰ a bank's lanes keep.
            let range: ClosedRange<Int32> = index % 2 == 0 ? .min ... .max : -(1 << 30) ... (1 << 30) - 1
            let d = Int32.random(in: range, using: &generator), v = Int32.random(in: range, using: &generator)
            let (rd, rv, rs) = Q16Reference.step(d, v, coefficients, clamp: false)
            let kernel = Q16Lanes.step(displacement: d, velocity: v, coefficients: coefficients)
            #expect(kernel.displacement == rd && kernel.velocity == rv && kernel.saturated == rs, "d \(d) v \(v) \(coefficients)")
            // From lanes within ±2³⁰ no result goes astray unreported: a lane not flagged is the
            // exact sum of lane and increment (no wrap, no out-of-range conversion).
            if index % 2 == 1 && !rs {
                #expect(Int64(rd) == Int64(d) + Q16Reference.increment(d, v, coefficients[0], coefficients[1]).exact)
                #expect(Int64(rv) == Int64(v) + Q16Reference.increment(d, v, coefficients[2], coefficients[3]).exact)
            }
            // Clamped as a bank clamps.
            if rs {
                saturated += 1
                let (cd, cv, _) = Q16Reference.step(d, v, coefficients)
                #expect(Int32(bitPattern: Q16Lanes.saturating(lanePattern: UInt32(bitPattern: rd))) == cd)
                #expect(Int32(bitPattern: Q16Lanes.saturating(lanePattern: UInt32(bitPattern: rv))) == cv)
            }
            if kernel.displacement != rd { return }
        }
        #expect(saturated > 100)
    }
}

/// Q16.16's motion check accepts most motions by a quick bound (no division, no square root) and
/// asks the exact energy test only of the rest: the quick path must never accept what the exact
/// test refuses. Lanes drawn across every magnitude and near both of the test's edges (the lane
/// bound 2^30 and the format's range about the target), at the scales banks use.
@Suite("Q16.16's quick motion check")
struct Q16MotionCheckTests {
    @Test("the quick acceptance agrees with the exact energy test, edges included")
    func quickAgreesWithExact() {
        var generator = SeededGenerator(seed: 3705)
        var accepted = 0, refused = 0, nearEdge = 0
        func lane(_ x: Double) -> UInt32 { UInt32(bitPattern: Int32(Swift.max(Swift.min(x.rounded(), 2147483647), -2147483648))) }
        for i in 0..<200_000 {
            let displacementShift = Int.random(in: 0...12, using: &generator)
            let velocityShift = displacementShift - Int.random(in: -8...8, using: &generator)
            let scale = LaneScale(displacementShift: displacementShift, velocityShift: velocityShift)
            let omega = generator.logUniform(0.05, 5000)
            let sign = { (g: inout SeededGenerator) -> Double in Bool.random(using: &g) ? 1 : -1 }
            var d = sign(&generator) * generator.logUniform(1, 0x1p31)
            var v = sign(&generator) * generator.logUniform(1, 0x1p31)
            var target = sign(&generator) * generator.logUniform(1, 0x1p31)
            switch i % 4 {
            case 0:
                // On the lane bound: the norm within a few parts in 2^20 of 2^30.
                let angle = Double.random(in: 0...(Double.pi / 2), using: &generator)
                let norm = 0x1p30 * (1 + Double.random(in: -4e-6...4e-6, using: &generator))
                d = sign(&generator) * norm * cos(angle)
                v = sign(&generator) * norm * sin(angle) * omega / LaneScale.powerOfTwo(displacementShift - velocityShift)
                target = 0
                nearEdge += 1
            case 1:
                // On the format's range: |target| + norm · 2^-shift within a few parts in 2^20 of 2^31.
                let reach = Double.random(in: 0...0x1p29, using: &generator)
                target = sign(&generator) * (0x1p31 - reach * (1 + Double.random(in: -4e-6...4e-6, using: &generator)))
                d = sign(&generator) * reach * LaneScale.powerOfTwo(displacementShift)
                v = 0
                nearEdge += 1
            default:
                break
            }
            let (dl, vl, tl) = (lane(d), lane(v), lane(target))
            let quick = Q16Lanes.holdsMotion(displacement: dl, velocity: vl, target: tl, scale: scale, naturalFrequency: omega)
            let exact = Q16Lanes.holdsMotionExactly(displacement: dl, velocity: vl, target: tl, scale: scale, naturalFrequency: omega)
            #expect(quick == exact, "d \(Int32(bitPattern: dl)), v \(Int32(bitPattern: vl)), target \(Int32(bitPattern: tl)), scale \(scale), ω \(omega)")
            if quick != exact { return }
            if exact { accepted += 1 } else { refused += 1 }
        }
        // Both answers are exercised, and near the edges.
        #expect(accepted > 20_000 && refused > 20_000 && nearEdge == 100_000, "accepted \(accepted), refused \(refused)")
    }

    /// A retarget by handle asks `quicklyRetargetedDisplacement` first: whatever it accepts, the
    /// exact path (the rescaled shift, then `checkMotion`) must accept with the same lane. Lanes
    /// drawn about the quick limits (half to twice each) and anywhere in `Int32`.
    @Test("the quick retarget check accepts only what the exact check accepts, with its displacement lane")
    func quickRetargetAgreesWithExact() {
        var generator = SeededGenerator(seed: 3706)
        var quick = 0, exactOnly = 0, refused = 0
        func lane(_ x: Double) -> Int32 { Int32(Swift.max(Swift.min(x.rounded(), 2147483647), -2147483648)) }
        for i in 0..<200_000 {
            let displacementShift = Int.random(in: 0...14, using: &generator)
            let velocityShift = displacementShift - Int.random(in: -10...10, using: &generator)
            let scale = LaneScale(displacementShift: displacementShift, velocityShift: velocityShift)
            let omega = generator.logUniform(0.05, 5000)
            let limits = Q16Lanes.retargetLimits(scale: scale, naturalFrequency: omega)
            let sign = { (g: inout SeededGenerator) -> Double in Bool.random(using: &g) ? 1 : -1 }
            let near = { (limit: Int32, g: inout SeededGenerator) -> Double in sign(&g) * Double(limit) * g.logUniform(0.5, 2) }
            let target: Int32, goal: Int32, d: Int32, v: Int32
            if i % 8 == 0 {
                (target, goal) = (Int32.random(in: .min ... .max, using: &generator), Int32.random(in: .min ... .max, using: &generator))
                (d, v) = (Int32.random(in: .min ... .max, using: &generator), Int32.random(in: .min ... .max, using: &generator))
            } else {
                target = lane(near(1 << 30, &generator))
                goal = lane(Double(target) - near(Swift.max(limits.displacement, 1), &generator))
                d = lane(near(i % 2 == 0 ? 1 << 29 : 1 << 30, &generator) / Double(1 << (i % 3)))
                v = lane(near(Swift.max(limits.velocity, 1), &generator))
            }
            let (dl, vl, tl, gl) = (UInt32(bitPattern: d), UInt32(bitPattern: v), UInt32(bitPattern: target), UInt32(bitPattern: goal))
            let exact: UInt32? = {
                guard let moved = try? Q16Lanes.retargetedDisplacement(dl, from: tl, to: gl, scale: scale),
                      (try? Q16Lanes.checkMotion(displacement: moved, velocity: vl, target: gl, scale: scale, naturalFrequency: omega)) != nil
                else { return nil }
                return moved
            }()
            let fast = Q16Lanes.quicklyRetargetedDisplacement(
                dl, velocity: vl, from: tl, to: gl, displacementShift: displacementShift, limits: limits)
            if let fast {
                quick += 1
                #expect(exact == fast, "d \(d), v \(v), target \(target), goal \(goal), scale \(scale), ω \(omega)")
                if exact != fast { return }
            } else if exact != nil {
                exactOnly += 1
            } else {
                refused += 1
            }
        }
        // The quick check accepts many, leaves many the exact check accepts to it, and both refuse some.
        #expect(quick > 5_000 && exactOnly > 20_000 && refused > 5_000, "quick \(quick), exact only \(exactOnly), refused \(refused)")
    }
}
