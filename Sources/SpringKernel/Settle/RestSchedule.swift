/// When springs are next due (to rest, or to be predicted exactly), on the bank's clock: a binary
/// min-heap on (due, spring), so each step pops exactly the springs due and scans nothing else,
/// and ties pop in spring order, the same on every run.
///
/// Entries are never searched for or removed early: a spring whose entry is replaced or dropped
/// changes its record's queued time (``SpringRecord/queuedDue``), and a popped entry whose due time
/// is not its record's is dropped.
struct RestSchedule {
    /// A due time and a spring's record, 12 bytes: the time's bits as two 32-bit halves, so that
    /// an entry needs no 8-byte alignment (a `Double` field would pad it to 16 bytes; the
    /// schedule keeps room for an entry a record).
    struct Entry {
        private var dueLow: UInt32
        private var dueHigh: UInt32
        var spring: UInt32

        init(due: Double, spring: UInt32) {
            dueLow = UInt32(truncatingIfNeeded: due.bitPattern)
            dueHigh = UInt32(truncatingIfNeeded: due.bitPattern >> 32)
            self.spring = spring
        }

        var due: Double {
            @inline(__always) get { Double(bitPattern: UInt64(dueHigh) << 32 | UInt64(dueLow)) }
        }

        @inline(__always)
        func precedes(_ other: Entry) -> Bool {
            let (a, b) = (due, other.due)
            return a != b ? a < b : spring < other.spring
        }
    }

    /// The entries: a table the bank owns (``deallocate()``), grown only where growth can be
    /// refused (``reserveCapacity(_:)``, ``growIfAvailable()``).
    let entries = UnsafeTable<Entry>()
    /// `entries[..<heapCount]` is the heap; the entries after it were inserted since the schedule
    /// was last read, and join it then (``restoreHeap()``): a step that queues a whole group of
    /// springs (a storage-order write's changes, a group woken at once) builds the heap in linear
    /// time instead of sifting each entry up through it.
    private var heapCount = 0

    var count: Int { entries.count }

    /// Whether the next insertion needs more room than the table has.
    var isFull: Bool { entries.count == entries.capacity }

    func deallocate() { entries.deallocate() }

    /// The earliest time any entry is due.
    var nextDue: Double? {
        mutating get {
            restoreHeap()
            return entries.count > 0 ? entries[0].due : nil
        }
    }

    mutating func removeAll() {
        entries.removeAll()
        heapCount = 0
    }

    /// Room for `count` entries (one a record: the bank keeps at least that, so that a compacted
    /// schedule always fits), or ``SpringKernelError/outOfMemory`` with the table as it was.
    func reserveCapacity(_ count: Int) throws(SpringKernelError) {
        guard count > entries.capacity else { return }
        // Doubled, so that springs added one at a time grow it a logarithmic number of times.
        let doubled = entries.capacity.multipliedReportingOverflow(by: 2)
        if !doubled.overflow, doubled.partialValue > count, entries.reserveCapacityIfAvailable(doubled.partialValue) { return }
        guard entries.reserveCapacityIfAvailable(count) else { throw .outOfMemory }
    }

    /// Doubles the room if the system can give it; false (the table as it was) when it cannot.
    func growIfAvailable() -> Bool {
        let (doubled, overflow) = entries.capacity.multipliedReportingOverflow(by: 2)
        return !overflow && entries.reserveCapacityIfAvailable(doubled)
    }

    /// Adds an entry; the table has room (see ``isFull``).
    mutating func insert(due: Double, spring: UInt32) {
        precondition(!isFull, "a rest schedule entry with no room")
        entries.append(Entry(due: due, spring: spring))
    }

    /// Removes and returns the earliest entry if it is due by `reading`.
    mutating func popDue(by reading: Double) -> Entry? {
        restoreHeap()
        guard entries.count > 0, entries[0].due <= reading else { return nil }
        let first = entries[0]
        let last = entries.removeLast()
        let count = entries.count
        if count > 0 {
            // Floyd's pop: the hole at the root goes down to a leaf along the earlier child, one
            // comparison a level (a sift of `last` from the root makes two), and `last` goes up
            // from there, rarely far: it came from the bottom.
            var hole = 0
            while true {
                let left = 2 &* hole &+ 1
                guard left < count else { break }
                let right = left &+ 1
                let child = right < count && entries[right].precedes(entries[left]) ? right : left
                entries[hole] = entries[child]
                hole = child
            }
            entries[hole] = last
            siftUp(from: hole)
        }
        heapCount = count
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
