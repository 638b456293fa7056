@_spi(KernelInternals) import SpringKernel
import _SpringOracles

/// How far a float32 spring of the soak may drift from its exact Float64 model, and why.
///
/// ## The metric
/// Errors are measured in the spring's energy norm ‖(d, v)‖ = √(d² + (v / ω₀)²), in value units
/// (√(k d² + m v²) / √k). The exact step A(t) of a damped spring never increases it (the energy
/// k d²/2 + m v²/2 only falls, at rate c v²), so g(t) = ‖A(t)‖ is at most 1 and, because
/// A(s + t) = A(s) A(t), never increases with t. A spring's drift is e = ‖(Δd, Δv)‖ between
/// its float32 lanes and the model; its motion scale S is |target| + ‖(d, v)‖, the largest over the
/// spring's current episode (since it was added, last set to a state, or last came to rest, when
/// kernel and model agree to within one rounding, or exactly).
///
/// ## Where float32 errs
/// - A step computes d' = fl(fl(â₁₁ d) + fl(â₁₂ v)) with â = fl32(a) (and likewise v'): three
///   roundings of relative size u = 2⁻²⁴, none fused. In energy-norm coordinates the error is at
///   most 3u·|B|·|z| componentwise, with B the scaled step; ‖B‖ ≤ 1, so its entries are at most 1
///   and ‖|B|‖ ≤ ‖B‖_F ≤ √2: at most 3√2·u·S per step.
/// - A retarget computes fl(fl(target + d) − target'): at most u (|x| + |d'|) ≤ 2u·S. An impulse
///   fl(v + Δv): at most u·|v'| / ω₀ ≤ u·S. Setting a state (add, setState, a resume's restart
///   values) starts a new episode with one rounding of d, at most u·S; coming to rest starts one
///   with none. The workload makes at most one of these changes to a spring between two of its
///   steps (a state may always be set: it replaces the error before it), so each step carries at
///   most (3√2 + 2)·u·S of new error.
///
/// ## The bound
/// An error made at time τ has been carried by A(now − τ), so e ≤ Σ g(now − τⱼ) · (3√2 + 2)·u·S
/// over the steps j of the episode. Frames are never shorter than h = ``SoakFrameClock/shortestFrame``,
/// so the j-th most recent step is at least j·h old and, g being non-increasing,
/// e ≤ (3√2 + 2)·u·S·K with K = Σⱼ g(j·h), which this type sums numerically for each
/// configuration (until the terms fall below 10⁻¹²; every soak configuration is damped, so the sum
/// converges). A configuration change of a moving spring keeps its lanes but changes the norm: the
/// error and S both grow by at most ω₀ / ω₀' (S is scaled so), and the accumulation starts again
/// on top of what was carried; the workload allows one such change per episode, hence a factor 2:
///
///     e ≤ 2 (3√2 + 2) u K_max · S · (1 + 10⁻³)  +  absolute
///
/// where 10⁻³ covers the model's own Double roundings (≈ 2⁻⁵³ per operation, 2⁻²⁹ of the float32
/// terms) and the O(u²) terms, and the absolute term covers float32's subnormal range (2⁻¹⁴⁹ per
/// operation, far below anything a spring in motion reaches). A model that steps a frame of the
/// wrong duration, or with the wrong configuration, is off by far more: a relative error δ in dt
/// moves d by about δ·ω₀·dt·S per step, 10⁴ times this bound's per-step share for δ = 10⁻⁴ at 60 Hz.
struct SoakDriftBound: Codable, Hashable {
    /// Float32's unit roundoff.
    static let unitRoundoff = 0x1p-24
    /// Error a step and one retarget or impulse add, in units of u·S.
    static let newErrorPerStep = 3 * 2.0.squareRoot() + 2

    /// The allowed drift relative to the spring's motion scale.
    var relative: Double
    /// The allowed drift in value units on top of the relative part.
    var absolute: Double
    /// K for the slowest-decaying configuration: how many steps' errors can add up.
    var stepsOfMemory: Double
    /// That configuration's name.
    var slowestConfiguration: String

    /// The bound for springs of `configurations` stepped by frames no shorter than `shortestFrame`.
    init(configurations: [SoakConfiguration], shortestFrame: Double) {
        var worst = (steps: 0.0, name: "")
        for configuration in configurations {
            let steps = Self.stepsOfMemory(configuration.configuration, spacing: shortestFrame)
            if steps > worst.steps { worst = (steps, configuration.name) }
        }
        stepsOfMemory = worst.steps
        slowestConfiguration = worst.name
        relative = 2 * Self.newErrorPerStep * Self.unitRoundoff * worst.steps * (1 + 1e-3)
        absolute = 2 * Self.newErrorPerStep * 0x1p-149 * worst.steps * 4
    }

    /// K = Σⱼ g(j·h), the energy-norm weights with which past steps' errors still count.
    static func stepsOfMemory(_ configuration: SpringConfiguration, spacing: Double) -> Double {
        precondition(configuration.friction > 0, "an undamped spring's errors never fade: no bound")
        let omega0 = configuration.naturalFrequency
        var sum = 0.0
        for j in 0..<10_000_000 {
            // min(1, ·): the exact norm is at most 1; its Double evaluation may be a rounding above.
            let weight = min(1, ExactSpring(configuration).propagator(over: Double(j) * spacing).energyNorm(naturalFrequency: omega0))
            sum += weight
            if weight < 1e-12 { return sum }
        }
        preconditionFailure("the energy norm of \(configuration) did not decay within 10⁷ steps")
    }
}

extension ExactPropagator {
    /// The step's norm in the spring's energy norm ‖(d, v)‖ = √(d² + (v / ω₀)²) (proportional to
    /// √(k d² + m v²)): the largest singular value of diag(1, 1/ω₀) · A · diag(1, ω₀).
    /// At most 1 for an exact step of a damped spring: the energy never rises.
    func energyNorm(naturalFrequency omega0: Double) -> Double {
        let b11 = a11, b12 = a12 * omega0, b21 = a21 / omega0, b22 = a22
        let frobenius = b11 * b11 + b12 * b12 + b21 * b21 + b22 * b22
        let determinant = b11 * b22 - b12 * b21
        let spread = max(0, frobenius * frobenius - 4 * determinant * determinant).squareRoot()
        return ((frobenius + spread) / 2).squareRoot()
    }
}
