/// The lanes of every spring that shares one configuration (Bepu's type batches, Box2D's solver
/// sets, in one).
///
/// Hot fields (displacement from the target, velocity) are separate 64-byte-aligned lane buffers;
/// the target and per-slot bookkeeping (which spring owns a slot, pause depth) live apart and are
/// never read by the step. Slots `0..<awakeCount` hold springs that are moving or paused
/// mid-motion; slots `awakeCount..<count` hold springs at rest (displacement and velocity zero). A spring that
/// comes to rest or starts to move is swapped across that boundary, so a frame touches only
/// `awakeCount` lanes, however many springs rest, and wherever they are in the bank.
final class ConfigurationBatch {
    let configuration: SpringConfiguration
    /// The scale its displacement and velocity lanes are stored at (see ``LaneScale``).
    let scale: LaneScale
    let motion: SpringMotion
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
    /// One word per bundle: bit l set when lane l is paused (its pause depth is non-zero).
    @exclusivity(unchecked) private(set) var pausedLanes: UnsafeMutablePointer<UInt16>
    @exclusivity(unchecked) private var pauseDepthPlanes: UnsafeMutablePointer<UInt16>

    /// Slots available before the buffers must grow; a multiple of the bundle width.
    private(set) var capacity: Int
    /// Slots in use.
    @exclusivity(unchecked) var count = 0
    /// Slots in use by springs that are not at rest.
    @exclusivity(unchecked) var awakeCount = 0 { didSet { planValidity.invalidate() } }
    /// Slots whose paused bit is set.
    @exclusivity(unchecked) private(set) var pausedLaneCount = 0 { didSet { planValidity.invalidate() } }

    /// Recently used (frame duration, coefficients), most recent first.
    /// Read and written only by `coefficients(duration:lanes:)`, a single statement each time.
    @exclusivity(unchecked) private var coefficientCache: [(duration: Double, coefficients: SIMD8<UInt32>)] = []
    private static let coefficientCacheSize = 4

    init(
        configuration: SpringConfiguration, scale: LaneScale, planValidity: PlanValidity,
        lanesEntry: (table: UnsafeTable<BatchLanes>, index: Int), capacity requested: Int = BundleIndexing.laneCount
    ) {
        let capacity = BundleIndexing.bundleCount(springs: max(requested, 1)) * BundleIndexing.laneCount
        self.configuration = configuration
        self.scale = scale
        self.motion = SpringMotion(configuration)
        self.planValidity = planValidity
        self.lanesEntry = lanesEntry
        self.capacity = capacity
        displacements = LaneBuffer(capacity: capacity)
        velocities = LaneBuffer(capacity: capacity)
        targets = LaneBuffer(capacity: capacity)
        springOfSlot = LaneBuffer(capacity: capacity)
        let bundles = capacity / BundleIndexing.laneCount
        pausedLanes = .allocate(capacity: bundles)
        pausedLanes.initialize(repeating: 0, count: bundles)
        pauseDepthPlanes = .allocate(capacity: bundles * PauseDepth.planeCount)
        pauseDepthPlanes.initialize(repeating: 0, count: bundles * PauseDepth.planeCount)
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
        pausedLanes.deallocate()
        pauseDepthPlanes.deallocate()
    }

    var pauseDepth: PauseDepth { PauseDepth(planes: pauseDepthPlanes) }

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
        let oldBundles = capacity / BundleIndexing.laneCount
        let newBundles = grown / BundleIndexing.laneCount
        pausedLanes = Self.grow(pausedLanes, from: oldBundles, to: newBundles)
        pauseDepthPlanes = Self.grow(
            pauseDepthPlanes, from: oldBundles * PauseDepth.planeCount, to: newBundles * PauseDepth.planeCount)
        capacity = grown
        publishLanes()
    }

    private static func grow(_ old: UnsafeMutablePointer<UInt16>, from: Int, to: Int) -> UnsafeMutablePointer<UInt16> {
        let fresh = UnsafeMutablePointer<UInt16>.allocate(capacity: to)
        fresh.moveInitialize(from: old, count: from)
        (fresh + from).initialize(repeating: 0, count: to - from)
        old.deallocate()
        return fresh
    }

    func isPaused(slot: Int) -> Bool {
        pausedLanes[BundleIndexing.bundle(ofSlot: slot)] & BundleIndexing.laneBit(ofSlot: slot) != 0
    }

    /// Recomputes the paused word of `bundle` from its pause depth; returns the lanes that were
    /// paused and no longer are.
    @discardableResult
    func refreshPausedLanes(bundle: Int) -> (released: UInt16, paused: UInt16) {
        let old = pausedLanes[bundle]
        let new = pauseDepth.heldLanes(bundle: bundle)
        pausedLanes[bundle] = new
        if new != old { pausedLaneCount += new.nonzeroBitCount - old.nonzeroBitCount }
        return (old & ~new, new & ~old)
    }

    /// Exchanges every per-slot field of slots `a` and `b`. The caller fixes the records.
    func swapSlots(_ a: Int, _ b: Int) {
        guard a != b else { return }
        displacements.swapAt(a, b)
        velocities.swapAt(a, b)
        targets.swapAt(a, b)
        springOfSlot.swapAt(a, b)
        pauseDepth.swapSlots(a, b)
        let bundleA = BundleIndexing.bundle(ofSlot: a), bundleB = BundleIndexing.bundle(ofSlot: b)
        let bitA = BundleIndexing.laneBit(ofSlot: a), bitB = BundleIndexing.laneBit(ofSlot: b)
        if (pausedLanes[bundleA] & bitA != 0) != (pausedLanes[bundleB] & bitB != 0) {
            pausedLanes[bundleA] ^= bitA
            pausedLanes[bundleB] ^= bitB
        }
    }

    /// The displacement and velocity of the spring in `slot`, in value units: its lanes read at
    /// this batch's scale.
    func motionState(slot: Int, lanes: any SpringLaneArithmetic.Type) -> (displacement: Double, velocity: Double) {
        (lanes.double(ofLanePattern: displacements[slot]) * scale.displacementFactor,
         lanes.double(ofLanePattern: velocities[slot]) * scale.velocityFactor)
    }

    /// Zeroes a slot that no spring owns any more.
    func clearSlot(_ slot: Int) {
        displacements[slot] = 0
        velocities[slot] = 0
        targets[slot] = 0
        springOfSlot[slot] = 0
    }

    /// Sets the pause depth of an unheld slot (moving a spring in from another batch).
    func setPauseDepth(slot: Int, to depth: Int) {
        let bundle = BundleIndexing.bundle(ofSlot: slot), bit = BundleIndexing.laneBit(ofSlot: slot)
        for p in 0..<PauseDepth.planeCount where depth & (1 << p) != 0 {
            pauseDepthPlanes[bundle * PauseDepth.planeCount + p] |= bit
        }
        refreshPausedLanes(bundle: bundle)
    }

    /// The step coefficients for frames of `duration`, cached per duration.
    func coefficients(duration: Double, lanes: any SpringLaneArithmetic.Type) -> SIMD8<UInt32> {
        if let hit = coefficientCache.firstIndex(where: { $0.duration.bitPattern == duration.bitPattern }) {
            let entry = coefficientCache[hit]
            if hit != 0 {
                coefficientCache.remove(at: hit)
                coefficientCache.insert(entry, at: 0)
            }
            return entry.coefficients
        }
        let coefficients = lanes.coefficients(of: motion.propagator(over: duration), scale: scale)
        if coefficientCache.count == Self.coefficientCacheSize { coefficientCache.removeLast() }
        coefficientCache.insert((duration, coefficients), at: 0)
        return coefficients
    }

    /// This frame's work: the awake bundles and how to advance them.
    func work(coefficients: SIMD8<UInt32>) -> LaneWork {
        let bundles = BundleIndexing.bundleCount(springs: awakeCount)
        return LaneWork(
            displacements: displacements.base, velocities: velocities.base,
            pausedLanes: UnsafePointer(pausedLanes), bundleCount: bundles,
            finalBundleLanes: BundleIndexing.liveLanes(bundle: bundles - 1, springs: awakeCount),
            hasPausedLanes: pausedLaneCount > 0, coefficients: coefficients)
    }
}
