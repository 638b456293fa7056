#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

/// A damped spring's exact motion in Float64: the oracle the benchmark, the fuzzers and the tests
/// judge the kernel by. It is written from the closed form with the platform's libm (`exp`,
/// `expm1`, `sin`, `cos`, `sinh`, `cosh`) and shares no code with the kernel (`SpringMotion` uses
/// `DeterministicMath`), so an error in the kernel's coefficients shows as a difference.
///
/// The motion of m x'' = −k (x − target) − c x', in the displacement d = x − target, with
/// σ = c / 2m and ω₀² = k / m, is d(t) = e^(−σt) (d₀ C + (v₀ + σ d₀) S), where
/// - under-damped (σ < ω₀): C = cos ωt, S = sin(ωt) / ω, ω = √(ω₀² − σ²);
/// - critically damped (σ = ω₀): C = 1, S = t;
/// - over-damped (σ > ω₀): C = cosh βt, S = sinh(βt) / β, β = √(σ² − ω₀²).
///
/// Written without cancellation in every regime:
/// - The discriminant c² − 4km is formed with fused multiply-adds (the rounding errors of both
///   products are carried), so ω and β keep their relative accuracy next to critical damping.
/// - Where the splitting is so small that sin(x)/x or sinh(x)/x would lose digits (|ωt|, |βt| below
///   10⁻³, critical damping included), C and S / t come from their series.
/// - Over-damped with βt ≥ 1, the two decaying exponentials e^(−s t), e^(−f t) are used, with the
///   fast rate f = σ + β and the slow rate s = ω₀² / f (not σ − β, which cancels when ζ is large),
///   and e^(−s t) − e^(−f t) as −e^(−s t) expm1(−2βt).
///
/// ```swift
/// let spring = ExactSpring(tension: 342, friction: 30, mass: 1)
/// let later = spring.state(displacement: 100, velocity: 0, after: 0.25)
/// ```
public struct ExactSpring: Hashable, Sendable {
    /// k, c and m, as given.
    public let tension: Double, friction: Double, mass: Double
    /// σ = c / 2m: the rate at which the envelope decays.
    public let decayRate: Double
    /// ω₀² = k / m.
    public let naturalFrequencySquared: Double
    /// ω = √(ω₀² − σ²) when under-damped, β = √(σ² − ω₀²) when over-damped, 0 when critically
    /// damped.
    public let splitting: Double
    /// Which of the three closed forms the motion takes.
    public let regime: Regime

    /// The three forms of the motion.
    public enum Regime: Hashable, Sendable {
        /// σ < ω₀: an oscillation in a decaying envelope.
        case underdamped
        /// σ = ω₀ exactly (c² = 4km in Float64, with the products' rounding carried).
        case critical
        /// σ > ω₀: two decaying exponentials.
        case overdamped
    }

    /// The spring m x'' = −k (x − target) − c x' (tension k > 0, friction c ≥ 0, mass m > 0;
    /// other values give a motion of NaNs or infinities, not a trap).
    public init(tension k: Double, friction c: Double, mass m: Double) {
        tension = k
        friction = c
        mass = m
        decayRate = c / (2 * m)
        naturalFrequencySquared = k / m
        // c² − 4km with both products' rounding errors carried (exact up to the last subtraction's
        // rounding), then divided by (2m)² for σ² − ω₀².
        let square = c * c, squareError = fma(c, c, -square)
        let fourK = 4 * k
        let product = fourK * m, productError = fma(fourK, m, -product)
        var discriminant = (square - product) + (squareError - productError)
        if !discriminant.isFinite {
            let omega0 = naturalFrequencySquared.squareRoot()
            discriminant = (decayRate - omega0) * (decayRate + omega0) * (4 * m * m)
        }
        splitting = abs(discriminant).squareRoot() / (2 * m)
        regime = discriminant < 0 ? .underdamped : discriminant > 0 ? .overdamped : .critical
    }

    /// The slow decay rate of an over-damped spring, ω₀² / (σ + β) (= σ − β without its
    /// cancellation); σ otherwise, the envelope's rate.
    public var slowRate: Double {
        regime == .overdamped ? naturalFrequencySquared / (decayRate + splitting) : decayRate
    }

    /// The exact step over `t` ≥ 0 seconds: the matrix that maps (d, v) now to (d, v) after t.
    public func propagator(over t: Double) -> ExactPropagator {
        let sigma = decayRate, omega0Squared = naturalFrequencySquared
        if regime == .overdamped, splitting * t >= 1 {
            let beta = splitting, twoBeta = 2 * splitting
            let fast = sigma + beta, slow = omega0Squared / fast
            let slowTerm = exp(-slow * t), fastTerm = exp(-fast * t)
            let s = slowTerm * -expm1(-twoBeta * t) / twoBeta  // (e^(−st) − e^(−ft)) / 2β
            return ExactPropagator(
                a11: (fast * slowTerm - slow * fastTerm) / twoBeta, a12: s,
                a21: -omega0Squared * s, a22: (fast * fastTerm - slow * slowTerm) / twoBeta)
        }
        // C and S, by series where the splitting times t is small (critical damping is x = 0).
        var x = splitting * t
        var time = t
        if !x.isFinite, regime == .underdamped {
            // Only the phase matters: t modulo the period (an undamped spring over a huge time).
            time = t.truncatingRemainder(dividingBy: 2 * .pi / splitting)
            x = splitting * time
        }
        let c: Double, s: Double
        if x < 1e-3 {
            let z = regime == .underdamped ? x * x : -(x * x)  // (ωt)², or −(βt)²
            c = 1 - z / 2 * (1 - z / 12 * (1 - z / 30))
            s = t * (1 - z / 6 * (1 - z / 20 * (1 - z / 42)))
        } else if regime == .underdamped {
            c = cos(x)
            s = sin(x) / splitting
        } else {
            c = cosh(x)
            s = sinh(x) / splitting
        }
        let envelope = exp(-sigma * t)
        let ce = envelope * c, se = envelope * s
        return ExactPropagator(a11: ce + sigma * se, a12: se, a21: -omega0Squared * se, a22: ce - sigma * se)
    }

    /// The exact state `t` ≥ 0 seconds after (`displacement`, `velocity`).
    public func state(displacement: Double, velocity: Double, after t: Double) -> (displacement: Double, velocity: Double) {
        propagator(over: t).apply(displacement: displacement, velocity: velocity)
    }

    /// √(d² + (m / k) v²): the energy bound. The energy k d²/2 + m v²/2 never grows (friction
    /// c ≥ 0), so |d| stays at or below this for the rest of the motion.
    public func energyBound(displacement d: Double, velocity v: Double) -> Double {
        (d * d + mass / tension * v * v).squareRoot()
    }
}

/// The exact step of a spring over one duration, from ``ExactSpring/propagator(over:)``:
/// d' = a11 d + a12 v, v' = a21 d + a22 v.
public struct ExactPropagator: Hashable, Sendable {
    /// The matrix entries, by row.
    public var a11: Double, a12: Double, a21: Double, a22: Double

    /// The matrix with these entries.
    public init(a11: Double, a12: Double, a21: Double, a22: Double) {
        self.a11 = a11
        self.a12 = a12
        self.a21 = a21
        self.a22 = a22
    }

    /// The state after the step from (`displacement`, `velocity`).
    public func apply(displacement d: Double, velocity v: Double) -> (displacement: Double, velocity: Double) {
        (a11 * d + a12 * v, a21 * d + a22 * v)
    }
}
