/// The subscribers of one source, notified in the order they subscribed.
///
/// Delivery walks the list by index up to the count it had when the delivery began, so a callback
/// may subscribe (the newcomer waits for the next delivery), cancel itself or any other subscriber
/// (a cancelled entry is skipped, and the list is compacted only once no delivery is running), or
/// write to the source again (a nested delivery): nobody is skipped and nobody is called twice for
/// one delivery. Delivering allocates nothing.
final class ObserverList<Value> {
    final class Entry {
        var callback: ((Value) -> Void)?
        init(_ callback: @escaping (Value) -> Void) { self.callback = callback }
    }

    // Never accessed across a callback (each read of `entries` ends before the call), so the
    // runtime exclusivity checks a class property would get on every delivery are not needed.
    @exclusivity(unchecked) private var entries: [Entry] = []
    @exclusivity(unchecked) private var deliveryDepth = 0
    @exclusivity(unchecked) private var hasCancelledEntries = false

    /// Adds a subscriber; it receives every value sent after this call.
    func add(_ callback: @escaping (Value) -> Void) -> Subscription {
        let entry = Entry(callback)
        entries.append(entry)
        return Subscription(onCancel: { [weak self] in
            entry.callback = nil
            self?.entryCancelled()
        })
    }

    /// Calls every subscriber connected when the call begins, in order.
    func send(_ value: Value) {
        let end = entries.count
        guard end > 0 else { return }
        deliveryDepth += 1
        var index = 0
        while index < end {
            if let callback = entries[index].callback { callback(value) }
            index += 1
        }
        deliveryDepth -= 1
        if deliveryDepth == 0, hasCancelledEntries { compact() }
    }

    private func entryCancelled() {
        hasCancelledEntries = true
        if deliveryDepth == 0 { compact() }
    }

    private func compact() {
        entries.removeAll { $0.callback == nil }
        hasCancelledEntries = false
    }
}
