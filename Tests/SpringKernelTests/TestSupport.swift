import Foundation
import SpringKernel

/// The tests' seeded generator: every property test is reproducible from its seed.
typealias SeededGenerator = SplitMix64

extension SplitMix64 {
    /// Uniform on a logarithmic scale between two positive bounds.
    mutating func logUniform(_ low: Double, _ high: Double) -> Double {
        exp(Double.random(in: log(low)...log(high), using: &self))
    }
}

/// The perceptual rest frame of a Float64 trajectory, by brute force: the state is stepped with
/// the exact Double propagator until its energy proves it can never leave the band again.
/// Independent of `SettlePredictor`'s search.
enum ReferenceRest {
    /// R: the smallest j with |d_i| <= tolerance for every i >= j, or nil if not found within `limit` frames.
    static func restFrame(
        displacement: Double, velocity: Double, tolerance: Double,
        configuration: SpringConfiguration, dt: Double, limit: Int = 400_000
    ) -> Int? {
        let step = SpringMotion(configuration).propagator(over: dt)
        let k = configuration.tension, m = configuration.mass
        var d = displacement, v = velocity
        var lastOutside = -1
        for frame in 0...limit {
            if abs(d) > tolerance { lastOutside = frame }
            // E = k d²/2 + m v²/2 never grows, and |d| <= √(2E/k) for the rest of the motion.
            let bound = (d * d + m * v * v / k).squareRoot()
            if bound <= tolerance * (1 - 1e-9) { return lastOutside + 1 }
            (d, v) = step.apply(displacement: d, velocity: v)
        }
        return nil
    }
}

/// A random spring case from the whole range the kernel promises: ζ from 0.01 to 30, distances
/// from 0.01 to 3000, velocities to ±8000/s, 30 to 240 Hz.
struct SettleCase: CustomStringConvertible {
    var configuration: SpringConfiguration
    var from: Float
    var to: Float
    var velocity: Float
    var tolerance: Float
    var hz: Double

    static func random(using generator: inout SeededGenerator, maximumFrames: Int = 20_000) -> SettleCase {
        while true {
            let zeta = generator.logUniform(0.01, 30)
            let tension = generator.logUniform(20, 3000)
            let mass = generator.logUniform(0.2, 5)
            let friction = zeta * 2 * (tension * mass).squareRoot()
            guard let configuration = try? SpringConfiguration(tension: tension, friction: friction, mass: mass) else { continue }
            let distance = generator.logUniform(0.01, 3000) * (Bool.random(using: &generator) ? 1 : -1)
            let target = Float(Double.random(in: -500...500, using: &generator).rounded())
            let velocity = Bool.random(using: &generator) ? 0 : Float(Double.random(in: -8000...8000, using: &generator))
            let tolerance: Float = Bool.random(using: &generator) ? 0.5 : 1.0 / 256
            let hz = [30.0, 60, 90, 120, 144, 240].randomElement(using: &generator)!
            let candidate = SettleCase(
                configuration: configuration, from: target + Float(distance), to: target, velocity: velocity,
                tolerance: tolerance, hz: hz)
            // Keep debug-build test time bounded: very slow decays are covered by the benchmark corpus.
            guard let rest = candidate.referenceRestFrame(limit: maximumFrames), rest < maximumFrames else { continue }
            return candidate
        }
    }

    func referenceRestFrame(limit: Int = 400_000) -> Int? {
        ReferenceRest.restFrame(
            displacement: Double(from) - Double(to), velocity: Double(velocity), tolerance: Double(tolerance),
            configuration: configuration, dt: 1 / hz, limit: limit)
    }

    var description: String {
        "k=\(configuration.tension) c=\(configuration.friction) m=\(configuration.mass) ζ=\(configuration.dampingRatio) from=\(from) to=\(to) v=\(velocity) tol=\(tolerance) hz=\(hz)"
    }
}

/// Bit patterns of every lane a test cares about, for bit-for-bit comparisons.
func bits(_ bank: SpringBank<Float32Lanes>, _ springs: [SpringHandle]) throws -> [UInt32] {
    try springs.flatMap { [try bank.value(of: $0).bitPattern, try bank.velocity(of: $0).bitPattern] }
}
