import Foundation
@_spi(KernelInternals) import SpringKernel

/// The soak model's own exact step: the 2x2 propagator of m x'' = −k (x − target) − c x' over a
/// duration, written out again from the closed form in Double with the platform's libm (not
/// `SpringMotion`, which uses `DeterministicMath`), so the model shares no arithmetic with the
/// kernel and an error in the kernel's coefficients would show as drift.
///
/// With σ = c / 2m, ω₀² = k / m and d = x − target,
/// d(t) = e^(−σt) (d₀ C + (v₀ + σ d₀) S), v(t) = e^(−σt) (v₀ C − (ω₀² d₀ + σ v₀) S), where
/// C = cos ωt, S = sin(ωt)/ω with ω = √(ω₀² − σ²) when under-damped; C = 1, S = t when critically
/// damped; C = cosh βt, S = sinh(βt)/β with β = √(σ² − ω₀²) when over-damped. Over-damped steps
/// with βt ≥ 1 use the two decaying exponentials e^(−s₁t), e^(−s₂t), s₂ = σ + β and
/// s₁ = ω₀² / s₂ (not σ − β, which cancels for a large damping ratio), so a two-second hitch of a
/// very stiff, very damped spring neither overflows nor loses its slow mode.
struct SoakExactStep: Hashable {
    /// d' = a11 d + a12 v, v' = a21 d + a22 v.
    var a11: Double, a12: Double, a21: Double, a22: Double

    init(_ configuration: SpringConfiguration, duration t: Double) {
        let sigma = configuration.friction / (2 * configuration.mass)
        let omega0Squared = configuration.tension / configuration.mass
        let omega0 = omega0Squared.squareRoot()
        let discriminant = (sigma - omega0) * (sigma + omega0)
        if discriminant > 0, discriminant.squareRoot() * t >= 1 {
            let beta = discriminant.squareRoot()
            let fast = sigma + beta, slow = omega0Squared / fast
            let slowTerm = exp(-slow * t), fastTerm = exp(-fast * t)
            let twoBeta = 2 * beta
            let s = (slowTerm - fastTerm) / twoBeta
            a11 = (fast * slowTerm - slow * fastTerm) / twoBeta
            a12 = s
            a21 = -omega0Squared * s
            a22 = (fast * fastTerm - slow * slowTerm) / twoBeta
            return
        }
        // C and S/t as functions of z = ±(splitting · t)², by series where the splitting is so
        // small that sin(x)/x or sinh(x)/x would lose digits (critical damping is z = 0).
        let z = -discriminant * t * t  // (ωt)² under-damped, −(βt)² over-damped
        let c: Double, sOverT: Double
        if abs(z) < 1e-6 {
            c = 1 - z / 2 + z * z / 24
            sOverT = 1 - z / 6 + z * z / 120
        } else if z > 0 {
            let x = z.squareRoot()
            c = cos(x)
            sOverT = sin(x) / x
        } else {
            let x = (-z).squareRoot()
            c = cosh(x)
            sOverT = sinh(x) / x
        }
        let envelope = exp(-sigma * t)
        let ce = envelope * c, se = envelope * sOverT * t
        a11 = ce + sigma * se
        a12 = se
        a21 = -omega0Squared * se
        a22 = ce - sigma * se
    }

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
