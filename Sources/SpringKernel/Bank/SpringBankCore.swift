/// One spring's bookkeeping, plain data so the table holding it needs no reference counting.
/// The spring's lanes live in `batches[batch]` at `slot`; the masks that list it are its edges
/// in ``SpringBankCore/maskEdges``, from `firstMaskEdge`.
/// Where a spring lives and the generation its handles carry: the part of its record that
/// every call naming a spring reads first (to check the handle and find the lanes), kept in a
/// table of its own (``SpringBankCore/places``), 12 bytes a spring where the rest of the record is
/// 72, so that a call over many handles reads five or more springs' places a cache line.
@usableFromInline
struct SpringPlace: BitwiseCopyable {
    @usableFromInline var generation: UInt32 = 0
    /// The configuration batch, or −1 when the record is free.
    @usableFromInline var batch: Int32 = -1
    var slot: Int32 = 0

    @inlinable var isLive: Bool { batch >= 0 }
}

/// The rest of a spring's record: its rest schedule, tolerance and masks (see ``SpringPlace``).
/// 48 bytes: its `Double`s first, then its 32-bit fields, then one byte of flags and one of
/// pause depth (two bytes of padding at the end). What a spring holds as a value of its lane
/// format (its tolerance, the lanes it changed at) is held as the format's 32-bit pattern, not
/// as a `Double`.
struct SpringRecord {
    /// When the spring is next looked at, on the bank's ``FrameClock`` reading (seconds for a
    /// variable clock, frames for a fixed one): its rest if `dueIsRest`, else the time to predict
    /// it exactly (a lower bound on its rest). ∞ when it has none.
    var due = Double.infinity
    /// The bank time the spring's trajectory last changed at (variable clock), with
    /// `changeDisplacement` and `changeVelocity`.
    var changeTime = 0.0
    /// The due time of the record's live schedule entry, or ∞. It may be earlier than `due`
    /// (the spring changed since, and its check moved on): the entry is then queued again at
    /// `due` when it pops, instead of a new entry per change. A removed spring's entry stays
    /// with its record until it pops, and a spring added in the record takes it over, so
    /// removing and adding springs every frame queues nothing new.
    ///
    /// It is also what tells the live entry from stale ones, with no stamp: an entry of this
    /// record is live if its due time is this one. A replaced entry is later than the one that
    /// replaced it (an entry is only ever replaced by an earlier one), and a dropped one is
    /// finite where this is ∞. One stale entry can share the live one's time: queued at t,
    /// replaced by an earlier one, which popped and queued the spring at t again. The two are
    /// the same (due, spring), so whichever pops first is the live one; the other then differs,
    /// since a popped spring is queued again only later than the entry that popped.
    var queuedDue = Double.infinity
    /// The spring's tolerance, as its lane format's 32-bit pattern of a value (see
    /// ``SpringBankCore/tolerance(record:)``).
    var tolerancePattern: UInt32 = 0
    /// The displacement and velocity lanes (bit patterns, at the spring's batch's scale) the
    /// spring's trajectory last changed at (variable clock): its exact rest is predicted from
    /// these, read as the batch reads its lanes (``ConfigurationBatch/motionState(displacement:velocity:)``),
    /// not from its lanes when the check comes, so the lanes' rounding since (a fixed-point
    /// spring's drift) cannot move its rest earlier. The lanes themselves, not their values as
    /// `Double`s: 8 bytes, not 16. A spring that leaves its batch changes its trajectory, and
    /// is anchored again in its new one.
    var changeDisplacement: UInt32 = 0
    var changeVelocity: UInt32 = 0
    /// The spring's first edge in ``SpringBankCore/maskEdges``, or ``MaskEdge/none``.
    var firstMaskEdge = MaskEdge.none
    /// While a bulk call runs: the spring's position in the call's list, plus one (0: not
    /// listed). It finds a spring listed twice, or a spring's restart values, with no table.
    var listedAt: UInt32 = 0
    /// The four flags below, a bit each.
    private var flags: UInt8 = 0
    /// How many pausing masks hold the spring: it is paused while this is non-zero.
    var pauseDepth: UInt8 = 0

    /// `due` is the spring's rest, not the time to predict it.
    var dueIsRest: Bool {
        get { flag(0) }
        set { setFlag(0, newValue) }
    }
    /// A step saturated one of the spring's lanes (the format could not hold the exact result).
    var wasSaturated: Bool {
        get { flag(1) }
        set { setFlag(1, newValue) }
    }
    var awaitingPrediction: Bool {
        get { flag(2) }
        set { setFlag(2, newValue) }
    }
    /// Paused mid-motion with its schedule kept: `due` is then measured from the moment it was
    /// paused, so a resume that leaves its state alone moves it on instead of predicting
    /// again (the motion is the same, later; see ``SpringBankCore/resumeSchedule(record:)``).
    var scheduleSuspended: Bool {
        get { flag(3) }
        set { setFlag(3, newValue) }
    }

    @inline(__always)
    private func flag(_ bit: UInt8) -> Bool { flags & (1 << bit) != 0 }

    @inline(__always)
    private mutating func setFlag(_ bit: UInt8, _ value: Bool) {
        flags = value ? flags | (1 << bit) : flags & ~(1 << bit)
    }
}

/// ``SettlePredictor/restFrame(displacement:velocity:tolerance:motion:frameDuration:)``'s signature.
typealias FixedClockRestFrame = (
    _ displacement: Double, _ velocity: Double, _ tolerance: Double, _ motion: SpringMotion, _ frameDuration: Double
) -> Int

/// A batch per configuration and lane scale (one scale for float lanes).
struct BatchKey: Equatable {
    var configuration: SpringConfiguration
    var scale: LaneScale
}

/// The machinery behind every ``SpringBank``, whatever its lane format: spring records and handles,
/// one ``ConfigurationBatch`` per configuration, pause masks, the rest schedule and the step's
/// bookkeeping. Lanes are handled as raw 32-bit patterns; the few operations that depend on the
/// format are the lane type's own (`Lanes`), called outside the hot loop. Generic, not holding
/// the format as a value: every call into the format is resolved when the bank is specialised,
/// with no existential or dynamic cast (which Embedded Swift does not have).
@usableFromInline
final class SpringBankCore<Lanes: SpringLaneArithmetic> {

    /// The bits of a lane that are zero exactly when it reads 0: all but the sign of a float
    /// (−0 is 0), all of an integer.
    let zeroLaneMask: UInt32
    @usableFromInline let tag: UInt32
    // Read by every step that lays out a frame, written only between steps (the bank is used
    // from one thread at a time): no runtime exclusivity checks.
    @exclusivity(unchecked) var threading: StepThreading { didSet { planValidity.invalidate() } }

    // The tables below are read and written on every spring that rests, wakes or moves between
    // slots. Each access is a single statement or a call that reaches no other access to the same
    // table, the bank is used from one thread at a time (it is not Sendable), and a caller's
    // closure cannot reach back in (``checkMutable()`` refuses it): the runtime exclusivity checks
    // Swift would make on each (a call and a thread-local access set, several per slot swap) can
    // find nothing, so they are turned off for these tables.
    @exclusivity(unchecked) var batches: [ConfigurationBatch?] = []
    /// The batch of each configuration and scale.
    var batchOfKey = BatchKeyTable()
    /// Springs the next new batch makes room for at once: a bank reserved for them
    /// (``SpringBank/init(threading:capacity:)``) gives its first batch the whole reservation,
    /// up to ``BankLimits/reservedLaneSprings``, so that its springs are added without growing
    /// (copying) lanes. 0 once that batch is made.
    var reservedBatchSprings = 0
    /// The last batches looked up by key, most recent first, −1 past the last: springs are added
    /// and moved in runs of one configuration or between a few (an engine toggling two feels),
    /// and hashing a key costs more than the rest of an add. Their keys are read from the batches.
    @exclusivity(unchecked) private var recentBatches = SIMD4<Int32>(repeating: -1)
    var freeBatches: [Int] = []
    /// The batches a bulk removal touches, kept between calls.
    @exclusivity(unchecked) var touchedBatches: [Int] = []
    /// Batches left empty and kept for now, with the steps that have seen them empty (see
    /// ``retireBatchIfEmpty(_:)``).
    @exclusivity(unchecked) var retiringBatches: [(index: Int, steps: Int)] = []

    /// Every spring's place (generation, batch, slot), by handle index; read on every per-spring call.
    @usableFromInline let places = UnsafeTable<SpringPlace>()
    /// Every spring's record, by handle index, beside its place: the two tables grow together.
    let records = UnsafeTable<SpringRecord>()
    /// Each batch's lane buffers, by batch index, so reads need not touch the batch object.
    let batchLanes = UnsafeTable<BatchLanes>()
    /// Each batch object again, unretained (`batches` owns them), for the per-event path: reading
    /// a class reference out of an array retains and releases it, two atomic operations an event.
    let batchObjects = UnsafeTable<Unmanaged<ConfigurationBatch>?>()
    @exclusivity(unchecked) var freeRecords: [UInt32] = []
    /// The highest generation a spring or mask record is reused at: a record removed at this
    /// generation is retired instead (``SpringBank/retireRecords(pastGeneration:)``). `.max` by
    /// default: a record's generation then wraps after 2^32 reuses.
    @exclusivity(unchecked) var generationLimit: UInt32 = .max
    var springCount = 0

    @exclusivity(unchecked) var masks: [PauseMaskRecord] = []
    @exclusivity(unchecked) var freeMasks: [UInt32] = []
    /// Mask membership, stored once: an edge per (mask, spring) pair, on both one's lists.
    let maskEdges = UnsafeTable<MaskEdge>()
    @exclusivity(unchecked) var freeMaskEdges: [UInt32] = []
    /// What a bulk call's check pass computed for each element, applied by its second pass
    /// without computing it again; kept between calls, so a bulk call allocates nothing.
    let staged = UnsafeTable<StagedLanes>()
    /// The resting springs a storage-order write wakes after its walk, kept between calls so the
    /// write allocates nothing (``takeWokenScratch()``).
    @exclusivity(unchecked) private var wokenScratch: [Int] = []
    /// Springs released by a resume, kept between calls so resuming allocates nothing.
    var resumeScratch: [(spring: UInt32, restart: (displacement: UInt32, velocity: UInt32)?)] = []

    @exclusivity(unchecked) var schedule = RestSchedule()
    /// The batches whose springs may carry the watch's marks (``ConfigurationBatch/isWatching``),
    /// by index: springs retargeted since the last step, or watched by it.
    @exclusivity(unchecked) var watchingBatches: [Int32] = []
    /// The springs a step's watch found within their batch's band, kept between steps.
    @exclusivity(unchecked) var watchCandidates: [UInt32] = []
    /// How many of a bulk retarget's logged springs (in `staged`) were not moving: woken or
    /// predicted once the call is accepted.
    var loggedRetargetsNotMoving = 0
    /// Springs with a live entry in `schedule` (a finite `queuedDue`): the schedule is compacted
    /// when stale entries outnumber them.
    var queuedSprings = 0
    /// Entries of watched springs dropped as they popped since the schedule was last compacted
    /// or emptied (see ``settleDueSprings()``).
    var watchedEntriesDropped = 0
    /// Springs whose trajectory changed since the last step, in the order they changed.
    @exclusivity(unchecked) var pending: [UInt32] = []
    /// Slots a storage-order write changed, to predict before the next step or mutation (see
    /// ``predictChangedRuns()``), and the layout version they were noted at.
    @exclusivity(unchecked) var changedRuns: [ChangedRun] = []
    var changedRunsLayoutVersion: UInt64 = 0
    /// A streamed storage-order write's marks of the lanes it changed, one per bundle (see
    /// ``changedLaneMasks(springs:)``); owned here, deallocated in deinit.
    var changedLaneMaskStorage = UnsafeMutablePointer<UInt16>.allocate(capacity: 1)
    var changedLaneMaskCapacity = 1
    /// How callers advance time, and so which rest rule the schedule follows.
    // Read on every step and written only outside one (like the tables above): no runtime
    // exclusivity checks, each a call and a thread-local access set.
    @exclusivity(unchecked) var frameClock = FrameClock.variable
    /// A fixed clock's rest prediction, set when the bank first takes one (``setFrameClock(_:)``).
    /// Reached only through this value: a program whose banks keep the variable clock links none
    /// of the sampled trajectory's searches (about 3 KB of a microcontroller's flash).
    var fixedClockRestFrame: FixedClockRestFrame?
    /// Frames stepped so far.
    var frame: Int { frameState.pointee.frame }
    /// The rest schedule's clock: seconds since it was last rebased (see ``rebaseClock()``).
    var time: Double { frameState.pointee.time }
    /// Seconds stepped before the schedule's clock was last rebased.
    var timeEpoch = 0.0
    /// Seconds stepped so far.
    var totalTime: Double { timeEpoch + frameState.pointee.time }
    /// The springs that came to rest in the last step, in the order they did.
    @exclusivity(unchecked) var restedInLastStep: [SpringHandle] = []
    /// The radix sort's buffers for `restedInLastStep` (``sortRestedInLastStep()``), kept between steps.
    @exclusivity(unchecked) var restSortScratch: [SpringHandle] = []
    @exclusivity(unchecked) var restSortCounts: [Int] = []
    /// The springs a step saturated in the last step, and the count of such events ever.
    @exclusivity(unchecked) var saturatedInLastStep: [SpringHandle] = []
    var saturationCount = 0

    /// This frame's work, one entry per batch with moving springs.
    @exclusivity(unchecked) var work: UnsafeMutablePointer<LaneWork>
    @exclusivity(unchecked) var workCapacity: Int
    /// A step that also retargets: each planned batch's target lanes and goals (see
    /// ``prepareRetargetingStep(_:goals:duration:)``); allocated by the first such step.
    @exclusivity(unchecked) var retargetingLanes: UnsafeMutablePointer<RetargetingLanes>?
    @exclusivity(unchecked) var retargetingCapacity = 0
    /// Steps that retargeted in their one pass (for the tests: the others went as two calls).
    var retargetingStepsInOnePass = 0
    /// A bulk retarget by handle whose springs alternate among batches takes them batch by batch
    /// (``SpringBank/retarget(_:to:)``): this holds each listed spring's batch, a count per batch,
    /// and the listed springs in runs of their batch (20 bytes a listed spring in all). Made by
    /// the first such call, grown when a longer list comes (only where the system can give it:
    /// the call otherwise goes in list order), released with the bank.
    @exclusivity(unchecked) var groupingScratch: UnsafeMutablePointer<UInt32>?
    @exclusivity(unchecked) var groupingScratchCapacity = 0
    /// Bulk retargets by handle that went batch by batch (for the tests).
    var retargetsGroupedByBatch = 0
    /// What every step reads and writes; owned here, deallocated in deinit.
    @usableFromInline let frameState: UnsafeMutablePointer<FrameState>
    private let threadResults: UnsafeMutablePointer<Int>
    let planValidity: PlanValidity

    /// Set while a caller's closure runs inside a bank operation; mutations (steps included) then throw.
    // Read by every mutation and step (see `threading`).
    @exclusivity(unchecked) var isRunningCallback = false { didSet { planValidity.invalidate() } }

    static var maximumSpringCount: Int { BankLimits.maximumSpringCount }
    static var maximumConfigurationCount: Int { BankLimits.maximumConfigurationCount }

    init(threading: StepThreading, reservingCapacity: Int) {
        zeroLaneMask = Lanes.double(ofLanePattern: 0x8000_0000) == 0 ? 0x7FFF_FFFF : 0xFFFF_FFFF
        self.threading = threading
        // Distinguishes banks so a handle from one is refused by another.
        var generator = SystemRandomNumberGenerator()
        tag = UInt32.random(in: 1...UInt32.max, using: &generator)
        // Grown (doubled) by the first step with more batches: an empty bank stays small.
        workCapacity = 1
        work = .allocate(capacity: workCapacity)
        frameState = .allocate(capacity: 1)
        let noWork = LaneWork(
            displacements: UnsafeMutableRawPointer(work), velocities: UnsafeMutableRawPointer(work),
            bundleCount: 0, finalBundleLanes: 0, coefficients: .zero)
        threadResults = .allocate(capacity: StepThreading.maximumThreads)
        threadResults.initialize(repeating: 0, count: StepThreading.maximumThreads)
        frameState.initialize(to: FrameState(
            plan: StepPlan(work: UnsafePointer(work), workCount: 0, totalBundles: 0, threadCount: 1), firstWork: noWork,
            threadResults: threadResults))
        planValidity = PlanValidity(state: frameState)
        records.reserveCapacity(reservingCapacity)
        places.reserveCapacity(reservingCapacity)
    }

    deinit {
        records.deallocate()
        places.deallocate()
        batchLanes.deallocate()
        batchObjects.deallocate()
        maskEdges.deallocate()
        staged.deallocate()
        schedule.deallocate()
        changedLaneMaskStorage.deallocate()
        work.deallocate()
        retargetingLanes?.deallocate()
        groupingScratch.map { Platform.free($0) }
        frameState.deallocate()
        threadResults.deallocate()
    }

    // MARK: Handles

    func handle(ofRecord index: Int) -> SpringHandle {
        SpringHandle(index: UInt32(index), generation: places[index].generation, bankTag: tag)
    }

    /// The record index a handle names, or the reason it names none. Inlined: every call naming
    /// a spring starts here, and a call per spring (an attachment's retarget) pays a call's
    /// overhead on about ten instructions otherwise.
    @inline(__always)
    func recordIndex(_ handle: SpringHandle) throws(SpringKernelError) -> Int {
        try recordIndex(of: handle, count: places.count) { (places[$0].isLive, places[$0].generation) }
    }

    /// The kept buffer of springs a storage-order write wakes, empty, for the call to fill; given
    /// back by ``returnWokenScratch(_:)``.
    func takeWokenScratch() -> [Int] {
        var buffer: [Int] = []
        swap(&buffer, &wokenScratch)
        return buffer
    }

    /// Keeps `buffer`'s storage for the next storage-order write.
    func returnWokenScratch(_ buffer: inout [Int]) {
        buffer.removeAll(keepingCapacity: true)
        swap(&buffer, &wokenScratch)
    }

    /// Refuses a mutation from a caller's closure; otherwise first predicts the springs a
    /// storage-order write left to predict, so that no mutation sees or moves them unpredicted.
    /// A storage-order write passes `predictingChanges: false`: writes between two steps then
    /// leave their predictions to the step, however many there are.
    func checkMutable(predictingChanges: Bool = true) throws(SpringKernelError) {
        guard !isRunningCallback else { throw .reentrantMutation }
        if predictingChanges, !changedRuns.isEmpty { predictChangedRuns() }
    }

    func batch(ofRecord index: Int) -> (batch: ConfigurationBatch, slot: Int) {
        let (batch, slot) = location(ofRecord: index)
        return (batches[batch].unsafelyUnwrapped, slot)
    }

    /// The spring's batch and slot: two fields read, not the record copied (a copy of the whole
    /// record right after a write to it stalls on store forwarding).
    @inline(__always)
    func location(ofRecord index: Int) -> (batch: Int, slot: Int) {
        (Int(places[index].batch), Int(places[index].slot))
    }

    /// The scale springs of this configuration and tolerance are stored at.
    func laneScale(configuration: SpringConfiguration, tolerance: Double) -> LaneScale {
        // Float lanes have one scale: no call through the format on their events.
        Lanes.hasScaledLanes ? Lanes.laneScale(tolerance: tolerance, naturalFrequency: configuration.naturalFrequency) : .identity
    }

    /// The batch holding `configuration` at `scale`, made if needed.
    func batchIndex(for configuration: SpringConfiguration, scale: LaneScale) throws(SpringKernelError) -> Int {
        let key = BatchKey(configuration: configuration, scale: scale)
        if let index = recentBatch(key) { return index }
        if let index = batchOfKey.index(of: key, in: batchObjects) {
            rememberBatch(index)
            return index
        }
        if freeBatches.isEmpty, batches.count == Self.maximumConfigurationCount {
            // Out of slots: the batches kept empty go now.
            for (retired, _) in retiringBatches { releaseBatchIfEmpty(retired) }
        }
        let index: Int
        if let free = freeBatches.popLast() {
            index = free
        } else {
            guard batches.count < Self.maximumConfigurationCount else { throw .tooManyConfigurations }
            index = batches.count
            batches.append(nil)
        }
        if index == batchLanes.count {
            let nowhere = UnsafeMutableRawPointer(work)  // replaced by the batch at once
            batchLanes.append(BatchLanes(
                displacements: nowhere, velocities: nowhere, targets: nowhere, scale: .identity, naturalFrequency: 1,
                retargetLimits: (0, 0)))
        }
        let batch = ConfigurationBatch(
            configuration: configuration, scale: scale, integerLaneUnit: Lanes.integerLaneUnit,
            retargetLimits: Lanes.retargetLimits(scale: scale, naturalFrequency: configuration.naturalFrequency),
            planValidity: planValidity, lanesEntry: (batchLanes, index))
        batches[index] = batch
        if index == batchObjects.count { batchObjects.append(nil) }
        batchObjects[index] = Unmanaged.passUnretained(batch)
        batchOfKey.insert(key, index: index, in: batchObjects)
        rememberBatch(index)
        // A reservation's room, grown like any other (a refusal leaves the batch empty and small,
        // and the reservation to the next new batch).
        try batch.reserve(reservedBatchSprings)
        reservedBatchSprings = 0
        return index
    }

    /// The batch of `key` if it is among the recent ones, swapped to the front.
    private func recentBatch(_ key: BatchKey) -> Int? {
        for recent in 0..<recentBatches.scalarCount {
            let index = Int(recentBatches[recent])
            guard index >= 0 else { return nil }
            guard BatchKeyTable.key(of: index, in: batchObjects) == key else { continue }
            if recent != 0 { (recentBatches[recent], recentBatches[0]) = (recentBatches[0], Int32(index)) }
            return index
        }
        return nil
    }

    /// Puts batch `index` first among the recent ones, the oldest dropped when all are taken.
    private func rememberBatch(_ index: Int) {
        recentBatches = SIMD4(Int32(index), recentBatches[0], recentBatches[1], recentBatches[2])
    }

    /// Drops batch `index` from the recent ones, the others kept in order.
    private func forgetRecentBatch(_ index: Int) {
        var kept = SIMD4<Int32>(repeating: -1), count = 0
        for recent in 0..<recentBatches.scalarCount where recentBatches[recent] != Int32(index) {
            kept[count] = recentBatches[recent]
            count += 1
        }
        recentBatches = kept
    }

    /// A batch a removal or a reconfiguration left empty is kept, with its buffers, until the
    /// second step that finds it still empty: an engine that removes every spring of an effect
    /// and adds them again, or alternates two configurations, empties a batch and fills it again
    /// every frame, and would otherwise make and grow new buffers each time.
    func retireBatchIfEmpty(_ index: Int) {
        guard let object = batchObjects[index] else { return }
        object._withUnsafeGuaranteedRef { batch in
            guard batch.count == 0, !batch.isRetiring else { return }
            batch.isRetiring = true
            retiringBatches.append((index, 0))
            planValidity.invalidate()  // the next step looks at it
        }
    }

    /// At a step: releases the retiring batches that have stayed empty since the last step, and
    /// lets go of those filled again. Returns whether any is still waiting.
    func releaseRetiredBatches() -> Bool {
        var kept = 0
        var release: [Int] = []
        for i in retiringBatches.indices {
            let (index, steps) = retiringBatches[i]
            let batch = batchObjects[index].unsafelyUnwrapped
            let isEmpty = batch._withUnsafeGuaranteedRef { $0.count == 0 }
            guard isEmpty, steps == 0 else {
                batch._withUnsafeGuaranteedRef { $0.isRetiring = false }
                if isEmpty { release.append(index) }
                continue
            }
            retiringBatches[kept] = (index, 1)
            kept += 1
        }
        retiringBatches.removeLast(retiringBatches.count - kept)
        for index in release { releaseBatchIfEmpty(index) }
        return kept > 0
    }

    /// Releases the batch at once if it holds no spring.
    func releaseBatchIfEmpty(_ index: Int) {
        guard let batch = batches[index], batch.count == 0 else { return }
        if batch.isRetiring {
            batch.isRetiring = false
            // Listed once (see the invariants): its entry goes, the others keep their order.
            if let entry = retiringBatches.firstIndex(where: { $0.index == index }) { retiringBatches.remove(at: entry) }
        }
        batchOfKey.remove(BatchKey(configuration: batch.configuration, scale: batch.scale), index: index, in: batchObjects)
        forgetRecentBatch(index)
        if batch.isWatching, let entry = watchingBatches.firstIndex(of: Int32(index)) { watchingBatches.remove(at: entry) }
        batches[index] = nil
        batchObjects[index] = nil
        planValidity.invalidate()
        freeBatches.append(index)
    }

    // MARK: Lanes of one spring

    /// The spring's raw lanes, read through `batchLanes`: plain loads, no retain, no access check.
    /// Inlined so that a caller loads only the lanes it uses (each is a cache line of its own).
    @inline(__always)
    func lanePatterns(ofRecord index: Int) -> (displacement: UInt32, velocity: UInt32, target: UInt32) {
        let (batch, slot) = location(ofRecord: index)
        let lanes = batchLanes[batch]
        let offset = slot * 4
        return (
            lanes.displacements.load(fromByteOffset: offset, as: UInt32.self),
            lanes.velocities.load(fromByteOffset: offset, as: UInt32.self),
            lanes.targets.load(fromByteOffset: offset, as: UInt32.self))
    }

    /// The spring's slot and its batch's region boundaries, read unretained (see `batchObjects`).
    private func region(ofRecord index: Int) -> (slot: Int, movingCount: Int, awakeCount: Int) {
        let (batch, slot) = location(ofRecord: index)
        return batchObjects[batch].unsafelyUnwrapped._withUnsafeGuaranteedRef { (slot, $0.movingCount, $0.awakeCount) }
    }

    func isAwake(record index: Int) -> Bool {
        let region = region(ofRecord: index)
        return region.slot < region.awakeCount
    }

    func isPaused(record index: Int) -> Bool { records[index].pauseDepth != 0 }

    /// Whether the spring is moving: not at rest, not paused (what a step advances).
    func isMoving(record index: Int) -> Bool {
        let region = region(ofRecord: index)
        return region.slot < region.movingCount
    }

    /// Whether these lanes are a state of rest: exactly on target, not moving. Read from the bits
    /// (every add and wake asks; a call through `lanes` would be a dynamic call).
    @inline(__always)
    func isRestState(displacement: UInt32, velocity: UInt32) -> Bool {
        displacement & zeroLaneMask == 0 && velocity & zeroLaneMask == 0
    }

    // MARK: Lanes at the API and in storage

    /// The scale and natural frequency of the spring's batch.
    func storage(ofRecord index: Int) -> BatchLanes { batchLanes[Int(places[index].batch)] }

    /// The spring's displacement, velocity and target at the API's resolution, for lanes of `L`
    /// (the bank's own format: called from its specialised code, not through `lanes`).
    @inline(__always)
    func apiLanePatterns<L: SpringLaneArithmetic>(_: L.Type, ofRecord index: Int) -> (displacement: UInt32, velocity: UInt32, target: UInt32) {
        let stored = lanePatterns(ofRecord: index)
        guard L.hasScaledLanes else { return stored }
        let scale = storage(ofRecord: index).scale
        return (
            L.apiPattern(stored.displacement, storedShift: scale.displacementShift),
            L.apiPattern(stored.velocity, storedShift: scale.velocityShift), stored.target)
    }

    // MARK: Moving lanes between slots

    /// Exchanges two slots of a batch and the records that name them.
    func swapSlots(batchIndex: Int, _ a: Int, _ b: Int) {
        guard a != b, let object = batchObjects[batchIndex] else { return }
        object._withUnsafeGuaranteedRef { batch in swapSlots(batch: batch, a, b) }
    }

    /// `swapSlots(batchIndex:_:_:)` on the batch itself: reached unretained from the per-event path
    /// (reading a class reference out of `batches` costs a retain and a release).
    private func swapSlots(batch: ConfigurationBatch, _ a: Int, _ b: Int) {
        guard a != b else { return }
        let springA = Int(batch.springOfSlot[a]), springB = Int(batch.springOfSlot[b])
        batch.swapSlots(a, b)
        places[springA].slot = Int32(b)
        places[springB].slot = Int32(a)
    }

    // The regions of a batch are [moving | paused mid-motion | at rest]; a spring crosses a
    // boundary by swapping with the slot beside it, so each move below is one or two swaps.

    /// Moves a resting spring into the awake slots: among the moving unless a mask holds it.
    func wake(record index: Int) {
        let (batchIndex, slot) = location(ofRecord: index)
        let isPaused = records[index].pauseDepth != 0
        batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            guard slot >= batch.awakeCount else { return }
            swapSlots(batch: batch, slot, batch.awakeCount)
            batch.awakeCount += 1
            guard !isPaused else { return }
            swapSlots(batch: batch, batch.awakeCount - 1, batch.movingCount)
            batch.movingCount += 1
        }
    }

    /// Takes a moving spring out of the step: its lanes stay as they are among the paused.
    /// Returns whether it was moving.
    @discardableResult
    func holdStill(record index: Int) -> Bool {
        let (batchIndex, slot) = location(ofRecord: index)
        return batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            guard slot < batch.movingCount else { return false }
            // Watched (retargeted lately): back on the rest schedule from where it stops, so its
            // schedule can be suspended and resumed as any other's.
            if batch.isWatched(slot: slot) { trajectoryChanged(record: index, batch: batch, slot: slot) }
            swapSlots(batch: batch, slot, batch.movingCount - 1)
            batch.movingCount -= 1
            return true
        }
    }

    /// Puts a spring paused mid-motion back among the moving. Returns whether it was paused
    /// mid-motion (not at rest, not already moving).
    @discardableResult
    func release(record index: Int) -> Bool {
        let (batchIndex, slot) = location(ofRecord: index)
        return batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            guard slot >= batch.movingCount, slot < batch.awakeCount else { return false }
            swapSlots(batch: batch, slot, batch.movingCount)
            batch.movingCount += 1
            return true
        }
    }

    /// Moves an awake spring (moving or paused) to the resting slots, leaving its lanes as they are.
    private func moveToRest(batch: ConfigurationBatch, slot: Int) {
        var slot = slot
        if slot < batch.movingCount {
            swapSlots(batch: batch, slot, batch.movingCount - 1)
            batch.movingCount -= 1
            slot = batch.movingCount
        }
        guard slot < batch.awakeCount else { return }
        swapSlots(batch: batch, slot, batch.awakeCount - 1)
        batch.awakeCount -= 1
    }

    /// Snaps a spring exactly onto its target with zero velocity and moves it to the resting region.
    func rest(record index: Int) {
        let (batchIndex, slot) = location(ofRecord: index)
        batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            batch.displacements[slot] = 0
            batch.velocities[slot] = 0
            batch.unwatch(slot: slot)
            unschedule(record: index)
            moveToRest(batch: batch, slot: slot)
        }
    }

    /// Takes a spring's slot out of its batch, keeping its record; returns whether that emptied
    /// the batch.
    ///
    /// The hole it leaves is filled from the end of its region, whose own hole is filled from the
    /// end of the next: at most three slots copied (not swapped: the leaving spring's lanes need
    /// no new home).
    @discardableResult
    func detach(record index: Int) -> Bool {
        let (batchIndex, slot) = location(ofRecord: index)
        return batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            var hole = slot
            if hole < batch.movingCount {
                batch.movingCount -= 1
                moveSlot(batch: batch, from: batch.movingCount, to: hole)
                hole = batch.movingCount
            }
            if hole < batch.awakeCount {
                batch.awakeCount -= 1
                moveSlot(batch: batch, from: batch.awakeCount, to: hole)
                hole = batch.awakeCount
            }
            batch.count -= 1
            moveSlot(batch: batch, from: batch.count, to: hole)
            batch.clearSlot(batch.count)
            return batch.count == 0
        }
    }

    /// Copies slot `from` of a batch into slot `to` and tells its spring.
    @inline(__always)
    private func moveSlot(batch: ConfigurationBatch, from: Int, to: Int) {
        guard from != to else { return }
        batch.copySlot(from, to: to)
        places[Int(batch.springOfSlot[to])].slot = Int32(to)
    }

    /// Places a spring in a slot of `batchIndex`: awake unless its lanes are a state of rest and it
    /// was not awake before (`keepAwake`: a moving spring set onto its target still rests at the
    /// next step, with its rest event), moving unless a mask holds it.
    ///
    /// Its slot is made at the end of its region: the first slot of each region after it moves to
    /// the end of that region (at most two slots copied; none when the batch holds only moving
    /// springs).
    func attach(
        record index: Int, batchIndex: Int, displacement: UInt32, velocity: UInt32, target: UInt32, userValue: UInt64,
        keepAwake: Bool = false
    ) {
        // A state of rest is stored as exact zeros (no −0), as `rest(record:)` leaves it.
        let atRest = isRestState(displacement: displacement, velocity: velocity)
        let isAwake = !atRest || keepAwake, isMoving = isAwake && records[index].pauseDepth == 0
        let slot = batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            // Every caller made room first (``reserveSlots(_:inBatch:)``), so that growth the
            // system cannot give is refused before anything changes.
            precondition(batch.count < batch.capacity, "a spring attached to a full batch")
            var slot = batch.count
            batch.count += 1
            if isAwake {
                if slot != batch.awakeCount {
                    moveSlot(batch: batch, from: batch.awakeCount, to: slot)
                    slot = batch.awakeCount
                }
                batch.awakeCount += 1
                if isMoving {
                    if slot != batch.movingCount {
                        moveSlot(batch: batch, from: batch.movingCount, to: slot)
                        slot = batch.movingCount
                    }
                    batch.movingCount += 1
                }
            }
            batch.place(
                slot: slot, displacement: atRest ? 0 : displacement, velocity: atRest ? 0 : velocity, target: target,
                spring: UInt32(index), generation: places[index].generation, userValue: userValue)
            return slot
        }
        places[index].batch = Int32(batchIndex)
        places[index].slot = Int32(slot)
        raiseWatchBand(record: index)
    }

    // MARK: Springs

    func add(
        displacement: UInt32, target: UInt32, velocity: UInt32, configuration: SpringConfiguration, tolerance: Double,
        userValue: UInt64 = 0
    ) throws(SpringKernelError) -> SpringHandle {
        try checkMutable()
        guard springCount < Self.maximumSpringCount else { throw .tooManySprings }
        let scale = laneScale(configuration: configuration, tolerance: tolerance)
        // Float lanes store the API's patterns: no generic call through the existential.
        let stored = Lanes.hasScaledLanes
            ? try Lanes.storedLanes(
                displacement: displacement, velocity: velocity, target: target,
                shift: scale, scale: scale, naturalFrequency: configuration.naturalFrequency)
            : (displacement: displacement, velocity: velocity)
        // A new record's room first, so that growth the system cannot give throws, changing nothing.
        if freeRecords.isEmpty { try reserveRecords(appending: 1) }
        let batchIndex = try batchIndex(for: configuration, scale: scale)
        try reserveSlots(1, inBatch: batchIndex)
        let index = newRecord(tolerance: tolerance)
        attach(
            record: index, batchIndex: batchIndex, displacement: stored.displacement, velocity: stored.velocity, target: target,
            userValue: userValue)
        springCount += 1
        if isAwake(record: index) { trajectoryChanged(record: index) }
        return handle(ofRecord: index)
    }

    /// Room in batch `index` for `count` more springs, or a thrown ``SpringKernelError/outOfMemory``
    /// with the batch as it was (``ConfigurationBatch/reserve(_:)``).
    func reserveSlots(_ count: Int, inBatch index: Int) throws(SpringKernelError) {
        let batch = batchObjects[index].unsafelyUnwrapped.takeUnretainedValue()
        try batch.reserve(batch.count + count)
    }

    /// Room for `count` more records and places and their schedule entries, or a thrown
    /// ``SpringKernelError/outOfMemory`` with no table changed in size.
    func reserveRecords(appending count: Int) throws(SpringKernelError) {
        try records.reserveCapacity(appending: count)
        try places.reserveCapacity(appending: count)
        // A schedule entry a record at least: compacted, the schedule then always fits in its
        // room, so a step never needs more than it has (see `queueIfEarlier`).
        try schedule.reserveCapacity(records.count + count)
    }

    /// Room in ``restedInLastStep`` for `count` springs, or a thrown
    /// ``SpringKernelError/outOfMemory`` with the list as it was. A Swift array's allocation stops
    /// the process when the system cannot give it, so the room is asked of the system first, as
    /// every refusable allocation is (``Platform/allocateIfAvailable(count:of:alignment:)``: the
    /// list's elements and its header), given back, and then reserved.
    func reserveRestedList(_ count: Int) throws(SpringKernelError) {
        guard count > restedInLastStep.capacity else { return }
        guard let probe = Platform.allocateIfAvailable(count: count + 4, of: SpringHandle.self) else { throw .outOfMemory }
        Platform.free(UnsafeMutableRawPointer(probe))
        restedInLastStep.reserveCapacity(count)
    }

    /// A record for a new spring, not yet in a batch: the last freed one if any, else a new one.
    func newRecord(tolerance: Double) -> Int {
        newRecord(reusing: freeRecords.popLast(), tolerance: tolerance)
    }

    /// The spring's tolerance, in value units: its record's pattern read as its lane format reads
    /// a value's (``SpringLaneArithmetic/double(ofLanePattern:)``).
    @inline(__always)
    func tolerance(record index: Int) -> Double { Lanes.double(ofLanePattern: records[index].tolerancePattern) }

    /// The pattern a record holds for `tolerance`, one ``SpringLaneArithmetic/tolerance(_:)``
    /// gave: a value of the format (IEEE float bits, or an `Int32` count of
    /// ``SpringLaneArithmetic/integerLaneUnit``), so the pattern holds it exactly.
    @inline(__always)
    static func tolerancePattern(_ tolerance: Double) -> UInt32 {
        let pattern = Lanes.integerLaneUnit.map { UInt32(bitPattern: Int32(tolerance / $0)) } ?? Float(tolerance).bitPattern
        assert(Lanes.double(ofLanePattern: pattern) == tolerance, "a tolerance the lane format does not hold")
        return pattern
    }

    /// A record for a new spring, not yet in a batch: `free` (a free record the caller took from
    /// `freeRecords`), else a new one.
    @inline(__always)
    func newRecord(reusing free: UInt32?, tolerance: Double) -> Int {
        var fresh = SpringRecord()
        fresh.tolerancePattern = Self.tolerancePattern(tolerance)
        guard let free else {
            records.append(fresh)
            places.append(SpringPlace())
            return records.count - 1
        }
        let index = Int(free)
        // A reused record starts clean but for its generation, which tells the old handle apart,
        // and its schedule entry (its queued time), which the new spring takes over: popping
        // early is safe, it is queued again at its own due time. Written whole, once.
        fresh.queuedDue = records[index].queuedDue
        records[index] = fresh
        return index
    }

    func remove(_ handle: SpringHandle) throws(SpringKernelError) {
        try checkMutable()
        let index = try recordIndex(handle)
        let batchIndex = Int(places[index].batch)
        if removeChecked(record: index) { retireBatchIfEmpty(batchIndex) }
    }

    /// Removes the spring in a live record, leaving its batch in place; returns whether that
    /// emptied the batch. Without `detaching`, its slot stays for the caller to drop (a batch
    /// removal that compacts the batch once for all its springs).
    @inline(__always)
    func removeChecked(record index: Int, detaching: Bool = true) -> Bool {
        while records[index].firstMaskEdge != MaskEdge.none { removeEdge(records[index].firstMaskEdge) }
        let emptied = detaching && detach(record: index)
        retireSchedule(record: index)
        places[index].batch = -1
        places[index].generation &+= 1
        // Past the generation limit the record is retired, never reused: no handle names it again.
        if places[index].generation <= generationLimit { freeRecords.append(UInt32(index)) }
        springCount -= 1
        return emptied
    }

    /// Changes displacement, velocity or target; a spring at rest moves unless the new state is
    /// still its rest.
    func setState(record index: Int, displacement: UInt32? = nil, velocity: UInt32? = nil, target: UInt32? = nil) {
        let (batchIndex, slot) = location(ofRecord: index)
        batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            setState(record: index, batch: batch, slot: slot, displacement: displacement, velocity: velocity, target: target)
        }
    }

    /// Sets the displacement and velocity lanes, waking a spring at rest unless the new state is
    /// still its rest, and leaves predicting it to the caller (a bulk call predicts its springs
    /// in one loop, ``stagedTrajectoriesChanged()``). With `releasing`, a spring paused
    /// mid-motion (its last hold just let go) first goes back among the moving, as
    /// ``release(record:)`` does: one look-up of its batch for both.
    func setLanes(record index: Int, displacement: UInt32, velocity: UInt32, releasing: Bool = false) {
        let (batchIndex, slot) = location(ofRecord: index)
        let resting = batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            var slot = slot
            if releasing, slot >= batch.movingCount, slot < batch.awakeCount {
                swapSlots(batch: batch, slot, batch.movingCount)
                slot = batch.movingCount
                batch.movingCount += 1
            }
            batch.displacements[slot] = displacement
            batch.velocities[slot] = velocity
            return slot >= batch.awakeCount
        }
        guard resting else { return }
        if isRestState(displacement: displacement, velocity: velocity) {
            // Still a state of rest (a resting spring does not move when released): keep the
            // exact rest patterns (no −0).
            batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
                batch.displacements[slot] = 0
                batch.velocities[slot] = 0
            }
            return
        }
        wake(record: index)
    }

    private func setState(
        record index: Int, batch: ConfigurationBatch, slot: Int, displacement: UInt32?, velocity: UInt32?, target: UInt32?
    ) {
        if let displacement { batch.displacements[slot] = displacement }
        if let velocity { batch.velocities[slot] = velocity }
        if let target { batch.targets[slot] = target }
        if slot >= batch.awakeCount {
            let patterns = lanePatterns(ofRecord: index)
            if isRestState(displacement: patterns.displacement, velocity: patterns.velocity) {
                // Still a state of rest: keep the exact rest patterns (no −0).
                batch.displacements[slot] = 0
                batch.velocities[slot] = 0
                return
            }
            wake(record: index)
            trajectoryChanged(record: index)
            return
        }
        trajectoryChanged(record: index, batch: batch, slot: slot)
    }

    /// Gives the spring another configuration or tolerance: it moves to the batch of that
    /// configuration and lane scale, its lanes converted to the new scale (refused, with nothing
    /// changed, if the format cannot hold the motion there).
    func setConfiguration(
        record index: Int, _ configuration: SpringConfiguration, tolerance: Double
    ) throws(SpringKernelError) {
        let oldBatch = Int(places[index].batch), slot = Int(places[index].slot)
        // Unretained, as on every per-event path.
        let (oldKey, wasAwake) = batchObjects[oldBatch].unsafelyUnwrapped._withUnsafeGuaranteedRef {
            (BatchKey(configuration: $0.configuration, scale: $0.scale), slot < $0.awakeCount)
        }
        let scale = laneScale(configuration: configuration, tolerance: tolerance)
        let key = BatchKey(configuration: configuration, scale: scale)
        if key == oldKey {
            guard configuration != oldKey.configuration || tolerance != self.tolerance(record: index) || !wasAwake
            else { return trajectoryChanged(record: index) }
            records[index].tolerancePattern = Self.tolerancePattern(tolerance)
            raiseWatchBand(record: index)
            if wasAwake { trajectoryChanged(record: index) }
            return
        }
        let stored = lanePatterns(ofRecord: index)
        let converted = !Lanes.hasScaledLanes ? (displacement: stored.displacement, velocity: stored.velocity) : try Lanes.storedLanes(
            displacement: stored.displacement, velocity: stored.velocity, target: stored.target,
            shift: LaneScale(
                displacementShift: scale.displacementShift - oldKey.scale.displacementShift,
                velocityShift: scale.velocityShift - oldKey.scale.velocityShift),
            scale: scale, naturalFrequency: configuration.naturalFrequency)
        let newBatch = try batchIndex(for: configuration, scale: scale)
        try reserveSlots(1, inBatch: newBatch)
        records[index].tolerancePattern = Self.tolerancePattern(tolerance)
        // Its masks and pause depth live in its record: only the lanes and its user value move.
        let patterns = lanePatterns(ofRecord: index), userValue = userValue(ofRecord: index)
        detach(record: index)
        attach(
            record: index, batchIndex: newBatch, displacement: converted.displacement, velocity: converted.velocity,
            target: patterns.target, userValue: userValue, keepAwake: wasAwake)
        retireBatchIfEmpty(oldBatch)
        if isAwake(record: index) { trajectoryChanged(record: index) }
    }
}

/// The bank's limits, the same for every lane format.
@usableFromInline
enum BankLimits {
    static let maximumSpringCount = 1 << 30
    static let maximumConfigurationCount = 1 << 16
    static let maximumPauseDepth = Int(UInt8.max)
    /// The most springs a reserving bank makes room for in its first batch's lanes and its rest
    /// schedule at once (1.8 MB of lanes and 1 MB of schedule): beyond, they grow as springs come,
    /// so a reservation of millions does not touch their memory before it is used.
    static let reservedLaneSprings = 1 << 16
    /// The clock time at which the bank rebases its clock (see ``SpringBankCore/rebaseClock()``).
    @usableFromInline static let rebaseTime = 0x1p20
}

/// The lanes' checks and conversions every format shares, on the format's own requirements.
extension SpringLaneArithmetic {
    /// Refuses stored lanes whose whole future motion the format cannot hold (fixed point only).
    static func checkMotion(
        displacement: UInt32, velocity: UInt32, target: UInt32, scale: LaneScale, naturalFrequency: Double
    ) throws(SpringKernelError) {
        guard Self.hasScaledLanes else { return }
        // A velocity stored coarser than the API's resolution must still read back in range.
        if scale.velocityShift < 0 { _ = try Self.rescaled(velocity, by: -scale.velocityShift, as: .velocity) }
        // The whole motion held holds the displacement alone (its norm is the smaller): asked
        // first, so a motion that fits costs one check; one that does not is blamed on the
        // displacement if that alone does not fit, else on the velocity.
        guard !Self.holdsMotion(displacement: displacement, velocity: velocity, target: target, scale: scale, naturalFrequency: naturalFrequency)
        else { return }
        guard Self.holdsMotion(displacement: displacement, velocity: 0, target: target, scale: scale, naturalFrequency: naturalFrequency)
        else { throw .outOfRange(.displacement) }
        throw .outOfRange(.velocity)
    }

    /// Lanes converted to `scale` from a scale `shift` coarser (from the API's patterns: `shift`
    /// is `scale` itself), refused unless the format holds their whole motion there.
    static func storedLanes(
        displacement: UInt32, velocity: UInt32, target: UInt32,
        shift: LaneScale, scale: LaneScale, naturalFrequency: Double
    ) throws(SpringKernelError) -> (displacement: UInt32, velocity: UInt32) {
        guard Self.hasScaledLanes else { return (displacement, velocity) }
        let d = try Self.rescaled(displacement, by: shift.displacementShift, as: .displacement)
        let v = try Self.rescaled(velocity, by: shift.velocityShift, as: .velocity)
        try checkMotion(displacement: d, velocity: v, target: target, scale: scale, naturalFrequency: naturalFrequency)
        return (d, v)
    }

    /// A stored lane read at the API's resolution: rounded to nearest, clamped to the format's range.
    static func apiPattern(_ stored: UInt32, storedShift: Int) -> UInt32 {
        guard Self.hasScaledLanes, storedShift != 0 else { return stored }
        if let pattern = try? Self.rescaled(stored, by: -storedShift, as: .velocity) { return pattern }
        let limit = Self.nearestValue(to: Self.double(ofLanePattern: stored) < 0 ? -Double.infinity : .infinity)
        return (try? Self.lanePattern(of: limit, as: .velocity)) ?? stored
    }

}
