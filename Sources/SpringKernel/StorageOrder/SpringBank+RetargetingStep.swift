import _SpringKernelShims

/// A frame in which every target may move (a drag, an attachment, a camera follow) as one pass
/// over the lanes: the retarget is applied by the step itself.
///
/// ``SpringBank/retarget(in:to:)`` then ``SpringBank/step(dt:path:)`` reads and writes each
/// spring's lanes twice: the retarget reads the goals, targets and displacements and writes the
/// targets and displacements, and the step reads and writes the displacements and velocities
/// again. Here the call first checks the goals alone (a refused goal changes nothing) and sends
/// the springs leaving the watch to the schedule (the watch's preparation, for the springs the
/// last step aged: none in a steady drag), then the step pulls each lane toward its goal as it
/// advances it, moving the watch's marks on as it goes (`sk_advance_retargeting_f32`).
extension SpringBank {
    /// Pulls the layout's i-th spring toward `targets[i]`, for every i, and advances every moving
    /// spring by `dt`: ``retarget(in:to:)`` then ``step(dt:path:)``, the same lanes, rests and
    /// events to the bit, in one pass over the lanes where the two calls make two.
    ///
    /// Float32 banks whose retargeted springs are all moving take the one pass. Otherwise (a
    /// Q16.16 bank, whose retarget checks each motion against its format's bounds; a spring at
    /// rest or paused given a new target; a target refused) the call is ``retarget(in:to:)``
    /// then ``step(dt:path:)``.
    ///
    /// - Parameters:
    ///   - dt: the frame's duration, as ``step(dt:path:)`` takes it.
    ///   - layout: the bank's current ``StorageLayout`` of the springs `targets` are for.
    ///   - targets: one target per spring of `layout`, in its order.
    ///   - path: ``StepPath/simd`` or the bit-identical ``StepPath/scalar`` loop.
    /// - Throws: what ``retarget(in:to:)`` or ``step(dt:path:)`` throws, the frame duration
    ///   checked first; nothing is changed then.
    ///
    /// - Complexity: what ``retarget(in:to:)`` and ``step(dt:path:)`` cost, less a pass over
    ///   the moving springs' lanes.
    @inlinable @inline(__always)
    public func step(
        dt: Double, retargetingIn layout: StorageLayout, to targets: UnsafeBufferPointer<Lanes.Value>, path: StepPath = .simd
    ) throws(SpringKernelError) {
        guard let retargeting = try core.prepareRetargetingStep(layout, goals: UnsafeRawBufferPointer(targets), duration: dt) else {
            try retarget(in: layout, to: targets)
            return try step(dt: dt, path: path)
        }
        let state = frameState
        StepExecution.advance(state, retargeting: retargeting, path: path, lanes: Lanes.self)
        state.pointee.frame += 1
        state.pointee.time += dt
        if state.pointee.frame >= state.pointee.nextDueFrame || state.pointee.time >= state.pointee.nextDueTime {
            core.finishStep(saturated: false)
        }
    }
}

extension SpringBankCore {
    /// Before a step that also retargets the springs of `layout` to `goals` (one API value
    /// each): checks the call as ``SpringBank/retarget(in:to:)`` and ``SpringBank/step(dt:path:)``
    /// check theirs, does what the watch's preparation (``prepareWatchedSprings()``) does before
    /// the lanes move, prepares the step, and returns each planned batch's target lanes and goals;
    /// the step moves the watch's marks on as it goes. Nil, with nothing changed, when the call is
    /// to go as the retarget then the step: a format that does not retarget in its step, a goal
    /// that moves a spring at rest or paused, or a goal refused (the retarget names it). Refuses a
    /// frame duration the step would refuse, before anything is changed.
    @usableFromInline
    func prepareRetargetingStep(
        _ layout: StorageLayout, goals: UnsafeRawBufferPointer, duration: Double
    ) throws(SpringKernelError) -> UnsafePointer<RetargetingLanes>? {
        try checkMutable(predictingChanges: false)
        try checkFrameDuration(duration)
        guard Lanes.retargetsInStep else { return nil }
        try check(layout, count: goals.count / MemoryLayout<UInt32>.size)
        guard let goals = goals.baseAddress else { return nil }
        let laneSize = MemoryLayout<UInt32>.size
        // Every goal checked; a goal for a spring at rest or paused that moves it leaves the call
        // to the two calls (it wakes or predicts that spring, which moves slots).
        var fuses = true, items = 0
        forEachRun(in: layout.region) { batch, slots, offset in
            guard fuses else { return }
            let moving = Swift.min(batch.movingCount, slots)
            fuses = (moving == slots
                || sk_lanes_differ(goals + (offset + moving) * laneSize, batch.targets.base + moving * laneSize, slots - moving) == 0)
                && Lanes.acceptsAll(goals: goals + offset * laneSize, count: moving)
            if moving > 0 { items += 1 }
        }
        guard fuses else { return nil }
        if retargetingCapacity < items {
            retargetingLanes?.deallocate()
            retargetingCapacity = Swift.max(items, 2 * retargetingCapacity)
            retargetingLanes = .allocate(capacity: retargetingCapacity)
        }
        let retargeting = retargetingLanes.unsafelyUnwrapped
        // Every batch with moving springs is watched by this step (one whose springs keep their
        // targets finds none to watch, and leaves the watch at the next step).
        items = 0
        forEachRun(in: layout.region) { batch, slots, offset in
            guard batch.movingCount > 0 else { return }
            (retargeting + items).initialize(
                to: RetargetingLanes(targets: batch.targets.base, goals: goals + offset * laneSize, batch: batch.index))
            items += 1
            if !batch.isWatching { startWatching(batch) }
        }
        // The springs the last step watched once more (aged) that are neither retargeted since
        // nor given a new goal leave the watch for the schedule, anchored at their lanes now, as
        // the watch's preparation sends them, in its order; and every band as it is now.
        for batchIndex in watchingBatches {
            batchObjects[Int(batchIndex)].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
                batch.stepWatch.pointee.band = watchBand(batch)
                let moving = batch.movingCount
                let goalLanes = Self.goals(ofBatch: batch.index, in: UnsafeBufferPointer(start: retargeting, count: items))
                let words = (BundleIndexing.bundleCount(springs: batch.count) + 3) / 4
                let aged = UnsafeRawPointer(batch.agedLanes.base), retargeted = UnsafeRawPointer(batch.retargetedLanes.base)
                for w in 0..<words {
                    var leaving = aged.load(fromByteOffset: w * 8, as: UInt64.self) & ~retargeted.load(fromByteOffset: w * 8, as: UInt64.self)
                    while leaving != 0 {
                        let slot = w * 4 * BundleIndexing.laneCount + leaving.trailingZeroBitCount
                        leaving &= leaving - 1
                        if slot < moving, let goalLanes,
                           goalLanes.load(fromByteOffset: slot * laneSize, as: UInt32.self) != batch.targets[slot] { continue }
                        trajectoryChanged(record: Int(batch.springOfSlot[slot]), batch: batch, slot: slot)
                    }
                }
            }
        }
        try prepareStep(duration: duration, watchMovesInStep: true)
        // The plan's batches are those with moving springs, in the order of the runs.
        precondition(frameState.pointee.plan.workCount == items, "the step's plan and the layout's runs disagree")
        retargetingStepsInOnePass += 1
        return UnsafePointer(retargeting)
    }

    /// Where the goals of batch `index`'s slots start, found among `items` (in batch order), or
    /// nil if it has no moving springs.
    private static func goals(ofBatch index: Int, in items: UnsafeBufferPointer<RetargetingLanes>) -> UnsafeRawPointer? {
        var low = 0, high = items.count
        while low < high {
            let middle = (low + high) / 2
            if items[middle].batch < index { low = middle + 1 } else { high = middle }
        }
        return low < items.count && items[low].batch == index ? items[low].goals : nil
    }
}
