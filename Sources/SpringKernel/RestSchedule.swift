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

    var count: Int { entries.count }

    /// The earliest time any entry is due.
    var nextDue: Double? { entries.first?.due }

    mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

    mutating func insert(due: Double, spring: UInt32, stamp: UInt32) {
        entries.append(Entry(due: due, spring: spring, stamp: stamp))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry if it is due by `reading`.
    mutating func popDue(by reading: Double) -> Entry? {
        guard let first = entries.first, first.due <= reading else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(from: 0)
        }
        return first
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
