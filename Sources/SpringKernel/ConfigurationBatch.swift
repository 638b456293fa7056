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
    /// The caller's own value for the spring in each slot (``SpringBank/userValue(of:)``), kept
    /// by slot so a read in storage order streams it beside the lanes.
    @exclusivity(unchecked) private(set) var userValues: WideLaneBuffer

    /// Displacement and velocity lanes that a storage-order state write fills and the batch then
    /// takes as its own (``adoptFilledMotionLanes(filled:)``), its old lanes becoming the spare:
    /// the write checks the caller's arrays in the pass that stores them, and a refused call
    /// still changes nothing (a check pass before the write read them twice: 28 B a spring for 20).
    /// Made by the first such write, released when the buffers grow.
    @exclusivity(unchecked) private var spareMotionLanes: (displacements: LaneBuffer, velocities: LaneBuffer)?
    /// The spare lanes are zero from this slot on.
    private var spareWrittenSlots = 0

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

    /// Springs a batch removal in progress takes out of this batch (0 outside one), and whether
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
        configuration: SpringConfiguration, scale: LaneScale, lanes: any SpringLaneArithmetic.Type, planValidity: PlanValidity,
        lanesEntry: (table: UnsafeTable<BatchLanes>, index: Int), capacity requested: Int = BundleIndexing.laneCount
    ) {
        let capacity = BundleIndexing.bundleCount(springs: max(requested, 1)) * BundleIndexing.laneCount
        self.configuration = configuration
        self.scale = scale
        self.motion = SpringMotion(configuration)
        integerLaneUnits = lanes.integerLaneUnit.map { ($0 * scale.displacementFactor, $0 * scale.velocityFactor) }
        self.planValidity = planValidity
        self.lanesEntry = lanesEntry
        self.capacity = capacity
        displacements = LaneBuffer(capacity: capacity)
        velocities = LaneBuffer(capacity: capacity)
        targets = LaneBuffer(capacity: capacity)
        springOfSlot = LaneBuffer(capacity: capacity)
        userValues = WideLaneBuffer(capacity: capacity)
        publishLanes()
    }

    /// Writes this batch's current lane bases into the bank's table.
    private func publishLanes() {
        lanesEntry.table[lanesEntry.index] = BatchLanes(
            displacements: displacements.base, velocities: velocities.base, targets: targets.base,
            scale: scale, naturalFrequency: configuration.naturalFrequency)
    }

    deinit {
        displacements.deallocate()
        velocities.deallocate()
        targets.deallocate()
        springOfSlot.deallocate()
        userValues.deallocate()
        releaseSpareMotionLanes()
    }

    private func releaseSpareMotionLanes() {
        spareMotionLanes?.displacements.deallocate()
        spareMotionLanes?.velocities.deallocate()
        spareMotionLanes = nil
        spareWrittenSlots = 0
    }

    /// The spare displacement and velocity lanes, for a write of slots `0..<slots` that the batch
    /// takes with ``adoptFilledMotionLanes(filled:)`` if the call is accepted, or leaves there.
    func spareMotionLanes(filling slots: Int) -> (displacements: LaneBuffer, velocities: LaneBuffer) {
        let spare = spareMotionLanes ?? (LaneBuffer(capacity: capacity), LaneBuffer(capacity: capacity))
        spareMotionLanes = spare
        spareWrittenSlots = Swift.max(spareWrittenSlots, slots)
        return spare
    }

    /// Makes the spare lanes, written for slots `0..<filled` (``spareMotionLanes(filling:)``),
    /// this batch's displacement and velocity lanes: slots `filled..<count` are copied from the
    /// current lanes and the spare's slots past `count` cleared first, so every slot reads as it
    /// did but the ones filled. The current lanes become the spare.
    func adoptFilledMotionLanes(filled: Int) {
        guard let spare = spareMotionLanes else { preconditionFailure("no spare lanes were filled") }
        if count > filled {
            let offset = filled * 4, bytes = (count - filled) * 4
            (spare.displacements.base + offset).copyMemory(from: displacements.base + offset, byteCount: bytes)
            (spare.velocities.base + offset).copyMemory(from: velocities.base + offset, byteCount: bytes)
        }
        if spareWrittenSlots > count {
            let offset = count * 4, bytes = (spareWrittenSlots - count) * 4
            (spare.displacements.base + offset).initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            (spare.velocities.base + offset).initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        }
        spareMotionLanes = (displacements, velocities)
        spareWrittenSlots = count  // unused slots are zero in the lanes a batch holds
        displacements = spare.displacements
        velocities = spare.velocities
        planValidity.invalidate()  // the buffers move
        publishLanes()
    }

    /// Makes room for `needed` slots, doubling so that growth is amortised. Slots keep their
    /// indices, so no handle or mask changes.
    func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        planValidity.invalidate()  // the buffers move
        var grown = capacity
        while grown < needed { grown *= 2 }
        displacements.grow(to: grown)
        velocities.grow(to: grown)
        targets.grow(to: grown)
        springOfSlot.grow(to: grown)
        userValues.grow(to: grown)
        releaseSpareMotionLanes()
        capacity = grown
        publishLanes()
    }

    /// Exchanges every per-slot field of slots `a` and `b`. The caller fixes the records.
    func swapSlots(_ a: Int, _ b: Int) {
        guard a != b else { return }
        displacements.swapAt(a, b)
        velocities.swapAt(a, b)
        targets.swapAt(a, b)
        springOfSlot.swapAt(a, b)
        userValues.swapAt(a, b)
        planValidity.layoutChanged()
    }

    /// Writes every per-slot field of `slot`.
    @inline(__always)
    func place(slot: Int, displacement: UInt32, velocity: UInt32, target: UInt32, spring: UInt32, userValue: UInt64) {
        displacements[slot] = displacement
        velocities[slot] = velocity
        targets[slot] = target
        springOfSlot[slot] = spring
        userValues[slot] = userValue
        planValidity.layoutChanged()
    }

    /// Copies every per-slot field of slot `a` into slot `b`. The caller fixes the record.
    @inline(__always)
    func copySlot(_ a: Int, to b: Int) {
        displacements[b] = displacements[a]
        velocities[b] = velocities[a]
        targets[b] = targets[a]
        springOfSlot[b] = springOfSlot[a]
        userValues[b] = userValues[a]
        planValidity.layoutChanged()
    }

    /// The displacement and velocity of the spring in `slot`, in value units: its lanes read at
    /// this batch's scale, with no call through the lane format (every event reads them).
    @inline(__always)
    func motionState(slot: Int) -> (displacement: Double, velocity: Double) {
        motionState(displacement: displacements[slot], velocity: velocities[slot])
    }

    /// ``motionState(slot:)`` of lanes given as patterns (the ones a batch call wrote).
    @inline(__always)
    func motionState(displacement d: UInt32, velocity v: UInt32) -> (displacement: Double, velocity: Double) {
        guard let units = integerLaneUnits else {
            return (Double(Float(bitPattern: d)), Double(Float(bitPattern: v)))
        }
        return (Double(Int32(bitPattern: d)) * units.displacement, Double(Int32(bitPattern: v)) * units.velocity)
    }

    /// Zeroes a slot that no spring owns any more.
    func clearSlot(_ slot: Int) {
        displacements[slot] = 0
        velocities[slot] = 0
        targets[slot] = 0
        springOfSlot[slot] = 0
        userValues[slot] = 0
    }

    /// The step coefficients for frames of `duration`, cached per duration.
    func coefficients(duration: Double, lanes: any SpringLaneArithmetic.Type) -> SIMD8<UInt32> {
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
            coefficients: coefficients)
    }
}
