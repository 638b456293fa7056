/// A bank of damped springs stepped together: the kernel.
///
/// Springs live in struct-of-arrays lanes, grouped by configuration so the step reads no
/// per-spring coefficient, and moving springs are kept dense so a frame costs what its moving
/// springs cost. One step is the exact propagator of m x'' = −k (x − target) − c x' for the frame's
/// duration: no substeps, no clamp, exact for any duration.
///
/// Each spring comes to rest on the first frame that ends after its exact motion has left its
/// tolerance band for the last time, whatever the frame durations (or, with a declared
/// ``FrameClock/fixed(frameDuration:)``, on its sampled rest frame), predicted in closed form; the
/// step then snaps it exactly to its target with zero velocity and lists it in ``restedInLastStep``.
///
/// <!-- fragment: kernel -->
/// ```swift
/// let bank = SpringBank<Float32Lanes>()
/// let x = try bank.add(value: 0, target: 100, tolerance: 0.5)
/// while bank.awakeCount > 0 { try bank.step(dt: 1.0 / 60) }
/// print(try bank.value(of: x))   // 100.0, exactly
/// ```
///
/// A bank is not thread-safe and is not `Sendable`: use it from one thread (or actor) at a time.
/// A step may use several threads internally (see ``StepThreading``); that never changes the bits.
public final class SpringBank<Lanes: SpringLaneArithmetic> {
    @usableFromInline let core: SpringBankCore<Lanes>
    /// The core's per-frame state, held here too so the inlined step reaches it in one load.
    @usableFromInline let frameState: UnsafeMutablePointer<FrameState>

    /// The most springs one bank holds.
    public static var maximumSpringCount: Int { BankLimits.maximumSpringCount }
    /// The most configuration batches one bank holds at once: 65,536. A batch is a configuration
    /// at one lane scale, so a float32 bank (one scale) holds 65,536 distinct configurations; a
    /// ``Q16Lanes`` bank stores each configuration at the scale its springs' tolerances ask for
    /// (one per binary exponent of the tolerance, those of 0.25 and above sharing one), so springs of one configuration with, say,
    /// 8 tolerance classes take 8 batches, and 8,192 such configurations fill the bank.
    /// One more throws ``SpringKernelError/tooManyConfigurations``.
    public static var maximumConfigurationCount: Int { BankLimits.maximumConfigurationCount }
    /// The most pause masks that can hold one spring at once.
    public static var maximumPauseDepth: Int { BankLimits.maximumPauseDepth }

    /// An empty bank.
    ///
    /// - Parameter threading: how many threads a step uses.
    public init(threading: StepThreading = .automatic) {
        core = SpringBankCore(threading: threading, reservingCapacity: 0)
        frameState = core.frameState
    }

    /// An empty bank with room reserved for `capacity` springs.
    ///
    /// Springs of one configuration (and, in Q16.16, one tolerance class) added up to `capacity`
    /// then allocate nothing after the first: their records are reserved here, with the rest
    /// schedule's entries and the room to list them all in ``restedInLastStep``, and the first
    /// configuration's lanes when its first spring is added (schedule, list and lanes for up to
    /// 65,536 springs). A board with a few KB of RAM cannot afford the copies growth makes, and
    /// its steps then allocate nothing either: the list's growth in a step, which the heap of a
    /// full board could not give, stopped the program there (a Swift array's allocation cannot be
    /// refused). Springs of other configurations grow their own lanes as usual.
    ///
    /// - Parameters:
    ///   - threading: how many threads a step uses.
    ///   - capacity: springs to reserve room for, 0 to ``maximumSpringCount``. The records'
    ///     reservation is asked of the system at once (60 bytes a spring's record and place, 64 GB
    ///     for the maximum); their pages are only touched as springs are added.
    /// - Throws: ``SpringKernelError/invalidCapacity(_:)`` for a negative capacity or one above
    ///   ``maximumSpringCount`` (more springs than a bank can ever hold);
    ///   ``SpringKernelError/outOfMemory`` when the system cannot give the reservation (no bank
    ///   is made, and the process goes on).
    public init(threading: StepThreading = .automatic, capacity: Int) throws(SpringKernelError) {
        guard capacity >= 0, capacity <= BankLimits.maximumSpringCount else { throw .invalidCapacity(capacity) }
        core = SpringBankCore(threading: threading, reservingCapacity: 0)
        frameState = core.frameState
        guard core.records.reserveCapacityIfAvailable(capacity), core.places.reserveCapacityIfAvailable(capacity) else { throw .outOfMemory }
        core.reservedBatchSprings = Swift.min(capacity, BankLimits.reservedLaneSprings)
        try core.schedule.reserveCapacity(core.reservedBatchSprings)
        try core.reserveRestedList(core.reservedBatchSprings)
    }

    /// How many threads a step uses (see ``setThreading(_:)``).
    public var threading: StepThreading { core.threading }

    /// Sets how many threads a step uses; the bits of a step never depend on it.
    ///
    /// - Throws: ``SpringKernelError/reentrantMutation`` inside a callback (a resume's restart closure).
    public func setThreading(_ threading: StepThreading) throws(SpringKernelError) {
        try core.checkMutable()
        core.threading = threading
    }

    /// Springs in the bank.
    public var count: Int { core.springCount }

    /// Springs not at rest: moving, or paused in mid-motion.
    ///
    /// - Complexity: O(configuration batches): a sum of each batch's count.
    public var awakeCount: Int { core.batches.reduce(0) { $0 + ($1?.awakeCount ?? 0) } }

    /// Steps taken so far; the frame a spring rests on is counted in these.
    public var frame: Int { core.frame }

    /// The springs that came to rest in the last step, in handle order (by index), whatever order
    /// their rest times came in. Each spring that comes to rest is listed once, in the step in
    /// which it does.
    public var restedInLastStep: [SpringHandle] { core.restedInLastStep }

    /// The value of this format nearest to `value`, clamped to its range (NaN gives 0).
    public static func nearestValue(to value: Double) -> Lanes.Value { Lanes.nearestValue(to: value) }

    // MARK: Springs

    /// Adds a spring at `value`, pulled toward `target`, moving at `velocity`.
    ///
    /// A spring added exactly at its target with zero velocity starts at rest; any other starts
    /// moving and is predicted at the next step.
    ///
    /// - Parameters:
    ///   - value: where the spring starts.
    ///   - target: the value it is pulled toward.
    ///   - velocity: its velocity in value units per second (nil: 0).
    ///   - configuration: its tension, friction and mass.
    ///   - tolerance: the half-width of the rest band in the value's own units (0.5 points for a
    ///     position, 1/256 for an opacity).
    ///   - userValue: the caller's own value for the spring (an entity id, an index into its
    ///     tables), read back with ``userValue(of:)`` or in bulk with ``userValues(of:into:)``, so
    ///     a rest event needs no side table keyed by handle.
    /// - Throws: ``SpringKernelError/nonFinite(_:)`` or ``SpringKernelError/outOfRange(_:)`` for a
    ///   value, target, velocity or tolerance the format cannot hold,
    ///   ``SpringKernelError/nonPositiveTolerance``, ``SpringKernelError/tooManyConfigurations``,
    ///   ``SpringKernelError/tooManySprings``, ``SpringKernelError/outOfMemory`` when the record
    ///   table cannot grow; ``SpringKernelError/reentrantMutation`` inside a callback.
    ///
    /// - Complexity: Amortized O(1): the record table grows by doubling, and a new configuration
    ///   (or, in a Q16.16 bank, a new lane scale) makes its batch once.
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    @discardableResult
    public func add(
        value: Lanes.Value, target: Lanes.Value, velocity: Lanes.Value? = nil,
        configuration: SpringConfiguration = .default, tolerance: Lanes.Value, userValue: UInt64 = 0
    ) throws(SpringKernelError) -> SpringHandle {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let configuration = NearestRounding.fenced(configuration, after: rounding)
        let goal = try Lanes.lanePattern(of: target, as: .target)
        let displacement = try Lanes.displacementPattern(value: try Lanes.lanePattern(of: value, as: .value), target: goal)
        let speed = try velocity.map { v throws(SpringKernelError) in try Lanes.lanePattern(of: v, as: .velocity) } ?? 0
        let band = try Lanes.tolerance(tolerance)
        return try core.add(
            displacement: displacement, target: goal, velocity: speed, configuration: configuration, tolerance: band, userValue: userValue)
    }

    /// Removes a spring; its handle becomes stale. Masks that held it let go of it.
    ///
    /// - Complexity: O(d) for the d masks that list the spring (at most ``maximumPauseDepth``).
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func remove(_ spring: SpringHandle) throws(SpringKernelError) {
        try core.remove(spring)
    }

    /// Whether `spring` names a spring in this bank.
    public func contains(_ spring: SpringHandle) -> Bool {
        (try? core.recordIndex(spring)) != nil
    }

    /// The spring's current value.
    // Exported: a caller in another module calls the specialization itself, not the generic
    // entry that dispatches to it (a call per spring per frame). An Embedded Swift library
    // exports none (its callers specialize the generic code themselves), so there it is not.
    #if hasFeature(Embedded)
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    #else
    @_specialize(exported: true, where Lanes == Float32Lanes)
    @_specialize(exported: true, where Lanes == Q16Lanes)
    #endif
    public func value(of spring: SpringHandle) throws(SpringKernelError) -> Lanes.Value {
        let lanes = core.apiLanePatterns(Lanes.self, ofRecord: try core.recordIndex(spring))
        return Lanes.value(ofLanePattern: Lanes.valuePattern(displacement: lanes.displacement, target: lanes.target))
    }

    /// The spring's displacement from its target, value − target (rounded to the format's
    /// resolution where its lanes hold more, see ``Q16Lanes``).
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func displacement(of spring: SpringHandle) throws(SpringKernelError) -> Lanes.Value {
        Lanes.value(ofLanePattern: core.apiLanePatterns(Lanes.self, ofRecord: try core.recordIndex(spring)).displacement)
    }

    /// The spring's current velocity, in value units per second (rounded to the format's
    /// resolution where its lanes hold more or less, see ``Q16Lanes``).
    // Exported where the library is not Embedded (see value(of:)).
    #if hasFeature(Embedded)
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    #else
    @_specialize(exported: true, where Lanes == Float32Lanes)
    @_specialize(exported: true, where Lanes == Q16Lanes)
    #endif
    public func velocity(of spring: SpringHandle) throws(SpringKernelError) -> Lanes.Value {
        Lanes.value(ofLanePattern: core.apiLanePatterns(Lanes.self, ofRecord: try core.recordIndex(spring)).velocity)
    }

    /// The value the spring pulls toward.
    // Exported where the library is not Embedded (see value(of:)).
    #if hasFeature(Embedded)
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    #else
    @_specialize(exported: true, where Lanes == Float32Lanes)
    @_specialize(exported: true, where Lanes == Q16Lanes)
    #endif
    public func target(of spring: SpringHandle) throws(SpringKernelError) -> Lanes.Value {
        Lanes.value(ofLanePattern: core.lanePatterns(ofRecord: try core.recordIndex(spring)).target)
    }

    /// The spring's configuration.
    public func configuration(of spring: SpringHandle) throws(SpringKernelError) -> SpringConfiguration {
        core.batch(ofRecord: try core.recordIndex(spring)).batch.configuration
    }

    /// The spring's tolerance, in value units.
    public func tolerance(of spring: SpringHandle) throws(SpringKernelError) -> Double {
        core.tolerance(record: try core.recordIndex(spring))
    }

    /// Whether the spring is at rest: exactly on its target, not moving, not scheduled.
    public func isAtRest(_ spring: SpringHandle) throws(SpringKernelError) -> Bool {
        !core.isAwake(record: try core.recordIndex(spring))
    }

    /// Pulls the spring toward a new target, keeping its velocity exactly and its value to within
    /// one rounding of the new displacement (value − new target). A spring at rest starts moving
    /// unless the new target is within its tolerance of where it is: its exact motion from there
    /// would never leave the band, so it stays at rest, snapped onto the new target, with no
    /// event (a target nudged each frame by less than the tolerance wakes nothing).
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    // Exported where the library is not Embedded (see value(of:)).
    #if hasFeature(Embedded)
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    #else
    @_specialize(exported: true, where Lanes == Float32Lanes)
    @_specialize(exported: true, where Lanes == Q16Lanes)
    #endif
    public func retarget(_ spring: SpringHandle, to target: Lanes.Value) throws(SpringKernelError) {
        // A scaled (Q16.16) bank's call reads the thread's rounding mode only when it reaches
        // floating point: reading it (`stmxcsr` on x86-64) was a third to a half of the call on
        // a moving spring, whose retarget is integer arithmetic (the format's quick check).
        if Lanes.hasScaledLanes, core.changedRuns.isEmpty {
            try core.checkMutable(predictingChanges: false)
            let index = try core.recordIndex(spring)
            let goal = try Lanes.lanePattern(of: target, as: .target)
            if retargetInIntegers(record: index, to: goal) { return }
            let rounding = NearestRounding.enterUnlessCurrent()
            defer { NearestRounding.leave(ifEntered: rounding) }
            return try retarget(record: index, to: goal, logging: false)
        }
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        let index = try core.recordIndex(spring)
        try retarget(record: index, to: try Lanes.lanePattern(of: target, as: .target), logging: false)
    }

    /// ``retarget(record:to:logging:)``, unlogged, where it needs no floating point: a spring
    /// whose target is `goal` already (left as it is), or a moving one whose new displacement the
    /// format's integer check accepts (``SpringLaneArithmetic/quicklyRetargetedDisplacement(_:velocity:from:to:displacementShift:limits:)``),
    /// its lanes written and its mark set as that call writes and sets them. Returns false, with
    /// nothing changed, for any other spring. Only for a format with scaled lanes, whose target
    /// lanes ``SpringLaneArithmetic/lanePattern(of:as:)`` makes without floating point.
    @inline(__always)
    func retargetInIntegers(record index: Int, to goal: UInt32) -> Bool {
        let (batchIndex, slot) = core.location(ofRecord: index)
        let lanes = core.batchLanes[batchIndex]
        let offset = slot * 4
        let target = lanes.targets.load(fromByteOffset: offset, as: UInt32.self)
        guard goal != target else { return true }
        guard let moved = Lanes.quicklyRetargetedDisplacement(
            lanes.displacements.load(fromByteOffset: offset, as: UInt32.self),
            velocity: lanes.velocities.load(fromByteOffset: offset, as: UInt32.self), from: target, to: goal,
            displacementShift: lanes.scale.displacementShift, limits: lanes.retargetLimits),
            core.batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef({ core.markRetargeted(batch: $0, slot: slot) })
        else { return false }
        lanes.targets.storeBytes(of: goal, toByteOffset: offset, as: UInt32.self)
        lanes.displacements.storeBytes(of: moved, toByteOffset: offset, as: UInt32.self)
        return true
    }

    /// Pulls the spring in a live record toward `goal` (a checked target lane): its displacement
    /// and target lanes written once the motion is checked to fit the format. A moving spring is
    /// marked for the watch (`SpringBankCore+Watch.swift`); a resting one within its batch's least
    /// tolerance of `goal` stays at rest (``ConfigurationBatch/staysAtRest(retargetedTo:)``); any
    /// other resting or paused one is woken or predicted at once, or, `logging` (a bulk call),
    /// once the whole call is accepted
    /// (``SpringBankCore/finishLoggedRetargets()``), its old lanes logged in `core.staged` either
    /// way so that ``SpringBankCore/undoLoggedRetargets()`` can put them back. A spring whose
    /// target is `goal` already is left exactly as it is.
    @inline(__always)
    func retarget(record index: Int, to goal: UInt32, logging: Bool) throws(SpringKernelError) {
        let (batchIndex, slot) = core.location(ofRecord: index)
        let lanes = core.batchLanes[batchIndex]
        let offset = slot * 4
        guard let (target, displacement, moved) = try retargetedLanes(slot: slot, of: lanes, to: goal) else { return }
        lanes.targets.storeBytes(of: goal, toByteOffset: offset, as: UInt32.self)
        // Moving: marked for the watch. At rest (exactly: an earlier element of a bulk call may
        // have moved its displacement, and it is woken only once the call is accepted) within
        // its batch's least tolerance of the new target (a hold): it stays at rest, its
        // displacement the 0 it has, as the streamed retarget keeps it. Otherwise (at rest
        // further away, or paused) woken or predicted once the call is accepted.
        let (moving, keptAtRest) = core.batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            let keptAtRest = displacement == 0 && slot >= batch.awakeCount && batch.staysAtRest(retargetedTo: moved)
            return (!keptAtRest && core.markRetargeted(batch: batch, slot: slot), keptAtRest)
        }
        if !keptAtRest { lanes.displacements.storeBytes(of: moved, toByteOffset: offset, as: UInt32.self) }
        let settled = moving || keptAtRest
        if logging {
            // batch 1: to be woken or predicted once the call is accepted.
            core.staged.append(StagedLanes(
                record: UInt32(index), batch: settled ? 0 : 1, displacement: displacement, velocity: 0, target: target))
            if !settled { core.loggedRetargetsNotMoving += 1 }
        } else if !settled {
            core.retargetedAtRestOrPaused(record: index)
        }
    }

    /// The lanes a retarget of the spring at `slot` of `lanes` toward `goal` reads and the
    /// displacement it writes, checked to fit the format; nil when its target is `goal` already
    /// (it is left exactly as it is). Nothing is written: the caller stores `goal` and `moved`.
    @inline(__always)
    func retargetedLanes(
        slot: Int, of lanes: BatchLanes, to goal: UInt32
    ) throws(SpringKernelError) -> (target: UInt32, displacement: UInt32, moved: UInt32)? {
        let offset = slot * 4
        let target = lanes.targets.load(fromByteOffset: offset, as: UInt32.self)
        guard goal != target else { return nil }
        let displacement = lanes.displacements.load(fromByteOffset: offset, as: UInt32.self)
        guard Lanes.hasScaledLanes else {
            // Every motion fits a format without scaled lanes: its own arithmetic checks the lane.
            return (target, displacement, try Lanes.retargetedDisplacement(displacement, from: target, to: goal, scale: lanes.scale))
        }
        let velocity = lanes.velocities.load(fromByteOffset: offset, as: UInt32.self)
        // Most retargets lie well inside the format: integer bounds accept them.
        if let moved = Lanes.quicklyRetargetedDisplacement(
            displacement, velocity: velocity, from: target, to: goal, displacementShift: lanes.scale.displacementShift,
            limits: lanes.retargetLimits) {
            return (target, displacement, moved)
        }
        return (target, displacement, try exactlyRetargetedDisplacement(
            displacement, velocity: velocity, from: target, to: goal, scale: lanes.scale, naturalFrequency: lanes.naturalFrequency))
    }

    /// The displacement a retarget writes, checked exactly to fit the format (kept out of line:
    /// the quick check accepts most retargets). Takes the batch's scale and ω, not its
    /// ``BatchLanes``: passed in registers, where the lanes (too large for them) were stored to
    /// the stack on every spring of a bulk call's loop, before its quick check.
    @inline(never)
    func exactlyRetargetedDisplacement(
        _ displacement: UInt32, velocity: UInt32, from target: UInt32, to goal: UInt32, scale: LaneScale, naturalFrequency: Double
    ) throws(SpringKernelError) -> UInt32 {
        let moved = try Lanes.retargetedDisplacement(displacement, from: target, to: goal, scale: scale)
        try Lanes.checkMotion(displacement: moved, velocity: velocity, target: goal, scale: scale, naturalFrequency: naturalFrequency)
        return moved
    }

    /// The stored velocity of the spring once `delta` is added, checked to fit the format.
    @inline(__always)
    func impulsedVelocity(record index: Int, adding delta: Lanes.Value) throws(SpringKernelError) -> UInt32 {
        try impulsedVelocity(record: index, adding: delta, to: core.lanePatterns(ofRecord: index).velocity)
    }

    /// The stored velocity of the spring once `delta` is added to the stored velocity `base`
    /// (its own, or the one an earlier element of a bulk call gave it), checked to fit the format.
    @inline(__always)
    func impulsedVelocity(record index: Int, adding delta: Lanes.Value, to base: UInt32) throws(SpringKernelError) -> UInt32 {
        let lanes = core.lanePatterns(ofRecord: index)
        guard Lanes.hasScaledLanes else { return try Lanes.lanePattern(adding: delta, to: base, as: .velocity) }
        let storage = core.storage(ofRecord: index)
        let step = try Lanes.rescaled(Lanes.lanePattern(of: delta, as: .velocity), by: storage.scale.velocityShift, as: .velocity)
        let velocity = try Lanes.lanePattern(adding: Lanes.value(ofLanePattern: step), to: base, as: .velocity)
        try Lanes.checkMotion(
            displacement: lanes.displacement, velocity: velocity, target: lanes.target,
            scale: storage.scale, naturalFrequency: storage.naturalFrequency)
        return velocity
    }

    /// The stored lanes of the spring at `value` and `velocity` about its current target.
    @inline(__always)
    func storedState(record index: Int, value: Lanes.Value, velocity: Lanes.Value) throws(SpringKernelError) -> (displacement: UInt32, velocity: UInt32) {
        let storage = core.storage(ofRecord: index)
        return try storedState(
            value: value, velocity: velocity, target: core.lanePatterns(ofRecord: index).target, scale: storage.scale,
            naturalFrequency: storage.naturalFrequency)
    }

    /// The stored lanes of a spring at `value` and `velocity` about the target lane `target`, in a
    /// batch of lanes at `scale` and this natural frequency.
    @inline(__always)
    func storedState(
        value: Lanes.Value, velocity: Lanes.Value, target: UInt32, scale: LaneScale, naturalFrequency: Double
    ) throws(SpringKernelError) -> (displacement: UInt32, velocity: UInt32) {
        let displacement = try Lanes.displacementPattern(value: try Lanes.lanePattern(of: value, as: .value), target: target)
        let speed = try Lanes.lanePattern(of: velocity, as: .velocity)
        return try Lanes.storedLanes(
            displacement: displacement, velocity: speed, target: target, shift: scale, scale: scale,
            naturalFrequency: naturalFrequency)
    }

    /// Adds `velocity` to the spring's velocity (an impulse); a spring at rest starts moving.
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    // Exported where the library is not Embedded (see value(of:)).
    #if hasFeature(Embedded)
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    #else
    @_specialize(exported: true, where Lanes == Float32Lanes)
    @_specialize(exported: true, where Lanes == Q16Lanes)
    #endif
    public func addVelocity(_ velocity: Lanes.Value, to spring: SpringHandle) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        let index = try core.recordIndex(spring)
        core.setState(record: index, velocity: try impulsedVelocity(record: index, adding: velocity))
    }

    /// Sets the spring's value and velocity, keeping its target (a teleport, or a hand-off from a
    /// gesture). A paused spring keeps the new state frozen until it is resumed.
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    // Exported where the library is not Embedded (see value(of:)).
    #if hasFeature(Embedded)
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    #else
    @_specialize(exported: true, where Lanes == Float32Lanes)
    @_specialize(exported: true, where Lanes == Q16Lanes)
    #endif
    public func setState(of spring: SpringHandle, value: Lanes.Value, velocity: Lanes.Value) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        let index = try core.recordIndex(spring)
        let state = try storedState(record: index, value: value, velocity: velocity)
        core.setState(record: index, displacement: state.displacement, velocity: state.velocity)
    }

    /// Gives the spring another configuration, keeping its state, masks and pause depth.
    ///
    /// - Complexity: Amortized O(1), as
    ///   ``add(value:target:velocity:configuration:tolerance:userValue:)``.
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func setConfiguration(of spring: SpringHandle, to configuration: SpringConfiguration) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let configuration = NearestRounding.fenced(configuration, after: rounding)
        try core.checkMutable()
        let index = try core.recordIndex(spring)
        try core.setConfiguration(record: index, configuration, tolerance: core.tolerance(record: index))
    }

    /// Sets the spring's tolerance, in value units.
    public func setTolerance(of spring: SpringHandle, to tolerance: Lanes.Value) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        let index = try core.recordIndex(spring)
        try core.setConfiguration(record: index, core.batch(ofRecord: index).batch.configuration, tolerance: try Lanes.tolerance(tolerance))
    }

    // MARK: Rest

    /// How the bank's caller advances time, and so which rest rule applies: ``FrameClock/variable``
    /// (the default: any frame durations) or a declared ``FrameClock/fixed(frameDuration:)``.
    public var frameClock: FrameClock { core.frameClock }

    /// Declares how the caller advances time. Every moving spring is predicted again under the new
    /// rule at the next step (one closed-form evaluation each, a deliberate cost).
    ///
    /// - Throws: ``SpringKernelError/invalidTimeStep(_:)`` for a fixed duration that is not finite
    ///   and positive; ``SpringKernelError/reentrantMutation`` inside a callback.
    ///
    /// - Complexity: O(spring records: the springs in the bank and the records removed springs
    ///   freed) when the clock changes (each awake spring is predicted again); O(1) when it does not.
    public func setFrameClock(_ clock: FrameClock) throws(SpringKernelError) {
        // A Q16.16 bank's check of the duration (a subnormal one is positive) in nearest, with
        // denormals read as they are (see NearestRounding.fenced).
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        var clock = clock
        if rounding != nil, case .fixed(let duration) = clock { clock = .fixed(frameDuration: NearestRounding.fence((duration, 0, 0)).0) }
        try core.setFrameClock(clock)
    }

    /// Seconds stepped so far: the sum of every step's `dt`, in order (summed in pieces of about
    /// 12 days once that much time has passed, so it may then differ from a plain running sum in
    /// its last bits; ∞ once it exceeds the largest Double). Rest never depends on it.
    public var time: Double { core.totalTime }

    /// When the spring stays within its tolerance for good, from its current state: the time, in
    /// seconds from now, after which its exact motion never leaves its band again, whatever the
    /// frame durations (0: it already never does; `.infinity`: it never settles, an undamped spring
    /// swinging beyond its band). A paused spring is answered as if it were resumed now.
    ///
    /// Under the default ``FrameClock/variable`` clock, a moving spring rests on the first frame
    /// that ends at least this long from now, unless it is changed before.
    public func restTime(of spring: SpringHandle) throws(SpringKernelError) -> Double {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let index = try core.recordIndex(spring)
        let seconds = core.isAwake(record: index) ? core.restTime(record: index) : 0
        // Computed before the caller's environment comes back (see NearestRounding.fenced).
        return rounding == nil ? seconds : NearestRounding.fence((seconds, 0, 0)).0
    }

    /// When the spring stays within its tolerance for good, predicted from its current state for
    /// steps of `dt`: after `frames` more steps (0: it already does), or, when `isFinal` is false,
    /// not known within `frames` steps.
    public func predictRest(of spring: SpringHandle, dt: Double) throws(SpringKernelError) -> RestPrediction {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let index = try core.recordIndex(spring)
        guard dt.isFinite, dt > 0 else { throw .invalidTimeStep(dt) }
        return core.predictRest(record: index, duration: dt)
    }

    // MARK: Saturation

    /// Lane-steps that saturated since the bank was made (the format could not hold the exact
    /// result, so the lane was clamped to its bound). Always 0 for ``Float32Lanes``; a
    /// ``Q16Lanes`` bank checks its lanes every ``Q16Lanes/boundCheckInterval`` frames.
    public var saturationCount: Int { core.saturationCount }

    /// The springs found saturated in the last step (for ``Q16Lanes``, a step that checks the
    /// bound: every ``Q16Lanes/boundCheckInterval``th frame, from the first).
    public var saturatedInLastStep: [SpringHandle] { core.saturatedInLastStep }

    /// Whether a step ever saturated the spring (cleared by ``clearSaturation(of:)``).
    public func wasSaturated(_ spring: SpringHandle) throws(SpringKernelError) -> Bool {
        core.records[try core.recordIndex(spring)].wasSaturated
    }

    /// Clears the spring's saturation mark.
    ///
    /// - Throws: ``SpringKernelError/reentrantMutation`` inside a callback, like every change;
    ///   ``SpringKernelError/staleHandle(_:)`` or ``SpringKernelError/foreignHandle`` for a handle
    ///   this bank does not hold.
    public func clearSaturation(of spring: SpringHandle) throws(SpringKernelError) {
        try core.checkMutable()
        core.records[try core.recordIndex(spring)].wasSaturated = false
    }

    // MARK: Pause masks

    /// Makes a pause mask: a set of springs one source pauses and resumes together.
    ///
    /// - Complexity: O(n × d) for n springs listed, each already listed by d masks.
    public func makePauseMask(_ springs: some Sequence<SpringHandle> = [SpringHandle]()) throws(SpringKernelError) -> PauseMaskID {
        let mask = try core.makePauseMask()
        for spring in springs {
            do throws(SpringKernelError) {
                try core.insert(spring, into: mask)
            } catch {
                try? core.removePauseMask(mask)
                throw error
            }
        }
        return mask
    }

    /// Adds a spring to a mask; if the mask is pausing, the spring is paused too.
    ///
    /// - Complexity: O(d) for the d masks that already list the spring (at most ``maximumPauseDepth``).
    public func insert(_ spring: SpringHandle, into mask: PauseMaskID) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.insert(spring, into: mask)
    }

    /// Takes a spring out of a mask; if that was the last hold on it, it moves on from where it was.
    ///
    /// - Throws: ``SpringKernelError/notInMask(_:_:)`` if the mask does not list the spring (a
    ///   caller that thinks it does has lost track of its masks), changing nothing;
    ///   ``SpringKernelError/staleHandle(_:)``, ``SpringKernelError/stalePauseMask(_:)`` or
    ///   ``SpringKernelError/foreignHandle`` for a spring or mask this bank does not hold;
    ///   ``SpringKernelError/reentrantMutation`` inside a callback.
    ///
    /// - Complexity: O(d) for the d masks that list the spring (at most ``maximumPauseDepth``).
    public func remove(_ spring: SpringHandle, from mask: PauseMaskID) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.remove(spring, from: mask)
    }

    /// Removes a mask, resuming its springs (without changing their state) if it was pausing.
    ///
    /// - Complexity: O(members of the mask).
    public func removePauseMask(_ mask: PauseMaskID) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.removePauseMask(mask)
    }

    /// Pauses every spring of the mask: its lanes stay bit-identical through any number of steps.
    /// Each member that was moving leaves its batch's moving region (its slot is swapped past the
    /// moving springs: lanes, handle, generation, user value), so a paused spring costs later
    /// steps nothing. Pausing a mask that is already pausing does nothing.
    ///
    /// - Complexity: O(members of the mask).
    public func pause(_ mask: PauseMaskID) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.pause(mask)
    }

    /// Lets go of the mask's hold. A spring that no other mask holds moves on from where it was
    /// paused: its motion, and its rest, continue as if the pause had not happened, later. Resuming
    /// a mask that is not pausing does nothing.
    ///
    /// - Complexity: O(members of the mask).
    public func resume(_ mask: PauseMaskID) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.resume(mask)
    }

    /// Lets go of the mask's hold. A spring that no other mask holds moves again, from the value and
    /// velocity `restart` returns for it (nil: from where it was paused): a gesture's hand-off, where
    /// the finger let go at its release velocity (``resume(_:restarting:values:velocities:)-(_,UnsafeBufferPointer<SpringHandle>,_,_)``
    /// takes the states in buffers instead).
    ///
    /// `restart` is called for each freed spring, in handle order, before anything changes; if it
    /// returns a value the format cannot hold, the call throws and nothing changes. It must not
    /// change the bank. Resuming a mask that is not pausing does nothing.
    ///
    /// - Complexity: O(m) for a mask of m members, plus a sort of the freed springs
    ///   (O(m log m)) when they did not join the mask in handle order; one call of `restart` a
    ///   freed spring.
    // Compiled for the shipped formats: unspecialised, each restart's (value, velocity) tuple
    // would have its type metadata looked up at run time.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func resume(
        _ mask: PauseMaskID,
        restart: (SpringHandle) -> (value: Lanes.Value, velocity: Lanes.Value)?
    ) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.resume(mask) { spring throws(SpringKernelError) in
            guard let state = restart(spring) else { return nil }
            let stored = try storedState(record: try core.recordIndex(spring), value: state.value, velocity: state.velocity)
            return (stored.displacement, stored.velocity)
        }
    }

    /// Whether the mask is holding its springs paused.
    public func isPausing(_ mask: PauseMaskID) throws(SpringKernelError) -> Bool {
        core.masks[try core.maskIndex(mask)].isPausing
    }

    /// The springs a mask lists, in handle order.
    ///
    /// - Complexity: O(m log m) for a mask of m members (sorted into handle order).
    public func springs(in mask: PauseMaskID) throws(SpringKernelError) -> [SpringHandle] {
        core.memberRecords(ofMask: try core.maskIndex(mask)).map { core.handle(ofRecord: $0) }
    }

    /// Whether the spring is paused (held by at least one mask).
    public func isPaused(_ spring: SpringHandle) throws(SpringKernelError) -> Bool {
        core.isPaused(record: try core.recordIndex(spring))
    }

    // MARK: Handles by index

    /// The handle of the spring at record `index`, or nil if no spring lives there: the C
    /// interface packs a handle into 64 bits (with only the low bits of its generation) and
    /// rebuilds it from the index.
    /// Inlined into the C interface's loops over handles (a call per handle cost about as much as
    /// the kernel's retarget of the spring).
    @inlinable
    package func spring(atIndex index: UInt32) -> SpringHandle? {
        let record = Int(index)
        guard record < core.places.count else { return nil }
        let place = core.places[record]
        guard place.isLive else { return nil }
        return SpringHandle(index: index, generation: place.generation, bankTag: core.tag)
    }

    /// How many records a spring handle's index may name (each live or not): an index at or past
    /// this names no spring.
    @inlinable
    package var springRecordCount: Int { core.places.count }

    /// This bank's handle of record `index` with `generation`, unchecked: for a caller that gives
    /// it to a call of this bank that checks every handle it takes (a spring handle that names no
    /// live spring of that generation is refused there with ``SpringKernelError/staleHandle(_:)``).
    /// The C interface rebuilds a list of handles so, for a bulk call, instead of checking each
    /// handle twice.
    @inlinable
    package func uncheckedSpring(atIndex index: UInt32, generation: UInt32) -> SpringHandle {
        SpringHandle(index: index, generation: generation, bankTag: core.tag)
    }

    /// The highest generation any spring or mask record of the bank has had: every handle it
    /// issued carries this generation or a lower one. The C interface moves its registry slot's
    /// generations past it when the bank is destroyed, so the next bank there issues none of them.
    package var highestGeneration: UInt32 {
        var highest: UInt32 = 0
        for record in 0..<core.records.count { highest = Swift.max(highest, core.places[record].generation) }
        for mask in core.masks { highest = Swift.max(highest, mask.generation) }
        return highest
    }

    /// Retires every spring and mask record removed at generation `limit` instead of reusing it,
    /// so the bank never issues a handle of a higher generation: the C interface packs
    /// a generation into 17 bits and sets the limit so that no packed handle ever repeats. A
    /// retired record costs its size in the record table (60 bytes a spring, in tables of at most
    /// 2^30 records: 2^30 records retire only after 2^46 removals at a limit of 2^16).
    package func retireRecords(pastGeneration limit: UInt32) {
        core.generationLimit = limit
    }

    /// The pause mask at record `index`, or nil if none lives there (see ``spring(atIndex:)``).
    package func pauseMask(atIndex index: UInt32) -> PauseMaskID? {
        let mask = Int(index)
        guard mask < core.masks.count, core.masks[mask].isLive else { return nil }
        return core.maskID(ofIndex: mask)
    }

    /// How many masks hold the spring paused.
    public func pauseDepth(of spring: SpringHandle) throws(SpringKernelError) -> Int {
        core.pauseDepth(record: try core.recordIndex(spring))
    }
}
