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
        // Whole 64-bit words (four bundles), so a pass may read and write them a word at a time.
        base = .allocate(capacity: Self.allocated(bundles))
        base.initialize(repeating: 0, count: Self.allocated(bundles))
    }

    /// Words allocated for `bundles`: rounded up to whole groups of four.
    private static func allocated(_ bundles: Int) -> Int { (bundles + 3) / 4 * 4 }

    /// Grows to `capacity` slots, keeping every mark; the new ones are clear.
    mutating func grow(to capacity: Int) {
        let grown = BundleIndexing.bundleCount(springs: capacity)
        guard grown > bundles else { return }
        let fresh = UnsafeMutablePointer<UInt16>.allocate(capacity: Self.allocated(grown))
        fresh.moveInitialize(from: base, count: Self.allocated(bundles))
        (fresh + Self.allocated(bundles)).initialize(repeating: 0, count: Self.allocated(grown) - Self.allocated(bundles))
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
