/// When springs are next due (to rest, or to be predicted exactly), on the bank's clock: a binary
/// min-heap on (due, spring), so each step pops exactly the springs due and scans nothing else,
/// and ties pop in spring order, the same on every run.
///
/// Entries are never searched for or removed early: a spring whose entry is replaced bumps its
/// stamp, and a popped entry whose stamp no longer matches is dropped.
struct RestSchedule {
    struct Entry {
        var due: Double
        var spring: UInt32
        var stamp: UInt32

        func precedes(_ other: Entry) -> Bool {
            due != other.due ? due < other.due : spring < other.spring
        }
    }

    private(set) var entries: [Entry] = []
    /// `entries[..<heapCount]` is the heap; the entries after it were inserted since the schedule
    /// was last read, and join it then (``restoreHeap()``): a step that queues a whole group of
    /// springs (a storage-order write's changes, a group woken at once) builds the heap in linear
    /// time instead of sifting each entry up through it.
    private var heapCount = 0

    var count: Int { entries.count }

    /// The earliest time any entry is due.
    var nextDue: Double? {
        mutating get {
            restoreHeap()
            return entries.first?.due
        }
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        heapCount = 0
    }

    /// Room for `count` entries (a bank reserved for that many springs: one entry a spring).
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
    }

    mutating func insert(due: Double, spring: UInt32, stamp: UInt32) {
        entries.append(Entry(due: due, spring: spring, stamp: stamp))
    }

    /// Removes and returns the earliest entry if it is due by `reading`.
    mutating func popDue(by reading: Double) -> Entry? {
        restoreHeap()
        guard let first = entries.first, first.due <= reading else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(from: 0)
        }
        heapCount = entries.count
        return first
    }

    /// Joins the entries inserted since the last read to the heap: each sifted up when they are
    /// few, the whole heap rebuilt bottom-up (Floyd: linear) when they are many.
    private mutating func restoreHeap() {
        let pending = entries.count - heapCount
        guard pending > 0 else { return }
        if pending * 8 > entries.count {
            for parent in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(from: parent) }
        } else {
            for index in heapCount..<entries.count { siftUp(from: index) }
        }
        heapCount = entries.count
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let count = entries.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var smallest = left
            let right = left + 1
            if right < count, entries[right].precedes(entries[left]) { smallest = right }
            guard entries[smallest].precedes(entries[parent]) else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
