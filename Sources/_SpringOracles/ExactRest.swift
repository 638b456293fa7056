/// When a spring's exact motion comes to rest, by brute force: the oracles for the kernel's rest
/// frames, independent of its closed-form search (`SettlePredictor`) and of its propagator.
public enum ExactRest {
    /// The frame clock a motion is sampled on.
    public enum Clock: Hashable, Sendable {
        /// Every frame lasts `frameDuration` seconds.
        case steady(frameDuration: Double)
        /// Frame i lasts `durations[i % durations.count]` seconds (not empty).
        case durations([Double])
    }

    /// R: the first frame j from which the exact motion stays within the band for good,
    /// |d_i| ≤ `band` for every frame i ≥ j (frame 0 is the start, frame i + 1 one frame's duration
    /// after frame i), or nil if that is not proven by frame `limit`.
    ///
    /// The state is stepped frame by frame with the exact propagator of each frame's duration
    /// (``ExactSpring/propagator(over:)``) until the energy proves that no later frame can leave
    /// the band: d² + (m/k) v² ≤ band² (1 − 10⁻⁹), the margin covering the rounding of the
    /// steps. The result does not depend on where the scan stops once the proof holds.
    public static func restFrame(
        displacement: Double, velocity: Double, spring: ExactSpring, band: Double, clock: Clock, limit: Int
    ) -> Int? {
        let stiffnessRatio = spring.mass / spring.tension
        let bound = band * band * (1 - 1e-9)
        var d = displacement, v = velocity
        var lastOutside = -1
        var steady: ExactPropagator?
        var cycle: [ExactPropagator?] = []
        if case .steady(let frameDuration) = clock { steady = spring.propagator(over: frameDuration) }
        if case .durations(let durations) = clock {
            guard !durations.isEmpty else { return nil }
            cycle = Array(repeating: nil, count: durations.count)
        }
        for frame in 0...max(0, limit) {
            if abs(d) > band { lastOutside = frame }
            if d * d + stiffnessRatio * v * v <= bound { return lastOutside + 1 }
            let step: ExactPropagator
            switch clock {
            case .steady: step = steady!
            case .durations(let durations):
                let i = frame % durations.count
                if let known = cycle[i] {
                    step = known
                } else {
                    step = spring.propagator(over: durations[i])
                    cycle[i] = step
                }
            }
            (d, v) = step.apply(displacement: d, velocity: v)
        }
        return nil
    }

    /// T*: the last time the exact continuous motion from (`displacement`, `velocity`) is outside
    /// the band |d| ≤ `band` (0 if it never is), or nil if it never settles (no friction, a band
    /// ≤ 0 or NaN, or no proof within 5,000,000 grid points or 10¹² times the slow decay time).
    ///
    /// The motion is sampled on a grid fine enough that each cell holds at most one zero of the
    /// velocity (an eighth of a half-period when it oscillates; a geometric grid from a hundredth
    /// of the fast decay time otherwise, as d then has at most one extremum), until the energy
    /// bound √(d² + m v²/k) ≤ band proves the rest. Each extremum of d, from the last back to the
    /// first outside the band, is found by bisection on the velocity's sign, and the fall to the
    /// band after it by bisection on |d|.
    public static func restTime(displacement: Double, velocity: Double, spring: ExactSpring, band: Double) -> Double? {
        guard band > 0 else { return nil }
        func state(_ t: Double) -> (d: Double, v: Double) {
            let s = spring.state(displacement: displacement, velocity: velocity, after: t)
            return (s.displacement, s.velocity)
        }
        func proven(_ s: (d: Double, v: Double)) -> Bool { spring.energyBound(displacement: s.d, velocity: s.v) <= band }
        if proven((displacement, velocity)) { return 0 }
        guard spring.decayRate > 0 else { return nil }
        let oscillates = spring.regime == .underdamped
        let fastRate = spring.decayRate + spring.splitting
        // The grid: times t_0 = 0 < t_1 < …, until the rest is proven.
        var times: [Double] = [0]
        var t = 0.0, step = oscillates ? .pi / spring.splitting / 8 : 0.01 / fastRate
        while true {
            t += step
            if !oscillates { step *= 1.25 }
            times.append(t)
            if proven(state(t)) { break }
            if times.count > 5_000_000 || t > 1e12 / spring.slowRate { return nil }
        }
        func bisect(_ low: Double, _ high: Double, _ isLeft: (Double) -> Bool) -> Double {
            var (low, high) = (low, high)
            for _ in 0..<200 {
                let middle = low + (high - low) / 2
                guard middle > low && middle < high else { break }
                if isLeft(middle) { low = middle } else { high = middle }
            }
            return high
        }
        // Extrema: the grid cells where v changes sign.
        var cells: [(Double, Double)] = []
        var previousSign = velocity > 0
        for i in 1..<times.count {
            let sign = state(times[i]).v > 0
            if sign != previousSign { cells.append((times[i - 1], times[i])) }
            previousSign = sign
        }
        // The last extremum outside the band (or t = 0), and the fall to the band after it, which
        // ends before the next extremum (or the proof).
        var end = times.last!
        for cell in cells.reversed() {
            let lowSign = state(cell.0).v > 0
            let extremum = bisect(cell.0, cell.1) { (state($0).v > 0) == lowSign }
            if abs(state(extremum).d) > band {
                return bisect(extremum, end) { abs(state($0).d) > band }
            }
            end = extremum
        }
        return abs(displacement) > band ? bisect(0, end) { abs(state($0).d) > band } : 0
    }
}
