/// The lanes of every spring that shares one configuration (Bepu's type batches, Box2D's solver
/// sets, in one).
///
/// Hot fields (displacement from the target, velocity) are separate 64-byte-aligned lane buffers;
/// the target and per-slot bookkeeping (which spring owns a slot, pause depth) live apart and are
/// never read by the step. The slots form three regions, Box2D's solver sets within one batch:
/// `0..<movingCount` hold moving springs, `movingCount..<awakeCount` springs paused mid-motion,
/// `awakeCount..<count` springs at rest (displacement and velocity zero). A spring that comes to
/// rest, starts to move, is paused or resumed is swapped across a boundary, so a frame touches only
/// `movingCount` lanes, however many springs rest or are paused, and wherever they are in the bank.
final class ConfigurationBatch {
    let configuration: SpringConfiguration
    /// The scale its displacement and velocity lanes are stored at (see ``LaneScale``).
    let scale: LaneScale
    let motion: SpringMotion
    /// What a stored displacement and velocity lane of 1 stand for, for integer lanes
    /// (``SpringLaneArithmetic/integerLaneUnit`` at this batch's scale); nil for float lanes.
    private let integerLaneUnits: (displacement: Double, velocity: Double)?
    /// The format's quick retarget limits at this batch's scale (``BatchLanes/retargetLimits``).
    private let retargetLimits: (displacement: Int32, velocity: Int32)
    /// Marked stale whenever this batch's step work changes.
    private let planValidity: PlanValidity
    /// The bank's table of lane bases and this batch's row in it, rewritten when the buffers move.
    private let lanesEntry: (table: UnsafeTable<BatchLanes>, index: Int)

    // Read on every slot swap, rest and wake, each in a single statement (see the tables of
    // ``SpringBankCore``): no runtime exclusivity checks.
    @exclusivity(unchecked) private(set) var displacements: LaneBuffer
    @exclusivity(unchecked) private(set) var velocities: LaneBuffer
    @exclusivity(unchecked) private(set) var targets: LaneBuffer
    /// The spring record that owns each slot.
    @exclusivity(unchecked) private(set) var springOfSlot: LaneBuffer
    /// That record's generation (the other half of the spring's handle), kept by slot so a read
    /// of handles in storage order streams it instead of visiting every record.
    @exclusivity(unchecked) private(set) var generationOfSlot: LaneBuffer
    /// The caller's own value for the spring in each slot (``SpringBank/userValue(of:)``), kept
    /// by slot so a read in storage order streams it beside the lanes.
    @exclusivity(unchecked) private(set) var userValues: WideLaneBuffer
    /// The moving springs retargeted since the last step (see ``SpringBankCore`` `+Watch`): their
    /// rest is decided by the watch, not the rest schedule, while they keep being retargeted.
    @exclusivity(unchecked) private(set) var retargetedLanes: LaneMarks
    /// The moving springs the last step watched: retargeted before it.
    @exclusivity(unchecked) private(set) var watchedLanes: LaneMarks
    /// The moving springs the last step watched that were retargeted before the step before it, and
    /// not since (a pointer that stood still for a frame): watched once more, then back on the
    /// rest schedule unless retargeted again.
    @exclusivity(unchecked) private(set) var agedLanes: LaneMarks
    /// The watched springs the last step found within the band (written by the step: see
    /// ``StepWatch``), not kept past the step that wrote them, so not moved with their springs.
    @exclusivity(unchecked) private(set) var candidateLanes: LaneMarks
    /// What the step reads of the watch, while the batch is watching (see ``LaneWork/watch``).
    let stepWatch: UnsafeMutablePointer<StepWatch>
    /// Listed in ``SpringBankCore/watchingBatches``: some of its marks may be set. The step's
    /// work for the batch looks for candidates while it is.
    @exclusivity(unchecked) var isWatching = false { didSet { if isWatching != oldValue { planValidity.invalidate() } } }
    /// The largest tolerance any of its springs has had (a bound, never lowered while the batch
    /// lives): the watch's band, so that it needs no tolerance lane.
    @exclusivity(unchecked) var maximumTolerance = 0.0
    /// The smallest tolerance any of its springs has had (a bound, never raised while the batch
    /// lives; lowered by ``lowerMinimumTolerance(to:)``): a resting spring whose retarget leaves
    /// it within this of its new target stays at rest, decided from its lanes alone
    /// (``staysAtRest(retargetedTo:)``, ``restingLanesForRetarget``).
    @exclusivity(unchecked) private(set) var minimumTolerance = Double.infinity
    /// ``restKeepingBand(tolerance:)`` at ``minimumTolerance``, kept with it; nil (no spring kept
    /// from the lanes alone) until a finite tolerance lowers it.
    @exclusivity(unchecked) private var minimumToleranceBand: UInt32?
    /// The watch's cheap answers for this configuration, made when first asked. Behind a pointer
    /// and read in place: they are a kilobyte of propagators, and a rest question per spring (a
    /// resting spring given a target within its tolerance) would otherwise copy them each time.
    var restProbes: UnsafePointer<RestProbes> {
        if let probes = restProbeStorage { return UnsafePointer(probes) }
        let probes = UnsafeMutablePointer<RestProbes>.allocate(capacity: 1)
        probes.initialize(to: RestProbes(motion: motion))
        restProbeStorage = probes
        return UnsafePointer(probes)
    }
    @exclusivity(unchecked) private var restProbeStorage: UnsafeMutablePointer<RestProbes>?

    /// Lanes that a storage-order write that changes springs fills and the batch then takes as
    /// its own (``adoptFilledLanes(_:slots:)``), its old lanes becoming the spare ones: the write
    /// checks the caller's array in the pass that stores the lanes, and a refused call still
    /// changes nothing (a check pass before the write read the caller's arrays, or the lanes the
    /// check needs, twice). Each is made by the first write that fills it and released when the
    /// buffers grow.
    @exclusivity(unchecked) private var spareDisplacements = SpareLaneBuffer()
    @exclusivity(unchecked) private var spareVelocities = SpareLaneBuffer()
    @exclusivity(unchecked) private var spareTargets = SpareLaneBuffer()

    /// Slots available before the buffers must grow; a multiple of the bundle width.
    private(set) var capacity: Int
    // Every change of which spring sits in which slot or region moves the bank's layout version
    // on (``StorageLayout``): a storage-order read or write made for the old layout is refused.
    /// Slots in use.
    @exclusivity(unchecked) var count = 0 { didSet { planValidity.layoutChanged() } }
    /// Slots in use by springs that are not at rest: moving or paused mid-motion.
    @exclusivity(unchecked) var awakeCount = 0 { didSet { planValidity.layoutChanged() } }
    /// Slots in use by moving springs: what a step advances.
    @exclusivity(unchecked) var movingCount = 0 {
        didSet {
            planValidity.invalidate()
            planValidity.layoutChanged()
        }
    }

    /// Springs a bulk removal in progress takes out of this batch (0 outside one), and whether
    /// it drops them all in one pass at the end (see ``SpringBankCore/remove(_:)``).
    var pendingRemovals = 0
    var dropsRemovalsAtOnce = false

    /// Empty and listed in ``SpringBankCore/retiringBatches``, to be released unless springs come back.
    var isRetiring = false

    /// The last four frame durations' bit patterns (0: none) and their coefficients, replaced in
    /// turn: fixed storage, so a new duration every frame costs no array work.
    /// Read and written only by `coefficients(duration:lanes:)`.
    @exclusivity(unchecked) private var cachedDurations = SIMD4<UInt64>(repeating: 0)
    @exclusivity(unchecked) private var cachedCoefficients = (SIMD8<UInt32>(), SIMD8<UInt32>(), SIMD8<UInt32>(), SIMD8<UInt32>())
    @exclusivity(unchecked) private var nextCacheSlot = 0

    init(
        configuration: SpringConfiguration, scale: LaneScale, integerLaneUnit: Double?,
        retargetLimits: (displacement: Int32, velocity: Int32), planValidity: PlanValidity,
        lanesEntry: (table: UnsafeTable<BatchLanes>, index: Int), capacity requested: Int = BundleIndexing.laneCount
    ) {
        self.retargetLimits = retargetLimits
        let capacity = BundleIndexing.bundleCount(springs: max(requested, 1)) * BundleIndexing.laneCount
        self.configuration = configuration
        self.scale = scale
        self.motion = SpringMotion(configuration)
        integerLaneUnits = integerLaneUnit.map { ($0 * scale.displacementFactor, $0 * scale.velocityFactor) }
        self.planValidity = planValidity
        self.lanesEntry = lanesEntry
        self.capacity = capacity
        displacements = LaneBuffer(capacity: capacity)
        velocities = LaneBuffer(capacity: capacity)
        targets = LaneBuffer(capacity: capacity)
        springOfSlot = LaneBuffer(capacity: capacity)
        generationOfSlot = LaneBuffer(capacity: capacity)
        userValues = WideLaneBuffer(capacity: capacity)
        retargetedLanes = LaneMarks(capacity: capacity)
        watchedLanes = LaneMarks(capacity: capacity)
        agedLanes = LaneMarks(capacity: capacity)
        candidateLanes = LaneMarks(capacity: capacity)
        stepWatch = .allocate(capacity: 1)
        stepWatch.initialize(to: StepWatch(
            watched: watchedLanes.base, aged: agedLanes.base, retargeted: retargetedLanes.base, candidates: candidateLanes.base, band: 0,
            integerLanes: integerLaneUnit == nil ? 0 : 1))
        publishLanes()
    }

    /// Its index among the bank's batches (its row in the table of lane bases).
    var index: Int { lanesEntry.index }

    /// Writes this batch's current lane bases into the bank's table.
    private func publishLanes() {
        lanesEntry.table[lanesEntry.index] = BatchLanes(
            displacements: displacements.base, velocities: velocities.base, targets: targets.base,
            scale: scale, naturalFrequency: configuration.naturalFrequency, retargetLimits: retargetLimits)
    }

    deinit {
        restProbeStorage?.deinitialize(count: 1).deallocate()
        displacements.deallocate()
        velocities.deallocate()
        targets.deallocate()
        springOfSlot.deallocate()
        generationOfSlot.deallocate()
        userValues.deallocate()
        retargetedLanes.deallocate()
        watchedLanes.deallocate()
        agedLanes.deallocate()
        candidateLanes.deallocate()
        stepWatch.deallocate()
        releaseSpareLanes()
    }

    private func releaseSpareLanes() {
        spareDisplacements.release()
        spareVelocities.release()
        spareTargets.release()
    }

    /// The spare displacement lanes and the `filled` ones beside them (velocities or targets),
    /// for a write of slots `0..<slots` that the batch takes with ``adoptFilledLanes(_:slots:)``
    /// if the call is accepted, or leaves there.
    func spareLanes(filling slots: Int, _ filled: FilledLanes) -> (displacements: LaneBuffer, beside: LaneBuffer) {
        let displacements = spareDisplacements.filling(slots, capacity: capacity)
        switch filled {
        case .motion: return (displacements, spareVelocities.filling(slots, capacity: capacity))
        case .targets: return (displacements, spareTargets.filling(slots, capacity: capacity))
        }
    }

    /// Makes the spare `filled` lanes, written for slots `0..<slots` (``spareLanes(filling:_:)``),
    /// this batch's own: slots `slots..<count` are copied from the current lanes and the spare's
    /// slots past `count` cleared first, so every other slot reads as it did. The current lanes
    /// become the spare ones.
    func adoptFilledLanes(_ filled: FilledLanes, slots: Int) {
        spareDisplacements.exchange(with: &displacements, filled: slots, count: count)
        switch filled {
        case .motion: spareVelocities.exchange(with: &velocities, filled: slots, count: count)
        case .targets: spareTargets.exchange(with: &targets, filled: slots, count: count)
        }
        planValidity.invalidate()  // the buffers move
        publishLanes()
    }

    /// Makes room for `needed` slots, doubling so that growth is amortised. Slots keep their
    /// indices, so no handle or mask changes.
    ///
    /// One buffer at a time, each freed as soon as its grown copy is made: at most one buffer more
    /// is held at once (a microcontroller's RAM holds little more than its springs).
    ///
    /// - Throws: ``SpringKernelError/outOfMemory`` when the system cannot give a grown buffer. The
    ///   batch then keeps its capacity and every slot as it was; buffers grown before that one keep
    ///   their room, unused, for the next attempt.
    func reserve(_ needed: Int) throws(SpringKernelError) {
        guard needed > capacity else { return }
        var grown = capacity
        while grown < needed {
            let (doubled, overflow) = grown.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw .outOfMemory }
            grown = doubled
        }
        planValidity.invalidate()  // the buffers move
        // Whether or not every buffer could grow, the step's views follow the ones that moved.
        defer {
            stepWatch.pointee.watched = watchedLanes.base
            stepWatch.pointee.aged = agedLanes.base
            stepWatch.pointee.retargeted = retargetedLanes.base
            stepWatch.pointee.candidates = candidateLanes.base
            publishLanes()
        }
        try Self.grow(&displacements, to: grown)
        try Self.grow(&velocities, to: grown)
        try Self.grow(&targets, to: grown)
        try Self.grow(&springOfSlot, to: grown)
        try Self.grow(&generationOfSlot, to: grown)
        if userValues.capacity < grown {
            guard let fresh = userValues.grown(to: grown) else { throw .outOfMemory }
            userValues.deallocate()
            userValues = fresh
        }
        try Self.grow(&retargetedLanes, to: grown)
        try Self.grow(&watchedLanes, to: grown)
        try Self.grow(&agedLanes, to: grown)
        try Self.grow(&candidateLanes, to: grown)
        releaseSpareLanes()
        capacity = grown
    }

    /// `lanes` grown to `capacity` lanes unless they hold that many already.
    private static func grow(_ lanes: inout LaneBuffer, to capacity: Int) throws(SpringKernelError) {
        guard lanes.capacity < capacity else { return }
        guard let fresh = lanes.grown(to: capacity) else { throw .outOfMemory }
        lanes.deallocate()
        lanes = fresh
    }

    /// `marks` grown to `capacity` slots unless they hold that many already.
    private static func grow(_ marks: inout LaneMarks, to capacity: Int) throws(SpringKernelError) {
        guard marks.bundles < BundleIndexing.bundleCount(springs: capacity) else { return }
        guard let fresh = marks.grown(to: capacity) else { throw .outOfMemory }
        marks.deallocate()
        marks = fresh
    }

    /// Exchanges every per-slot field of slots `a` and `b`. The caller fixes the records.
    func swapSlots(_ a: Int, _ b: Int) {
        guard a != b else { return }
        displacements.swapAt(a, b)
        velocities.swapAt(a, b)
        targets.swapAt(a, b)
        springOfSlot.swapAt(a, b)
        generationOfSlot.swapAt(a, b)
        userValues.swapAt(a, b)
        retargetedLanes.swapAt(a, b)
        watchedLanes.swapAt(a, b)
        agedLanes.swapAt(a, b)
        planValidity.layoutChanged()
    }

    /// Writes every per-slot field of `slot`.
    @inline(__always)
    func place(
        slot: Int, displacement: UInt32, velocity: UInt32, target: UInt32, spring: UInt32, generation: UInt32, userValue: UInt64
    ) {
        displacements[slot] = displacement
        velocities[slot] = velocity
        targets[slot] = target
        springOfSlot[slot] = spring
        generationOfSlot[slot] = generation
        userValues[slot] = userValue
        retargetedLanes[slot] = false
        watchedLanes[slot] = false
        agedLanes[slot] = false
        planValidity.layoutChanged()
    }

    /// Copies every per-slot field of slot `a` into slot `b`. The caller fixes the record.
    // Inlined into each event that moves slots; called on 32-bit ARM and RISC-V, where its copies
    // in the callers (five slot moves in an add and a remove) cost a microcontroller's flash.
    #if arch(arm) || arch(riscv32)
    @inline(never)
    #else
    @inline(__always)
    #endif
    func copySlot(_ a: Int, to b: Int) {
        displacements[b] = displacements[a]
        velocities[b] = velocities[a]
        targets[b] = targets[a]
        springOfSlot[b] = springOfSlot[a]
        generationOfSlot[b] = generationOfSlot[a]
        userValues[b] = userValues[a]
        retargetedLanes[b] = retargetedLanes[a]
        watchedLanes[b] = watchedLanes[a]
        agedLanes[b] = agedLanes[a]
        planValidity.layoutChanged()
    }

    /// The displacement and velocity of the spring in `slot`, in value units: its lanes read at
    /// this batch's scale, with no call through the lane format (every event reads them).
    @inline(__always)
    func motionState(slot: Int) -> (displacement: Double, velocity: Double) {
        motionState(displacement: displacements[slot], velocity: velocities[slot])
    }

    /// ``motionState(slot:)`` of lanes given as patterns (the ones a bulk call wrote).
    // Called on 32-bit ARM and RISC-V, where its Double conversions and products are soft-float
    // calls in each of the many events that inline it.
    #if arch(arm) || arch(riscv32)
    @inline(never)
    #else
    @inline(__always)
    #endif
    func motionState(displacement d: UInt32, velocity v: UInt32) -> (displacement: Double, velocity: Double) {
        guard let units = integerLaneUnits else {
            return (Double(Float(bitPattern: d)), Double(Float(bitPattern: v)))
        }
        // Through Int: Double(Int32) converts through Int64 (__aeabi_l2d on 32-bit ARM).
        return (Double(Int(Int32(bitPattern: d))) * units.displacement, Double(Int(Int32(bitPattern: v))) * units.velocity)
    }

    /// The largest displacement lane magnitude (a float lane's bits without the sign, or an
    /// integer lane's absolute value) from which a spring at a standstill stays within
    /// `tolerance` (``RestProbes/staysWithinFromStandstill(displacement:tolerance:)``), or nil if
    /// none does. The lane's value grows with its magnitude, so every smaller magnitude stays
    /// within too: the streamed retargets keep a resting spring at rest by comparing its new
    /// displacement's magnitude with it, one rule with the one-spring retarget's.
    func restKeepingBand(tolerance: Double) -> UInt32? {
        func stays(_ magnitude: UInt32) -> Bool {
            RestProbes.staysWithinFromStandstill(displacement: motionState(displacement: magnitude, velocity: 0).displacement, tolerance: tolerance)
        }
        guard stays(0) else { return nil }
        // A guess from the tolerance, then walked to the edge (the guess is within a few lanes of
        // it: rounding only).
        let top: UInt32, guess: UInt32
        if let units = integerLaneUnits {
            top = 1 << 31  // |Int32.min|, read as its own bit pattern
            let lanes = (tolerance / units.displacement).rounded(.down)
            guess = lanes.isNaN ? 0 : lanes >= Double(top) ? top : UInt32(Swift.max(0, lanes))
        } else {
            top = Float.infinity.bitPattern
            guess = Float(tolerance).magnitude.bitPattern
        }
        var band = Swift.min(guess, top)
        while band > 0, !stays(band) { band -= 1 }
        while band < top, stays(band + 1) { band += 1 }
        return band
    }

    /// Lowers ``minimumTolerance`` to `tolerance` if that is smaller, and its band with it.
    func lowerMinimumTolerance(to tolerance: Double) {
        guard tolerance < minimumTolerance else { return }
        minimumTolerance = tolerance
        minimumToleranceBand = restKeepingBand(tolerance: tolerance)
    }

    /// For a streamed retarget: the first slot of the springs at rest, and the band within which
    /// one stays at rest (``restKeepingBand(tolerance:)`` at the batch's least tolerance); from
    /// `count` (no slot) if no lane is within it.
    var restingLanesForRetarget: (from: Int, band: UInt32) {
        guard let band = minimumToleranceBand else { return (count, 0) }
        return (awakeCount, band)
    }

    /// Whether a spring of this batch at rest whose retarget gives it the displacement lane
    /// `displacement` (its velocity 0) stays at rest by the batch's least tolerance: the streamed
    /// retarget's rule (``restingLanesForRetarget``) for one spring. False leaves the question to
    /// the spring's own tolerance (``SpringBankCore/wakeRetargeted(record:)``).
    @inline(__always)
    func staysAtRest(retargetedTo displacement: UInt32) -> Bool {
        guard let band = minimumToleranceBand else { return false }
        let magnitude = integerLaneUnits == nil ? displacement & 0x7fff_ffff : Int32(bitPattern: displacement).magnitude
        return magnitude <= band
    }

    /// Zeroes a slot that no spring owns any more.
    func clearSlot(_ slot: Int) {
        displacements[slot] = 0
        velocities[slot] = 0
        targets[slot] = 0
        springOfSlot[slot] = 0
        generationOfSlot[slot] = 0
        userValues[slot] = 0
        retargetedLanes[slot] = false
        watchedLanes[slot] = false
        agedLanes[slot] = false
    }

    /// The step coefficients for frames of `duration`, cached per duration.
    func coefficients<Lanes: SpringLaneArithmetic>(duration: Double, lanes: Lanes.Type) -> SIMD8<UInt32> {
        let bits = duration.bitPattern  // a step's duration is positive: never 0
        if cachedDurations[0] == bits { return cachedCoefficients.0 }
        if cachedDurations[1] == bits { return cachedCoefficients.1 }
        if cachedDurations[2] == bits { return cachedCoefficients.2 }
        if cachedDurations[3] == bits { return cachedCoefficients.3 }
        let coefficients = lanes.coefficients(of: motion.propagator(over: duration), scale: scale)
        cachedDurations[nextCacheSlot] = bits
        switch nextCacheSlot {
        case 0: cachedCoefficients.0 = coefficients
        case 1: cachedCoefficients.1 = coefficients
        case 2: cachedCoefficients.2 = coefficients
        default: cachedCoefficients.3 = coefficients
        }
        nextCacheSlot = (nextCacheSlot + 1) & 3
        return coefficients
    }

    /// This frame's work: the moving bundles and how to advance them.
    func work(coefficients: SIMD8<UInt32>) -> LaneWork {
        let bundles = BundleIndexing.bundleCount(springs: movingCount)
        return LaneWork(
            displacements: displacements.base, velocities: velocities.base, bundleCount: bundles,
            finalBundleLanes: BundleIndexing.liveLanes(bundle: bundles - 1, springs: movingCount),
            coefficients: coefficients, watch: isWatching ? stepWatch : nil)
    }
}

/// Which lanes a storage-order write fills beside the displacements in a batch's spare lanes:
/// the velocities (a state set) or the targets (a retarget).
enum FilledLanes {
    case motion
    case targets
}

/// One spare lane buffer of a batch (see ``ConfigurationBatch/adoptFilledLanes(_:slots:)``), and
/// how far it may be non-zero: a batch's own lanes are zero past its slots in use.
struct SpareLaneBuffer {
    private var buffer: LaneBuffer?
    /// The buffer is zero from this slot on.
    private var written = 0

    /// The buffer (made at `capacity` lanes if there is none), to be written for slots `0..<slots`.
    mutating func filling(_ slots: Int, capacity: Int) -> LaneBuffer {
        let lanes = buffer ?? LaneBuffer(capacity: capacity)
        buffer = lanes
        written = Swift.max(written, slots)
        return lanes
    }

    /// Completes the buffer (filled for slots `0..<filled`) from `live` for slots `filled..<count`,
    /// clears it past `count`, and exchanges the two.
    mutating func exchange(with live: inout LaneBuffer, filled: Int, count: Int) {
        guard var lanes = buffer else { preconditionFailure("no spare lanes were filled") }
        if count > filled {
            (lanes.base + filled * 4).copyMemory(from: live.base + filled * 4, byteCount: (count - filled) * 4)
        }
        if written > count {
            (lanes.base + count * 4).initializeMemory(as: UInt8.self, repeating: 0, count: (written - count) * 4)
        }
        swap(&live, &lanes)
        buffer = lanes
        written = count
    }

    mutating func release() {
        buffer?.deallocate()
        buffer = nil
        written = 0
    }
}
