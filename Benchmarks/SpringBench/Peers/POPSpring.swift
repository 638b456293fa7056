@_spi(KernelInternals) import SpringKernel

/// POP's `SpringSolver4d::advance` and `POPSpringAnimationState::isDone` for an animation of up
/// to four components (unused lanes stay zero): RK4 in 1 ms substeps (`solverDt = 0.001f`, a
/// Float literal) on p = to - x, the state replaced by the interpolation between the last two
/// substeps; done when the values written in the last two frames have converged (each component
/// within t/5 of the target and of the one before) or the solver has (each |p| < t/2, |v|² < 25 t
/// and |last substep's mean acceleration|² < 625 t², squared norms over the components).
struct POPSpring {
    /// POP's `solverDt`, the Float literal 0.001f widened.
    static let solverStep = Double(Float(0.001))
    let stiffnessPerMass: Double
    let dampingPerMass: Double
    let threshold: Double
    var p: SIMD4<Double>
    var v: SIMD4<Double>
    private var lastDv = SIMD4<Double>.zero
    private var accumulatedTime = 0.0
    private var previousValue: SIMD4<Double>?
    private var previous2Value: SIMD4<Double>?

    /// An animation from `from` toward `to` at `velocity`, component by component.
    init(from: SIMD4<Double>, to: SIMD4<Double>, velocity: SIMD4<Double>, configuration: SpringConfiguration, threshold: Double) {
        stiffnessPerMass = configuration.tension / configuration.mass
        dampingPerMass = configuration.friction / configuration.mass
        self.threshold = threshold
        p = to - from
        v = -velocity
    }

    private func acceleration(_ p: SIMD4<Double>, _ v: SIMD4<Double>) -> SIMD4<Double> { p * -stiffnessPerMass - v * dampingPerMass }

    /// One frame; returns whether the animation is done after it.
    mutating func advance(_ dt: Double) -> Bool {
        let h = Self.solverStep
        accumulatedTime += dt
        var previous = (p: p, v: v), current = previous
        while accumulatedTime >= h {
            previous = current
            let (x, u) = current
            let aDp = u, aDv = acceleration(x, u)
            let bDp = u + aDv * (h * 0.5), bDv = acceleration(x + aDp * (h * 0.5), bDp)
            let cDp = u + bDv * (h * 0.5), cDv = acceleration(x + bDp * (h * 0.5), cDp)
            let dDp = u + cDv * h, dDv = acceleration(x + cDp * h, dDp)
            let dpdt = (aDp + (bDp + cDp) * 2 + dDp) * (1.0 / 6.0)
            let dvdt = (aDv + (bDv + cDv) * 2 + dDv) * (1.0 / 6.0)
            current = (x + dpdt * h, u + dvdt * h)
            lastDv = dvdt
            accumulatedTime -= h
        }
        let alpha = accumulatedTime / h
        p = current.p * alpha + previous.p * (1 - alpha)
        v = current.v * alpha + previous.v * (1 - alpha)
        // The value written this frame is to - p; only differences of values matter below.
        previous2Value = previousValue
        previousValue = -p
        let t = threshold
        func squaredNorm(_ x: SIMD4<Double>) -> Double { (x * x).sum() }
        func allBelow(_ x: SIMD4<Double>, _ limit: Double) -> Bool {
            let bound = SIMD4<Double>(repeating: limit)
            return all((x .< bound) .& (x .> -bound))
        }
        let velocitySquared = squaredNorm(v), accelerationSquared = squaredNorm(lastDv)
        if allBelow(p, t / 2) && velocitySquared < 25 * t && accelerationSquared < 625 * t * t { return true }
        guard let previousValue, let previous2Value else { return false }
        return allBelow(previousValue, t / 5) && allBelow(previous2Value - previousValue, t / 5)
    }
}
