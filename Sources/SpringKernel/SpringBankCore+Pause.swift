/// A pause mask: a set of springs that one source (a gesture recognizer, say) pauses and resumes
/// together. Its members are kept as lane words per bundle, so pausing or resuming the whole set
/// is one carry ripple per bundle word (``PauseDepth``), not a call per spring.
struct PauseMaskRecord {
    var generation: UInt32 = 0
    var isLive = false
    /// Whether the mask currently holds its members paused.
    var isPausing = false
    /// Member lanes, one word per bundle.
    var members = MaskMembers()
    var memberCount = 0
}

extension SpringBankCore {
    static func bundleKey(batch: Int, slot: Int) -> UInt64 {
        UInt64(batch) << 32 | UInt64(BundleIndexing.bundle(ofSlot: slot))
    }

    static func split(bundleKey key: UInt64) -> (batch: Int, bundle: Int) {
        (Int(key >> 32), Int(key & 0xFFFF_FFFF))
    }

    func maskIndex(_ id: PauseMaskID) throws(SpringKernelError) -> Int {
        guard id.bankTag == tag else { throw .foreignHandle }
        let index = Int(id.index)
        guard index < masks.count, masks[index].isLive, masks[index].generation == id.generation else {
            throw .stalePauseMask(id)
        }
        return index
    }

    func maskID(ofIndex index: Int) -> PauseMaskID {
        PauseMaskID(index: UInt32(index), generation: masks[index].generation, bankTag: tag)
    }

    /// Sets or clears one mask's bit for a slot.
    private func setMemberBit(mask: Int, batch: Int, slot: Int, present: Bool) {
        let key = Self.bundleKey(batch: batch, slot: slot)
        let bit = BundleIndexing.laneBit(ofSlot: slot)
        if present {
            masks[mask].members.insert(key: key, bit: bit)
        } else {
            masks[mask].members.remove(key: key, bit: bit)
        }
    }

    /// Sets or clears a spring's bit in every mask that lists it.
    func setMaskBits(ofRecord index: Int, batch: Int, slot: Int, present: Bool) {
        forEachMask(ofRecord: index) { setMemberBit(mask: $0, batch: batch, slot: slot, present: present) }
    }

    // MARK: Which masks list a spring

    /// Calls `body` with each mask that lists the spring: the record's two, then any extras.
    @inline(__always)
    func forEachMask(ofRecord index: Int, _ body: (Int) -> Void) {
        let record = records[index]
        guard record.firstMask != Self.noMask else { return }
        body(Int(record.firstMask))
        guard record.secondMask != Self.noMask else { return }
        body(Int(record.secondMask))
        if let extra = extraMasks[index] { for mask in extra { body(Int(mask)) } }
    }

    func masks(ofRecord index: Int) -> [Int] {
        var list: [Int] = []
        forEachMask(ofRecord: index) { list.append($0) }
        return list
    }

    func isMember(record index: Int, mask: Int) -> Bool {
        let record = records[index]
        if record.firstMask == UInt32(mask) || record.secondMask == UInt32(mask) { return true }
        return record.secondMask != Self.noMask && (extraMasks[index]?.contains(UInt32(mask)) ?? false)
    }

    /// Notes that `mask` lists the spring (not already noted).
    func addMembership(record index: Int, mask: Int) {
        if records[index].firstMask == Self.noMask {
            records[index].firstMask = UInt32(mask)
        } else if records[index].secondMask == Self.noMask {
            records[index].secondMask = UInt32(mask)
        } else {
            extraMasks[index, default: []].append(UInt32(mask))
        }
    }

    /// Forgets that `mask` lists the spring, keeping the record's fields filled in order.
    func removeMembership(record index: Int, mask: Int) {
        var list = masks(ofRecord: index)
        guard let at = list.firstIndex(of: mask) else { return }
        list.remove(at: at)
        records[index].firstMask = list.count > 0 ? UInt32(list[0]) : Self.noMask
        records[index].secondMask = list.count > 1 ? UInt32(list[1]) : Self.noMask
        extraMasks[index] = list.count > 2 ? list[2...].map { UInt32($0) } : nil
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
        if masks[mask].isPausing { try resume(id, restart: { _ throws(SpringKernelError) in nil }) }
        for spring in memberRecords(ofMask: mask) {
            removeMembership(record: spring, mask: mask)
        }
        masks[mask] = PauseMaskRecord(generation: masks[mask].generation &+ 1)
        freeMasks.append(UInt32(mask))
    }

    /// The record indices of a mask's members, in record order.
    func memberRecords(ofMask mask: Int) -> [Int] {
        var springs: [Int] = []
        springs.reserveCapacity(masks[mask].memberCount)
        for word in masks[mask].members {
            let (batchIndex, bundle) = Self.split(bundleKey: word.key)
            let batch = batches[batchIndex].unsafelyUnwrapped
            forEachLane(word.lanes) { springs.append(Int(batch.springOfSlot[bundle * BundleIndexing.laneCount + $0])) }
        }
        return springs.sorted()
    }

    func forEachLane(_ lanes: UInt16, _ body: (Int) -> Void) {
        var remaining = lanes
        while remaining != 0 {
            body(remaining.trailingZeroBitCount)
            remaining &= remaining - 1
        }
    }

    func insert(_ handle: SpringHandle, into id: PauseMaskID) throws(SpringKernelError) {
        try checkMutable()
        let index = try recordIndex(handle)
        let mask = try maskIndex(id)
        guard !isMember(record: index, mask: mask) else { return }
        let (batch, slot) = batch(ofRecord: index)
        if masks[mask].isPausing {
            guard batch.pauseDepth.depth(slot: slot) < PauseDepth.maximumDepth else { throw .pauseDepthExceeded(handle) }
            let bundle = BundleIndexing.bundle(ofSlot: slot)
            batch.pauseDepth.increment(bundle: bundle, lanes: BundleIndexing.laneBit(ofSlot: slot))
            batch.refreshPausedLanes(bundle: bundle)
        }
        addMembership(record: index, mask: mask)
        setMemberBit(mask: mask, batch: Int(records[index].batch), slot: slot, present: true)
        masks[mask].memberCount += 1
    }

    func remove(_ handle: SpringHandle, from id: PauseMaskID) throws(SpringKernelError) {
        try checkMutable()
        let index = try recordIndex(handle)
        let mask = try maskIndex(id)
        guard isMember(record: index, mask: mask) else { throw .notInMask(handle, id) }
        removeMembership(record: index, mask: mask)
        removeMember(record: index, mask: mask)
    }

    /// Takes a spring out of a mask's member bits and, if the mask is pausing, lets go of its hold.
    /// A spring freed this way continues from the state it was paused in.
    func removeMember(record index: Int, mask: Int) {
        let (batch, slot) = batch(ofRecord: index)
        setMemberBit(mask: mask, batch: Int(records[index].batch), slot: slot, present: false)
        masks[mask].memberCount -= 1
        guard masks[mask].isPausing else { return }
        let bundle = BundleIndexing.bundle(ofSlot: slot)
        batch.pauseDepth.decrement(bundle: bundle, lanes: BundleIndexing.laneBit(ofSlot: slot))
        if batch.refreshPausedLanes(bundle: bundle).released != 0, slot < batch.awakeCount {
            trajectoryChanged(record: index)
        }
    }

    /// Adds the mask's hold to every member: word operations per bundle.
    func pause(_ id: PauseMaskID) throws(SpringKernelError) {
        try checkMutable()
        let mask = try maskIndex(id)
        guard !masks[mask].isPausing else { return }
        // Refuse before changing anything if a member is already held as deep as it can be.
        for word in masks[mask].members {
            let (key, lanes) = (word.key, word.lanes)
            let (batchIndex, bundle) = Self.split(bundleKey: key)
            let batch = batches[batchIndex].unsafelyUnwrapped
            let saturated = batch.pauseDepth.saturatedLanes(bundle: bundle) & lanes
            if saturated != 0 {
                let slot = bundle * BundleIndexing.laneCount + saturated.trailingZeroBitCount
                throw .pauseDepthExceeded(handle(ofRecord: Int(batch.springOfSlot[slot])))
            }
        }
        for word in masks[mask].members {
            let (key, lanes) = (word.key, word.lanes)
            let (batchIndex, bundle) = Self.split(bundleKey: key)
            let batch = batches[batchIndex].unsafelyUnwrapped
            batch.pauseDepth.increment(bundle: bundle, lanes: lanes)
            batch.refreshPausedLanes(bundle: bundle)
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
        for word in masks[mask].members {
            let (key, lanes) = (word.key, word.lanes)
            let (batchIndex, bundle) = Self.split(bundleKey: key)
            let batch = batches[batchIndex].unsafelyUnwrapped
            forEachLane(lanes & batch.pauseDepth.lanesHeldOnce(bundle: bundle)) {
                resumeScratch.append((batch.springOfSlot[bundle * BundleIndexing.laneCount + $0], nil))
            }
        }
        resumeScratch.sort { $0.spring < $1.spring }
        isRunningCallback = true
        defer { isRunningCallback = false }
        for i in resumeScratch.indices {
            resumeScratch[i].restart = try restart(handle(ofRecord: Int(resumeScratch[i].spring)))
        }
        isRunningCallback = false

        for word in masks[mask].members {
            let (key, lanes) = (word.key, word.lanes)
            let (batchIndex, bundle) = Self.split(bundleKey: key)
            let batch = batches[batchIndex].unsafelyUnwrapped
            batch.pauseDepth.decrement(bundle: bundle, lanes: lanes)
            batch.refreshPausedLanes(bundle: bundle)
        }
        masks[mask].isPausing = false
        for (spring, restart) in resumeScratch {
            let index = Int(spring)
            if let restart {
                setState(record: index, displacement: restart.displacement, velocity: restart.velocity)
            } else if isAwake(record: index) {
                trajectoryChanged(record: index)
            }
        }
    }

    /// How many masks hold a spring paused.
    func pauseDepth(record index: Int) -> Int {
        let (batch, slot) = batch(ofRecord: index)
        return batch.pauseDepth.depth(slot: slot)
    }
}
