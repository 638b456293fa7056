/// The exact motion of a damped spring, m x'' = -k (x - target) - c x', in closed form.
///
/// The system is linear in (d, v) = (x - target, x'), so its motion over any duration t is a 2x2
/// matrix, ``SpringPropagator``. This type is the one place that matrix is computed: the kernel's
/// per-frame coefficients and the settle predictor both come from ``propagator(over:)``.
///
/// With σ = c / 2m and ω₀² = k / m the solution is
/// d(t) = e^(-σt) · (d₀ C(t) + (v₀ + σ d₀) S(t)), where
/// - under-damped (σ < ω₀), ω = √(ω₀² − σ²): C = cos ωt, S = sin(ωt) / ω;
/// - critically damped (σ = ω₀): C = 1, S = t;
/// - over-damped (σ > ω₀), β = √(σ² − ω₀²): C = cosh βt, S = sinh(βt) / β.
///
/// The over-damped case is evaluated as two decaying exponentials once βt ≥ 1 so that nothing
/// overflows however long the step (a two-second hitch or a day), and through sinh/β below that so
/// that nothing cancels near critical damping. exp, sin and cos come from `DeterministicMath`,
/// not libm, so the propagator is the same bits on every machine.
public struct SpringMotion: Hashable, Sendable {
    /// The damping regime of a configuration.
    public enum Regime: Hashable, Sendable {
        /// ζ < 1: oscillates about the target with a decaying envelope.
        case underdamped
        /// ζ = 1: the fastest return without overshoot.
        case critical
        /// ζ > 1: a sum of two decaying exponentials, at most one overshoot.
        case overdamped
    }

    /// The configuration this motion belongs to.
    public let configuration: SpringConfiguration
    /// Which closed form applies.
    public let regime: Regime
    /// σ = c / 2m, the decay rate of the envelope.
    public let decayRate: Double
    /// ω₀² = k / m.
    public let stiffnessPerMass: Double
    /// ω (under-damped), β (over-damped) or 0 (critical).
    public let splitting: Double
    /// 1/σ, 1/ω (or 0), π/ω (or 0), ω²/ω₀² (or 0) and the slow decay rate ω₀²/(σ + β) (or σ),
    /// kept for the rest predictor's per-event bound, which then multiplies instead of dividing.
    let inverseDecayRate: Double
    let inverseSplitting: Double
    let halfPeriod: Double
    let peakScaleSquared: Double
    let slowDecayRate: Double

    /// The motion of springs with this configuration.
    public init(_ configuration: SpringConfiguration) {
        let sigma = configuration.friction / (2 * configuration.mass)
        let omega0Squared = configuration.tension / configuration.mass
        let omega0 = omega0Squared.squareRoot()
        // σ² − ω₀² in factored form keeps its precision near critical damping.
        let discriminant = (sigma - omega0) * (sigma + omega0)
        self.configuration = configuration
        self.decayRate = sigma
        self.stiffnessPerMass = omega0Squared
        if discriminant < 0 {
            regime = .underdamped
            splitting = (-discriminant).squareRoot()
        } else if discriminant > 0 {
            regime = .overdamped
            splitting = discriminant.squareRoot()
        } else {
            regime = .critical
            splitting = 0
        }
        inverseDecayRate = sigma > 0 ? 1 / sigma : .infinity
        let oscillates = regime == .underdamped
        inverseSplitting = oscillates ? 1 / splitting : 0
        halfPeriod = oscillates ? .pi / splitting : 0
        peakScaleSquared = oscillates ? splitting * splitting / omega0Squared : 0
        slowDecayRate = regime == .overdamped ? omega0Squared / (sigma + splitting) : sigma
    }

    /// The exact map from (d, v) now to (d, v) after a duration `t` ≥ 0.
    public func propagator(over t: Double) -> SpringPropagator {
        let sigma = decayRate
        switch regime {
        case .underdamped:
            let envelope = DeterministicMath.exp(-sigma * t)
            let (sine, cosine) = DeterministicMath.sinCos(phase(after: t))
            return SpringPropagator(
                cosineTerm: envelope * cosine, sineTerm: envelope * sine * inverseSplitting, motion: self)
        case .critical:
            let envelope = DeterministicMath.exp(-sigma * t)
            return SpringPropagator(cosineTerm: envelope, sineTerm: envelope * t, motion: self)
        case .overdamped:
            let beta = splitting
            if beta * t < 1 {
                let envelope = DeterministicMath.exp(-sigma * t)
                return SpringPropagator(
                    cosineTerm: envelope * DeterministicMath.cosh(beta * t),
                    sineTerm: envelope * DeterministicMath.sinh(beta * t) / beta, motion: self)
            }
            // e^(-σt) cosh βt = (e^(-s₁t) + e^(-s₂t)) / 2 with the slow rate s₁ = ω₀² / (σ + β)
            // (not σ − β, which cancels for large ζ) and the fast rate s₂ = σ + β.
            let fast = sigma + beta
            let slow = stiffnessPerMass / fast
            let slowTerm = DeterministicMath.exp(-slow * t)
            let fastTerm = DeterministicMath.exp(-fast * t)
            let twoBeta = 2 * beta
            let sineTerm = (slowTerm - fastTerm) / twoBeta
            return SpringPropagator(
                a11: (fast * slowTerm - slow * fastTerm) / twoBeta,
                a12: sineTerm,
                a21: -stiffnessPerMass * sineTerm,
                a22: (fast * fastTerm - slow * slowTerm) / twoBeta)
        }
    }

    /// ωt, the under-damped phase after `t`. Past the largest Double (ω up to 10⁶ rad/s, t up to
    /// 1.8·10³⁰⁸ s) t is first reduced by the exact remainder modulo the period 2π/ω, so the phase
    /// stays finite and the propagator a rotation; every phase that fits is left as it was, so no
    /// step coefficient changes.
    func phase(after t: Double) -> Double {
        let phase = splitting * t
        guard !phase.isFinite, t.isFinite else { return phase }
        return splitting * DeterministicMath.truncatingRemainder(t, dividingBy: 2 * .pi / splitting)
    }

    /// The displacement from the target after a duration `t`, starting from displacement `d` and
    /// velocity `v`.
    public func displacement(after t: Double, from d: Double, velocity v: Double) -> Double {
        propagator(over: t).apply(displacement: d, velocity: v).displacement
    }
}

/// The exact 2x2 map of a spring's state over one duration:
/// d' = a11 d + a12 v, v' = a21 d + a22 v, with d the displacement from the target.
public struct SpringPropagator: Hashable, Sendable {
    /// Displacement from displacement.
    public let a11: Double
    /// Displacement from velocity.
    public let a12: Double
    /// Velocity from displacement.
    public let a21: Double
    /// Velocity from velocity.
    public let a22: Double

    /// A propagator from its four entries.
    public init(a11: Double, a12: Double, a21: Double, a22: Double) {
        self.a11 = a11
        self.a12 = a12
        self.a21 = a21
        self.a22 = a22
    }

    /// Builds the matrix from e^(-σt)·C(t) and e^(-σt)·S(t) (see ``SpringMotion``).
    init(cosineTerm c: Double, sineTerm s: Double, motion: SpringMotion) {
        self.init(
            a11: c + motion.decayRate * s,
            a12: s,
            a21: -motion.stiffnessPerMass * s,
            a22: c - motion.decayRate * s)
    }

    /// The state after this propagator's duration.
    public func apply(displacement d: Double, velocity v: Double) -> (displacement: Double, velocity: Double) {
        (a11 * d + a12 * v, a21 * d + a22 * v)
    }
}
