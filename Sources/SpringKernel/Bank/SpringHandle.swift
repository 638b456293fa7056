/// A stable name for one thing a bank holds: a spring (``SpringHandle``) or a pause mask
/// (``PauseMaskID``). One generational id for both, with one validator in the bank.
///
/// An id stays valid while its thing lives, however the bank moves it (a spring's lanes move
/// when it comes to rest, starts to move, is paused, changes configuration, or the bank grows).
/// Once it is removed, every call with the id throws a stale error
/// (``SpringKernelError/staleHandle(_:)``, ``SpringKernelError/stalePauseMask(_:)``): its record
/// may be reused, but with the next generation (a 32-bit count: the id could name something again
/// only after its record had been reused 2³² times). An id from another bank throws
/// ``SpringKernelError/foreignHandle`` (banks are told apart by a random 32-bit tag: two banks
/// share one with a chance of 2⁻³²).
@frozen
public struct BankID<Kind: BankIDKind>: Hashable, Sendable, CustomStringConvertible {
    /// The index of the record in its bank; reused after the thing is removed.
    public let index: UInt32
    /// Incremented each time the record is reused, so old ids are recognised as stale.
    public let generation: UInt32
    /// Identifies the bank that made the id.
    @usableFromInline let bankTag: UInt32

    @usableFromInline
    init(index: UInt32, generation: UInt32, bankTag: UInt32) {
        self.index = index
        self.generation = generation
        self.bankTag = bankTag
    }

    /// "spring #3.0", "pause mask #1.2": the kind, the index and the generation.
    public var description: String { "\(Kind.name) #\(index).\(generation)" }
}

/// What a ``BankID`` names; only ``SpringKind`` and ``PauseMaskKind``.
public protocol BankIDKind: Sendable {
    /// The name ids of this kind describe themselves with.
    static var name: String { get }

    /// The error for `id` when its bank holds nothing under it: each kind names its own, so no
    /// id is ever cast to find out what it is.
    static func staleError(_ id: BankID<Self>) -> SpringKernelError
}

/// The kind of ``SpringHandle``.
public enum SpringKind: BankIDKind {
    /// "spring".
    public static var name: String { "spring" }

    /// ``SpringKernelError/staleHandle(_:)``.
    public static func staleError(_ id: SpringHandle) -> SpringKernelError { .staleHandle(id) }
}

/// The kind of ``PauseMaskID``.
public enum PauseMaskKind: BankIDKind {
    /// "pause mask".
    public static var name: String { "pause mask" }

    /// ``SpringKernelError/stalePauseMask(_:)``.
    public static func staleError(_ id: PauseMaskID) -> SpringKernelError { .stalePauseMask(id) }
}

/// A stable name for one spring in one bank (see ``BankID``).
public typealias SpringHandle = BankID<SpringKind>

/// A stable name for one pause mask in one bank (see ``SpringBank/makePauseMask(_:)`` and ``BankID``).
public typealias PauseMaskID = BankID<PauseMaskKind>

extension BankID {
    /// The error for this id when the bank holds nothing under it.
    var staleError: SpringKernelError { Kind.staleError(self) }
}

extension SpringBankCore {
    /// The record index an id names, or why it names none: the one validator of every id.
    /// `record(i)` is the liveness and generation of record `i` of the id's table.
    @inline(__always)
    func recordIndex<Kind>(
        of id: BankID<Kind>, count: Int, record: (Int) -> (isLive: Bool, generation: UInt32)
    ) throws(SpringKernelError) -> Int {
        guard id.bankTag == tag else { throw .foreignHandle }
        let index = Int(id.index)
        guard index < count else { throw id.staleError }
        let (isLive, generation) = record(index)
        guard isLive, generation == id.generation else { throw id.staleError }
        return index
    }
}

extension BankID {
    /// An id of the same bank for record `index` with `generation`, unchecked, as
    /// ``SpringBank/uncheckedSpring(atIndex:generation:)`` makes one: for the C interface's loop
    /// that rebuilds a list of handles for a bulk call that checks each.
    @inlinable
    package func withRecord(_ index: UInt32, generation: UInt32) -> BankID {
        BankID(index: index, generation: generation, bankTag: bankTag)
    }
}
