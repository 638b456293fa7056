import Foundation
import Testing
import _SpringOracles

/// A spring for a test: damping ratio ζ, natural frequency ω₀ and mass m.
struct TestSpring: CustomStringConvertible {
    var zeta: Double, omega0: Double, mass: Double

    var tension: Double { omega0 * omega0 * mass }
    var friction: Double { zeta * 2 * omega0 * mass }
    var exact: ExactSpring { ExactSpring(tension: tension, friction: friction, mass: mass) }
    var description: String { "ζ \(zeta), ω₀ \(omega0), m \(mass)" }
}

/// m d'' = −k d − c d' integrated with the classical fourth-order Runge-Kutta method, `steps`
/// steps of `t / steps`: an independent check of the closed form.
func rungeKutta(_ spring: TestSpring, d0: Double, v0: Double, t: Double, steps: Int) -> (d: Double, v: Double) {
    let k = spring.tension, c = spring.friction, m = spring.mass
    func acceleration(_ d: Double, _ v: Double) -> Double { -(k * d + c * v) / m }
    let h = t / Double(steps)
    var d = d0, v = v0
    for _ in 0..<steps {
        let k1d = v, k1v = acceleration(d, v)
        let k2d = v + h / 2 * k1v, k2v = acceleration(d + h / 2 * k1d, v + h / 2 * k1v)
        let k3d = v + h / 2 * k2v, k3v = acceleration(d + h / 2 * k2d, v + h / 2 * k2v)
        let k4d = v + h * k3v, k4v = acceleration(d + h * k3d, v + h * k3v)
        d += h / 6 * (k1d + 2 * k2d + 2 * k3d + k4d)
        v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
    }
    return (d, v)
}

@Suite("The exact closed form")
struct ExactSpringTests {
    /// Damping ratios of every regime, next to critical damping on both sides, and exactly there.
    static let ratios: [Double] = [0, 0.01, 0.3, 0.9, 1 - 1e-6, 1 - 1e-9, 1, 1 + 1e-9, 1 + 1e-6, 1.1, 3, 10]
    /// Natural frequencies from a very soft spring to a very stiff one (tension 10⁻⁶ to 10¹² at
    /// mass 1), and masses.
    static let frequencies: [Double] = [1e-3, 1, 18.5, 1e6]
    static let masses: [Double] = [1e-6, 4]

    @Test("agrees with fourth-order Runge-Kutta in tiny steps in every regime, next to critical damping, and for huge and tiny tension")
    func rungeKuttaAgreement() {
        for zeta in Self.ratios {
            for omega0 in Self.frequencies {
                for mass in Self.masses {
                    let spring = TestSpring(zeta: zeta, omega0: omega0, mass: mass)
                    let exact = spring.exact
                    // Long enough to see the slow mode decay by e (or three periods); steps of a
                    // thousandth of the fastest time scale.
                    let fastest = omega0 * max(1, 2 * zeta)
                    let horizon = min(zeta > 1 ? 2 * zeta / omega0 : 20 / omega0, 2 * 3 / omega0 * .pi)
                    let steps = Int((horizon * fastest * 1000).rounded(.up))
                    for (d0, v0) in [(1.0, 0.0), (0.0, omega0), (-2.0, 3 * omega0)] {
                        let reference = rungeKutta(spring, d0: d0, v0: v0, t: horizon, steps: steps)
                        let state = exact.state(displacement: d0, velocity: v0, after: horizon)
                        let scale = abs(d0) + abs(v0) / omega0
                        #expect(abs(state.displacement - reference.d) <= 1e-9 * scale, "\(spring), (\(d0), \(v0)), t \(horizon)")
                        #expect(abs(state.velocity - reference.v) <= 1e-9 * scale * omega0, "\(spring), (\(d0), \(v0)), t \(horizon)")
                    }
                }
            }
        }
    }

    /// The integrated residual of m d'' + c d' + k d = 0 over [t1, t2], relative to the size of
    /// its terms: (v(t2) − v(t1)) + ∫ (c v + k d) / m dt, with 8-point Gauss-Legendre quadrature on
    /// `panels` panels; and the same for d' = v.
    static func residuals(_ exact: ExactSpring, d0: Double, v0: Double, from t1: Double, to t2: Double, panels: Int) -> (position: Double, velocity: Double) {
        let nodes: [Double] = [
            -0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498,
            0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363,
        ]
        let weights: [Double] = [
            0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620,
            0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763,
        ]
        let k = exact.tension, c = exact.friction, m = exact.mass
        var integralV = 0.0, integralForce = 0.0, sizeV = 0.0, sizeForce = 0.0
        let width = (t2 - t1) / Double(panels)
        for panel in 0..<panels {
            let middle = t1 + (Double(panel) + 0.5) * width
            for (node, weight) in zip(nodes, weights) {
                let s = exact.state(displacement: d0, velocity: v0, after: middle + node * width / 2)
                let w = weight * width / 2
                integralV += w * s.velocity
                sizeV += w * abs(s.velocity)
                integralForce += w * (c * s.velocity + k * s.displacement) / m
                sizeForce += w * (abs(c * s.velocity) + abs(k * s.displacement)) / m
            }
        }
        let start = exact.state(displacement: d0, velocity: v0, after: t1), end = exact.state(displacement: d0, velocity: v0, after: t2)
        let position = (end.displacement - start.displacement - integralV) / max(sizeV, abs(end.displacement) + abs(start.displacement))
        let velocity = (end.velocity - start.velocity + integralForce) / max(sizeForce, abs(end.velocity) + abs(start.velocity))
        return (position, velocity)
    }

    @Test("satisfies the equation of motion where integration cannot go: damping ratios to 10⁶, over the slow decay")
    func equationResidual() {
        for zeta in [1 + 1e-9, 2, 30, 1e3, 1e5, 1e6] {
            for omega0 in [1e-3, 1, 1e3] {
                let exact = TestSpring(zeta: zeta, omega0: omega0, mass: 0.5).exact
                // Past the fast mode, over the slow one: where a slow rate computed as −σ + β shows.
                let slow = exact.slowRate
                for (t1, t2) in [(0.0, 1 / (exact.decayRate + exact.splitting)), (3 / slow, 6 / slow), (0.5 / slow, 30 / slow)] {
                    for (d0, v0) in [(1.0, 0.0), (1.0, -omega0), (0.0, omega0)] {
                        let r = Self.residuals(exact, d0: d0, v0: v0, from: t1, to: t2, panels: 64)
                        #expect(abs(r.position) <= 1e-12, "ζ \(zeta), ω₀ \(omega0), (\(d0), \(v0)), [\(t1), \(t2)]: d' = v off by \(r.position)")
                        #expect(abs(r.velocity) <= 1e-12, "ζ \(zeta), ω₀ \(omega0), (\(d0), \(v0)), [\(t1), \(t2)]: m d'' + c d' + k d off by \(r.velocity)")
                    }
                }
            }
        }
    }

    @Test("is continuous where it changes formula (the series at ωt = 10⁻³, the two exponentials at βt = 1)")
    func continuousAcrossBranches() {
        for zeta in [0.5, 1 - 1e-9, 1 + 1e-9, 1.5, 1e3] {
            let exact = TestSpring(zeta: zeta, omega0: 7, mass: 2).exact
            for x in [1e-3, 1.0] where exact.splitting > 0 {
                let t = x / exact.splitting
                let below = exact.propagator(over: t.nextDown.nextDown), above = exact.propagator(over: t.nextUp.nextUp)
                let scale = 1 + exact.naturalFrequencySquared.squareRoot()
                for (a, b) in [(below.a11, above.a11), (below.a12 * scale, above.a12 * scale), (below.a21 / scale, above.a21 / scale), (below.a22, above.a22)] {
                    #expect(abs(a - b) <= 1e-12 * max(1, abs(a)), "ζ \(zeta) at splitting × t = \(x): \(a) against \(b)")
                }
            }
        }
    }

    @Test("is the identity over no time, composes (P(s + t) = P(t) P(s)), and never grows the energy")
    func semigroupAndEnergy() {
        for zeta in Self.ratios + [30, 1e4] {
            let spring = TestSpring(zeta: zeta, omega0: 31, mass: 1.5), exact = spring.exact
            let identity = exact.propagator(over: 0)
            #expect(identity == ExactPropagator(a11: 1, a12: 0, a21: 0, a22: 1))
            for (s, t) in [(0.01, 0.02), (0.1, 0.37), (1.3, 2.9)] {
                let ps = exact.propagator(over: s), pt = exact.propagator(over: t), both = exact.propagator(over: s + t)
                let product = ExactPropagator(
                    a11: pt.a11 * ps.a11 + pt.a12 * ps.a21, a12: pt.a11 * ps.a12 + pt.a12 * ps.a22,
                    a21: pt.a21 * ps.a11 + pt.a22 * ps.a21, a22: pt.a21 * ps.a12 + pt.a22 * ps.a22)
                let w = 31.0
                #expect(abs(product.a11 - both.a11) <= 1e-12, "\(spring)")
                #expect(abs(product.a12 - both.a12) * w <= 1e-12, "\(spring)")
                #expect(abs(product.a21 - both.a21) / w <= 1e-12, "\(spring)")
                #expect(abs(product.a22 - both.a22) <= 1e-12, "\(spring)")
                for (d0, v0) in [(1.0, 0.0), (0.0, 1.0), (0.3, -20.0)] {
                    let later = exact.state(displacement: d0, velocity: v0, after: t)
                    #expect(
                        exact.energyBound(displacement: later.displacement, velocity: later.velocity)
                            <= exact.energyBound(displacement: d0, velocity: v0) * (1 + 1e-14), "\(spring)")
                }
            }
        }
    }

    @Test("stays finite: huge times, an undamped spring over 10³⁰⁰ s, tensions from 10⁻⁴⁰ to 10¹²")
    func finite() {
        for spring in [
            ExactSpring(tension: 1e-40, friction: 1e-6, mass: 1), ExactSpring(tension: 1e12, friction: 2e6, mass: 1),
            ExactSpring(tension: 342, friction: 0, mass: 1), ExactSpring(tension: 1e6, friction: 2e12, mass: 1),
        ] {
            for t in [0, 1e-300, 1e-9, 1, 1e9, 1e300] {
                let p = spring.propagator(over: t)
                let finite = [p.a11, p.a12, p.a21, p.a22].allSatisfy { $0.isFinite }
                #expect(finite, "\(spring) over \(t) s: \(p)")
            }
        }
    }
}
