/// One bit per slot of a batch, a 16-bit word per bundle (bit l of word b: slot 16b + l), the
/// shape of the streamed writes' change marks: the watch's marks (``ConfigurationBatch/retargetedLanes``,
/// ``ConfigurationBatch/watchedLanes``). Owned by its batch, freed by the batch's deinit, grown
/// with its lanes; a mark follows its spring when the spring changes slot.
struct LaneMarks {
    private(set) var base: UnsafeMutablePointer<UInt16>
    /// Words (bundles) allocated.
    private(set) var bundles: Int

    /// Marks for `capacity` slots (a multiple of the bundle width), all clear.
    init(capacity: Int) {
        bundles = Swift.max(1, BundleIndexing.bundleCount(springs: capacity))
        base = .allocate(capacity: bundles)
        base.initialize(repeating: 0, count: bundles)
    }

    /// Grows to `capacity` slots, keeping every mark; the new ones are clear.
    mutating func grow(to capacity: Int) {
        let grown = BundleIndexing.bundleCount(springs: capacity)
        guard grown > bundles else { return }
        let fresh = UnsafeMutablePointer<UInt16>.allocate(capacity: grown)
        fresh.moveInitialize(from: base, count: bundles)
        (fresh + bundles).initialize(repeating: 0, count: grown - bundles)
        base.deallocate()
        base = fresh
        bundles = grown
    }

    func deallocate() { base.deallocate() }

    /// Whether slot `slot` is marked.
    @inline(__always)
    subscript(slot: Int) -> Bool {
        get { base[BundleIndexing.bundle(ofSlot: slot)] & BundleIndexing.laneBit(ofSlot: slot) != 0 }
        nonmutating set {
            let bundle = BundleIndexing.bundle(ofSlot: slot), bit = BundleIndexing.laneBit(ofSlot: slot)
            base[bundle] = newValue ? base[bundle] | bit : base[bundle] & ~bit
        }
    }

    /// Exchanges the marks of slots `a` and `b`.
    @inline(__always)
    func swapAt(_ a: Int, _ b: Int) {
        let (markA, markB) = (self[a], self[b])
        if markA != markB { (self[a], self[b]) = (markB, markA) }
    }
}
