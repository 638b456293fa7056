/// A pause mask: its generation, whether it is live and pausing, and its members, each a spring's
/// record and the edge that joins it to the mask (see ``MaskEdge``), kept in an array so that
/// pausing or resuming walks the members with independent loads, not a chain of them.
///
/// A mask of up to ``inlineMembers`` springs (a stream's pause in the interaction layer: a
/// `CGPoint`'s two components) keeps them in the record itself and allocates nothing; a larger
/// one keeps them all in one array of (spring, edge) pairs. 40 bytes on a 64-bit target, where
/// two arrays of their own took the record's 24 and two heap blocks (96 bytes with glibc) for
/// every mask.
struct PauseMaskRecord {
    /// The members a mask keeps in its record.
    static let inlineMembers = 2

    var generation: UInt32 = 0
    var isLive = false
    /// Whether the mask currently holds its members paused.
    var isPausing = false
    /// How many springs the mask lists.
    private(set) var memberCount: UInt32 = 0
    /// While ``spilled`` is empty: the first members' (spring, edge) pairs.
    private var inline: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
    /// Every member's (spring, edge) pair, once the mask listed more than ``inlineMembers``
    /// springs at once (empty, allocating nothing, until then; kept, with the members, until
    /// they are all gone).
    private var spilled: [UInt32] = []

    init(generation: UInt32 = 0) {
        self.generation = generation
    }

    /// The spring (record index) of member `position`.
    func member(at position: Int) -> UInt32 { pair(position * 2) }

    /// The edge of member `position`.
    func edge(at position: Int) -> UInt32 { pair(position * 2 + 1) }

    /// The last member's edge, if any.
    var lastEdge: UInt32? { memberCount > 0 ? edge(at: Int(memberCount) - 1) : nil }

    @inline(__always)
    private func pair(_ i: Int) -> UInt32 {
        guard spilled.isEmpty else { return spilled[i] }
        switch i {
        case 0: return inline.0
        case 1: return inline.1
        case 2: return inline.2
        default: return inline.3
        }
    }

    /// Lists `spring`, joined by `edge`, last.
    mutating func append(spring: UInt32, edge: UInt32) {
        let count = Int(memberCount)
        if spilled.isEmpty {
            switch count {
            case 0: inline.0 = spring; inline.1 = edge
            case 1: inline.2 = spring; inline.3 = edge
            default:
                spilled.reserveCapacity(2 * (count + 1))
                spilled.append(contentsOf: [inline.0, inline.1, inline.2, inline.3])
                spilled.append(spring)
                spilled.append(edge)
            }
        } else {
            spilled.append(spring)
            spilled.append(edge)
        }
        memberCount += 1
    }

    /// Puts the last member in place of member `position` (which leaves), then drops the last
    /// place; returns the edge that moved, if one did.
    mutating func removeMember(at position: Int) -> UInt32? {
        let last = Int(memberCount) - 1
        var moved: UInt32?
        if position != last {
            let (spring, edge) = (member(at: last), edge(at: last))
            if spilled.isEmpty {
                // position 0, last 1
                inline.0 = spring
                inline.1 = edge
            } else {
                spilled[position * 2] = spring
                spilled[position * 2 + 1] = edge
            }
            moved = edge
        }
        if !spilled.isEmpty { spilled.removeLast(2) }
        memberCount -= 1
        return moved
    }

    /// Calls `body` with every member's (spring, edge) pairs, flat, in member order: from a copy,
    /// so `body` may change the bank (not this mask's members).
    @inline(__always)
    func withMemberPairs<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt32>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let count = 2 * Int(memberCount)
        if spilled.isEmpty {
            let pairs = inline
            return try withUnsafeBytes(of: pairs) { (bytes) throws(Failure) -> Result in
                try body(UnsafeBufferPointer(rebasing: bytes.bindMemory(to: UInt32.self)[0..<count]))
            }
        }
        let pairs = spilled
        return try pairs.withUnsafeBufferPointer { (buffer) throws(Failure) -> Result in try body(buffer) }
    }
}

/// One mask listing one spring: membership stored once, as Box2D stores a contact between two
/// bodies, and reached from both sides: the mask's member array (walked to pause and resume it)
/// and the spring's list of masks (walked when it leaves the bank or a mask, a few edges at most).
/// A spring's slot is not stored here, so a spring can move between slots and batches without
/// touching its masks.
struct MaskEdge {
    /// The end of a list.
    static let none = UInt32.max

    var mask: UInt32
    var spring: UInt32
    /// The edge's place in its mask's member arrays.
    var position: UInt32
    var previousOfSpring = MaskEdge.none
    var nextOfSpring = MaskEdge.none
}

extension SpringBankCore {
    /// The deepest a spring can be held: the masks pausing it at once.
    static var maximumPauseDepth: Int { BankLimits.maximumPauseDepth }

    func maskIndex(_ id: PauseMaskID) throws(SpringKernelError) -> Int {
        try recordIndex(of: id, count: masks.count) { (masks[$0].isLive, masks[$0].generation) }
    }

    func maskID(ofIndex index: Int) -> PauseMaskID {
        PauseMaskID(index: UInt32(index), generation: masks[index].generation, bankTag: tag)
    }

    // MARK: Edges

    /// Calls `body` with each spring the mask lists. `body` must not change the mask's members.
    @inline(__always)
    func forEachMember<Failure: Error>(ofMask mask: Int, _ body: (Int) throws(Failure) -> Void) throws(Failure) {
        try masks[mask].withMemberPairs { (pairs) throws(Failure) in
            for i in stride(from: 0, to: pairs.count, by: 2) { try body(Int(pairs[i])) }
        }
    }

    /// The edge joining the spring and the mask, if the mask lists the spring.
    func edge(record index: Int, mask: Int) -> UInt32? {
        var edge = records[index].firstMaskEdge
        while edge != MaskEdge.none {
            if maskEdges[Int(edge)].mask == UInt32(mask) { return edge }
            edge = maskEdges[Int(edge)].nextOfSpring
        }
        return nil
    }

    /// Lists the spring in the mask: last of the mask's members, first of the spring's masks.
    private func addEdge(record index: Int, mask: Int) {
        var new = MaskEdge(mask: UInt32(mask), spring: UInt32(index), position: masks[mask].memberCount)
        new.nextOfSpring = records[index].firstMaskEdge
        let edge: UInt32
        if let free = freeMaskEdges.popLast() {
            edge = free
            maskEdges[Int(edge)] = new
        } else {
            edge = UInt32(maskEdges.count)
            maskEdges.append(new)
        }
        masks[mask].append(spring: UInt32(index), edge: edge)
        if new.nextOfSpring != MaskEdge.none { maskEdges[Int(new.nextOfSpring)].previousOfSpring = edge }
        records[index].firstMaskEdge = edge
    }

    /// Takes an edge out of its mask (the mask's last member takes its place) and its spring's list
    /// and, if its mask is pausing, lets go of the mask's hold on the spring. A spring freed this
    /// way continues from the state it was paused in.
    func removeEdge(_ edge: UInt32) {
        let e = maskEdges[Int(edge)]
        let mask = Int(e.mask), index = Int(e.spring), position = Int(e.position)
        if let moved = masks[mask].removeMember(at: position) { maskEdges[Int(moved)].position = UInt32(position) }
        if e.previousOfSpring != MaskEdge.none {
            maskEdges[Int(e.previousOfSpring)].nextOfSpring = e.nextOfSpring
        } else {
            records[index].firstMaskEdge = e.nextOfSpring
        }
        if e.nextOfSpring != MaskEdge.none { maskEdges[Int(e.nextOfSpring)].previousOfSpring = e.previousOfSpring }
        freeMaskEdges.append(edge)
        if masks[mask].isPausing { letGo(record: index) }
    }

    // MARK: Holds

    /// Adds one mask's hold; the first hold takes a moving spring out of the step.
    private func hold(record index: Int) {
        records[index].pauseDepth += 1
        if records[index].pauseDepth == 1, holdStill(record: index) { suspendSchedule(record: index) }
    }

    /// Removes one mask's hold; returns whether that freed the spring.
    @discardableResult
    private func letGo(record index: Int) -> Bool {
        records[index].pauseDepth -= 1
        guard records[index].pauseDepth == 0 else { return false }
        if release(record: index) { resumeSchedule(record: index) }
        return true
    }

    /// Undoes ``hold(record:)`` exactly, for a pause refused part way.
    private func undoHold(record index: Int) {
        records[index].pauseDepth -= 1
        if records[index].pauseDepth == 0, release(record: index) { unsuspendSchedule(record: index) }
    }

    // MARK: Masks

    func makePauseMask() throws(SpringKernelError) -> PauseMaskID {
        try checkMutable()
        let index: Int
        if let free = freeMasks.popLast() {
            index = Int(free)
        } else {
            index = masks.count
            masks.append(PauseMaskRecord())
        }
        masks[index].isLive = true
        return maskID(ofIndex: index)
    }

    func removePauseMask(_ id: PauseMaskID) throws(SpringKernelError) {
        try checkMutable()
        let mask = try maskIndex(id)
        if masks[mask].isPausing { try resume(id) }
        while let edge = masks[mask].lastEdge { removeEdge(edge) }
        masks[mask] = PauseMaskRecord(generation: masks[mask].generation &+ 1)
        if masks[mask].generation <= generationLimit { freeMasks.append(UInt32(mask)) }
    }

    /// The record indices of a mask's members, in record order.
    func memberRecords(ofMask mask: Int) -> [Int] {
        var springs: [Int] = []
        springs.reserveCapacity(Int(masks[mask].memberCount))
        forEachMember(ofMask: mask) { springs.append($0) }
        return springs.sorted()
    }

    func insert(_ handle: SpringHandle, into id: PauseMaskID) throws(SpringKernelError) {
        try checkMutable()
        let index = try recordIndex(handle)
        let mask = try maskIndex(id)
        guard edge(record: index, mask: mask) == nil else { return }
        if masks[mask].isPausing {
            guard Int(records[index].pauseDepth) < Self.maximumPauseDepth else { throw .pauseDepthExceeded(handle) }
            hold(record: index)
        }
        addEdge(record: index, mask: mask)
    }

    func remove(_ handle: SpringHandle, from id: PauseMaskID) throws(SpringKernelError) {
        try checkMutable()
        let index = try recordIndex(handle)
        let mask = try maskIndex(id)
        guard let edge = edge(record: index, mask: mask) else { throw .notInMask(handle, id) }
        removeEdge(edge)
    }

    /// Adds the mask's hold to every member; members that were moving leave the step.
    func pause(_ id: PauseMaskID) throws(SpringKernelError) {
        try checkMutable()
        let mask = try maskIndex(id)
        guard !masks[mask].isPausing else { return }
        try masks[mask].withMemberPairs { (pairs) throws(SpringKernelError) in
            for position in stride(from: 0, to: pairs.count, by: 2) {
                let index = Int(pairs[position])
                if Int(records[index].pauseDepth) == Self.maximumPauseDepth {
                    // Refused: the members held so far are let go exactly as they were.
                    for held in stride(from: 0, to: position, by: 2) { undoHold(record: Int(pairs[held])) }
                    throw .pauseDepthExceeded(handle(ofRecord: index))
                }
                hold(record: index)
            }
        }
        masks[mask].isPausing = true
    }

    /// Removes the mask's hold from every member. Members no other mask holds start moving again,
    /// from the state `restart` gives (nil: from the state they were paused in).
    ///
    /// `restart` is asked about every freed spring, in spring order, before anything changes; if it
    /// throws, the bank is left as it was. It must not change the bank (that throws
    /// ``SpringKernelError/reentrantMutation``).
    func resume(
        _ id: PauseMaskID,
        restart: (SpringHandle) throws(SpringKernelError) -> (displacement: UInt32, velocity: UInt32)?
    ) throws(SpringKernelError) {
        try checkMutable()
        let mask = try maskIndex(id)
        guard masks[mask].isPausing else { return }
        resumeScratch.removeAll(keepingCapacity: true)
        forEachMember(ofMask: mask) { index in
            if records[index].pauseDepth == 1 { resumeScratch.append((UInt32(index), nil)) }
        }
        // Members usually join in handle order: sort only when they did not.
        if !resumeScratch.indices.dropFirst().allSatisfy({ resumeScratch[$0 - 1].spring < resumeScratch[$0].spring }) {
            resumeScratch.sort { $0.spring < $1.spring }
        }
        isRunningCallback = true
        defer { isRunningCallback = false }
        for i in resumeScratch.indices {
            resumeScratch[i].restart = try restart(handle(ofRecord: Int(resumeScratch[i].spring)))
        }
        isRunningCallback = false

        masks[mask].isPausing = false
        for (spring, restart) in resumeScratch {
            let index = Int(spring)
            guard let restart else {
                letGo(record: index)
                continue
            }
            // Back among the moving, then given its restart state (which wakes it if it rested).
            records[index].pauseDepth = 0
            if isAwake(record: index) { release(record: index) }
            setState(record: index, displacement: restart.displacement, velocity: restart.velocity)
        }
        // Members still held by another mask keep their place among the paused.
        forEachMember(ofMask: mask) { index in
            if records[index].pauseDepth > 1 { records[index].pauseDepth -= 1 }
        }
    }

    /// ``resume(_:restart:)`` with the restart states staged (``SpringBankCore/staged``, checked
    /// by the caller): a freed member that is staged moves from its staged displacement and
    /// velocity (the last one if staged twice), any other freed member from where it was paused.
    /// Staged springs the resume does not free are left alone. One walk of the members, the
    /// staged springs found by a mark in their records, not a table.
    func resumeStaged(mask: Int) {
        guard masks[mask].isPausing else { return }
        let count = staged.count
        for i in 0..<count {
            records[Int(staged[i].record)].listedAt = UInt32(i + 1)
            staged[i].batch = -1  // not restarted (yet): no new prediction
        }
        masks[mask].isPausing = false
        forEachMember(ofMask: mask) { index in
            guard records[index].pauseDepth == 1 else {
                // Still held by another mask: it keeps its place among the paused.
                records[index].pauseDepth -= 1
                return
            }
            let listed = Int(records[index].listedAt)
            guard listed != 0 else {
                letGo(record: index)
                return
            }
            let restart = staged[listed - 1]
            // Back among the moving, then given its restart state (which wakes it if it rested);
            // predicted below, with the others, in one loop.
            records[index].pauseDepth = 0
            setLanes(record: index, displacement: restart.displacement, velocity: restart.velocity, releasing: true)
            staged[listed - 1].batch = 0
        }
        unmarkStagedRecords()
        stagedTrajectoriesChanged(lanesAreStaged: true)
    }

    /// ``resume(_:restart:)`` with nothing to ask: one walk, each freed spring moving on from where
    /// it was paused.
    func resume(_ id: PauseMaskID) throws(SpringKernelError) {
        try checkMutable()
        let mask = try maskIndex(id)
        guard masks[mask].isPausing else { return }
        masks[mask].isPausing = false
        forEachMember(ofMask: mask) { letGo(record: $0) }
    }

    /// How many masks hold a spring paused.
    func pauseDepth(record index: Int) -> Int { Int(records[index].pauseDepth) }
}
