import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

@Suite("Deterministic math")
struct DeterministicMathTests {
    /// Relative error in units of the last place of the libm result.
    func ulps(_ value: Double, _ reference: Double) -> Double {
        reference == 0 ? abs(value) / Double.leastNormalMagnitude : abs(value - reference) / reference.ulp
    }

    @Test("exp agrees with libm to within 2 ulp over the range a spring uses")
    func expAccuracy() {
        var generator = SeededGenerator(seed: 11)
        var worst = 0.0
        for _ in 0..<20_000 {
            let x = Double.random(in: -700...700, using: &generator)
            worst = max(worst, ulps(DeterministicMath.exp(x), Foundation.exp(x)))
        }
        // A frame's decay: the short path without the reduction (|x| < ln 2 / 2) and both sides of it.
        for _ in 0..<20_000 {
            let x = Double.random(in: -1...1, using: &generator)
            worst = max(worst, ulps(DeterministicMath.exp(x), Foundation.exp(x)))
        }
        let halfLn2 = 0.34657359027997264
        for x in [0.0, -0.0, 1e-300, -1e-18, 0.34657, -0.34657, halfLn2.nextDown, halfLn2, -halfLn2, 709.7, -708] {
            worst = max(worst, ulps(DeterministicMath.exp(x), Foundation.exp(x)))
        }
        #expect(worst <= 2, "worst \(worst) ulp")
        #expect(DeterministicMath.exp(-800) == 0)
        #expect(DeterministicMath.exp(800) == .infinity)
    }

    @Test("truncatingRemainder is libm's fmod, bit for bit")
    func truncatingRemainderIsExact() {
        var generator = SeededGenerator(seed: 19)
        var mismatches = 0
        for i in 0..<20_000 {
            // 2π (sinCos's reduction) and a period 2π/ω (SpringMotion.phase), x across every exponent.
            let y = i % 2 == 0 ? 2 * Double.pi : 2 * .pi / Double.random(in: 1e-3...1e6, using: &generator)
            let magnitude = Double.random(in: 1..<2, using: &generator) * Foundation.pow(2, Double.random(in: -5...1023, using: &generator))
            let x = (i % 4 < 2 ? 1 : -1) * Swift.min(magnitude, .greatestFiniteMagnitude)
            if DeterministicMath.truncatingRemainder(x, dividingBy: y).bitPattern != Foundation.fmod(x, y).bitPattern { mismatches += 1 }
        }
        for x in [0.0, -0.0, 1e-300, -4 * Double.pi, 1_600_000, .greatestFiniteMagnitude, -.greatestFiniteMagnitude] {
            if DeterministicMath.truncatingRemainder(x, dividingBy: 2 * .pi).bitPattern != Foundation.fmod(x, 2 * .pi).bitPattern {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test("sin and cos agree with libm to within 2 ulp of 1 up to a million radians")
    func sinCosAccuracy() {
        var generator = SeededGenerator(seed: 12)
        var worst = 0.0
        for i in 0..<20_000 {
            // A frame's phase (mostly below π/4, the short path), a motion's, and far out.
            let x = Double.random(in: -1...1, using: &generator) * [1, 10, 1e6][i % 3]
            let (s, c) = DeterministicMath.sinCos(x)
            // Near a zero the relative error is meaningless; measure against 1.
            worst = max(worst, abs(s - Foundation.sin(x)) / 1.0.ulp, abs(c - Foundation.cos(x)) / 1.0.ulp)
        }
        #expect(worst <= 2, "worst \(worst) ulp of 1")
    }

    @Test("sinh and cosh agree with libm to within 3 ulp")
    func hyperbolic() {
        var worst = 0.0
        for i in -400...400 {
            let x = Double(i) / 20
            worst = max(worst, ulps(DeterministicMath.sinh(x), Foundation.sinh(x)), ulps(DeterministicMath.cosh(x), Foundation.cosh(x)))
        }
        #expect(worst <= 3, "worst \(worst) ulp")
    }
}
