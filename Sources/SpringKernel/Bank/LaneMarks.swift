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
        guard let base = Self.allocate(words: Self.allocated(bundles)) else { fatalError("failed to allocate \(capacity) marks") }
        base.initialize(repeating: 0, count: Self.allocated(bundles))
        self.base = base
    }

    private init(base: UnsafeMutablePointer<UInt16>, bundles: Int) {
        self.base = base
        self.bundles = bundles
    }

    /// Words allocated for `bundles`: rounded up to whole groups of four.
    private static func allocated(_ bundles: Int) -> Int { (bundles + 3) / 4 * 4 }

    /// Room for `words` marks' words, or nil when the system cannot give it.
    private static func allocate(words: Int) -> UnsafeMutablePointer<UInt16>? {
        Platform.allocateIfAvailable(count: words, of: UInt16.self, alignment: 16)
    }

    /// A copy grown to `capacity` slots (the new marks clear), or nil when the system cannot give
    /// it; these marks are left as they are (the caller frees one of the two).
    func grown(to capacity: Int) -> LaneMarks? {
        let grown = Swift.max(bundles, BundleIndexing.bundleCount(springs: capacity))
        guard let fresh = Self.allocate(words: Self.allocated(grown)) else { return nil }
        fresh.initialize(from: base, count: Self.allocated(bundles))
        (fresh + Self.allocated(bundles)).initialize(repeating: 0, count: Self.allocated(grown) - Self.allocated(bundles))
        return LaneMarks(base: fresh, bundles: grown)
    }

    func deallocate() { Platform.free(UnsafeMutableRawPointer(base)) }

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
