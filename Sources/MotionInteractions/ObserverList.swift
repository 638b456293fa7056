/// The subscribers of one source, notified in the order they subscribed.
///
/// Delivery walks the list by index up to the count it had when the delivery began, so a callback
/// may subscribe (the newcomer waits for the next delivery), cancel itself or any other subscriber
/// (a cancelled entry is skipped, and the list is compacted only once no delivery is running), or
/// write to the source again (a nested delivery): nobody is skipped and nobody is called twice for
/// one delivery. Delivering allocates nothing.
///
/// Each entry is an ``Observation``: the subscription its subscriber keeps, the receiver the list
/// calls and the link to the next entry, in one object (no buffer of entries). The list owns its
/// entries (retained by hand, so a delivery reaches each one without reference counting) until
/// they are cancelled or the list goes away.
final class ObserverList<Value> {
    // The entries form a chain through their `nextEntry` links; the list holds one reference to
    // each (taken by hand), so walking the chain costs no reference counting. Never accessed
    // across a callback (each read ends before the call), so the runtime exclusivity checks a
    // class property would get on every delivery are not needed.
    @exclusivity(unchecked) private var head: Unmanaged<Observation<Value>>?
    @exclusivity(unchecked) private var tail: Unmanaged<Observation<Value>>?
    // 32 bits and a flag: the list object stays in the smallest allocation class it can.
    @exclusivity(unchecked) private var deliveryDepth: UInt32 = 0
    @exclusivity(unchecked) private var hasCancelledEntries = false

    deinit {
        var next = head
        while let entry = next {
            next = entry._withUnsafeGuaranteedRef { observation in
                observation.list = nil
                return observation.nextEntry
            }
            entry.release()
        }
    }

    /// Adds `observation`; it receives every value sent after this call.
    func add(_ observation: Observation<Value>) {
        observation.list = self
        let entry = Unmanaged.passRetained(observation)
        if let tail {
            tail._withUnsafeGuaranteedRef { $0.nextEntry = entry }
        } else {
            head = entry
        }
        tail = entry
    }

    /// Adds a subscriber that calls `body`; it receives every value sent after this call.
    func add(_ body: @escaping (Value) -> Void) -> Subscription {
        let observation = ClosureObservation(body)
        add(observation)
        return observation
    }

    /// Calls every subscriber connected when the call begins, in order.
    func send(_ value: Value) {
        // Entries added by a callback go after `last`, and none is unlinked while a delivery
        // runs, so the walk ends at the entry that was last when it began.
        guard var entry = head, let last = tail else { return }
        deliveryDepth += 1
        while true {
            let next = entry._withUnsafeGuaranteedRef { observation in
                if !observation.isCancelled { observation.receive(value) }
                return observation.nextEntry
            }
            guard entry.toOpaque() != last.toOpaque(), let next else { break }
            entry = next
        }
        deliveryDepth -= 1
        if deliveryDepth == 0, hasCancelledEntries { compact() }
    }

    /// An entry was cancelled: drop it now, or once no delivery runs.
    fileprivate func entryCancelled() {
        hasCancelledEntries = true
        if deliveryDepth == 0 { compact() }
    }

    /// Unlinks and lets go of the cancelled entries.
    private func compact() {
        var previous: Unmanaged<Observation<Value>>?
        var next = head
        while let entry = next {
            let (isCancelled, following) = entry._withUnsafeGuaranteedRef { ($0.isCancelled, $0.nextEntry) }
            next = following
            guard isCancelled else {
                previous = entry
                continue
            }
            if let previous {
                previous._withUnsafeGuaranteedRef { $0.nextEntry = following }
            } else {
                head = following
            }
            if tail?.toOpaque() == entry.toOpaque() { tail = previous }
            entry._withUnsafeGuaranteedRef { observation in
                observation.list = nil
                observation.nextEntry = nil
            }
            entry.release()
        }
        hasCancelledEntries = false
    }
}

/// One subscriber of an ``ObserverList``: what the list calls with each value, and the
/// subscription that cancels it. Subclasses override ``receive(_:)``.
class Observation<Value>: Subscription {
    /// The list that holds the entry; it clears this when it drops the entry or goes away, so
    /// the entry never reaches a freed list.
    unowned(unsafe) var list: ObserverList<Value>?
    /// The entry after this one in its list.
    var nextEntry: Unmanaged<Observation<Value>>?

    /// Receives one value.
    func receive(_ value: Value) {}

    override func sourceCancel() {
        list?.entryCancelled()
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
        // A cancelled subscription keeps nothing alive, even while its list still lists it.
        body = nil
        super.sourceCancel()
    }
}
