/// The frames at which springs are predicted to come to rest: a binary min-heap on
/// (frame, spring), so each frame pops exactly the springs due and scans nothing else, and ties
/// pop in spring order, the same on every run.
///
/// Entries are never searched for or removed early: a spring whose trajectory changes bumps its
/// stamp, and a popped entry whose stamp no longer matches is dropped.
struct RestSchedule {
    struct Entry {
        var frame: Int
        var spring: UInt32
        var stamp: UInt32

        func precedes(_ other: Entry) -> Bool {
            frame != other.frame ? frame < other.frame : spring < other.spring
        }
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }

    /// The earliest frame any entry is due.
    var nextFrame: Int? { entries.first?.frame }

    mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

    mutating func insert(frame: Int, spring: UInt32, stamp: UInt32) {
        entries.append(Entry(frame: frame, spring: spring, stamp: stamp))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry if it is due by `frame`.
    mutating func popDue(by frame: Int) -> Entry? {
        guard let first = entries.first, first.frame <= frame else { return nil }
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
