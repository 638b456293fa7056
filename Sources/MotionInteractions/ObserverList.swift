/// The subscribers of one source, notified in the order they subscribed.
///
/// Delivery walks the list by index up to the count it had when the delivery began, so a callback
/// may subscribe (the newcomer waits for the next delivery), cancel itself or any other subscriber
/// (a cancelled entry is skipped, and the list is compacted only once no delivery is running), or
/// write to the source again (a nested delivery): nobody is skipped and nobody is called twice for
/// one delivery. Delivering allocates nothing.
///
/// Each entry is an ``Observation``: the subscription its subscriber keeps and the receiver the
/// list calls, in one object. The list owns its entries (retained by hand, so a delivery reaches
/// each one without reference counting) until they are cancelled or the list goes away.
final class ObserverList<Value> {
    // Never accessed across a callback (each read of `entries` ends before the call), so the
    // runtime exclusivity checks a class property would get on every delivery are not needed.
    @exclusivity(unchecked) private var entries: ContiguousArray<Unmanaged<Observation<Value>>> = []
    @exclusivity(unchecked) private var deliveryDepth = 0
    @exclusivity(unchecked) private var hasCancelledEntries = false

    deinit {
        for entry in entries {
            entry._withUnsafeGuaranteedRef { $0.list = nil }
            entry.release()
        }
    }

    /// Adds `observation`; it receives every value sent after this call.
    func add(_ observation: Observation<Value>) {
        observation.list = self
        entries.append(.passRetained(observation))
    }

    /// Adds a subscriber that calls `body`; it receives every value sent after this call.
    func add(_ body: @escaping (Value) -> Void) -> Subscription {
        let observation = ClosureObservation(body)
        add(observation)
        return observation
    }

    /// Calls every subscriber connected when the call begins, in order.
    func send(_ value: Value) {
        let end = entries.count
        guard end > 0 else { return }
        deliveryDepth += 1
        var index = 0
        while index < end {
            entries[index]._withUnsafeGuaranteedRef { entry in
                if !entry.isCancelled { entry.receive(value) }
            }
            index += 1
        }
        deliveryDepth -= 1
        if deliveryDepth == 0, hasCancelledEntries { compact() }
    }

    /// An entry was cancelled: drop it now, or once no delivery runs.
    fileprivate func entryCancelled() {
        hasCancelledEntries = true
        if deliveryDepth == 0 { compact() }
    }

    private func compact() {
        var kept = 0
        for index in entries.indices {
            let entry = entries[index]
            if entry._withUnsafeGuaranteedRef({ $0.isCancelled }) {
                entry._withUnsafeGuaranteedRef { $0.list = nil }
                entry.release()
                continue
            }
            entries[kept] = entry
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        hasCancelledEntries = false
    }
}

/// One subscriber of an ``ObserverList``: what the list calls with each value, and the
/// subscription that cancels it. Subclasses override ``receive(_:)``.
class Observation<Value>: Subscription {
    /// The list that holds the entry; it clears this when it drops the entry or goes away, so
    /// the entry never reaches a freed list.
    unowned(unsafe) var list: ObserverList<Value>?

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
