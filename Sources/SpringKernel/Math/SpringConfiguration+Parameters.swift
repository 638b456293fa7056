/// Spring parameters as designers give them today, each converted by its peer's own formula to
/// the tension k, friction c and mass m of m x'' = −k (x − target) − c x'.
///
/// Every peer below fixes the mass at 1 and describes the spring by its natural frequency
/// ω₀ = √k (a stiffness or a duration 2π / ω₀) and its damping ratio ζ = c / (2√k), so each
/// initializer computes k, then ζ, then c = 2ζ√k. Values no peer would take throw
/// ``SpringKernelError/invalidConfiguration(_:)`` naming the argument at fault, and the result is
/// validated like any configuration (tension in (0, 10⁶], friction in [0, 10⁶]). Each computes in
/// round-to-nearest whatever the caller's rounding mode, so it gives the same configuration on
/// every thread.
extension SpringConfiguration {
    /// SwiftUI's `Spring(duration:bounce:)`, which is also Flutter's
    /// `SpringDescription.withDurationAndBounce`: mass 1,
    ///
    ///     k = (2π / duration)²,  ζ = 1 − bounce (bounce ≥ 0) or 1 / (1 + bounce) (bounce < 0),
    ///     c = 2ζ√k, that is 4π (1 − bounce) / duration, or 4π / (duration (1 + bounce)).
    ///
    /// Sources: Apple's documentation of SwiftUI `Spring` gives `Spring(duration: 0.5,
    /// bounce: 0.3)` as mass 1, stiffness 157.9, damping 17.6, and `Spring(mass: 1,
    /// stiffness: 100, damping: 10)` as duration 0.63 (2π/√k), bounce 0.5 (1 − ζ). Flutter's
    /// `withDurationAndBounce`
    /// (`packages/flutter/lib/src/physics/spring_simulation.dart`) computes `stiffness =
    /// 4π² mass / duration²`, `dampingRatio = bounce > 0 ? 1 − bounce : 1 / (bounce + 1)`,
    /// `damping = dampingRatio · 2√(mass · stiffness)` and says it matches SwiftUI; it takes the
    /// duration in whole milliseconds (`duration.inMilliseconds`), this takes seconds as given.
    ///
    /// <!-- fragment: kernel -->
    /// ```swift
    /// let smooth = try SpringConfiguration(duration: 0.5, bounce: 0.3)   // k 157.9, c 17.6
    /// ```
    ///
    /// - Parameters:
    ///   - duration: the perceptual duration in seconds, 2π / ω₀ (the period of the undamped
    ///     spring); finite, positive, at least 2π / 1000 s (6.3 ms: stiffness at most 10⁶) and at most
    ///     2π · 10²⁰ s (stiffness at least ``minimumStiffnessPerMass``).
    ///   - bounce: 0 for a critically damped spring, up to 1 for an undamped one, down toward −1
    ///     for more and more overdamped ones; in (−1, 1].
    /// - Throws: ``SpringKernelError/invalidConfiguration(_:)`` with ``Parameter/duration`` or
    ///   ``Parameter/bounce``.
    public init(duration: Double, bounce: Double = 0) throws(SpringKernelError) {
        let rounding = NearestRounding.enterUnlessCurrent()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let (duration, bounce, _) = rounding == nil ? (duration, bounce, 0) : NearestRounding.fence((duration, bounce, 0))
        guard bounce.isFinite, bounce > -1, bounce <= 1 else { throw .invalidConfiguration(.bounce) }
        let dampingRatio = bounce >= 0 ? 1 - bounce : 1 / (1 + bounce)
        try self.init(massOneStiffness: try Self.stiffness(period: duration), dampingRatio: dampingRatio, blaming: .bounce)
    }

    /// SwiftUI's `Spring(response:dampingRatio:)`: mass 1,
    ///
    ///     k = (2π / response)²,  c = 2ζ√k = 4π ζ / response.
    ///
    /// The response is the period of ``init(duration:bounce:)``'s duration, and the damping ratio
    /// is given directly (so an overdamped spring is a ratio above 1, not a negative bounce).
    /// Sources: Apple documents the response as "the stiffness of the spring, defined as an
    /// approximate duration in seconds" and the damping ratio as the fraction of critical damping;
    /// these formulas are the ones Apple's `Spring` example above satisfies with ζ = 1 − bounce,
    /// and the conversion in common use for `UISpringTimingParameters` (Nathan Gitter, "Building
    /// Fluid Interfaces", 2018: stiffness (2π / response)², damping 4π ζ / response).
    ///
    /// - Parameters:
    ///   - response: the period 2π / ω₀ in seconds; finite, positive, in [2π / 1000, 2π · 10²⁰] s.
    ///   - dampingRatio: ζ: 1 critically damped, below 1 bouncy, 0 undamped; finite and ≥ 0.
    /// - Throws: ``SpringKernelError/invalidConfiguration(_:)`` with ``Parameter/duration`` or
    ///   ``Parameter/dampingRatio``.
    public init(response: Double, dampingRatio: Double) throws(SpringKernelError) {
        let rounding = NearestRounding.enterUnlessCurrent()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let (response, dampingRatio, _) = rounding == nil ? (response, dampingRatio, 0) : NearestRounding.fence((response, dampingRatio, 0))
        guard dampingRatio.isFinite, dampingRatio >= 0 else { throw .invalidConfiguration(.dampingRatio) }
        try self.init(massOneStiffness: try Self.stiffness(period: response), dampingRatio: dampingRatio, blaming: .dampingRatio)
    }

    /// SwiftUI's `Spring(mass:stiffness:damping:)`: tension = stiffness, friction = damping, as
    /// given (SwiftUI's `allowOverDamping` option has no counterpart: an overdamped spring stays
    /// overdamped). The same configuration as ``init(tension:friction:mass:)``, under SwiftUI's
    /// names.
    ///
    /// - Throws: ``SpringKernelError/invalidConfiguration(_:)`` with ``Parameter/tension`` (the
    ///   stiffness), ``Parameter/friction`` (the damping) or ``Parameter/mass``.
    public init(mass: Double = 1, stiffness: Double, damping: Double) throws(SpringKernelError) {
        try self.init(tension: stiffness, friction: damping, mass: mass)
    }

    /// Motion's (framer-motion's) `visualDuration` and `bounce`: mass 1,
    ///
    ///     k = (2π / (1.2 · visualDuration))²,  ζ = clamp(1 − bounce, 0.05, 1),  c = 2ζ√k.
    ///
    /// Motion clamps the damping ratio, so any bounce is accepted: 0 or less is critically damped
    /// (never overdamped), 0.95 or more is ζ = 0.05. Source: `getSpringOptions` in
    /// `packages/motion-dom/src/animation/generators/spring/index.ts` (motiondivision/motion):
    /// `root = 2π / (visualDuration · 1.2)`, `stiffness = root²`,
    /// `damping = 2 · clamp(0.05, 1, 1 − bounce) · √stiffness`, mass 1.
    ///
    /// - Parameters:
    ///   - visualDuration: seconds; finite, positive, in [2π / 1200, 2π · 10²⁰ / 1.2] s (5.2 ms up).
    ///   - bounce: any finite number.
    /// - Throws: ``SpringKernelError/invalidConfiguration(_:)`` with ``Parameter/duration`` or
    ///   ``Parameter/bounce``.
    public init(visualDuration: Double, bounce: Double) throws(SpringKernelError) {
        let rounding = NearestRounding.enterUnlessCurrent()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let (visualDuration, bounce, _) = rounding == nil ? (visualDuration, bounce, 0) : NearestRounding.fence((visualDuration, bounce, 0))
        guard bounce.isFinite else { throw .invalidConfiguration(.bounce) }
        let stiffness = try Self.stiffness(period: 1.2 * visualDuration)
        try self.init(massOneStiffness: stiffness, dampingRatio: min(max(1 - bounce, 0.05), 1), blaming: .bounce)
    }

    /// Jetpack Compose's `spring(dampingRatio, stiffness)` and Android's `SpringForce`
    /// (`setDampingRatio`, `setStiffness`): mass 1, tension = stiffness, c = 2ζ√stiffness.
    ///
    /// Sources: Compose's `SpringSimulation` (androidx.compose.animation.core) and
    /// `androidx.dynamicanimation.animation.SpringForce` both set the natural frequency to
    /// `sqrt(stiffness)` with no mass, and take the damping ratio as is (non-negative).
    /// Compose's `Spring.StiffnessMedium` is 1500, `DampingRatioNoBouncy` 1.
    ///
    /// - Parameters:
    ///   - dampingRatio: ζ, finite and ≥ 0.
    ///   - stiffness: in (0, 10⁶].
    /// - Throws: ``SpringKernelError/invalidConfiguration(_:)`` with ``Parameter/dampingRatio`` or
    ///   ``Parameter/tension`` (the stiffness).
    public init(dampingRatio: Double, stiffness: Double) throws(SpringKernelError) {
        let rounding = NearestRounding.enterUnlessCurrent()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let (dampingRatio, stiffness, _) = rounding == nil ? (dampingRatio, stiffness, 0) : NearestRounding.fence((dampingRatio, stiffness, 0))
        guard dampingRatio.isFinite, dampingRatio >= 0 else { throw .invalidConfiguration(.dampingRatio) }
        guard stiffness.isFinite, stiffness > 0, stiffness <= Self.parameterLimit else { throw .invalidConfiguration(.tension) }
        try self.init(massOneStiffness: stiffness, dampingRatio: dampingRatio, blaming: .dampingRatio)
    }

    /// k = (2π / period)², or `.duration` if the period is unusable or k leaves
    /// [``minimumStiffnessPerMass``, 10⁶] (the mass is 1: a period so long that ω₀² is below the
    /// least a configuration takes is the duration's fault, not the natural frequency's).
    private static func stiffness(period: Double) throws(SpringKernelError) -> Double {
        guard period.isFinite, period > 0 else { throw .invalidConfiguration(.duration) }
        let root = 2 * Double.pi / period
        let stiffness = root * root
        guard stiffness >= minimumStiffnessPerMass, stiffness <= parameterLimit else { throw .invalidConfiguration(.duration) }
        return stiffness
    }

    /// Mass 1, tension `stiffness`, friction 2ζ√k; a friction beyond 10⁶ is the fault of the
    /// argument `blamed` (the one that made the damping ratio).
    private init(massOneStiffness stiffness: Double, dampingRatio: Double, blaming blamed: Parameter) throws(SpringKernelError) {
        let friction = 2 * dampingRatio * stiffness.squareRoot()
        guard friction <= Self.parameterLimit else { throw .invalidConfiguration(blamed) }
        try self.init(tension: stiffness, friction: friction, mass: 1)
    }
}

extension SpringConfiguration {
    /// The exact time a spring of this configuration takes to settle: released `distance` from its
    /// target (value − target) moving at `initialVelocity`, the time after which its exact motion
    /// never again leaves `tolerance` of the target (0 if it never does; `.infinity` for an
    /// undamped spring that swings beyond it). The bank rests a spring on the first frame that
    /// reaches this time, whatever the frame durations.
    ///
    /// SwiftUI's `settlingDuration` estimates this for one case (a unit move from rest, epsilon
    /// 0.001); this is the kernel's own closed-form prediction, `SettlePredictor`, for any case.
    ///
    /// <!-- fragment: kernel -->
    /// ```swift
    /// print(SpringConfiguration.default.settlingDuration(distance: 100, tolerance: 0.5))  // about 0.39 s
    /// ```
    ///
    /// The answer depends only on the ratios distance / tolerance and initialVelocity / tolerance
    /// (the motion is linear), and is computed from them, in units of the tolerance: a move of
    /// 100e200 with a tolerance of 0.5e200 settles when a move of 100 with 0.5 does. NaN for a
    /// non-finite argument, a tolerance that is not positive, or a ratio beyond Double.
    public func settlingDuration(distance: Double, initialVelocity: Double = 0, tolerance: Double) -> Double {
        guard distance.isFinite, initialVelocity.isFinite, tolerance.isFinite, tolerance > 0 else { return .nan }
        let rounding = NearestRounding.enterUnlessCurrent()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let (distance, initialVelocity, tolerance) =
            rounding == nil ? (distance, initialVelocity, tolerance) : NearestRounding.fence((distance, initialVelocity, tolerance))
        let displacement = distance / tolerance, velocity = initialVelocity / tolerance
        guard displacement.isFinite, velocity.isFinite else { return .nan }
        let seconds = SettlePredictor.restTime(
            displacement: displacement, velocity: velocity, tolerance: 1, motion: SpringMotion(rounding == nil ? self : NearestRounding.fence(self)))
        return rounding == nil ? seconds : NearestRounding.fence((seconds, 0, 0)).0
    }
}
