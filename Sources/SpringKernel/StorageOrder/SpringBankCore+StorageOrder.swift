/// Slots `lower..<upper` of a batch, whose springs are awake and changed trajectory in a
/// storage-order write since the last prediction.
struct ChangedRun {
    var batch: Unmanaged<ConfigurationBatch>
    var lower: Int32
    var upper: Int32
}

/// The bank's own order of springs (see ``StorageLayout``): the walk over it that reads and
/// writes in storage order share, and the caller's user values, kept by slot so that walk streams
/// them.
extension SpringBankCore {
    /// The caller's own value for the spring (an entity id, an index into its tables).
    func userValue(ofRecord index: Int) -> UInt64 {
        let (batch, slot) = location(ofRecord: index)
        return batchObjects[batch].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.userValues[slot] }
    }

    func setUserValue(_ userValue: UInt64, ofRecord index: Int) {
        let (batch, slot) = location(ofRecord: index)
        batchObjects[batch].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.userValues[slot] = userValue }
    }

    /// Moved on whenever a spring changes slot or region.
    var layoutVersion: UInt64 { frameState.pointee.layoutVersion }

    /// How many of a batch's slots, from slot 0, lie in `region`.
    static func slots(of batch: ConfigurationBatch, in region: StorageRegion) -> Int {
        switch region {
        case .all: batch.count
        case .moving: batch.movingCount
        }
    }

    /// The bank's current order of the springs in `region`.
    func layout(of region: StorageRegion) -> StorageLayout {
        var count = 0
        for batch in batches {
            if let batch { count += Self.slots(of: batch, in: region) }
        }
        return StorageLayout(region: region, count: count, version: layoutVersion, bankTag: tag)
    }

    /// Refuses a layout this bank no longer has (or never made), or buffers not of its length.
    func check(_ layout: StorageLayout, count: Int) throws(SpringKernelError) {
        guard layout.bankTag == tag, layout.version == layoutVersion else { throw .staleLayout }
        guard count == layout.count else { throw .countMismatch(expected: layout.count, given: count) }
    }

    /// Calls `body` with each batch holding springs of `region`, in storage order, with how many
    /// of its slots (from 0) are in it and where they start in the layout.
    @inline(__always)
    func forEachRun<Failure: Error>(
        in region: StorageRegion, _ body: (_ batch: ConfigurationBatch, _ slots: Int, _ offset: Int) throws(Failure) -> Void
    ) throws(Failure) {
        var offset = 0
        for index in batches.indices {
            guard let batch = batches[index] else { continue }
            let slots = Self.slots(of: batch, in: region)
            guard slots > 0 else { continue }
            try body(batch, slots, offset)
            offset += slots
        }
    }
}

/// Storage-order writes that change springs leave their rest predictions to the next step.
///
/// A write that moves a million targets would otherwise predict a million springs as it goes
/// (a lower bound and a schedule entry each, a cache miss a spring in records that do not fit
/// the cache), several times the cost of the write's own bytes. Instead it notes which slots it
/// changed, as runs of slots per batch, and the next step (or the next call that could see or move
/// those springs, all of which pass ``SpringBankCore/checkMutable()``) gives each its due time,
/// walking the runs in slot order. Nothing can tell the difference: time does not move between
/// the write and the prediction, the lanes the prediction reads are those the write left, and the
/// springs cannot change slot before it (every slot move bumps the layout version, which the
/// prediction checks; moving one is a mutation, which predicts first).
extension SpringBankCore {

    /// Notes that the awake springs in `slots` of `batch` changed trajectory: they are predicted
    /// again before anything can see their schedule. Runs are merged with the last one when they
    /// touch it, and past a spring's worth of runs the notes are acted on, so they never hold
    /// more than the bank's springs.
    func trajectoriesChanged(batch: ConfigurationBatch, slots: Range<Int>) {
        guard !slots.isEmpty else { return }
        if changedRuns.isEmpty { changedRunsLayoutVersion = layoutVersion }
        frameState.pointee.needsPreparation = true
        let object = Unmanaged.passUnretained(batch)
        if let last = changedRuns.last, last.batch.toOpaque() == object.toOpaque(),
           Int(last.lower) <= slots.upperBound, slots.lowerBound <= Int(last.upper) {
            changedRuns[changedRuns.count - 1] = ChangedRun(
                batch: object, lower: Int32(Swift.min(Int(last.lower), slots.lowerBound)),
                upper: Int32(Swift.max(Int(last.upper), slots.upperBound)))
            return
        }
        changedRuns.append(ChangedRun(batch: object, lower: Int32(slots.lowerBound), upper: Int32(slots.upperBound)))
        if changedRuns.count > springCount + 64 { predictChangedRuns() }
    }

    /// Notes the slots a streamed retarget changed, from its per-bundle marks (bit l of
    /// `changedLanes[b]`: slot 16b + l): the moving ones marked for the watch (``noteRetargeted(batch:changedLanes:slots:)``),
    /// the paused ones as runs (predicted as any change is), the resting ones (those the stream
    /// did not keep at rest) in `woken`, to be woken, or kept at rest by their own tolerance, once
    /// the runs are predicted.
    func trajectoriesChanged(batch: ConfigurationBatch, changedLanes: UnsafePointer<UInt16>, slots: Int, woken: inout [Int]) {
        noteRetargeted(batch: batch, changedLanes: changedLanes, slots: 0..<slots)
        let moving = Swift.min(batch.movingCount, slots), awake = Swift.min(batch.awakeCount, slots)
        let bundles = BundleIndexing.bundleCount(springs: slots)
        var run = 0..<0
        for bundle in BundleIndexing.bundle(ofSlot: moving)..<bundles {
            var bits = UInt32(changedLanes[bundle])
            while bits != 0 {
                let lane = bits.trailingZeroBitCount
                bits &= bits - 1
                let slot = bundle * BundleIndexing.laneCount + lane
                guard slot >= moving else { continue }
                guard slot < awake else {
                    // At rest, and not kept there by the stream (its new target lies beyond its
                    // batch's least tolerance): woken, or kept by its own tolerance, once the walk
                    // is done.
                    woken.append(Int(batch.springOfSlot[slot]))
                    continue
                }
                if slot == run.upperBound {
                    run = run.lowerBound..<slot + 1
                } else {
                    trajectoriesChanged(batch: batch, slots: run)
                    run = slot..<slot + 1
                }
            }
        }
        trajectoriesChanged(batch: batch, slots: run)
    }

    /// Room for a streamed write's per-bundle marks over `springs` slots (kept between calls, so
    /// a write allocates nothing once it has written as many).
    func changedLaneMasks(springs: Int) -> UnsafeMutablePointer<UInt16> {
        let bundles = BundleIndexing.bundleCount(springs: springs)
        if bundles > changedLaneMaskCapacity {
            changedLaneMaskStorage.deallocate()
            changedLaneMaskCapacity = Swift.max(bundles, 2 * changedLaneMaskCapacity)
            changedLaneMaskStorage = .allocate(capacity: changedLaneMaskCapacity)
        }
        return changedLaneMaskStorage
    }

    /// Gives every spring a storage-order write changed its due time (``predictTrajectories(batch:slots:)``
    /// for each run, in slot order, so the records are walked as the write walked its lanes).
    func predictChangedRuns() {
        guard !changedRuns.isEmpty else { return }
        // The runs name slots: no spring may have moved since they were noted.
        let moved = changedRunsLayoutVersion != layoutVersion
        assert(!moved, "springs changed slot with storage-order changes still to predict")
        for run in changedRuns {
            run.batch._withUnsafeGuaranteedRef { batch in
                // Were a slot moved (a path that forgot to predict first), every awake spring of the
                // batch is predicted from its lanes now: never a due time from a state it left.
                let slots = moved ? 0..<batch.awakeCount : Int(run.lower)..<Swift.min(Int(run.upper), batch.awakeCount)
                if !slots.isEmpty { predictTrajectories(batch: batch, slots: slots) }
            }
        }
        changedRuns.removeAll(keepingCapacity: true)
    }
}
