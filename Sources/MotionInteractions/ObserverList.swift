/// The subscribers of one source, notified in the order they subscribed.
///
/// Delivery walks the list by index up to the count it had when the delivery began, so a callback
/// may subscribe (the newcomer waits for the next delivery), cancel itself or any other subscriber
/// (a cancelled entry is skipped, and the list is compacted only once no delivery is running), or
/// write to the source again (a nested delivery): nobody is skipped and nobody is called twice for
/// one delivery. Delivering allocates nothing.
///
/// The callbacks sit in the list's own buffer, so a delivery reaches each callback's context
/// directly. A subscription finds its entry through an ``ObserverToken`` that the list keeps up to
/// date and disowns when it goes away, so no weak reference is needed (a weak reference would give
/// the list a side table, and every retain of it a trip through that table).
final class ObserverList<Value> {
    private struct Entry {
        var callback: ((Value) -> Void)?
        let token: ObserverToken<Value>
    }

    // Never accessed across a callback (each read of `entries` ends before the call), so the
    // runtime exclusivity checks a class property would get on every delivery are not needed.
    @exclusivity(unchecked) private var entries: [Entry] = []
    @exclusivity(unchecked) private var deliveryDepth = 0
    @exclusivity(unchecked) private var hasCancelledEntries = false

    deinit {
        for entry in entries { entry.token.list = nil }
    }

    /// Adds a subscriber; it receives every value sent after this call.
    func add(_ callback: @escaping (Value) -> Void) -> Subscription {
        let token = ObserverToken(list: self, index: entries.count)
        entries.append(Entry(callback: callback, token: token))
        return Subscription(onCancel: { token.cancel() })
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

    /// Stops calling the entry at `index` (its token's).
    fileprivate func cancel(at index: Int) {
        entries[index].callback = nil
        hasCancelledEntries = true
        if deliveryDepth == 0 { compact() }
    }

    private func compact() {
        var kept = 0
        for index in entries.indices {
            let entry = entries[index]
            guard entry.callback != nil else {
                entry.token.list = nil
                continue
            }
            entry.token.index = kept
            entries[kept] = entry
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        hasCancelledEntries = false
    }
}

/// Where one subscriber's entry is in its ``ObserverList``, for its subscription to cancel it.
///
/// The list updates `index` when it compacts and clears `list` when the entry leaves (cancelled)
/// or the list is deallocated, so `list` never points at a freed list.
final class ObserverToken<Value> {
    unowned(unsafe) var list: ObserverList<Value>?
    var index: Int

    init(list: ObserverList<Value>, index: Int) {
        self.list = list
        self.index = index
    }

    /// Removes the entry from its list, if both are still there.
    func cancel() {
        guard let list else { return }
        list.cancel(at: index)
    }
}
