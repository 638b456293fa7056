import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

@Suite("Fixed point (Q16.16)")
struct FixedPointTests {
    /// Random springs over the range the format holds: damping ratio 0.01 to 30; half at point
    /// scale (a 0.5 band, distances to 2000, velocities to ±3000), half at unit scale (a 1/256
    /// band, values and targets in [0, 1], velocities to ±10).
    static func randomSprings(count: Int, seed: UInt64) -> [(configuration: SpringConfiguration, from: Q16, to: Q16, velocity: Q16, tolerance: Q16)] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            let zeta = generator.logUniform(0.01, 30)
            let tension = generator.logUniform(20, 3000)
            let mass = generator.logUniform(0.25, 4)
            let configuration = try! SpringConfiguration(tension: tension, friction: zeta * 2 * (tension * mass).squareRoot(), mass: mass)
            if index % 2 == 1 {
                let target = Double.random(in: 0...1, using: &generator), value = Double.random(in: 0...1, using: &generator)
                let velocity = Bool.random(using: &generator) ? 0 : Double.random(in: -10...10, using: &generator)
                return (configuration, Q16(value)!, Q16(target)!, Q16(velocity)!, Q16(raw: 256))
            }
            let target = Double.random(in: -1000...1000, using: &generator)
            let distance = generator.logUniform(0.01, 2000) * (Bool.random(using: &generator) ? 1 : -1)
            let velocity = Bool.random(using: &generator) ? 0 : Double.random(in: -3000...3000, using: &generator)
            return (configuration, Q16(target + distance)!, Q16(target)!, Q16(velocity)!, Q16(raw: 1 << 15))
        }
    }

    @Test("scalar and SIMD fixed-point paths agree bit for bit, with pauses, partial bundles, lane scales and saturation")
    func scalarMatchesSIMD() throws {
        let banks = [FixedSpringBank(), FixedSpringBank()]
        var springs: [[SpringHandle]] = [[], []]
        for spring in Self.randomSprings(count: 150, seed: 5) {
            for b in 0..<2 {
                springs[b].append(try banks[b].add(value: spring.from, target: spring.to, velocity: spring.velocity,
                                                   configuration: spring.configuration, tolerance: spring.tolerance))
            }
        }
        // Two springs at the edge of the admitted motion, which rounding carries into saturation.
        for b in 0..<2 {
            springs[b].append(try FixedPointEdgeTests.addSpringAtTheEdge(to: banks[b], target: 100))
            springs[b].append(try FixedPointEdgeTests.addSpringAtTheEdge(to: banks[b], target: -16000))
            try banks[b].pause(try banks[b].makePauseMask(springs[b].enumerated().filter { $0.offset % 9 == 4 }.map(\.element)))
        }
        for frame in 0..<400 {
            let dt = frame % 61 == 60 ? 0.5 : 1.0 / 60
            try banks[0].step(dt: dt, path: .simd)
            try banks[1].step(dt: dt, path: .scalar)
            let lanes = try (0..<2).map { b in try springs[b].map { [try banks[b].displacement(of: $0).raw, try banks[b].velocity(of: $0).raw] } }
            #expect(lanes[0] == lanes[1], "frame \(frame)")
            #expect(banks[0].restedInLastStep.map(\.index) == banks[1].restedInLastStep.map(\.index))
            #expect(banks[0].saturatedInLastStep.map(\.index) == banks[1].saturatedInLastStep.map(\.index))
        }
        #expect(banks[0].stateHash() == banks[1].stateHash())
        #expect(banks[0].saturationCount == banks[1].saturationCount)
        #expect(banks[0].saturationCount > 0)
        try banks[0]._checkInvariants()
    }

    @Test("a motion the lanes cannot hold is refused; a lane that rounding carries past 2³⁰ is clamped, marked and counted, never wrapped")
    func saturation() throws {
        let bank = FixedSpringBank()
        let calm = try bank.add(value: 0, target: 10, tolerance: 1)
        // A soft spring released near the range's end, fast: it would swing past 32768. Refused.
        let before = bank.stateHash()
        #expect(throws: SpringKernelError.outOfRange(.displacement)) {
            try bank.add(value: 30000, target: 0, velocity: 32767, configuration: try SpringConfiguration(tension: 1, friction: 0.1), tolerance: 1)
        }
        #expect(throws: SpringKernelError.outOfRange(.velocity)) {
            try bank.add(value: 3000, target: 0, velocity: 32767, configuration: try SpringConfiguration(tension: 1, friction: 0.1), tolerance: 1)
        }
        #expect(bank.stateHash() == before && bank.count == 1)
        // The edge of the admitted motion: the first step's rounding reaches 2³⁰.
        let edge = try FixedPointEdgeTests.addSpringAtTheEdge(to: bank)
        try bank.step(dt: 1.0 / 60)
        #expect(bank.saturatedInLastStep == [edge])
        #expect(try bank.displacement(of: edge) == Q16(raw: (1 << 30) - 1))  // clamped below the bound, never wrapped
        #expect(try bank.value(of: edge) == Q16(raw: (1 << 30) - 1))
        #expect(try bank.wasSaturated(edge))
        #expect(try !bank.wasSaturated(calm))
        #expect(bank.saturationCount == 1)
        var largest: Int32 = 0
        for _ in 0..<120 {
            try bank.step(dt: 1.0 / 60)
            #expect(!bank.saturatedInLastStep.contains(calm))
            largest = max(largest, try bank.displacement(of: edge).raw)
        }
        #expect(largest < 1 << 30)
        try bank.clearSaturation(of: edge)
        #expect(try !bank.wasSaturated(edge))
        try bank._checkInvariants()
    }

    @Test("a value never reads past the range's end: a motion that would carry it there is refused, and reads clamp, never wrap")
    func valueReadsClamped() throws {
        let bank = FixedSpringBank()
        let before = bank.stateHash()
        #expect(throws: SpringKernelError.outOfRange(.velocity)) {
            try bank.add(value: 32000, target: 32000, velocity: Q16(30000.0)!, configuration: try SpringConfiguration(tension: 50, friction: 1), tolerance: 1)
        }
        #expect(bank.stateHash() == before)
        // The same spring well inside the range swings out and back without a saturation.
        let spring = try bank.add(value: 0, target: 0, velocity: Q16(30000.0)!, configuration: try SpringConfiguration(tension: 50, friction: 1), tolerance: 1)
        var highest = Q16.min
        for _ in 0..<30 {
            try bank.step(dt: 1.0 / 60)
            highest = max(highest, try bank.value(of: spring))
        }
        #expect(highest > 3000 && highest < 32000)
        #expect(try !bank.wasSaturated(spring))
        // The format's own read clamps target + displacement to the range.
        #expect(Q16Lanes.valuePattern(displacement: UInt32(bitPattern: Int32.max), target: UInt32(bitPattern: Int32(1))) == UInt32(bitPattern: Int32.max))
        #expect(Q16Lanes.valuePattern(displacement: UInt32(bitPattern: Int32.min), target: UInt32(bitPattern: Int32(-1))) == UInt32(bitPattern: Int32.min))
    }

    @Test("values, targets and velocities the format cannot hold are refused with a typed error")
    func badInput() throws {
        let bank = FixedSpringBank()
        let spring = try bank.add(value: 1, target: 2, configuration: try SpringConfiguration(tension: 1, friction: 1), tolerance: 1)
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.add(value: 30000, target: -30000, tolerance: 1) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.retarget(spring, to: -32767) ; try bank.retarget(spring, to: 32767) }
        #expect(throws: SpringKernelError.outOfRange(.velocity)) {
            try bank.setState(of: spring, value: 1, velocity: Q16.max)
            try bank.addVelocity(Q16.max, to: spring)
        }
        #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.add(value: 0, target: 1, tolerance: 0) }
        #expect(Q16(40000.0) == nil && Q16(Double.nan) == nil && Q16(-32768.0) == Q16.min)
        try bank._checkInvariants()
    }

    @Test("within 2^-10 units of the exact Float64 trajectory while moving, at typical configurations")
    func accuracy() throws {
        let typical = try [SpringConfiguration.default, SpringConfiguration(tension: 1323, friction: 91), SpringConfiguration(tension: 200, friction: 20),
                           SpringConfiguration(tension: 700, friction: 40, mass: 2)]
        var worst = 0.0
        for configuration in typical {
            for hz in [60.0, 120] {
                let bank = FixedSpringBank()
                let spring = try bank.add(value: Q16(-400.25)!, target: 300, velocity: 1500, configuration: configuration, tolerance: Q16(raw: 1 << 14))
                let motion = SpringMotion(configuration)
                for frame in 1...10_000 {
                    try bank.step(dt: 1 / hz)
                    if try bank.isAtRest(spring) { break }
                    let exact = 300 + motion.displacement(after: Double(frame) / hz, from: -700.25, velocity: 1500)
                    worst = max(worst, abs(try bank.value(of: spring).doubleValue - exact))
                }
                #expect(try bank.isAtRest(spring) && bank.value(of: spring) == 300)
            }
        }
        #expect(worst <= 0x1p-10, "worst deviation \(worst)")
        print("Q16 worst deviation from the exact trajectory while moving, typical configurations: \(worst) (\(worst * 65536) LSB)")
    }

    /// Over the range the error grows where a spring keeps moving for long: a lightly damped slow
    /// spring accumulates the 29-bit coefficients' frequency error as phase. The format promises
    /// 5 % of the tolerance (see FixedPointFidelityTests for the seeded corpus).
    @Test("over the configuration range, within 5 % of the tolerance of the exact trajectory for 10,000 steps or until at rest, never saturated")
    func accuracyOverTheRange() throws {
        var worst = 0.0
        let tolerance = 0.25
        for zeta in [0.01, 0.05, 0.2, 0.5, 1, 2, 5, 30] {
            for omega in [5.0, 20, 60] {
                let configuration = try SpringConfiguration(tension: omega * omega, friction: 2 * zeta * omega)
                let motion = SpringMotion(configuration)
                for hz in [60.0, 120] {
                    let bank = FixedSpringBank()
                    let spring = try bank.add(value: Q16(-400.25)!, target: 300, velocity: 1500, configuration: configuration, tolerance: Q16(tolerance)!)
                    var deviation = 0.0
                    for frame in 1...10_000 {
                        try bank.step(dt: 1 / hz)
                        if try bank.isAtRest(spring) { break }
                        let exact = 300 + motion.displacement(after: Double(frame) / hz, from: -700.25, velocity: 1500)
                        deviation = max(deviation, abs(try bank.value(of: spring).doubleValue - exact))
                    }
                    #expect(try !bank.wasSaturated(spring))
                    worst = max(worst, deviation)
                }
            }
        }
        #expect(worst <= 0.05 * tolerance, "worst deviation \(worst)")
        print("Q16 worst deviation over the configuration range: \(worst) (\(worst / tolerance) of the tolerance)")
    }
}
