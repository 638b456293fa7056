import Foundation
@_spi(KernelInternals) import SpringKernel
import _SpringOracles

/// The tests' seeded generator: every property test is reproducible from its seed.
typealias SeededGenerator = SplitMix64

extension SplitMix64 {
    /// Uniform on a logarithmic scale between two positive bounds.
    mutating func logUniform(_ low: Double, _ high: Double) -> Double {
        exp(Double.random(in: log(low)...log(high), using: &self))
    }
}

/// A spring's exact motion in Float64 over the frames a test actually steps: the oracle of the
/// never-early property tests, which knows nothing of the kernel's rest schedule.
struct ExactSpringModel {
    var configuration: SpringConfiguration
    var d: Double
    var v: Double
    var tolerance: Double

    /// Moves the model on by one frame of `dt`.
    mutating func advance(by dt: Double) {
        let next = ExactSpring(configuration).propagator(over: dt).apply(displacement: d, velocity: v)
        d = next.displacement
        v = next.velocity
    }

    /// Seconds of motion left outside the band (widened by the float32 lanes' rounding: 10⁻⁵ of
    /// the amplitude and 10⁻⁷): 0 when snapping the spring now is not early.
    var motionLeftOutsideBand: Double {
        let amplitude = (d * d + configuration.mass / configuration.tension * v * v).squareRoot()
        return ReferenceRest.restTime(
            displacement: d, velocity: v, tolerance: tolerance + 1e-5 * amplitude + 1e-7, configuration: configuration)
    }
}

extension ExactSpring {
    /// The exact motion of a kernel configuration.
    init(_ configuration: SpringConfiguration) {
        self.init(tension: configuration.tension, friction: configuration.friction, mass: configuration.mass)
    }
}

/// The oracle module's brute-force rest scans (``ExactRest``, which share nothing with the
/// kernel's propagator or `SettlePredictor`), in the tests' terms.
enum ReferenceRest {
    /// R: the smallest j with |d_i| <= tolerance for every frame i >= j of a steady clock of `dt`,
    /// or nil if not proven within `limit` frames.
    static func restFrame(
        displacement: Double, velocity: Double, tolerance: Double,
        configuration: SpringConfiguration, dt: Double, limit: Int = 400_000
    ) -> Int? {
        ExactRest.restFrame(
            displacement: displacement, velocity: velocity, spring: ExactSpring(configuration), band: tolerance,
            clock: .steady(frameDuration: dt), limit: limit)
    }

    /// T*: the last time the exact continuous motion is outside the band |d| ≤ tolerance (0 if it
    /// never is; `.infinity` if it never settles).
    static func restTime(displacement: Double, velocity: Double, tolerance: Double, configuration: SpringConfiguration) -> Double {
        ExactRest.restTime(displacement: displacement, velocity: velocity, spring: ExactSpring(configuration), band: tolerance) ?? .infinity
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
