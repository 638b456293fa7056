import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

/// How closely a Q16.16 bank follows the exact motion, over a seeded corpus of the range the
/// format promises: damping ratios 0.01 to 30, tensions 10 to 5000, masses 0.25 to 4, five frame
/// rates, and both ends of the tolerance range (point-scale springs with bands of 0.25 to 1 over
/// distances to 3000, unit-scale springs with bands of 0.001 to 0.01 over [0, 1]).
///
/// The oracle is the spring's closed form written out here with Foundation's exp, cos, sin and
/// cosh, evaluated at t = n·dt from the state the bank actually stored: independent of
/// ``SpringMotion``'s propagator and of ``SettlePredictor``.
@Suite("Fixed point fidelity to the exact motion")
struct FixedPointFidelityTests {
    /// d(t) and v(t) of m d'' = −k d − c d' from (d₀, v₀), in closed form.
    struct ExactMotion {
        enum Form {
            /// e^(−σt)(d₀ cos ωt + (v₀ + σd₀) sin(ωt)/ω)
            case underdamped(omega: Double)
            /// e^(−σt)(d₀ + (v₀ + σd₀) t)
            case critical
            /// e^(−σt)(d₀ cosh βt + (v₀ + σd₀) sinh(βt)/β), or A e^(r₁t) + B e^(r₂t) once βt ≥ 1
            case overdamped(beta: Double, slow: Double, fast: Double)
        }

        let d0, v0, sigma, omega0Squared: Double
        let form: Form

        init(configuration: SpringConfiguration, displacement: Double, velocity: Double) {
            let k = configuration.tension, c = configuration.friction, m = configuration.mass
            d0 = displacement
            v0 = velocity
            sigma = c / (2 * m)
            omega0Squared = k / m
            let discriminant = sigma * sigma - omega0Squared
            if discriminant < 0 {
                form = .underdamped(omega: (-discriminant).squareRoot())
            } else if discriminant == 0 {
                form = .critical
            } else {
                let beta = discriminant.squareRoot()
                // r₁ = −σ + β without the cancellation of a heavily damped spring.
                form = .overdamped(beta: beta, slow: -omega0Squared / (sigma + beta), fast: -sigma - beta)
            }
        }

        func state(at t: Double) -> (d: Double, v: Double) {
            switch form {
            case .underdamped(let omega):
                let envelope = exp(-sigma * t), cosine = cos(omega * t), sine = sin(omega * t)
                return (
                    envelope * (d0 * cosine + (v0 + sigma * d0) * sine / omega),
                    envelope * (v0 * cosine - (omega0Squared * d0 + sigma * v0) * sine / omega))
            case .critical:
                let envelope = exp(-sigma * t)
                return (envelope * (d0 + (v0 + sigma * d0) * t), envelope * (v0 - sigma * (v0 + sigma * d0) * t))
            case .overdamped(let beta, let slow, let fast):
                if beta * t < 1 {
                    let envelope = exp(-sigma * t), ch = cosh(beta * t), sh = sinh(beta * t)
                    return (
                        envelope * (d0 * ch + (v0 + sigma * d0) * sh / beta),
                        envelope * (v0 * ch - (omega0Squared * d0 + sigma * v0) * sh / beta))
                }
                // d = A e^(r₁t) + B e^(r₂t) with A + B = d₀ and r₁A + r₂B = v₀.
                let a = (v0 - fast * d0) / (slow - fast), b = (slow * d0 - v0) / (slow - fast)
                let eSlow = exp(slow * t), eFast = exp(fast * t)
                return (a * eSlow + b * eFast, a * slow * eSlow + b * fast * eFast)
            }
        }
    }

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

    /// R(b) for each band b: one more than the last frame n with |d(n·dt)| > b (0 if none), found
    /// by scanning frames until the energy bound √(d² + m v²/k) ≤ b proves no later frame leaves
    /// the band; nil for a band that takes more than `limit` frames.
    static func restFrames(_ motion: ExactMotion, configuration: SpringConfiguration, dt: Double, bands: [Double], limit: Int) -> [Int?] {
        let ratio = configuration.mass / configuration.tension
        var lastOutside = bands.map { _ in -1 }
        var result: [Int?] = bands.map { _ in nil }
        for n in 0...limit {
            let (d, v) = motion.state(at: Double(n) * dt)
            let energy = (d * d + ratio * v * v).squareRoot()
            for (i, band) in bands.enumerated() where result[i] == nil {
                if abs(d) > band { lastOutside[i] = n }
                if energy <= band { result[i] = lastOutside[i] + 1 }
            }
            if !result.contains(nil) { break }
        }
        return result
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
                var motion: ExactMotion
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
                let motion = ExactMotion(configuration: member.configuration, displacement: d0, velocity: v0)
                tracked.append(Tracked(spring: spring, motion: motion, rest: try bank.isAtRest(spring) ? 0 : nil))
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
                    let exact = member.target.doubleValue + tracked[index].motion.state(at: t).d
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
                let frames = Self.restFrames(
                    spring.motion, configuration: member.configuration, dt: dt, bands: [1.05 * tolerance, 0.95 * tolerance], limit: frameLimit)
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
