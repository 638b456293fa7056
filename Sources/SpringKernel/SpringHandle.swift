/// A stable name for one spring in one bank.
///
/// A handle stays valid while its spring lives, however the bank moves the spring's lanes (when
/// springs come to rest, start moving, change configuration, or the bank grows). After the spring
/// is removed, every call with the handle throws ``SpringKernelError/staleHandle(_:)``; a handle
/// from another bank throws ``SpringKernelError/foreignHandle``.
@frozen
public struct SpringHandle: Hashable, Sendable, CustomStringConvertible {
    /// The index of the spring's record in its bank; reused after the spring is removed.
    public let index: UInt32
    /// Incremented each time the record is reused, so old handles are recognised as stale.
    public let generation: UInt32
    /// Identifies the bank that made the handle.
    @usableFromInline let bankTag: UInt32

    @usableFromInline
    init(index: UInt32, generation: UInt32, bankTag: UInt32) {
        self.index = index
        self.generation = generation
        self.bankTag = bankTag
    }

    public var description: String { "spring #\(index).\(generation)" }
}

/// A stable name for one pause mask in one bank (see ``SpringBank/makePauseMask(_:)``).
@frozen
public struct PauseMaskID: Hashable, Sendable, CustomStringConvertible {
    /// The index of the mask's record in its bank.
    public let index: UInt32
    /// Incremented each time the record is reused.
    public let generation: UInt32
    @usableFromInline let bankTag: UInt32

    @usableFromInline
    init(index: UInt32, generation: UInt32, bankTag: UInt32) {
        self.index = index
        self.generation = generation
        self.bankTag = bankTag
    }

    public var description: String { "pause mask #\(index).\(generation)" }
}
