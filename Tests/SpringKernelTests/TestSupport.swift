import Foundation
@_spi(KernelInternals) import SpringKernel

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
        let next = SpringMotion(configuration).propagator(over: dt).apply(displacement: d, velocity: v)
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

extension ReferenceRest {
    /// T*: the last time the exact continuous motion is outside the band |d| ≤ tolerance (0 if it
    /// never is; `.infinity` if it never settles), found numerically and independently of
    /// `SettlePredictor`'s closed-form lobes: the motion is sampled on a grid fine enough that each
    /// cell holds at most one zero of the velocity (an eighth of a half-period when it oscillates;
    /// a geometric grid otherwise, as d then has at most one extremum), every extremum of d is
    /// found by bisection on the velocity's sign, and the crossing after the last extremum above
    /// the band by bisection on |d|. It walks until the energy bound √(d² + m v²/k) proves the rest.
    static func restTime(displacement: Double, velocity: Double, tolerance: Double, configuration: SpringConfiguration) -> Double {
        guard tolerance > 0 else { return .infinity }
        let motion = SpringMotion(configuration)
        let k = configuration.tension, m = configuration.mass
        func state(_ t: Double) -> (d: Double, v: Double) {
            let s = motion.propagator(over: t).apply(displacement: displacement, velocity: velocity)
            return (s.displacement, s.velocity)
        }
        func proven(_ s: (d: Double, v: Double)) -> Bool { (s.d * s.d + m * s.v * s.v / k).squareRoot() <= tolerance }
        if proven((displacement, velocity)) { return 0 }
        if motion.decayRate == 0 { return .infinity }
        let oscillates = motion.regime == .underdamped
        let slowRate = oscillates ? motion.decayRate : k / m / (motion.decayRate + motion.splitting)
        let fastRate = motion.decayRate + motion.splitting
        // The grid: times t_0 = 0 < t_1 < …, until the rest is proven.
        var times: [Double] = [0]
        var t = 0.0, step = oscillates ? .pi / motion.splitting / 8 : 0.01 / fastRate
        while true {
            t += step
            if !oscillates { step *= 1.25 }
            times.append(t)
            if proven(state(t)) { break }
            if times.count > 5_000_000 || t > 1e12 / slowRate { return .infinity }
        }
        // Extrema: the grid cells where v changes sign, refined by bisection (from the last back,
        // only as far as the first outside the band: peaks before it do not matter).
        var cells: [(Double, Double)] = []
        var previousSign = state(0).v > 0
        for i in 1..<times.count {
            let sign = state(times[i]).v > 0
            if sign != previousSign { cells.append((times[i - 1], times[i])) }
            previousSign = sign
        }
        func extremum(_ cell: (Double, Double)) -> Double {
            var (low, high) = cell
            let lowSign = state(low).v > 0
            for _ in 0..<100 {
                let middle = low + (high - low) / 2
                guard middle > low && middle < high else { break }
                if (state(middle).v > 0) == lowSign { low = middle } else { high = middle }
            }
            return low + (high - low) / 2
        }
        // The last extremum outside the band (or t = 0), and the fall to the band after it, which
        // ends before the next extremum (or the proof).
        var start: Double?
        var end = times.last!
        for cell in cells.reversed() {
            let e = extremum(cell)
            if abs(state(e).d) > tolerance {
                start = e
                break
            }
            end = e
        }
        if start == nil {
            guard abs(displacement) > tolerance else { return 0 }
            start = 0
        }
        var low = start!, high = end
        for _ in 0..<200 {
            let middle = low + (high - low) / 2
            guard middle > low && middle < high else { break }
            if abs(state(middle).d) > tolerance { low = middle } else { high = middle }
        }
        return high
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
