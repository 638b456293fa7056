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
        self.capacity = capacity
        base = Self.allocateZeroed(lanes: capacity)
    }

    private static func allocateZeroed(lanes: Int) -> UnsafeMutableRawPointer {
        let bytes = max(lanes, BundleIndexing.laneCount) * 4
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: BundleIndexing.bufferAlignment(bytes: bytes))
        pointer.initializeMemory(as: UInt32.self, repeating: 0, count: bytes / 4)
        return pointer
    }

    /// Grows to `newCapacity` lanes, keeping every lane; new lanes are zero.
    mutating func grow(to newCapacity: Int) {
        precondition(newCapacity >= capacity && newCapacity % BundleIndexing.laneCount == 0)
        let fresh = Self.allocateZeroed(lanes: newCapacity)
        fresh.copyMemory(from: base, byteCount: capacity * 4)
        base.deallocate()
        base = fresh
        capacity = newCapacity
    }

    func deallocate() { base.deallocate() }

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
        self.capacity = capacity
        base = .allocate(capacity: max(capacity, 1))
        base.initialize(repeating: 0, count: max(capacity, 1))
    }

    /// Grows to `newCapacity` slots, keeping every value; new slots are zero.
    mutating func grow(to newCapacity: Int) {
        precondition(newCapacity >= capacity)
        let fresh = UnsafeMutablePointer<UInt64>.allocate(capacity: newCapacity)
        fresh.moveInitialize(from: base, count: capacity)
        (fresh + capacity).initialize(repeating: 0, count: newCapacity - capacity)
        base.deallocate()
        base = fresh
        capacity = newCapacity
    }

    func deallocate() { base.deallocate() }

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
