import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel
import _SpringOracles

/// How closely a Q16.16 bank follows the exact motion, over a seeded corpus of the range the
/// format promises: damping ratios 0.01 to 30, tensions 10 to 5000, masses 0.25 to 4, five frame
/// rates, and both ends of the tolerance range (point-scale springs with bands of 0.25 to 1 over
/// distances to 3000, unit-scale springs with bands of 0.001 to 0.01 over [0, 1]).
///
/// The oracle is the oracle module's closed form (``ExactSpring``: libm, no code shared with the
/// kernel), evaluated at t = n·dt from the state the bank actually stored, and its brute-force
/// rest scan (``ExactRest``): independent of ``SpringMotion``'s propagator and of
/// ``SettlePredictor``.
@Suite("Fixed point fidelity to the exact motion")
struct FixedPointFidelityTests {
    struct Case: CustomStringConvertible {
        var configuration: SpringConfiguration
        var value: Q16
        var target: Q16
        var velocity: Q16
        var tolerance: Q16
        var hz: Double
        var unitScale: Bool

        var description: String {
            let c = configuration
            return "k=\(c.tension) c=\(c.friction) m=\(c.mass) ζ=\(c.dampingRatio) value=\(value) target=\(target) v=\(velocity) "
                + "tol=\(tolerance) (raw \(tolerance.raw)) hz=\(hz)\(unitScale ? " unit-scale" : "")"
        }
    }

    static let frameRates: [Double] = [30, 60, 120, 144, 240]

    static func corpus(count: Int, seed: UInt64) -> [Case] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            let zeta = generator.logUniform(0.01, 30)
            let tension = generator.logUniform(10, 5000)
            let mass = generator.logUniform(0.25, 4)
            let configuration = try! SpringConfiguration(tension: tension, friction: zeta * 2 * (tension * mass).squareRoot(), mass: mass)
            let hz = frameRates.randomElement(using: &generator)!
            let unitScale = index % 2 == 1
            let tolerance: Q16, value: Q16, target: Q16
            if unitScale {
                tolerance = Q16(generator.logUniform(0.001, 0.01))!
                target = Q16(Double.random(in: 0...1, using: &generator))!
                value = Q16(Double.random(in: 0...1, using: &generator))!
            } else {
                tolerance = Q16(generator.logUniform(0.25, 1))!
                target = Q16(Double.random(in: -1000...1000, using: &generator))!
                let distance = generator.logUniform(0.01, 3000) * (Bool.random(using: &generator) ? 1 : -1)
                value = Q16(target.doubleValue + distance)!
            }
            let reach = configuration.naturalFrequency * abs(value.doubleValue - target.doubleValue)
            let speed = Bool.random(using: &generator) ? 0 : Double.random(in: -1...1, using: &generator) * min(reach, 30_000)
            return Case(configuration: configuration, value: value, target: target, velocity: Q16(speed)!, tolerance: tolerance, hz: hz, unitScale: unitScale)
        }
    }

    @Test("the fixed trajectory stays within 5 % of the tolerance of the exact motion, and rests on the exact motion's frame")
    func fidelity() throws {
        let frameLimit = 60_000
        let cases = Self.corpus(count: 150, seed: 0x0F1D_E117)
        var worst = 0.0, worstCase = ""
        var unresolved: [String] = []
        var early: [String] = [], late: [String] = []
        var checked = 0, samples = 0, slowest = 0
        for hz in Self.frameRates {
            let dt = 1 / hz
            let bank = FixedSpringBank()
            try bank.setFrameClock(.fixed(frameDuration: dt))
            struct Tracked {
                var spring: SpringHandle
                var exact: ExactSpring
                var start: (d: Double, v: Double)
                var rest: Int?
                var deviation = 0.0
            }
            let members = cases.filter { $0.hz == hz }
            var tracked: [Tracked] = []
            for member in members {
                let spring = try bank.add(
                    value: member.value, target: member.target, velocity: member.velocity,
                    configuration: member.configuration, tolerance: member.tolerance)
                // The start the bank holds (the velocity may be rounded to its lanes' scale).
                let d0 = Double(try bank.value(of: spring).raw - member.target.raw) / Q16.scale
                let v0 = try bank.velocity(of: spring).doubleValue
                let scale = Q16Lanes.laneScale(tolerance: member.tolerance.doubleValue, naturalFrequency: member.configuration.naturalFrequency)
                let velocityStep = Double(sign: .plus, exponent: -16 - min(scale.velocityShift, 0), significand: 1)
                #expect(abs(v0 - member.velocity.doubleValue) <= velocityStep / 2, "\(member)")
                tracked.append(Tracked(
                    spring: spring, exact: ExactSpring(member.configuration), start: (d0, v0), rest: try bank.isAtRest(spring) ? 0 : nil))
            }
            var awake = tracked.indices.filter { tracked[$0].rest == nil }
            while !awake.isEmpty && bank.frame < frameLimit {
                try bank.step(dt: dt)
                let t = Double(bank.frame) * dt
                awake.removeAll { index in
                    let member = members[index]
                    let spring = tracked[index].spring
                    let value = (try? bank.value(of: spring)) ?? .min
                    if (try? bank.isAtRest(spring)) ?? false {
                        tracked[index].rest = bank.frame
                        #expect(value == member.target, "rested off its target: \(member)")
                        return true
                    }
                    let start = tracked[index].start
                    let exact = member.target.doubleValue + tracked[index].exact.state(displacement: start.d, velocity: start.v, after: t).displacement
                    let deviation = abs(value.doubleValue - exact) / member.tolerance.doubleValue
                    tracked[index].deviation = max(tracked[index].deviation, deviation)
                    samples += 1
                    return false
                }
            }
            for (member, spring) in zip(members, tracked) {
                if spring.deviation > worst {
                    worst = spring.deviation
                    worstCase = member.description
                }
                guard let rest = spring.rest else {
                    unresolved.append(member.description)
                    continue
                }
                let tolerance = member.tolerance.doubleValue
                let frames = [1.05 * tolerance, 0.95 * tolerance].map { band in
                    ExactRest.restFrame(
                        displacement: spring.start.d, velocity: spring.start.v, spring: spring.exact, band: band,
                        clock: .steady(frameDuration: dt), limit: frameLimit)
                }
                // A nil R is beyond the frame limit, and so beyond D.
                if rest < frames[0] ?? Int.max { early.append("D \(rest), R(1.05 tol) \(frames[0].map(String.init) ?? "> \(frameLimit)"): \(member)") }
                if let latest = frames[1], rest > latest + 1 { late.append("D \(rest), R(0.95 tol) \(latest): \(member)") }
                checked += 1
                slowest = max(slowest, rest)
            }
            try bank._checkInvariants()
        }
        #expect(worst <= 0.05, "worst deviation \(worst) of the tolerance: \(worstCase)")
        #expect(early.isEmpty, "\(early.count) rested early: \(early.prefix(3))")
        #expect(late.isEmpty, "\(late.count) rested late: \(late.prefix(3))")
        #expect(unresolved.count <= cases.count / 20, "\(unresolved.count) did not rest within \(frameLimit) frames: \(unresolved.prefix(3))")
        print("Q16 fidelity: \(checked) of \(cases.count) springs rested within \(frameLimit) frames (\(unresolved.count) did not, slowest \(slowest)); "
            + "\(samples) moving frames compared; "
            + "worst deviation from the exact motion \(worst) of the tolerance (\(worstCase))")
    }
}
