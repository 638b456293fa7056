import SpringKernel

/// One spring as Rebound and POP keep it: an object with its own Float64 state, advanced by RK4
/// in 1 ms substeps with the frame clamped to 64 ms, interpolated between the last two substeps
/// for the time left over, and checked for rest after each frame.
///
/// This follows Rebound's `Spring.advance` (MAX_DELTA_TIME_SEC 0.064, SOLVER_TIMESTEP_SEC 0.001,
/// a time accumulator, `interpolate(alpha)` writing back into the state, `isAtRest`:
/// |v| <= 0.005 and |x - end| <= 0.005) with POP's textbook RK4 (`SpringSolver::integrate`, four
/// evaluations a substep). Listeners are left out: they would only add cost.
final class ObjectSpring {
    /// Rebound's MAX_DELTA_TIME_SEC: a longer frame is clamped (the spring falls behind the clock).
    static let maximumFrameDuration = 0.064
    /// Rebound's SOLVER_TIMESTEP_SEC.
    static let substep = 0.001
    /// Rebound's default rest thresholds, absolute.
    static let restSpeedThreshold = 0.005
    static let restDisplacementThreshold = 0.005

    var position: Double
    var velocity: Double
    var previousPosition = 0.0
    var previousVelocity = 0.0
    var endValue: Double
    var timeAccumulator = 0.0
    var wasAtRest = false
    let tension: Double
    let friction: Double

    /// A spring at `position` moving at `velocity` toward `endValue`.
    init(position: Double, velocity: Double, endValue: Double, tension: Double, friction: Double) {
        self.position = position
        self.velocity = velocity
        self.endValue = endValue
        self.tension = tension
        self.friction = friction
    }

    /// Rebound's `isAtRest`.
    var isAtRest: Bool {
        abs(velocity) <= Self.restSpeedThreshold && abs(endValue - position) <= Self.restDisplacementThreshold
    }

    /// One frame of `realDeltaTime` seconds.
    @inline(__always)
    func advance(_ realDeltaTime: Double) {
        if isAtRest && wasAtRest { return }
        timeAccumulator += min(realDeltaTime, Self.maximumFrameDuration)
        let h = Self.substep
        var x = position, v = velocity
        while timeAccumulator >= h {
            timeAccumulator -= h
            if timeAccumulator < h {
                previousPosition = x
                previousVelocity = v
            }
            // a = -k (x - end) - c v, evaluated at the four RK4 stages.
            let a1 = tension * (endValue - x) - friction * v
            let x2 = x + v * h * 0.5, v2 = v + a1 * h * 0.5
            let a2 = tension * (endValue - x2) - friction * v2
            let x3 = x + v2 * h * 0.5, v3 = v + a2 * h * 0.5
            let a3 = tension * (endValue - x3) - friction * v3
            let x4 = x + v3 * h, v4 = v + a3 * h
            let a4 = tension * (endValue - x4) - friction * v4
            x += (v + 2 * (v2 + v3) + v4) * (1.0 / 6.0) * h
            v += (a1 + 2 * (a2 + a3) + a4) * (1.0 / 6.0) * h
        }
        if timeAccumulator > 0 {
            let alpha = timeAccumulator / h
            x = x * alpha + previousPosition * (1 - alpha)
            v = v * alpha + previousVelocity * (1 - alpha)
        }
        position = x
        velocity = v
        if isAtRest {
            position = endValue
            velocity = 0
            wasAtRest = true
        } else {
            wasAtRest = false
        }
    }
}

/// The peers' spring system: an array of spring objects, each advanced in turn every frame.
final class ObjectSpringSystem {
    /// The springs, in the order they were made.
    let springs: [ObjectSpring]

    /// `springs` objects made in order (so consecutive in memory, the peers' best case), started
    /// like the bank's springs and with the bank's configuration.
    init(springs count: Int, configuration: (tension: Double, friction: Double)) {
        var generator = SplitMix64(seed: 1)
        var springs: [ObjectSpring] = []
        springs.reserveCapacity(count)
        for _ in 0..<count {
            let state = ThroughputBench.initialState(&generator)
            springs.append(ObjectSpring(
                position: Double(state.value), velocity: Double(state.velocity), endValue: Double(state.target),
                tension: configuration.tension, friction: configuration.friction))
        }
        self.springs = springs
    }
}
