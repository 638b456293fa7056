import Foundation
import Testing
@testable import SpringKernel

/// The edges of the Q16.16 format: Int32 bounds at the API, saturation in the step, the smallest
/// and largest configurations, and frame durations from a denormal to a million seconds. Every
/// outcome is a typed error, or the documented saturation (clamped to the Int32 bound, reported,
/// never wrapped); nothing traps. Steps are compared with the format's arithmetic written out in
/// `Int64` (``Q16Reference``).
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

    /// Lane states at and next to the Int32 bounds.
    static let extremeLanes: [(d: Int32, v: Int32)] = [
        (.max, .max), (.min, .min), (.max, .min), (.min, .max), (.max, 0), (0, .min), (1, -1), (.min + 1, .max - 1),
    ]

    @Test("every configuration from the smallest to the largest, at every duration: the step is the format's arithmetic, saturating, never wrapping")
    func extremesFollowTheArithmetic() throws {
        var saturated = 0, checked = 0
        for configuration in Self.extremeConfigurations {
            for dt in Self.extremeDurations {
                // The coefficients themselves: no trap, each row within the documented 2^30.
                let coefficients = Q16Lanes.coefficients(of: SpringMotion(configuration).propagator(over: dt))
                for i in 0..<4 { #expect(abs(Int64(Int32(bitPattern: coefficients[i]))) <= 1 << 30, "\(configuration) dt \(dt)") }
                #expect(coefficients[4] <= 30 && coefficients[5] <= 30)
                let row = Q16Reference.Row(coefficients)
                for lanes in Self.extremeLanes {
                    let (d, v, clamped) = Q16Reference.step(lanes.d, lanes.v, row)
                    let kernel = Q16Lanes.step(displacement: lanes.d, velocity: lanes.v, coefficients: coefficients)
                    #expect(kernel.displacement == d && kernel.velocity == v && kernel.saturated == clamped, "\(configuration) dt \(dt) from \(lanes)")
                    saturated += clamped ? 1 : 0
                    checked += 1
                }
            }
        }
        #expect(saturated > 0)
        print("fixed-point edges: \(checked) extreme steps follow the Int64 arithmetic, \(saturated) of them saturated")
    }

    @Test("a bank at the Int32 bounds saturates and reports it, moving and paused springs alike, with every loop")
    func bankAtTheBounds() throws {
        for path in [StepPath.simd, .scalar] {
            for threading in [StepThreading.single, .fixed(2)] {
                let bank = FixedSpringBank(threading: threading)
                // Soft enough that the fastest velocity carries the displacement past the range, and
                // undamped, so that rest prediction is the format's cheap swing test rather than a
                // 2^20-frame walk to exact rest (slow in a debug build).
                let soft = try SpringConfiguration(tension: 0.01, friction: 0)
                var springs: [(SpringHandle, Q16Reference.State)] = []
                // 40 springs near both ends, in both directions, so bundles split across threads.
                for i in 0..<40 {
                    let high = i % 2 == 0
                    let target = high ? Q16.max : Q16.min
                    let value = Q16(raw: target.raw &- (high ? 1 : -1) &* Int32(i))
                    let velocity = high ? Q16.max : Q16.min
                    let spring = try bank.add(value: value, target: target, velocity: velocity, configuration: soft, tolerance: Q16(raw: 1))
                    springs.append((spring, Q16Reference.State(target: target.raw, d: value.raw &- target.raw, v: velocity.raw)))
                }
                let paused = try bank.makePauseMask(springs.enumerated().filter { $0.offset % 5 == 0 }.map(\.element.0))
                try bank.pause(paused)
                let reference = Q16Reference()
                for frame in 0..<30 {
                    let dt = frame == 10 ? 2.0 : 1.0 / 60
                    try bank.step(dt: dt, path: path)
                    var atBounds: Set<SpringHandle> = []
                    var anySaturated = false
                    for index in springs.indices {
                        if try bank.isPaused(springs[index].0) { continue }
                        let next = reference.stepped(springs[index].1, configuration: soft, dt: dt)
                        springs[index].1 = next.state
                        anySaturated = anySaturated || next.saturated
                        if reference.isAtBounds(next.state) { atBounds.insert(springs[index].0) }
                    }
                    // When a lane saturated, the step lists every moving spring left at a bound.
                    let expected = anySaturated ? atBounds : []
                    for (spring, state) in springs {
                        #expect(try bank.displacement(of: spring).raw == state.d && bank.velocity(of: spring).raw == state.v)
                        // A value past the range reads clamped, never wrapped.
                        #expect(try bank.value(of: spring) == reference.value(state))
                    }
                    #expect(Set(bank.saturatedInLastStep) == expected, "frame \(frame)")
                }
                #expect(bank.saturationCount > 0)
                for (spring, _) in springs { #expect(try bank.wasSaturated(spring) == !bank.isPaused(spring)) }
                try bank._checkInvariants()
            }
        }
    }

    @Test("values whose distance, sum or impulse leaves Int32 are refused with a typed error and change nothing")
    func apiBounds() throws {
        let bank = FixedSpringBank()
        let atTop = try bank.add(value: .max, target: .max, velocity: .max, tolerance: 1)
        let atBottom = try bank.add(value: .min, target: .min, velocity: .min, tolerance: 1)
        let widest = try bank.add(value: .min, target: .zero, tolerance: 1)  // d = Int32.min fits
        #expect(try bank.displacement(of: widest) == .min)
        let before = bank.stateHash()
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.add(value: .max, target: .min, tolerance: 1) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.add(value: .zero, target: .min, tolerance: 1) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.retarget(atTop, to: .min) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.retarget(atBottom, to: Q16(raw: 1)) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.setState(of: atBottom, value: .max, velocity: 0) }
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try bank.addVelocity(Q16(raw: 1), to: atTop) }
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try bank.addVelocity(Q16(raw: -1), to: atBottom) }
        #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.add(value: 0, target: 0, tolerance: .min) }
        #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.setTolerance(of: atTop, to: .zero) }
        let mask = try bank.makePauseMask([atTop, atBottom])
        try bank.pause(mask)
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.resume(mask) { _ in (.max, 0) } }
        #expect(try bank.isPausing(mask))
        try bank.resume(mask)
        #expect(bank.stateHash() == before)
        // The opposite impulse at each end is fine.
        try bank.addVelocity(.min, to: atTop)
        #expect(try bank.velocity(of: atTop) == Q16(raw: -1))
        try bank._checkInvariants()
    }

    @Test("extreme configurations and durations in a bank: no trap, the format's arithmetic, rest predicted or deferred", arguments: [1e-9, 1.0 / 60, 2, 3600, 1e6])
    func extremeBanks(dt: Double) throws {
        let bank = FixedSpringBank()
        let reference = Q16Reference()
        var springs: [(SpringHandle, Q16Reference.State, SpringConfiguration)] = []
        for configuration in Self.extremeConfigurations {
            let spring = try bank.add(value: 20000, target: -10000, velocity: -20000, configuration: configuration, tolerance: Q16(raw: 1 << 15))
            springs.append((spring, Q16Reference.State(target: -10000 << 16, d: 30000 << 16, v: -20000 << 16), configuration))
        }
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
                    #expect(try bank.displacement(of: spring).raw == next.d && bank.velocity(of: spring).raw == next.v, "\(configuration)")
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

    @Test("a two-second hitch is one step of the format's arithmetic, and the spring still comes exactly to rest")
    func hitch() throws {
        let bank = FixedSpringBank()
        let reference = Q16Reference()
        let configuration = try SpringConfiguration(tension: 120, friction: 6, mass: 2)
        let spring = try bank.add(value: -3000, target: 2000, velocity: 30000, configuration: configuration, tolerance: Q16(raw: 64))
        var state = Q16Reference.State(target: 2000 << 16, d: -5000 << 16, v: 30000 << 16)
        for dt in [1.0 / 60, 2, 1.0 / 60, 5] {
            try bank.step(dt: dt)
            state = reference.stepped(state, configuration: configuration, dt: dt).state
            #expect(try bank.displacement(of: spring).raw == state.d && bank.velocity(of: spring).raw == state.v)
        }
        while try !bank.isAtRest(spring) {
            try bank.step(dt: 1.0 / 60)
            #expect(bank.frame < 5000)
        }
        #expect(try bank.value(of: spring) == 2000)
    }

    @Test("the Int64 reference arithmetic is the kernel's, over random states and coefficients")
    func referenceArithmeticAgrees() {
        var generator = SeededGenerator(seed: 0xF1ED)
        for _ in 0..<20_000 {
            let (k, c, m) = (generator.logUniform(1e-3, 1e6), Double.random(in: 0...2000, using: &generator), generator.logUniform(1e-6, 1e3))
            // Within the largest damping ratio, 10⁶.
            let configuration = try! SpringConfiguration(tension: k, friction: min(c, 2 * m * (k / m).squareRoot() * 1e6 * 0.999), mass: m)
            let coefficients = Q16Lanes.coefficients(of: SpringMotion(configuration).propagator(over: generator.logUniform(1e-6, 10)))
            let d = Int32.random(in: .min ... .max, using: &generator), v = Int32.random(in: .min ... .max, using: &generator)
            let (rd, rv, rs) = Q16Reference.step(d, v, Q16Reference.Row(coefficients))
            let kernel = Q16Lanes.step(displacement: d, velocity: v, coefficients: coefficients)
            #expect(kernel.displacement == rd && kernel.velocity == rv && kernel.saturated == rs)
            if kernel.displacement != rd { return }
        }
    }
}
