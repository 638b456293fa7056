/// A growable table of plain values whose storage the bank owns and reaches through one
/// pointer: reading or writing an element is a load or store, with no reference counting and no
/// dynamic exclusivity check (which a `var` array in a class costs on every access).
///
/// The table is a struct holding a pointer to its header, so copies share the same storage and
/// the owner must call ``deallocate()`` exactly once.
// Inlinable where another module's hot loop reads it: the C interface's handle checks.
@usableFromInline
struct UnsafeTable<Element: BitwiseCopyable> {
    @usableFromInline
    struct Header {
        @usableFromInline var base: UnsafeMutablePointer<Element>
        @usableFromInline var count: Int
        var capacity: Int
    }

    @usableFromInline let header: UnsafeMutablePointer<Header>

    /// An empty table with room for `capacity` elements (at least one). Tables start at one and
    /// grow by doubling: an empty bank holds five, and on a microcontroller each element of
    /// room it does not use is RAM (16 records were 1.4 KB).
    init(capacity: Int = 1) {
        let capacity = max(capacity, 1)
        header = .allocate(capacity: 1)
        header.initialize(to: Header(base: Self.storage(capacity: capacity), count: 0, capacity: capacity))
    }

    func deallocate() {
        Platform.free(header.pointee.base)
        header.deallocate()
    }

    /// Storage for `capacity` elements, or nil when the system cannot give it
    /// (``Platform/allocateIfAvailable(bytes:)``: `allocate(capacity:)` stops the process instead).
    private static func storage(tryingCapacity capacity: Int) -> UnsafeMutablePointer<Element>? {
        guard MemoryLayout<Element>.alignment <= 16 else { return nil }
        return Platform.allocateIfAvailable(count: capacity, of: Element.self)
    }

    /// Storage for `capacity` elements; stops the process when the system cannot give it, like
    /// any Swift allocation.
    private static func storage(capacity: Int) -> UnsafeMutablePointer<Element> {
        guard let storage = storage(tryingCapacity: capacity) else {
            fatalError("failed to allocate \(capacity) elements of \(MemoryLayout<Element>.stride) bytes")
        }
        return storage
    }

    @inlinable var count: Int { header.pointee.count }
    var indices: Range<Int> { 0..<count }

    @inlinable
    subscript(index: Int) -> Element {
        unsafeAddress {
            assert(index >= 0 && index < header.pointee.count, "index \(index) out of range")
            return UnsafePointer(header.pointee.base + index)
        }
        nonmutating unsafeMutableAddress {
            assert(index >= 0 && index < header.pointee.count, "index \(index) out of range")
            return header.pointee.base + index
        }
    }

    /// Where element `index` lives, until the table next grows: for a loop that reads and writes
    /// many fields of one element, which through the subscript would reload the table's storage
    /// after each write.
    @inline(__always)
    func address(of index: Int) -> UnsafeMutablePointer<Element> {
        assert(index >= 0 && index < header.pointee.count, "index \(index) out of range")
        return header.pointee.base + index
    }

    func append(_ element: Element) {
        if header.pointee.count == header.pointee.capacity { reserveCapacity(header.pointee.capacity * 2) }
        (header.pointee.base + header.pointee.count).initialize(to: element)
        header.pointee.count += 1
    }

    /// Appends `element` in room reserved before (``reserveCapacity(appending:)``), with no
    /// check for growth: for a loop whose every element appends at most one.
    @inline(__always)
    func appendInReservedRoom(_ element: Element) {
        assert(header.pointee.count < header.pointee.capacity, "no room reserved")
        (header.pointee.base + header.pointee.count).initialize(to: element)
        header.pointee.count &+= 1
    }

    /// Empties the table, keeping its storage.
    func removeAll() { header.pointee.count = 0 }

    /// Removes and returns the last element (the table is not empty).
    func removeLast() -> Element {
        precondition(header.pointee.count > 0, "removeLast of an empty table")
        header.pointee.count -= 1
        return header.pointee.base[header.pointee.count]
    }

    /// Exchanges elements `a` and `b`.
    @inline(__always)
    func swapAt(_ a: Int, _ b: Int) {
        let saved = self[a]
        self[a] = self[b]
        self[b] = saved
    }

    /// The elements the table has room for without growing.
    var capacity: Int { header.pointee.capacity }

    func reserveCapacity(_ capacity: Int) {
        guard capacity > header.pointee.capacity else { return }
        adopt(Self.storage(capacity: capacity), capacity: capacity)
    }

    /// Room for `count` more elements, grown by doubling: a run of small batches appended one
    /// after another copies the table a logarithmic number of times, not once a batch.
    ///
    /// - Throws: ``SpringKernelError/outOfMemory``, the table as it was, when the grown size does
    ///   not fit in an `Int` of bytes (2^26 records of 48 bytes on a 32-bit target) or the system
    ///   cannot give it.
    func reserveCapacity(appending count: Int) throws(SpringKernelError) {
        let (needed, overflow) = header.pointee.count.addingReportingOverflow(count)
        guard !overflow else { throw .outOfMemory }
        guard needed > header.pointee.capacity else { return }
        var grown = header.pointee.capacity
        while grown < needed {
            let (doubled, overflow) = grown.multipliedReportingOverflow(by: 2)
            grown = overflow ? needed : doubled
        }
        guard reserveCapacityIfAvailable(grown) else { throw .outOfMemory }
    }

    /// Reserves room for `capacity` elements if the system can give it; false (the table as it
    /// was) when it cannot.
    func reserveCapacityIfAvailable(_ capacity: Int) -> Bool {
        guard capacity > header.pointee.capacity else { return true }
        guard let fresh = Self.storage(tryingCapacity: capacity) else { return false }
        adopt(fresh, capacity: capacity)
        return true
    }

    private func adopt(_ fresh: UnsafeMutablePointer<Element>, capacity: Int) {
        // A raw copy (the elements are bitwise copyable): Embedded Swift's moveInitialize(from:count:)
        // was a loop of its own for each element type, nine of them in a one-format program.
        UnsafeMutableRawPointer(fresh).copyMemory(
            from: header.pointee.base, byteCount: header.pointee.count * MemoryLayout<Element>.stride)
        Platform.free(header.pointee.base)
        header.pointee.base = fresh
        header.pointee.capacity = capacity
    }
}

/// Where a batch's lanes are, for reads that should not touch the batch object.
struct BatchLanes {
    var displacements: UnsafeMutableRawPointer
    var velocities: UnsafeMutableRawPointer
    var targets: UnsafeMutableRawPointer
    /// The scale the batch's displacement and velocity lanes are stored at.
    var scale: LaneScale
    /// The batch configuration's natural frequency ω, for the format's motion check.
    var naturalFrequency: Double
    /// The limits of the format's quick retarget check at this scale and ω
    /// (``SpringLaneArithmetic/retargetLimits(scale:naturalFrequency:)``).
    var retargetLimits: (displacement: Int32, velocity: Int32)
}
