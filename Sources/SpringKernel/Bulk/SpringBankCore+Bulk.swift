/// One element of a bulk call, as its check pass leaves it: the spring's record, the batch it
/// goes to and its lanes there. The apply pass reads these instead of converting and checking
/// each input again.
struct StagedLanes {
    var record: UInt32
    var batch: Int32
    var displacement: UInt32
    var velocity: UInt32
    var target: UInt32
}

/// The apply passes of the bulk calls that add, remove and reconfigure many springs. Each runs
/// only after its call has checked every element (``SpringBankCore/staged``), so none throws
/// part way: a refused call changes nothing.
extension SpringBankCore {
    /// Clears the marks (`listedAt`) the staged elements' records carry through a bulk call: on
    /// its way out, whether it applied or was refused.
    func unmarkStagedRecords() {
        for i in 0..<staged.count { records[Int(staged[i].record)].listedAt = 0 }
    }

    /// Adds a spring for each staged element, all of one configuration and tolerance, writing
    /// their handles to `handles`.
    ///
    /// - Throws: ``SpringKernelError/tooManySprings`` or ``SpringKernelError/tooManyConfigurations``,
    ///   before anything changes.
    func addStaged(
        configuration: SpringConfiguration, tolerance: Double, scale: LaneScale, userValues: UnsafeBufferPointer<UInt64>?,
        into handles: UnsafeMutableBufferPointer<SpringHandle>
    ) throws(SpringKernelError) {
        let count = handles.count
        guard springCount <= Self.maximumSpringCount - count else { throw .tooManySprings }
        guard count > 0 else { return }
        try reserveRecords(appending: max(0, count - freeRecords.count))
        let batchIndex = try batchIndex(for: configuration, scale: scale)
        try reserveSlots(count, inBatch: batchIndex)
        // The last freed records, taken in the order they were freed: springs removed as a list
        // and added again as one reuse their records (and the schedule entries those keep) in
        // list order, so an effect restarted every frame finds its own entry.
        let reused = min(count, freeRecords.count), firstReused = freeRecords.count - reused
        for i in 0..<count {
            let lanes = staged[i]
            let free = i < reused ? freeRecords[firstReused + i] : nil
            let index = newRecord(reusing: free, tolerance: tolerance)
            staged[i].record = UInt32(index)
            attach(
                record: index, batchIndex: batchIndex, displacement: lanes.displacement, velocity: lanes.velocity, target: lanes.target,
                userValue: userValues?[i] ?? 0)
            handles[i] = handle(ofRecord: index)
        }
        springCount += count
        freeRecords.removeLast(reused)
        stagedTrajectoriesChanged(lanesAreStaged: true)
    }

    /// Removes every listed spring; refuses the whole list, changing nothing, if a handle is not
    /// a live spring of this bank or a spring is listed twice (its second listing would name a
    /// removed spring: ``SpringKernelError/staleHandle(_:)``).
    func remove(_ springs: UnsafeBufferPointer<SpringHandle>) throws(SpringKernelError) {
        try checkMutable()
        touchedBatches.removeAll(keepingCapacity: true)
        for i in springs.indices {
            do throws(SpringKernelError) {
                let index = try recordIndex(springs[i])
                guard records[index].listedAt == 0 else { throw .staleHandle(springs[i]) }
                records[index].listedAt = 1
                noteDeparture(fromBatch: Int(places[index].batch))
            } catch {
                for listed in springs[..<i] { records[Int(listed.index)].listedAt = 0 }
                for batchIndex in touchedBatches { batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.pendingRemovals = 0 } }
                throw error
            }
        }
        // A batch losing a quarter of its springs or more is compacted once, in one pass over its
        // slots, instead of filling each hole from the end of its region (a copy and a record
        // write at a random slot per spring).
        decideDepartures()
        freeRecords.reserveCapacity(freeRecords.count + springs.count)
        for spring in springs {
            let index = Int(spring.index)
            let batchIndex = Int(places[index].batch)
            let atOnce = batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.dropsRemovalsAtOnce }
            records[index].listedAt = 0
            if removeChecked(record: index, detaching: !atOnce) { retireBatchIfEmpty(batchIndex) }
        }
        dropDepartedSlotsOfTouchedBatches()
    }

    /// Counts, for each batch, the springs a bulk call takes out of it, and decides which drop
    /// their slots at once at the end of the call (a quarter of the batch or more).
    private func noteDeparture(fromBatch batchIndex: Int) {
        batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            if batch.pendingRemovals == 0 { touchedBatches.append(batchIndex) }
            batch.pendingRemovals += 1
        }
    }

    private func decideDepartures() {
        for batchIndex in touchedBatches {
            batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.dropsRemovalsAtOnce = 4 * $0.pendingRemovals >= $0.count }
        }
    }

    /// Whether springs leaving the batch leave their slots for ``dropDepartedSlotsOfTouchedBatches()``.
    private func dropsDeparturesAtOnce(_ batchIndex: Int) -> Bool {
        batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.dropsRemovalsAtOnce }
    }

    /// At the end of a bulk call: each batch that drops its departures at once loses, in one pass,
    /// every slot whose spring no longer lives there; the batches touched are reset, and those
    /// left empty retire.
    private func dropDepartedSlotsOfTouchedBatches() {
        for batchIndex in touchedBatches {
            let isEmpty = batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
                defer { (batch.pendingRemovals, batch.dropsRemovalsAtOnce) = (0, false) }
                guard batch.dropsRemovalsAtOnce else { return false }
                dropDepartedSlots(batch, index: batchIndex)
                return batch.count == 0
            }
            if isEmpty { retireBatchIfEmpty(batchIndex) }
        }
        touchedBatches.removeAll(keepingCapacity: true)
    }

    /// Takes out of the batch every slot whose spring no longer lives there (removed, or moved to
    /// another batch, by the call under way), keeping the others in order, so each region stays
    /// whole.
    private func dropDepartedSlots(_ batch: ConfigurationBatch, index batchIndex: Int) {
        var kept = 0, moving = 0, awake = 0
        for slot in 0..<batch.count {
            let spring = Int(batch.springOfSlot[slot])
            guard Int(places[spring].batch) == batchIndex, Int(places[spring].slot) == slot else { continue }
            if slot < batch.movingCount { moving += 1 }
            if slot < batch.awakeCount { awake += 1 }
            if kept != slot {
                batch.copySlot(slot, to: kept)
                places[spring].slot = Int32(kept)
            }
            kept += 1
        }
        for slot in kept..<batch.count { batch.clearSlot(slot) }
        batch.count = kept
        batch.awakeCount = awake
        batch.movingCount = moving
    }

    /// Room in each staged spring's destination batch for the springs of the call from it on, made
    /// before any spring moves: a batch filled by the call (an engine alternating two
    /// configurations) grows once, not by doubling, and growth the system cannot give throws
    /// ``SpringKernelError/outOfMemory`` with no spring moved.
    func reserveStagedArrivals() throws(SpringKernelError) {
        for i in 0..<staged.count where Int(places[Int(staged[i].record)].batch) != Int(staged[i].batch) {
            try reserveSlots(staged.count - i, inBatch: Int(staged[i].batch))
        }
    }

    /// Moves each staged spring to its staged batch (its configuration and lane scale) with its
    /// staged displacement and velocity, keeping its target, masks and pause depth; a spring
    /// already there is predicted again. Batches it empties retire once all have moved (see
    /// ``SpringBankCore/retireBatchIfEmpty(_:)``), so a batch that some spring leaves and another
    /// joins in the same call stays.
    ///
    /// - Parameter lanesStaged: the staged lanes are the ones to store; false when the lanes move
    ///   unchanged (one lane scale), read from the old slot as it is left.
    func setConfigurationStaged(lanesStaged: Bool) {
        var emptied: [Int] = []
        let count = staged.count
        touchedBatches.removeAll(keepingCapacity: true)
        for i in 0..<count where Int(places[Int(staged[i].record)].batch) != Int(staged[i].batch) {
            noteDeparture(fromBatch: Int(places[Int(staged[i].record)].batch))
        }
        decideDepartures()
        // Awake springs move first, resting ones after: a resting spring already in a batch is
        // moved aside by every awake spring that joins it after (a copy of its slot each time).
        var restingLeft = false
        for pass in 0..<2 {
            for i in 0..<count {
                let element = staged[i]
                let index = Int(element.record), newBatch = Int(element.batch)
                let (oldBatch, slot) = location(ofRecord: index)
                // Already there: only predicted again (below), as every awake spring of the call is.
                guard oldBatch != newBatch else { continue }
                let wasAwake = batchObjects[oldBatch].unsafelyUnwrapped._withUnsafeGuaranteedRef { slot < $0.awakeCount }
                guard wasAwake == (pass == 0) else {
                    restingLeft = true
                    continue
                }
                let lanes = lanesStaged
                    ? (displacement: element.displacement, velocity: element.velocity, target: element.target)
                    : lanePatterns(ofRecord: index)
                // Read from its old slot before that slot is dropped or filled.
                let userValue = userValue(ofRecord: index)
                // A batch losing many springs drops their slots at the end, in one pass.
                if !dropsDeparturesAtOnce(oldBatch), detach(record: index) { emptied.append(oldBatch) }
                // Room was made before the call changed anything (``reserveStagedArrivals()``).
                attach(
                    record: index, batchIndex: newBatch, displacement: lanes.displacement, velocity: lanes.velocity,
                    target: lanes.target, userValue: userValue, keepAwake: wasAwake)
            }
            guard restingLeft else { break }
        }
        dropDepartedSlotsOfTouchedBatches()
        for batch in emptied { retireBatchIfEmpty(batch) }
        stagedTrajectoriesChanged(lanesAreStaged: lanesStaged)
    }

    /// Releases the batches a refused bulk call made for its staged elements (those still empty).
    func releaseStagedBatches(andAlso extra: Int) {
        if extra >= 0 { releaseBatchIfEmpty(extra) }
        for i in 0..<staged.count { releaseBatchIfEmpty(Int(staged[i].batch)) }
    }
}
