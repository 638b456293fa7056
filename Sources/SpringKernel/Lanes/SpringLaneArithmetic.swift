/// The arithmetic of one lane format: how a spring's state is stored in 32-bit lanes (its
/// displacement from its target, its velocity, its target) and how one step advances a bundle of
/// lanes. Rest is predicted from the exact motion for every format alike (`SettlePredictor`).
///
/// A ``SpringBank`` is the same machinery for every format (storage, handles, configurations,
/// pause masks, the rest schedule, threads); only the conforming type differs. The package ships
/// ``Float32Lanes`` and ``Q16Lanes``.
///
/// The cold-path requirements take and return raw 32-bit lane patterns and `Double`s so the bank
/// can call them without knowing the format; the hot loop, ``advance(_:bundles:path:checksBound:)``,
/// and the storage-order streams are called through the bank's generic parameter, resolved when
/// the bank is specialised for its format (no existential, no type test).
public protocol SpringLaneArithmetic: Sendable {
    /// The type of values, targets, velocities and tolerances at the bank's API.
    associatedtype Value: Sendable

    /// A short name for reports ("float32").
    static var formatName: String { get }

    /// The lane pattern of `value`, or ``SpringKernelError/nonFinite(_:)`` /
    /// ``SpringKernelError/outOfRange(_:)`` when the format cannot hold it.
    @_spi(KernelInternals)
    static func lanePattern(of value: Value, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32

    /// The lane pattern of `pattern`'s value plus `delta` (an impulse added to a velocity), or a
    /// thrown error when the format cannot hold the sum.
    @_spi(KernelInternals)
    static func lanePattern(adding delta: Value, to pattern: UInt32, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32

    /// The displacement lane of a spring at `value` pulled toward `target` (value − target), or a
    /// thrown error when the format cannot hold it.
    @_spi(KernelInternals)
    static func displacementPattern(value: UInt32, target: UInt32) throws(SpringKernelError) -> UInt32

    /// The value of a spring from its displacement and target (target + displacement).
    @_spi(KernelInternals)
    static func valuePattern(displacement: UInt32, target: UInt32) -> UInt32

    /// The API value of a lane pattern.
    @_spi(KernelInternals)
    static func value(ofLanePattern pattern: UInt32) -> Value

    /// The exact real number a lane pattern stands for.
    @_spi(KernelInternals)
    static func double(ofLanePattern pattern: UInt32) -> Double

    /// For a format whose lanes are two's-complement integers read linearly, the real number the
    /// lane 1 stands for (so ``double(ofLanePattern:)`` is `Int32(bitPattern:) × unit`); nil for
    /// lanes that hold IEEE float bits. Lets the bank read lanes with no call through the format.
    @_spi(KernelInternals)
    static var integerLaneUnit: Double? { get }

    /// The tolerance, in value units, as a positive finite `Double`, or a thrown error.
    static func tolerance(_ value: Value) throws(SpringKernelError) -> Double

    /// Whether a lane holds the value a saturating step leaves behind (always false for formats
    /// that cannot saturate).
    @_spi(KernelInternals)
    static func isSaturated(lanePattern pattern: UInt32) -> Bool

    /// A lane `isSaturated` reports, brought back within the format's bound (itself otherwise).
    @_spi(KernelInternals)
    static func saturating(lanePattern pattern: UInt32) -> UInt32

    /// The value of this format nearest to `double`, clamped to the format's range (NaN gives 0).
    static func nearestValue(to double: Double) -> Value

    /// The step's parameters for a propagator: a11, a12, a21, a22 as lane patterns, then any
    /// format-specific parameters (the fixed-point format's row shifts).
    @_spi(KernelInternals)
    static func coefficients(of propagator: SpringPropagator) -> SIMD8<UInt32>

    /// Whether the format stores displacement and velocity lanes at a per-batch ``LaneScale``
    /// (false: the lanes are the API patterns themselves, and every scale is the identity).
    @_spi(KernelInternals)
    static var hasScaledLanes: Bool { get }

    /// The stored displacement of a spring at `displacement` (stored at `scale`) when its target
    /// moves from `oldTarget` to `newTarget`: the same value, to within the format's rounding.
    @_spi(KernelInternals)
    static func retargetedDisplacement(
        _ displacement: UInt32, from oldTarget: UInt32, to newTarget: UInt32, scale: LaneScale
    ) throws(SpringKernelError) -> UInt32

    /// Per-batch limits within which ``quicklyRetargetedDisplacement(_:velocity:from:to:displacementShift:limits:)``
    /// accepts a retarget with no exact motion check, for a batch at `scale` with this natural
    /// frequency (formats with scaled lanes; (0, 0) otherwise).
    @_spi(KernelInternals)
    static func retargetLimits(scale: LaneScale, naturalFrequency: Double) -> (displacement: Int32, velocity: Int32)

    /// ``retargetedDisplacement(_:from:to:scale:)`` of a spring stored at `velocity` when the
    /// retarget lies within `limits` (``retargetLimits(scale:naturalFrequency:)``), where its whole
    /// motion fits the format for certain; nil otherwise (the exact check decides, and may accept).
    /// Formats with scaled lanes implement it; others return nil.
    @_spi(KernelInternals)
    static func quicklyRetargetedDisplacement(
        _ displacement: UInt32, velocity: UInt32, from oldTarget: UInt32, to newTarget: UInt32, displacementShift: Int,
        limits: (displacement: Int32, velocity: Int32)
    ) -> UInt32?

    /// The scale a batch of springs with this configuration's natural frequency and this tolerance
    /// stores its lanes at (``LaneScale/identity`` for formats that store API patterns as they are).
    @_spi(KernelInternals)
    static func laneScale(tolerance: Double, naturalFrequency: Double) -> LaneScale

    /// `pattern` × 2^shift: exact for a non-negative shift, rounded to nearest for a negative one;
    /// ``SpringKernelError/outOfRange(_:)`` when the lane cannot hold it.
    @_spi(KernelInternals)
    static func rescaled(_ pattern: UInt32, by shift: Int, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32

    /// Whether the whole future motion from these stored lanes fits the format: every later step's
    /// lanes and the value target + displacement (always true for formats that cannot saturate).
    /// A motion it holds with a velocity it must also hold with velocity 0 (the bank checks the
    /// whole motion first, and the displacement alone only to name what does not fit).
    @_spi(KernelInternals)
    static func holdsMotion(
        displacement: UInt32, velocity: UInt32, target: UInt32, scale: LaneScale, naturalFrequency: Double
    ) -> Bool

    /// The step's parameters for a propagator on lanes stored at `scale`.
    @_spi(KernelInternals)
    static func coefficients(of propagator: SpringPropagator, scale: LaneScale) -> SIMD8<UInt32>

    // MARK: The step

    /// Whether the step computes in binary32 and rounds to integer lanes, so that it gives the
    /// same bits only in round-to-nearest, which the bank then pins for the frame (false: the
    /// lanes follow the thread's mode, as any float arithmetic does).
    static var stepsInNearestRounding: Bool { get }

    /// Advances bundles `bundles` of one batch's work by one frame with this format's loop (the
    /// SIMD one or the bit-identical scalar one); returns non-zero if any lane saturated.
    /// `checksBound` asks a saturating format to check its admitted bound this frame.
    ///
    /// - Complexity: O(bundles in `bundles`).
    static func advance(_ work: LaneWork, bundles: Range<Int>, path: StepPath, checksBound: Bool) -> Int

    /// Whether the step can pull lanes toward new targets as it advances them
    /// (``advance(_:retargeting:toward:bundles:path:)``); false: a retarget is its own pass
    /// before the step.
    static var retargetsInStep: Bool { get }

    /// Advances bundles `bundles` of one batch's work by one frame as
    /// ``advance(_:bundles:path:checksBound:)`` does, each moving lane first pulled toward its
    /// goal where the goal differs in its bits from its target lane, as a storage-order retarget
    /// (``SpringBank/retarget(in:to:)``) pulls it, and its target lane set to the goal. `goals` holds the API values of the batch's slots from slot 0, 4
    /// bytes each, with no alignment; it is read for moving lanes only. For a watched batch
    /// (`work.watch`), also moves the watch's marks on as its preparation before a step does
    /// (watched: the springs retargeted since the last step and those whose goals differ; aged:
    /// the others the last step watched; none retargeted) and marks the watched and aged springs
    /// left within its band, as the step's `sk_watch_candidates` marks them. Only for a format
    /// whose ``retargetsInStep`` is true, with every goal checked; the lanes never saturate.
    ///
    /// - Complexity: O(bundles in `bundles`).
    static func advance(
        _ work: LaneWork, retargeting targets: UnsafeMutableRawPointer, toward goals: UnsafeRawPointer, bundles: Range<Int>,
        path: StepPath)

    // MARK: Storage-order streams (all optional: a format without them is read and written one
    // spring at a time, through the requirements above)

    /// Writes `out[i]` = the API value of the spring with displacement lane `displacements[i]`
    /// (stored `shift` finer than the API's resolution) and target lane `targets[i]`, as
    /// ``valuePattern(displacement:target:)`` reads one, for the first lanes it streams; returns
    /// how many (the bank reads the rest one by one).
    @_spi(KernelInternals)
    static func streamValues(
        displacements: UnsafeRawPointer, targets: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer
    ) -> Int

    /// Writes `out[i]` = the API value of lane `lanes[i]`, stored `shift` finer than the API's
    /// resolution, for the first lanes it streams; returns how many.
    @_spi(KernelInternals)
    static func streamLanes(_ lanes: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer) -> Int

    /// Whether a batch at `scale` has its storage-order state writes streamed by
    /// ``streamState(values:velocities:targets:displacements:velocityLanes:scale:naturalFrequency:count:)``
    /// (and, for a format with scaled lanes, its retargets by
    /// ``streamRetarget(goals:targets:displacements:velocities:newTargets:newDisplacements:changed:scale:naturalFrequency:count:)``).
    @_spi(KernelInternals)
    static func streamsWrites(at scale: LaneScale) -> Bool

    /// Writes the first `count` displacement and velocity lanes (every one) for API `values` and
    /// `velocities` about the stored `targets`, at `scale`, as one spring's state write stores
    /// them. Returns true if every lane passed the stream's check, under which the exact check
    /// accepts it; false: the exact check, one spring at a time, decides.
    @_spi(KernelInternals)
    static func streamState(
        values: UnsafeRawPointer, velocities: UnsafeRawPointer, targets: UnsafeRawPointer, displacements: UnsafeMutableRawPointer,
        velocityLanes: UnsafeMutableRawPointer, scale: LaneScale, naturalFrequency: Double, count: Int
    ) -> Bool

    /// Whether every one of `count` API values and velocities can be stored whatever the spring
    /// (a check of the values alone), or nil when the format cannot tell that way.
    @_spi(KernelInternals)
    static func allStorable(values: UnsafeRawPointer, velocities: UnsafeRawPointer, count: Int) -> Bool?

    /// Compares `count` API goals with the stored target lanes: whether any differs in its bits,
    /// and whether every one is known to be a target the bank accepts (false: the bank checks
    /// them one by one); nil when the format compares one spring at a time.
    @_spi(KernelInternals)
    static func scanTargets(goals: UnsafeRawPointer, stored targets: UnsafeRawPointer, count: Int) -> (anyChanged: Bool, allStorable: Bool)?

    /// For a format whose ``retargetsInStep`` is true: whether every one of `count` API goals is
    /// one ``lanePattern(of:as:)`` accepts as a target.
    @_spi(KernelInternals)
    static func acceptsAll(goals: UnsafeRawPointer, count: Int) -> Bool

    /// A format without scaled lanes: pulls every lane whose target differs (in its bits) from
    /// `goals[i]` toward it in place, as ``retargetedDisplacement(_:from:to:scale:)`` pulls one,
    /// setting bit l of `changed[b]` for each lane 16b + l it changed; every goal has been
    /// checked. A spring at rest (lane `resting.from` or later) whose new displacement's
    /// magnitude is within `resting.band` (``ConfigurationBatch/restKeepingBand(tolerance:)``)
    /// stays at rest: only its target moves, and its bit stays clear. Returns false if it streams
    /// nothing (the bank then goes one spring at a time).
    @_spi(KernelInternals)
    static func streamRetarget(
        goals: UnsafeRawPointer, targets: UnsafeMutableRawPointer, displacements: UnsafeMutableRawPointer,
        changed: UnsafeMutablePointer<UInt16>, resting: (from: Int, band: UInt32), count: Int
    ) -> Bool

    /// A format with scaled lanes, at a scale ``streamsWrites(at:)`` takes: writes the first
    /// `count` lanes of `newTargets` (the goals) and `newDisplacements` (each lane whose target
    /// differs pulled toward its goal, the others as they were), marks the lanes that differ in
    /// `changed` (but those of springs at rest kept there, as in the in-place form, by `resting`),
    /// and returns true if every one of them passed the stream's check, under which the exact
    /// check accepts it (false: the exact check decides).
    @_spi(KernelInternals)
    static func streamRetarget(
        goals: UnsafeRawPointer, targets: UnsafeRawPointer, displacements: UnsafeRawPointer, velocities: UnsafeRawPointer,
        newTargets: UnsafeMutableRawPointer, newDisplacements: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<UInt16>,
        resting: (from: Int, band: UInt32), scale: LaneScale, naturalFrequency: Double, count: Int
    ) -> Bool
}

/// When a spring comes to rest, as the bank predicts it from the exact motion
/// (``SpringBank/predictRest(of:dt:)``).
public struct RestPrediction: Hashable, Sendable {
    /// Frames from now.
    public var frames: Int
    /// True: the spring stays within its tolerance from `frames` on. False: the prediction stopped
    /// at its horizon (2³¹ − 1 frames) without knowing, and the bank predicts again then.
    public var isFinal: Bool

    /// The spring stays within its tolerance after `frames` more frames.
    public static func restsAfter(_ frames: Int) -> RestPrediction { RestPrediction(frames: frames, isFinal: true) }

    /// Unknown within `frames` frames: predict again then.
    public static func unknown(checkAfter frames: Int) -> RestPrediction { RestPrediction(frames: frames, isFinal: false) }
}

extension SpringLaneArithmetic {
    @_spi(KernelInternals)
    public static var hasScaledLanes: Bool { false }

    @_spi(KernelInternals)
    public static func retargetedDisplacement(
        _ displacement: UInt32, from oldTarget: UInt32, to newTarget: UInt32, scale: LaneScale
    ) throws(SpringKernelError) -> UInt32 {
        try displacementPattern(value: valuePattern(displacement: displacement, target: oldTarget), target: newTarget)
    }

    @_spi(KernelInternals)
    public static func saturating(lanePattern pattern: UInt32) -> UInt32 { pattern }

    @_spi(KernelInternals)
    public static func retargetLimits(scale: LaneScale, naturalFrequency: Double) -> (displacement: Int32, velocity: Int32) { (0, 0) }

    @_spi(KernelInternals)
    public static func quicklyRetargetedDisplacement(
        _ displacement: UInt32, velocity: UInt32, from oldTarget: UInt32, to newTarget: UInt32, displacementShift: Int,
        limits: (displacement: Int32, velocity: Int32)
    ) -> UInt32? { nil }

    @_spi(KernelInternals)
    public static func laneScale(tolerance: Double, naturalFrequency: Double) -> LaneScale { .identity }

    @_spi(KernelInternals)
    public static func rescaled(_ pattern: UInt32, by shift: Int, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32 {
        precondition(shift == 0, "a format with scaled lanes implements rescaled(_:by:as:)")
        return pattern
    }

    @_spi(KernelInternals)
    public static func holdsMotion(
        displacement: UInt32, velocity: UInt32, target: UInt32, scale: LaneScale, naturalFrequency: Double
    ) -> Bool { true }

    @_spi(KernelInternals)
    public static func coefficients(of propagator: SpringPropagator, scale: LaneScale) -> SIMD8<UInt32> {
        coefficients(of: propagator)
    }

    /// False: the lanes follow the thread's rounding mode.
    public static var stepsInNearestRounding: Bool { false }

    /// False: a retarget is its own pass before the step.
    public static var retargetsInStep: Bool { false }

    public static func advance(
        _ work: LaneWork, retargeting targets: UnsafeMutableRawPointer, toward goals: UnsafeRawPointer, bundles: Range<Int>,
        path: StepPath
    ) {
        preconditionFailure("a format whose retargetsInStep is true implements advance(_:retargeting:toward:bundles:path:)")
    }

    @_spi(KernelInternals)
    public static func acceptsAll(goals: UnsafeRawPointer, count: Int) -> Bool {
        preconditionFailure("a format whose retargetsInStep is true implements acceptsAll(goals:count:)")
    }

    @_spi(KernelInternals)
    public static func streamValues(
        displacements: UnsafeRawPointer, targets: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer
    ) -> Int { 0 }

    @_spi(KernelInternals)
    public static func streamLanes(_ lanes: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer) -> Int { 0 }

    @_spi(KernelInternals)
    public static func streamsWrites(at scale: LaneScale) -> Bool { false }

    @_spi(KernelInternals)
    public static func streamState(
        values: UnsafeRawPointer, velocities: UnsafeRawPointer, targets: UnsafeRawPointer, displacements: UnsafeMutableRawPointer,
        velocityLanes: UnsafeMutableRawPointer, scale: LaneScale, naturalFrequency: Double, count: Int
    ) -> Bool {
        preconditionFailure("a format whose streamsWrites(at:) is true implements streamState")
    }

    @_spi(KernelInternals)
    public static func allStorable(values: UnsafeRawPointer, velocities: UnsafeRawPointer, count: Int) -> Bool? { nil }

    @_spi(KernelInternals)
    public static func scanTargets(goals: UnsafeRawPointer, stored targets: UnsafeRawPointer, count: Int) -> (anyChanged: Bool, allStorable: Bool)? {
        nil
    }

    @_spi(KernelInternals)
    public static func streamRetarget(
        goals: UnsafeRawPointer, targets: UnsafeMutableRawPointer, displacements: UnsafeMutableRawPointer,
        changed: UnsafeMutablePointer<UInt16>, resting: (from: Int, band: UInt32), count: Int
    ) -> Bool { false }

    @_spi(KernelInternals)
    public static func streamRetarget(
        goals: UnsafeRawPointer, targets: UnsafeRawPointer, displacements: UnsafeRawPointer, velocities: UnsafeRawPointer,
        newTargets: UnsafeMutableRawPointer, newDisplacements: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<UInt16>,
        resting: (from: Int, band: UInt32), scale: LaneScale, naturalFrequency: Double, count: Int
    ) -> Bool {
        preconditionFailure("a format with scaled lanes whose streamsWrites(at:) is true implements streamRetarget")
    }
}
