import SpringKernel

/// Spring and pause mask handles as one 64-bit value: the bank's registry slot (16 bits), the
/// kind (1 bit: 0 a spring, 1 a pause mask), a generation tag (17 bits) and the record index (30
/// bits, a bank's most springs):
///
///     bits 63–48 bank slot · 47 kind · 46–30 generation tag · 29–0 index
///
/// The generation tag is the slot's generation offset plus the record's generation (see
/// ``BankRegistry``); it never wraps: a bank retires a record (never reuses it) once its tag
/// would pass 2^17 − 1, so a removed spring's or mask's handle never names anything again, and a
/// slot whose banks have used up their tags rests until 2^32 banks have been made since. The C
/// layer unpacks a handle by the index, then checks the slot and the kind (another live bank's
/// handle, or a mask's handle where a spring's is asked and the reverse, is always refused) and
/// the tag against the record living there. 0 is never a handle (slot 0 is never a bank's).
enum PackedHandle {
    static let indexBits: UInt64 = 30
    static let generationBits: UInt64 = 17
    static let kindShift: UInt64 = indexBits + generationBits
    static let bankShift: UInt64 = kindShift + 1
    static let indexMask: UInt64 = 1 << indexBits - 1
    static let generationMask: UInt32 = 1 << 17 - 1

    /// What a handle names: its kind bit.
    enum Kind: UInt64 {
        case spring = 0
        case mask = 1
    }

    static func pack(index: UInt32, tag: UInt32, kind: Kind, bank: UInt64) -> UInt64 {
        bank << bankShift | kind.rawValue << kindShift | UInt64(tag & generationMask) << indexBits | UInt64(index)
    }

    /// The bank slot, kind bit, generation tag and index of a packed handle.
    static func split(_ packed: UInt64) -> (bank: UInt64, kind: UInt64, tag: UInt32, index: UInt32) {
        (packed >> bankShift, packed >> kindShift & 1, UInt32(truncatingIfNeeded: packed >> indexBits) & generationMask,
         UInt32(packed & indexMask))
    }
}

extension BankEntry {
    func pack(_ spring: SpringHandle) -> UInt64 {
        PackedHandle.pack(index: spring.index, tag: spring.generation &+ generationOffset, kind: .spring, bank: number)
    }

    func pack(_ mask: PauseMaskID) -> UInt64 {
        PackedHandle.pack(index: mask.index, tag: mask.generation &+ generationOffset, kind: .mask, bank: number)
    }

    /// The spring a packed handle names in `bank`, or the status that refuses it.
    @inline(__always)
    func spring<Lanes>(_ packed: UInt64, in bank: SpringBank<Lanes>) throws(Refusal) -> SpringHandle {
        let (owner, kind, tag, index) = PackedHandle.split(packed)
        guard owner == number, kind == PackedHandle.Kind.spring.rawValue else { throw Refusal(._foreign_handle) }
        guard let spring = bank.spring(atIndex: index), spring.generation &+ generationOffset == tag else {
            throw Refusal(._stale_handle)
        }
        return spring
    }

    /// The mask a packed handle names in `bank`, or the status that refuses it.
    func mask<Lanes>(_ packed: UInt64, in bank: SpringBank<Lanes>) throws(Refusal) -> PauseMaskID {
        let (owner, kind, tag, index) = PackedHandle.split(packed)
        guard owner == number, kind == PackedHandle.Kind.mask.rawValue else { throw Refusal(._foreign_handle) }
        guard let mask = bank.pauseMask(atIndex: index), mask.generation &+ generationOffset == tag else {
            throw Refusal(._stale_pause_mask)
        }
        return mask
    }

    /// Unpacks `count` handles into ``springs`` (kept between calls) and runs `body` on them.
    ///
    /// `count` is the caller's (at most 2^30, ``checkedCount(_:refusing:)``), not yet backed by
    /// anything: room is reserved for at most the bank's springs (a list that names each once),
    /// and the list grows past that only as the handles read check out (a spring listed more than
    /// once), so a count the buffer does not hold never sizes an allocation.
    func withSprings<Lanes, Result>(
        _ packed: UnsafePointer<UInt64>?, _ count: Int, in bank: SpringBank<Lanes>,
        _ body: (UnsafeBufferPointer<SpringHandle>) throws(Refusal) -> Result
    ) throws(Refusal) -> Result {
        try withKeptList(packed, count, { packed, list throws(Refusal) in
            list.reserveCapacity(Swift.min(count, bank.count))
            for i in 0..<count { list.append(try spring(packed[i], in: bank)) }
        }, body)
    }

    /// ``withSprings(_:_:in:_:)`` for a `body` that makes one kernel call which checks every
    /// handle it is given, in order, before it changes anything (the bulk retarget, impulse and
    /// reads): each handle is checked here only for what the kernel cannot see (this bank's slot,
    /// the spring kind, an index below the bank's records) and its generation is left to the
    /// kernel, so a handle is looked up once, not twice. The first handle that fails here is
    /// refused with what ``withSprings(_:_:in:_:)`` would refuse the list with (an earlier stale
    /// handle first), and `body` does not run. The list grows past the bank's records only by
    /// indices of its records (a spring listed more than once).
    func withSpringsCheckedByKernel<Lanes, Result>(
        _ packed: UnsafePointer<UInt64>?, _ count: Int, in bank: SpringBank<Lanes>,
        _ body: (UnsafeBufferPointer<SpringHandle>) throws(Refusal) -> Result
    ) throws(Refusal) -> Result {
        try withKeptList(packed, count, { packed, list throws(Refusal) in
            let records = bank.springRecordCount
            list.reserveCapacity(Swift.min(count, records))
            // The slot and kind bits of this bank's spring handles, compared in one go; the
            // entry's offset and the bank's tag held in locals (a growing append is a call).
            let owner = number << 1 | PackedHandle.Kind.spring.rawValue
            let offset = generationOffset, template = bank.uncheckedSpring(atIndex: 0, generation: 0)
            for i in 0..<count {
                let handle = packed[i]
                let (_, _, tag, index) = PackedHandle.split(handle)
                guard handle >> PackedHandle.kindShift == owner, Int(index) < records else {
                    // Refused: by the first handle of 0...i the full check refuses.
                    for j in 0...i { _ = try spring(packed[j], in: bank) }
                    preconditionFailure("a handle refused by its slot, kind or index passed the full check")
                }
                list.append(template.withRecord(index, generation: tag &- offset))
            }
        }, body)
    }

    /// Runs `fill` on ``springs`` emptied (its storage kept) when `count` is above 0 (`packed`
    /// NULL is then refused), then `body` on the list it filled.
    private func withKeptList<Result>(
        _ packed: UnsafePointer<UInt64>?, _ count: Int,
        _ fill: (UnsafePointer<UInt64>, inout [SpringHandle]) throws(Refusal) -> Void,
        _ body: (UnsafeBufferPointer<SpringHandle>) throws(Refusal) -> Result
    ) throws(Refusal) -> Result {
        // Filled as a local: an append to the entry's own property would be a dynamic
        // exclusivity check (a thread-local access set) and a uniqueness check a handle, which
        // cost more than the kernel's retarget of the spring.
        var list: [SpringHandle] = []
        swap(&list, &springs)
        defer { swap(&list, &springs) }
        list.removeAll(keepingCapacity: true)
        if count > 0 {
            guard let packed else { throw Refusal(._null_pointer) }
            try fill(packed, &list)
        }
        return try list.withUnsafeBufferPointer { buffer throws(Refusal) in try body(buffer) }
    }
}

/// The longest list a call takes: a bank's most springs, 2^30.
let maximumListCount = SpringBank<Float32Lanes>.maximumSpringCount

/// A C count as a Swift one, checked before anything is read or sized by it: a count above 2^30
/// (a bank's most springs) is refused with `refusing` (`sk_status_invalid_argument`, or
/// `sk_status_count_mismatch` where the count must be a layout's).
@inline(__always)
func checkedCount(_ count: UInt, refusing status: sk_status = ._invalid_argument) throws(Refusal) -> Int {
    guard count <= UInt(maximumListCount) else { throw Refusal(status) }
    return Int(count)
}

/// A buffer of `count` elements the call reads: NULL is refused unless `count` is 0.
@inline(__always)
func input<Element>(_ pointer: UnsafePointer<Element>?, _ count: Int) throws(Refusal) -> UnsafeBufferPointer<Element> {
    guard let pointer else {
        guard count == 0 else { throw Refusal(._null_pointer) }
        return UnsafeBufferPointer(start: nil, count: 0)
    }
    return UnsafeBufferPointer(start: pointer, count: count)
}

/// A buffer of `count` elements the call writes: NULL is refused unless `count` is 0.
@inline(__always)
func output<Element>(_ pointer: UnsafeMutablePointer<Element>?, _ count: Int) throws(Refusal) -> UnsafeMutableBufferPointer<Element> {
    guard let pointer else {
        guard count == 0 else { throw Refusal(._null_pointer) }
        return UnsafeMutableBufferPointer(start: nil, count: 0)
    }
    return UnsafeMutableBufferPointer(start: pointer, count: count)
}

/// Runs `body` on the engine's raw `int32_t` Q16.16 values as `Q16` (a frozen struct of one
/// `Int32`, so the array is read in place).
@inline(__always)
func withQ16<Result>(
    _ raw: UnsafeBufferPointer<Int32>, _ body: (UnsafeBufferPointer<Q16>) throws(Refusal) -> Result
) throws(Refusal) -> Result {
    try raw.withMemoryRebound(to: Q16.self) { values throws(Refusal) in try body(values) }
}
