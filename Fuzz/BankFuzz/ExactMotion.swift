import Foundation

/// A damped spring's exact motion in Float64, written apart from the kernel (libm's exp, sin, cos,
/// sinh and cosh; no code shared with `SpringMotion` or `SettlePredictor`): the fuzzer's oracle
/// for "never early".
struct ExactMotion {
    let d0: Double, v0: Double
    let sigma: Double, omega0Squared: Double
    let discriminant: Double
    let stiffnessRatio: Double  // m / k

    init(displacement: Double, velocity: Double, tension k: Double, friction c: Double, mass m: Double) {
        d0 = displacement
        v0 = velocity
        sigma = c / (2 * m)
        omega0Squared = k / m
        let omega0 = omega0Squared.squareRoot()
        discriminant = (sigma - omega0) * (sigma + omega0)
        stiffnessRatio = m / k
    }

    /// (d, v) after `t` seconds.
    func state(after t: Double) -> (d: Double, v: Double) {
        let b = v0 + sigma * d0
        if discriminant < 0 {
            let omega = (-discriminant).squareRoot()
            let phase = (omega * t).isFinite ? omega * t : omega * t.truncatingRemainder(dividingBy: 2 * .pi / omega)
            let e = exp(-sigma * t), c = cos(phase), s = sin(phase)
            let d = e * (d0 * c + b / omega * s)
            let v = e * ((-sigma * d0 + b) * c + (-sigma * b / omega - omega * d0) * s)
            return (d, v)
        }
        if discriminant == 0 {
            let e = exp(-sigma * t)
            return (e * (d0 + b * t), e * (b - sigma * (d0 + b * t)))
        }
        let beta = discriminant.squareRoot()
        if beta * t < 1 {
            let e = exp(-sigma * t), ch = cosh(beta * t), sh = sinh(beta * t)
            let d = e * (d0 * ch + b * sh / beta)
            let v = e * (-sigma * (d0 * ch + b * sh / beta) + d0 * beta * sh + b * ch)
            return (d, v)
        }
        // Two exponentials, the slow rate without cancellation: d = A e^(-s t) + B e^(-f t).
        let fast = sigma + beta, slow = omega0Squared / fast
        let a = (v0 + fast * d0) / (fast - slow), bb = d0 - a
        let es = exp(-slow * t), ef = exp(-fast * t)
        return (a * es + bb * ef, -slow * a * es - fast * bb * ef)
    }

    /// Whether the energy bound proves |d| ≤ band from this state on.
    func proven(_ s: (d: Double, v: Double), band: Double) -> Bool {
        (s.d * s.d + stiffnessRatio * s.v * s.v).squareRoot() <= band
    }

    /// A time at or after `from` when the motion is outside `band` by more than the slack, found
    /// by sampling (so it may miss a narrow excursion, never invent one); nil if none was found.
    /// `frameDuration`: only the ends of frames of that duration count (a fixed frame clock).
    func excursion(from start: Double, band: Double, frameDuration: Double? = nil) -> Double? {
        let limit = band * (1 + 1e-7) + 1e-300
        var t = start
        let oscillates = discriminant < 0
        let omega = oscillates ? (-discriminant).squareRoot() : 0
        var step: Double
        if let frameDuration {
            step = frameDuration
        } else if oscillates {
            step = .pi / omega / 16
        } else {
            step = 1e-3 / (sigma + discriminant.squareRoot() + 1e-300)
        }
        for _ in 0..<4000 {
            let s = state(after: t)
            guard s.d.isFinite, s.v.isFinite else { return nil }
            if abs(s.d) > limit { return t }
            if proven(s, band: band) { return nil }
            t += step
            if frameDuration == nil, !oscillates { step *= 1.05 }
            guard t.isFinite else { return nil }
        }
        return nil
    }
}
