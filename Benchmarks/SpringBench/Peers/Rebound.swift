/// Rebound's spring (facebook/rebound, `Spring.advance` and `Spring.isAtRest`): spring-bench's one
/// model of it. The settle detector `velocity-threshold-rebound` and the object-per-spring peer
/// run ``ReboundSpring``; the `rk4-1ms` peer runs the same substep over Float32 lanes
/// (``RK4Lanes``). Rebound has no mass: its tension and friction are k/m and c/m.
///
/// What Rebound does, quirks included, and where this model keeps it:
/// - A frame's time is clamped to `MAX_DELTA_TIME_SEC` (64 ms: a longer frame leaves the spring
///   behind the clock) and added to a time accumulator, which is spent in RK4 substeps of exactly
///   `SOLVER_TIMESTEP_SEC` (1 ms); the rest carries to the next frame (``Clock``).
/// - The first RK4 stage's acceleration reads `tempPosition`, the previous substep's last trial
///   position (x + v₃ h), not the substep's own position: Rebound's code does, so its springs
///   follow a slightly different trajectory from textbook RK4 (``substep(_:_:firstStage:minusStiffness:minusDamping:h:halfH:sixthH:)``
///   takes that position as `firstStage`).
/// - The time left in the accumulator is spent by interpolating between the last two substeps,
///   and the interpolated state is written back: the next frame starts from it, not from the last
///   substep.
/// - Rest (`isAtRest`, after each frame): |v| ≤ 0.005 and |x − end| ≤ 0.005, absolute, whatever
///   the value's units (Rebound also lets a spring without tension rest anywhere; every spring
///   here has tension); a spring at rest, or overshooting with overshoot clamping on (off by
///   default), is snapped to its end with velocity 0, and a spring at rest in two frames running
///   is not advanced.
enum Rebound {
    /// `MAX_DELTA_TIME_SEC`: a longer frame is clamped (the spring falls behind the clock).
    static let maximumFrameDuration = 0.064
    /// `SOLVER_TIMESTEP_SEC`: the RK4 substep.
    static let solverTimestep = 0.001
    /// The default `mRestSpeedThreshold`, absolute.
    static let restSpeedThreshold = 0.005
    /// The default `mDisplacementFromRestThreshold`, absolute.
    static let restDisplacementThreshold = 0.005

    /// Rebound's time accumulator: what a frame adds, and the whole substeps it holds.
    struct Clock {
        /// Seconds not yet spent in substeps (less than a substep between frames).
        private(set) var accumulator = 0.0

        /// Adds a frame of `dt` seconds (clamped to ``Rebound/maximumFrameDuration``) and takes
        /// out the substeps it now holds, one subtraction each as Rebound's loop does; returns
        /// their count.
        mutating func substeps(advancing dt: Double) -> Int {
            accumulator += min(dt, Rebound.maximumFrameDuration)
            var count = 0
            while accumulator >= Rebound.solverTimestep {
                accumulator -= Rebound.solverTimestep
                count += 1
            }
            return count
        }

        /// The fraction of a substep left over: Rebound's interpolation weight `alpha`.
        var remainderFraction: Double { accumulator / Rebound.solverTimestep }
    }

    /// One RK4 substep of `h` on displacements from the end value `x` and velocities `v`: four
    /// evaluations of a = −(k/m) x − (c/m) v, the first at `firstStage` (Rebound's `tempPosition`
    /// as a displacement; `x` itself gives textbook RK4). Returns the last trial displacement,
    /// x + v₃ h: the next substep's `firstStage` in Rebound.
    ///
    /// Each `adding(_:times:)` is fused on SIMD lanes and two roundings on `Double` (see
    /// ``ReboundLane``). `halfH` and `sixthH` are passed in, computed once.
    @inline(__always)
    static func substep<Lane: ReboundLane>(
        _ x: inout Lane, _ v: inout Lane, firstStage: Lane,
        minusStiffness k: Lane, minusDamping c: Lane, h: Lane, halfH: Lane, sixthH: Lane
    ) -> Lane {
        let a1 = (c * v).adding(k, times: firstStage)
        let x2 = x.adding(v, times: halfH), v2 = v.adding(a1, times: halfH)
        let a2 = (c * v2).adding(k, times: x2)
        let x3 = x.adding(v2, times: halfH), v3 = v.adding(a2, times: halfH)
        let a3 = (c * v3).adding(k, times: x3)
        let x4 = x.adding(v3, times: h), v4 = v.adding(a3, times: h)
        let a4 = (c * v4).adding(k, times: x4)
        let middle = v2 + v3, middleAcceleration = a2 + a3
        x = x.adding(v + v4 + middle + middle, times: sixthH)
        v = v.adding(a1 + a4 + middleAcceleration + middleAcceleration, times: sixthH)
        return x4
    }
}

/// The arithmetic ``Rebound/substep(_:_:firstStage:minusStiffness:minusDamping:h:halfH:sixthH:)``
/// runs on: `Double`, one spring as Rebound keeps it, or `SIMD16<Float>`, sixteen springs of the
/// throughput peer's lanes.
protocol ReboundLane {
    static func + (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Self) -> Self
    /// `self + a * b`.
    func adding(_ a: Self, times b: Self) -> Self
}

extension Double: ReboundLane {
    /// `self + a * b` rounded twice, as Rebound's Java computes it (Java never fuses).
    @inline(__always)
    func adding(_ a: Double, times b: Double) -> Double { self + a * b }
}

extension SIMD16: ReboundLane where Scalar == Float {
    /// `self + a * b` fused (one `vfmadd` on this target): the throughput peer is the algorithm at
    /// its best, and the peers' compiled C++ (POP) gets fused multiply-adds from its compiler.
    @inline(__always)
    func adding(_ a: SIMD16<Float>, times b: SIMD16<Float>) -> SIMD16<Float> { addingProduct(a, b) }
}

/// One Rebound spring, frame by frame, as `Spring.advance` moves it (see ``Rebound``): Float64
/// state, its displacement from the end value kept rather than its position (the end does not
/// move here), listeners left out.
struct ReboundSpring {
    /// k/m and c/m.
    let tension: Double
    let friction: Double
    /// The value the spring moves toward.
    let endValue: Double
    /// Rebound's `mOvershootClampingEnabled` (off by default, as in Rebound): a spring that has
    /// crossed its end value is snapped to it and at rest.
    var overshootClamping = false
    /// Position − end value.
    private(set) var displacement: Double
    private(set) var velocity: Double
    /// Which side of the end the spring started on (Rebound's `mStartValue − mEndValue`), for
    /// overshoot clamping; 0 once snapped.
    private var startDisplacement: Double
    /// Rebound's `mTempState.position` (as a displacement): the last substep's last trial position.
    private var tempDisplacement: Double
    private var previousDisplacement = 0.0
    private var previousVelocity = 0.0
    private var clock = Rebound.Clock()
    private(set) var wasAtRest = false

    /// A spring at `position` moving at `velocity` toward `endValue`, set up as Rebound's
    /// `setCurrentValue` (which also sets the trial position) then `setEndValue` and `setVelocity`.
    init(position: Double, velocity: Double, endValue: Double, tension: Double, friction: Double) {
        self.tension = tension
        self.friction = friction
        self.endValue = endValue
        displacement = position - endValue
        self.velocity = velocity
        startDisplacement = displacement
        tempDisplacement = displacement
    }

    /// The spring's value.
    var position: Double { endValue + displacement }

    /// Rebound's `isAtRest`: |v| ≤ 0.005 and |x − end| ≤ 0.005.
    var isAtRest: Bool {
        abs(velocity) <= Rebound.restSpeedThreshold && abs(displacement) <= Rebound.restDisplacementThreshold
    }

    /// Rebound's `isOvershooting`: past the end value, on the side away from the start.
    var isOvershooting: Bool { (startDisplacement < 0 && displacement > 0) || (startDisplacement > 0 && displacement < 0) }

    /// One frame of `dt` seconds, as Rebound advances it.
    @inline(__always)
    mutating func advance(_ dt: Double) {
        if isAtRest && wasAtRest { return }
        let substeps = clock.substeps(advancing: dt)
        let h = Rebound.solverTimestep
        var x = displacement, v = velocity, trial = tempDisplacement
        for substep in 0..<substeps {
            if substep == substeps - 1 {
                previousDisplacement = x
                previousVelocity = v
            }
            trial = Rebound.substep(
                &x, &v, firstStage: trial, minusStiffness: -tension, minusDamping: -friction, h: h, halfH: h * 0.5, sixthH: h * (1.0 / 6.0))
        }
        tempDisplacement = trial
        if clock.accumulator > 0 {
            let alpha = clock.remainderFraction
            x = x * alpha + previousDisplacement * (1 - alpha)
            v = v * alpha + previousVelocity * (1 - alpha)
        }
        displacement = x
        velocity = v
        wasAtRest = isAtRest || (overshootClamping && isOvershooting)
        if wasAtRest {
            displacement = 0
            velocity = 0
            startDisplacement = 0
        }
    }
}
