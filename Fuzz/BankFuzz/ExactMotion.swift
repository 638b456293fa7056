import _SpringOracles

/// A damped spring's exact motion from one state, in Float64: the fuzzer's oracle for "never
/// early". The motion is the oracle module's closed form (`ExactSpring`, libm, no code shared
/// with the kernel); this adds the search for an excursion the bank would have missed.
struct ExactMotion {
    let d0: Double, v0: Double
    let spring: ExactSpring

    init(displacement: Double, velocity: Double, tension k: Double, friction c: Double, mass m: Double) {
        d0 = displacement
        v0 = velocity
        spring = ExactSpring(tension: k, friction: c, mass: m)
    }

    /// (d, v) after `t` seconds.
    func state(after t: Double) -> (d: Double, v: Double) {
        let s = spring.state(displacement: d0, velocity: v0, after: t)
        return (s.displacement, s.velocity)
    }

    /// A time at or after `from` when the motion is outside `band` by more than the slack, found
    /// by sampling (so it may miss a narrow excursion, never invent one) until the energy bound
    /// proves |d| ≤ band from then on; nil if none was found.
    /// `frameDuration`: only the ends of frames of that duration count (a fixed frame clock).
    func excursion(from start: Double, band: Double, frameDuration: Double? = nil) -> Double? {
        let limit = band * (1 + 1e-7) + 1e-300
        var t = start
        let oscillates = spring.regime == .underdamped
        var step: Double
        if let frameDuration {
            step = frameDuration
        } else if oscillates {
            step = .pi / spring.splitting / 16
        } else {
            step = 1e-3 / (spring.decayRate + spring.splitting + 1e-300)
        }
        for _ in 0..<4000 {
            let s = state(after: t)
            guard s.d.isFinite, s.v.isFinite else { return nil }
            if abs(s.d) > limit { return t }
            if spring.energyBound(displacement: s.d, velocity: s.v) <= band { return nil }
            t += step
            if frameDuration == nil, !oscillates { step *= 1.05 }
            guard t.isFinite else { return nil }
        }
        return nil
    }
}
