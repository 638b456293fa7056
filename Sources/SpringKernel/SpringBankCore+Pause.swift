/// A pause mask: a set of springs that one source (a gesture recognizer, say) pauses and resumes
/// together. Its members are kept as lane words per bundle, so pausing or resuming the whole set
/// is one carry ripple per bundle word (``PauseDepth``), not a call per spring.
struct PauseMaskRecord {
    var generation: UInt32 = 0
    var isLive = false
    /// Whether the mask currently holds its members paused.
    var isPausing = false
    /// Member lanes, keyed by ``SpringBankCore/bundleKey(batch:slot:)``.
    var members: [UInt64: UInt16] = [:]
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
            masks[mask].members[key, default: 0] |= bit
        } else if let word = masks[mask].members[key] {
            let remaining = word & ~bit
            masks[mask].members[key] = remaining == 0 ? nil : remaining
        }
    }

    /// Sets or clears a spring's bit in every mask that lists it (its slot moved).
    func setMaskBits(ofRecord index: Int, batch: Int, slot: Int, present: Bool) {
        for mask in maskLists[index] {
            setMemberBit(mask: Int(mask), batch: batch, slot: slot, present: present)
        }
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
            maskLists[spring].removeAll { $0 == UInt32(mask) }
        }
        masks[mask] = PauseMaskRecord(generation: masks[mask].generation &+ 1)
        freeMasks.append(UInt32(mask))
    }

    /// The record indices of a mask's members, in record order.
    func memberRecords(ofMask mask: Int) -> [Int] {
        var springs: [Int] = []
        springs.reserveCapacity(masks[mask].memberCount)
        for (key, lanes) in masks[mask].members {
            let (batchIndex, bundle) = Self.split(bundleKey: key)
            let batch = batches[batchIndex].unsafelyUnwrapped
            forEachLane(lanes) { springs.append(Int(batch.springOfSlot[bundle * BundleIndexing.laneCount + $0])) }
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
        guard !maskLists[index].contains(UInt32(mask)) else { return }
        let (batch, slot) = batch(ofRecord: index)
        if masks[mask].isPausing {
            guard batch.pauseDepth.depth(slot: slot) < PauseDepth.maximumDepth else { throw .pauseDepthExceeded(handle) }
            let bundle = BundleIndexing.bundle(ofSlot: slot)
            batch.pauseDepth.increment(bundle: bundle, lanes: BundleIndexing.laneBit(ofSlot: slot))
            batch.refreshPausedLanes(bundle: bundle)
        }
        maskLists[index].append(UInt32(mask))
        setMemberBit(mask: mask, batch: Int(records[index].batch), slot: slot, present: true)
        masks[mask].memberCount += 1
    }

    func remove(_ handle: SpringHandle, from id: PauseMaskID) throws(SpringKernelError) {
        try checkMutable()
        let index = try recordIndex(handle)
        let mask = try maskIndex(id)
        guard maskLists[index].contains(UInt32(mask)) else { return }
        maskLists[index].removeAll { $0 == UInt32(mask) }
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
        for (key, lanes) in masks[mask].members {
            let (batchIndex, bundle) = Self.split(bundleKey: key)
            let batch = batches[batchIndex].unsafelyUnwrapped
            let saturated = batch.pauseDepth.saturatedLanes(bundle: bundle) & lanes
            if saturated != 0 {
                let slot = bundle * BundleIndexing.laneCount + saturated.trailingZeroBitCount
                throw .pauseDepthExceeded(handle(ofRecord: Int(batch.springOfSlot[slot])))
            }
        }
        for (key, lanes) in masks[mask].members {
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
        for (key, lanes) in masks[mask].members {
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

        for (key, lanes) in masks[mask].members {
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
