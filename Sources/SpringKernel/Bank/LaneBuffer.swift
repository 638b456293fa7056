/// One buffer of 32-bit lanes, padded to whole bundles, zero-filled, and aligned as
/// ``BundleIndexing/bufferAlignment(bytes:)`` says (64 bytes at least).
///
/// The bank owns these explicitly (no ARC on the hot path); ``deallocate()`` is called by the
/// owner's deinit.
@usableFromInline
struct LaneBuffer {
    @usableFromInline private(set) var base: UnsafeMutableRawPointer
    /// Capacity in lanes, a multiple of ``BundleIndexing/laneCount``.
    private(set) var capacity: Int

    init(capacity: Int) {
        precondition(capacity % BundleIndexing.laneCount == 0)
        guard let base = Self.allocateZeroed(lanes: capacity) else {
            fatalError("failed to allocate \(capacity) lanes")
        }
        self.base = base
        self.capacity = capacity
    }

    private init(base: UnsafeMutableRawPointer, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Zeroed lanes, or nil when the system cannot give them.
    private static func allocateZeroed(lanes: Int) -> UnsafeMutableRawPointer? {
        let lanes = max(lanes, BundleIndexing.laneCount)
        // (A count whose bytes overflow is refused whatever the alignment asked.)
        let alignment = BundleIndexing.bufferAlignment(bytes: lanes &* 4)
        guard let pointer = Platform.allocateIfAvailable(count: lanes, of: UInt32.self, alignment: alignment) else { return nil }
        pointer.initialize(repeating: 0, count: lanes)
        return UnsafeMutableRawPointer(pointer)
    }

    /// A copy of the buffer grown to `newCapacity` lanes (the new ones zero), or nil when the
    /// system cannot give it; this buffer is left as it is (the caller frees one of the two).
    func grown(to newCapacity: Int) -> LaneBuffer? {
        precondition(newCapacity >= capacity && newCapacity % BundleIndexing.laneCount == 0)
        guard let fresh = Self.allocateZeroed(lanes: newCapacity) else { return nil }
        fresh.copyMemory(from: base, byteCount: capacity * 4)
        return LaneBuffer(base: fresh, capacity: newCapacity)
    }

    func deallocate() { Platform.free(base) }

    /// The raw 32-bit pattern of lane `slot`.
    subscript(slot: Int) -> UInt32 {
        get { base.load(fromByteOffset: slot * 4, as: UInt32.self) }
        nonmutating set { base.storeBytes(of: newValue, toByteOffset: slot * 4, as: UInt32.self) }
    }

    /// Exchanges lanes `a` and `b`.
    func swapAt(_ a: Int, _ b: Int) {
        let saved = self[a]
        self[a] = self[b]
        self[b] = saved
    }
}

/// One buffer of 64-bit values per slot (the caller's user values), kept beside a batch's lanes
/// so a read in storage order streams them; allocated, grown and freed like ``LaneBuffer``.
struct WideLaneBuffer {
    private(set) var base: UnsafeMutablePointer<UInt64>
    private(set) var capacity: Int

    init(capacity: Int) {
        guard let base = Self.allocate(slots: capacity) else { fatalError("failed to allocate \(capacity) user values") }
        base.initialize(repeating: 0, count: max(capacity, 1))
        self.base = base
        self.capacity = capacity
    }

    private init(base: UnsafeMutablePointer<UInt64>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Room for `slots` values (at least one), or nil when the system cannot give it.
    private static func allocate(slots: Int) -> UnsafeMutablePointer<UInt64>? {
        Platform.allocateIfAvailable(count: slots, of: UInt64.self, alignment: 16)
    }

    /// A copy grown to `newCapacity` slots (the new ones zero), or nil when the system cannot give
    /// it; this buffer is left as it is (the caller frees one of the two).
    func grown(to newCapacity: Int) -> WideLaneBuffer? {
        precondition(newCapacity >= capacity)
        guard let fresh = Self.allocate(slots: newCapacity) else { return nil }
        fresh.initialize(from: base, count: capacity)
        (fresh + capacity).initialize(repeating: 0, count: max(newCapacity, 1) - capacity)
        return WideLaneBuffer(base: fresh, capacity: newCapacity)
    }

    func deallocate() { Platform.free(UnsafeMutableRawPointer(base)) }

    subscript(slot: Int) -> UInt64 {
        get { base[slot] }
        nonmutating set { base[slot] = newValue }
    }

    /// Exchanges slots `a` and `b`.
    func swapAt(_ a: Int, _ b: Int) {
        let saved = base[a]
        base[a] = base[b]
        base[b] = saved
    }
}
