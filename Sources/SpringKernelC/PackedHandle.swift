import SpringKernel

/// Spring and pause mask handles as one 64-bit value: the bank's number (16 bits), the low 18
/// bits of the generation, and the index (30 bits, a bank's most springs):
///
///     bits 63–48 bank number · 47–30 generation mod 2^18 · 29–0 index
///
/// The generation bits are the bank's generation offset (see ``BankRegistry``) plus the spring's
/// or mask's generation, mod 2^18. The C layer unpacks a handle by the index, then checks the bank
/// number (a handle of another live bank is always refused) and the generation bits against the
/// spring living there (a removed spring's handle is refused until its record has been reused 2^18
/// times; a destroyed bank's, by the next banks of its slot, until the slot's offset has gone round
/// 2^18). 0 is never a handle.
enum PackedHandle {
    static let indexBits: UInt64 = 30
    static let generationBits: UInt64 = 18
    static let indexMask: UInt64 = 1 << indexBits - 1
    static let generationMask: UInt32 = 1 << 18 - 1

    static func pack(index: UInt32, generation: UInt32, bank: UInt64) -> UInt64 {
        bank << (indexBits + generationBits) | UInt64(generation & generationMask) << indexBits | UInt64(index)
    }

    /// The bank number, generation bits and index of a packed handle.
    static func split(_ packed: UInt64) -> (bank: UInt64, generation: UInt32, index: UInt32) {
        (packed >> (indexBits + generationBits), UInt32(truncatingIfNeeded: packed >> indexBits) & generationMask,
         UInt32(packed & indexMask))
    }
}

extension BankEntry {
    func pack(_ spring: SpringHandle) -> UInt64 {
        PackedHandle.pack(index: spring.index, generation: spring.generation &+ generationOffset, bank: number)
    }

    func pack(_ mask: PauseMaskID) -> UInt64 {
        PackedHandle.pack(index: mask.index, generation: mask.generation &+ generationOffset, bank: number)
    }

    /// The spring a packed handle names in `bank`, or the status that refuses it.
    @inline(__always)
    func spring<Lanes>(_ packed: UInt64, in bank: SpringBank<Lanes>) throws(Refusal) -> SpringHandle {
        let (owner, generation, index) = PackedHandle.split(packed)
        guard owner == number else { throw Refusal(._foreign_handle) }
        guard let spring = bank.spring(atIndex: index), (spring.generation &+ generationOffset) & PackedHandle.generationMask == generation else {
            throw Refusal(._stale_handle)
        }
        return spring
    }

    /// The mask a packed handle names in `bank`, or the status that refuses it.
    func mask<Lanes>(_ packed: UInt64, in bank: SpringBank<Lanes>) throws(Refusal) -> PauseMaskID {
        let (owner, generation, index) = PackedHandle.split(packed)
        guard owner == number else { throw Refusal(._foreign_handle) }
        guard let mask = bank.pauseMask(atIndex: index), (mask.generation &+ generationOffset) & PackedHandle.generationMask == generation else {
            throw Refusal(._stale_pause_mask)
        }
        return mask
    }

    /// Unpacks `count` handles into ``springs`` (kept between calls) and runs `body` on them.
    func withSprings<Lanes, Result>(
        _ packed: UnsafePointer<UInt64>?, _ count: Int, in bank: SpringBank<Lanes>,
        _ body: (UnsafeBufferPointer<SpringHandle>) throws(Refusal) -> Result
    ) throws(Refusal) -> Result {
        springs.removeAll(keepingCapacity: true)
        if count > 0 {
            guard let packed else { throw Refusal(._null_pointer) }
            springs.reserveCapacity(count)
            for i in 0..<count { springs.append(try spring(packed[i], in: bank)) }
        }
        return try springs.withUnsafeBufferPointer { buffer throws(Refusal) in try body(buffer) }
    }
}

/// A C count as a Swift one.
@inline(__always)
func checkedCount(_ count: UInt) throws(Refusal) -> Int {
    guard let count = Int(exactly: count) else { throw Refusal(._invalid_argument) }
    return count
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
