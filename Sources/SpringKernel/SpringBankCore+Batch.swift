/// One element of a batch call, as its check pass leaves it: the spring's record, the batch it
/// goes to and its lanes there. The apply pass reads these instead of converting and checking
/// each input again.
struct StagedLanes {
    var record: UInt32
    var batch: Int32
    var displacement: UInt32
    var velocity: UInt32
    var target: UInt32
}

/// The apply passes of the batch calls that add, remove and reconfigure many springs. Each runs
/// only after its call has checked every element (``SpringBankCore/staged``), so none throws
/// part way: a refused call changes nothing.
extension SpringBankCore {
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
        let batchIndex = try batchIndex(for: configuration, scale: scale)
        records.reserveCapacity(records.count + max(0, count - freeRecords.count))
        batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.reserve($0.count + count) }
        // The last freed records, taken in the order they were freed: springs removed as a list
        // and added again as one reuse their records (and the schedule entries those keep) in
        // list order, so an effect restarted every frame finds its own entry.
        let reused = min(count, freeRecords.count), firstReused = freeRecords.count - reused
        for i in 0..<count {
            let lanes = staged[i]
            let free = i < reused ? freeRecords[firstReused + i] : nil
            let index = newRecord(reusing: free, tolerance: tolerance, userValue: userValues?[i] ?? 0)
            staged[i].record = UInt32(index)
            attach(record: index, batchIndex: batchIndex, displacement: lanes.displacement, velocity: lanes.velocity, target: lanes.target)
            handles[i] = handle(ofRecord: index)
        }
        springCount += count
        freeRecords.removeLast(reused)
        stagedTrajectoriesChanged()
    }

    /// Removes every listed spring; refuses the whole list, changing nothing, if a handle is not
    /// a live spring of this bank or a spring is listed twice (its second listing would name a
    /// removed spring: ``SpringKernelError/staleHandle(_:)``).
    func remove(_ springs: UnsafeBufferPointer<SpringHandle>) throws(SpringKernelError) {
        try checkMutable()
        for i in springs.indices {
            do throws(SpringKernelError) {
                let index = try recordIndex(springs[i])
                guard records[index].listedAt == 0 else { throw .staleHandle(springs[i]) }
                records[index].listedAt = 1
            } catch {
                for listed in springs[..<i] { records[Int(listed.index)].listedAt = 0 }
                throw error
            }
        }
        for spring in springs {
            let index = Int(spring.index)
            let batchIndex = Int(records[index].batch)
            records[index].listedAt = 0
            removeChecked(record: index)
            retireBatchIfEmpty(batchIndex)
        }
    }

    /// Moves each staged spring to its staged batch (its configuration and lane scale) with its
    /// staged displacement and velocity, keeping its target, masks and pause depth; a spring
    /// already there is predicted again. Batches it empties retire once all have moved (see
    /// ``SpringBankCore/retireBatchIfEmpty(_:)``), so a batch that some spring leaves and another
    /// joins in the same call stays.
    func setConfigurationStaged() {
        var emptied: [Int] = []
        let count = staged.count
        for i in 0..<count {
            let element = staged[i]
            let index = Int(element.record), newBatch = Int(element.batch)
            let (oldBatch, slot) = location(ofRecord: index)
            let wasAwake = batchObjects[oldBatch].unsafelyUnwrapped._withUnsafeGuaranteedRef { slot < $0.awakeCount }
            // Already there: only predicted again (below), as every awake spring of the call is.
            guard oldBatch != newBatch else { continue }
            _ = detach(record: index)
            if batchObjects[oldBatch].unsafelyUnwrapped._withUnsafeGuaranteedRef({ $0.count == 0 }) { emptied.append(oldBatch) }
            // Room for the rest of the call at once: a batch filled by the call (an engine
            // alternating two configurations) grows once, not by doubling.
            batchObjects[newBatch].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
                if batch.count == batch.capacity { batch.reserve(batch.count + count - i) }
            }
            attach(
                record: index, batchIndex: newBatch, displacement: element.displacement, velocity: element.velocity,
                target: element.target, keepAwake: wasAwake)
        }
        for batch in emptied { retireBatchIfEmpty(batch) }
        stagedTrajectoriesChanged()
    }

    /// Releases the batches a refused batch call made for its staged elements (those still empty).
    func releaseStagedBatches(andAlso extra: Int) {
        if extra >= 0 { releaseBatchIfEmpty(extra) }
        for i in 0..<staged.count { releaseBatchIfEmpty(Int(staged[i].batch)) }
    }
}
