/// The subscribers of one source, kept inside the source itself (one word, ``ObserverChain``) and
/// notified in the order they subscribed.
///
/// Delivery walks the entries up to the one that was newest when the delivery began, so a callback
/// may subscribe (the newcomer waits for the next delivery), cancel itself or any other subscriber
/// (a cancelled entry is skipped, and the entries are compacted only once no delivery is running),
/// or write to the source again (a nested delivery): nobody is skipped and nobody is called twice
/// for one delivery. Delivering allocates nothing.
///
/// Each entry is an ``Observation``: the subscription its subscriber keeps, the receiver the
/// source calls and the link to the next entry, in one object. The source owns its entries
/// (retained by hand, so a delivery reaches each one without reference counting) until they are
/// cancelled or the source goes away. Keeping the chain in the source instead of a list object of
/// its own saves a cache miss on every write of an observed property and every gesture event, and
/// an object per observed source.
protocol ObserverChainOwner: ObserverCancellationHandling {
    associatedtype ObservedValue
    /// The chain. Read and written in single statements only (never held across a callback), so
    /// a callback may change it while a delivery runs.
    var observerChain: ObserverChain<ObservedValue> { get set }
}

/// What an ``Observation`` calls on its source when it is cancelled.
protocol ObserverCancellationHandling: AnyObject {
    /// An entry was cancelled: drop it now, or once no delivery runs.
    func observationCancelled()
}

/// The entries of a source as one word: the newest entry, whose `nextEntry` is the oldest (the
/// entries form a ring, so both ends are one load away), and two flags in the low bits of its
/// address (heap objects are at least 4-byte aligned on every target: 8 on 32-bit ARM's newlib, 16 on
/// 64-bit platforms): a delivery is running, and an entry was cancelled
/// during one.
struct ObserverChain<Value> {
    private var bits: UInt = 0

    private static var isDeliveringBit: UInt { 1 }
    private static var hasCancelledEntriesBit: UInt { 2 }
    /// The two flags' bits (15 here, on 32-bit ARM, corrupted an entry's address: the program
    /// called through it and faulted).
    private static var flagBits: UInt { 3 }

    /// The newest entry, or nil when there is none.
    var newest: Unmanaged<Observation<Value>>? {
        get {
            guard let pointer = UnsafeRawPointer(bitPattern: bits & ~Self.flagBits) else { return nil }
            return Unmanaged.fromOpaque(pointer)
        }
        set {
            let address = newValue.map { UInt(bitPattern: $0.toOpaque()) } ?? 0
            assert(address & Self.flagBits == 0, "heap objects are at least 4-byte aligned")
            bits = address | (bits & Self.flagBits)
        }
    }

    /// Whether a delivery is running (set by the outermost one only).
    var isDelivering: Bool {
        get { bits & Self.isDeliveringBit != 0 }
        set { bits = newValue ? bits | Self.isDeliveringBit : bits & ~Self.isDeliveringBit }
    }

    /// Whether an entry was cancelled while a delivery ran (it is dropped when the delivery ends).
    var hasCancelledEntries: Bool {
        get { bits & Self.hasCancelledEntriesBit != 0 }
        set { bits = newValue ? bits | Self.hasCancelledEntriesBit : bits & ~Self.hasCancelledEntriesBit }
    }
}

extension ObserverChainOwner {
    /// Adds `observation`; it receives every value sent after this call.
    func addObserver(_ observation: Observation<ObservedValue>) {
        observation.owner = self
        let entry = Unmanaged.passRetained(observation)
        if let newest = observerChain.newest {
            // Into the ring after the newest entry, before the oldest.
            newest._withUnsafeGuaranteedRef { newestEntry in
                observation.nextEntry = newestEntry.nextEntry
                newestEntry.nextEntry = entry
            }
        } else {
            observation.nextEntry = entry
        }
        observerChain.newest = entry
    }

    /// Adds a subscriber that calls `body`; it receives every value sent after this call.
    func addObserver(_ body: @escaping (ObservedValue) -> Void) -> Subscription {
        let observation = ClosureObservation(body)
        addObserver(observation)
        return observation
    }

    /// Calls every subscriber connected when the call begins, in order.
    @inline(__always)
    func sendToObservers(_ value: ObservedValue) {
        // Entries added by a callback go after `last`, and none is unlinked while a delivery
        // runs, so the walk ends at the entry that was newest when it began.
        guard let last = observerChain.newest else { return }
        deliver(value, through: last)
    }

    private func deliver(_ value: ObservedValue, through last: Unmanaged<Observation<ObservedValue>>) {
        let isOutermost = !observerChain.isDelivering
        if isOutermost { observerChain.isDelivering = true }
        var entry = last._withUnsafeGuaranteedRef { $0.nextEntry! }
        while true {
            let next = entry._withUnsafeGuaranteedRef { observation in
                if !observation.isCancelled { observation.receive(value) }
                return observation.nextEntry
            }
            guard entry.toOpaque() != last.toOpaque(), let next else { break }
            entry = next
        }
        guard isOutermost else { return }
        observerChain.isDelivering = false
        if observerChain.hasCancelledEntries { compactObservers() }
    }

    /// An entry was cancelled: drop it now, or once no delivery runs.
    func observationCancelled() {
        if observerChain.isDelivering {
            observerChain.hasCancelledEntries = true
        } else {
            compactObservers()
        }
    }

    /// Unlinks and lets go of the cancelled entries.
    private func compactObservers() {
        observerChain.hasCancelledEntries = false
        guard let newest = observerChain.newest else { return }
        // Walk the ring once from the oldest entry, keeping the uncancelled ones in order.
        var kept: Unmanaged<Observation<ObservedValue>>?
        var firstKept: Unmanaged<Observation<ObservedValue>>?
        var entry = newest._withUnsafeGuaranteedRef { $0.nextEntry! }
        while true {
            let (isCancelled, following) = entry._withUnsafeGuaranteedRef { ($0.isCancelled, $0.nextEntry) }
            let isNewest = entry.toOpaque() == newest.toOpaque()
            if isCancelled {
                entry._withUnsafeGuaranteedRef { observation in
                    observation.owner = nil
                    observation.nextEntry = nil
                }
                entry.release()
            } else {
                if let kept {
                    kept._withUnsafeGuaranteedRef { $0.nextEntry = entry }
                } else {
                    firstKept = entry
                }
                kept = entry
            }
            guard !isNewest, let following else { break }
            entry = following
        }
        if let kept, let firstKept { kept._withUnsafeGuaranteedRef { $0.nextEntry = firstKept } }
        observerChain.newest = kept
    }

    /// Lets go of every entry (the source is going away); the entries never reach it again.
    func releaseObservers() {
        guard let newest = observerChain.newest else { return }
        observerChain.newest = nil
        var entry = newest._withUnsafeGuaranteedRef { $0.nextEntry! }
        while true {
            let following = entry._withUnsafeGuaranteedRef { observation in
                observation.owner = nil
                let following = observation.nextEntry
                observation.nextEntry = nil
                return following
            }
            let isNewest = entry.toOpaque() == newest.toOpaque()
            entry.release()
            guard !isNewest, let following else { break }
            entry = following
        }
    }
}

/// One subscriber of a source's ``ObserverChain``: what the source calls with each value, and
/// the subscription that cancels it. Subclasses override ``receive(_:)``.
class Observation<Value>: Subscription {
    /// The source that holds the entry; it clears this when it drops the entry or goes away, so
    /// the entry never reaches a freed source.
    unowned(unsafe) var owner: (any ObserverCancellationHandling)?
    /// The entry after this one in its source's ring.
    var nextEntry: Unmanaged<Observation<Value>>?

    /// Receives one value.
    func receive(_ value: Value) {}

    override func sourceCancel() {
        owner?.observationCancelled()
    }
}

/// An observer given as a closure (``ReactiveProperty/observe(_:)``, ``GestureRecognizer/observe(_:)``).
final class ClosureObservation<Value>: Observation<Value> {
    private var body: ((Value) -> Void)?

    init(_ body: @escaping (Value) -> Void) {
        self.body = body
    }

    override func receive(_ value: Value) {
        body?(value)
    }

    override func sourceCancel() {
        // A cancelled subscription keeps nothing alive, even while its source still lists it.
        body = nil
        super.sourceCancel()
    }
}
