/// The state a step reads and writes every frame, kept behind a pointer the bank owns so the
/// inlined step reaches it with plain loads and stores (no exclusivity check, no retain).
@usableFromInline
struct FrameState {
    /// The bit pattern of the frame duration `plan` was made for.
    @usableFromInline var readyDuration: UInt64 = 0
    /// Whether the next step must go through ``SpringBankCore/prepareStep(duration:)``: the plan is
    /// stale, or the last step's events must be cleared. The common frame takes its plan only
    /// when this is false and `dt` has `readyDuration`'s bits, so a `dt` that was never validated
    /// (zero, negative, NaN: any bit pattern) always reaches validation.
    @usableFromInline var needsPreparation = true
    /// The plan no longer describes the bank.
    var planIsStale = true
    @usableFromInline var plan: StepPlan
    /// The plan's first batch of work, kept inline: with one configuration the step reaches its
    /// lanes in two dependent loads (bank, frame state), which starts the loop sooner at small sizes.
    @usableFromInline var firstWork: LaneWork
    /// Steps taken so far.
    @usableFromInline var frame = 0
    /// Seconds stepped since the clock was last rebased (``SpringBankCore/rebaseClock()``): the
    /// rest schedule's reading, kept small so that its times stay precise.
    @usableFromInline var time = 0.0
    /// The earliest frame a spring is due under a fixed frame clock, `Int.max` when none is.
    @usableFromInline var nextDueFrame = Int.max
    /// The earliest time a spring is due under a variable frame clock, or the time the clock is
    /// to be rebased if that comes first (``SpringBankCore/rebaseTime``).
    @usableFromInline var nextDueTime = BankLimits.rebaseTime
    /// One result slot per thread of a step (``StepThreading/maximumThreads``).
    @usableFromInline var threadResults: UnsafeMutablePointer<Int>
    /// Moved on whenever a spring changes slot or region (see ``StorageLayout``).
    var layoutVersion: UInt64 = 1

    init(plan: StepPlan, firstWork: LaneWork, threadResults: UnsafeMutablePointer<Int>) {
        self.plan = plan
        self.firstWork = firstWork
        self.threadResults = threadResults
    }
}

/// Marks the bank's step plan stale. Shared by the bank and its batches: anything that changes
/// what a step advances (a batch's moving count or buffers, the set of batches, the
/// threading, a pending prediction) calls it, so no mutation path can forget to.
struct PlanValidity {
    let state: UnsafeMutablePointer<FrameState>
    func invalidate() {
        state.pointee.planIsStale = true
        state.pointee.needsPreparation = true
    }
}

/// What one step advances: the work of every batch with moving springs, and how many threads share it.
@usableFromInline
struct StepPlan {
    @usableFromInline let work: UnsafePointer<LaneWork>
    @usableFromInline let workCount: Int
    @usableFromInline let totalBundles: Int
    @usableFromInline let threadCount: Int

    init(work: UnsafePointer<LaneWork>, workCount: Int, totalBundles: Int, threadCount: Int) {
        self.work = work
        self.workCount = workCount
        self.totalBundles = totalBundles
        self.threadCount = threadCount
    }
}

extension SpringBankCore {
    /// Before a step that cannot take the common path: clears the last step's events, and if the
    /// plan is stale validates the step, brings the rest schedule up to date and lays out this
    /// frame's work. The plan is kept in ``FrameState`` and reused while nothing changes.
    ///
    /// `watchMovesInStep`: the step moves the watch's marks on itself (a step that retargets,
    /// ``prepareRetargetingStep(_:goals:duration:)``), which has sent the springs leaving the
    /// watch to the schedule already.
    @usableFromInline
    func prepareStep(duration: Double, watchMovesInStep: Bool = false) throws(SpringKernelError) {
        // Refuse before changing anything: a refused step keeps the last step's events.
        try checkMutable()
        try checkFrameDuration(duration)
        if !restedInLastStep.isEmpty { restedInLastStep.removeAll(keepingCapacity: true) }
        if !saturatedInLastStep.isEmpty { saturatedInLastStep.removeAll(keepingCapacity: true) }
        if !watchingBatches.isEmpty, !watchMovesInStep {
            prepareWatchedSprings()
            // The watch has ended: the schedule's own next due time again (while it lasts, every
            // step reaches finishStep, below).
            if watchingBatches.isEmpty, pending.isEmpty { publishNextDue() }
        }
        if !pending.isEmpty { schedulePendingSprings() }
        let batchesStillRetiring = !retiringBatches.isEmpty && releaseRetiredBatches()
        if frameState.pointee.planIsStale || frameState.pointee.readyDuration != duration.bitPattern {
            beginStep(duration: duration)
        }
        // A batch kept empty is looked at again at the next step; so is the watch, which also
        // looks at every spring it watches after this one.
        frameState.pointee.needsPreparation = batchesStillRetiring || !watchingBatches.isEmpty
        if !watchingBatches.isEmpty {
            frameState.pointee.nextDueTime = -.infinity
            frameState.pointee.nextDueFrame = .min
        }
    }

    /// Refuses a frame duration the step cannot take: not finite and positive, or not the fixed
    /// clock's.
    func checkFrameDuration(_ duration: Double) throws(SpringKernelError) {
        guard duration.isFinite, duration > 0 else { throw .invalidTimeStep(duration) }
        if case .fixed(let frameDuration) = frameClock, frameDuration.bitPattern != duration.bitPattern {
            throw .timeStepMismatch(declared: frameDuration, given: duration)
        }
    }

    /// Lays out this frame's work: one item per batch with moving springs, with its coefficients
    /// for `duration`. It costs a few operations per batch, never per spring.
    private func beginStep(duration: Double) {
        if workCapacity < batches.count {
            work.deallocate()
            workCapacity = max(batches.count, workCapacity * 2)
            work = .allocate(capacity: workCapacity)
        }
        var items = 0
        var bundles = 0
        var firstWork: LaneWork?
        for index in 0..<batchObjects.count {
            // Unretained, as on the per-event path: a new frame duration visits every batch.
            guard let object = batchObjects[index] else { continue }
            object._withUnsafeGuaranteedRef { batch in
                guard batch.movingCount > 0 else { return }
                let item = batch.work(coefficients: batch.coefficients(duration: duration, lanes: Lanes.self))
                (work + items).initialize(to: item)
                if items == 0 { firstWork = item }
                items += 1
                bundles += item.bundleCount
            }
        }
        let plan = StepPlan(
            work: UnsafePointer(work), workCount: items, totalBundles: bundles,
            threadCount: threading.threadCount(bundles: bundles))
        frameState.pointee.plan = plan
        // From the register copy, not read back from `work`: a load of the item just stored
        // there waits for the stores to retire (they are narrower than the load).
        if let firstWork { frameState.pointee.firstWork = firstWork }
        frameState.pointee.readyDuration = duration.bitPattern
        frameState.pointee.planIsStale = false
    }

    /// After a step with springs due or lanes saturated: marks the saturated springs and settles
    /// the due ones.
    @usableFromInline
    func finishStep(saturated: Bool) {
        if saturated { markSaturatedSprings() }
        let watching = !watchingBatches.isEmpty
        if watching { settleWatchedSprings() }
        if watching || frame >= frameState.pointee.nextDueFrame || time >= frameState.pointee.nextDueTime { settleDueSprings() }
        if time >= Self.rebaseTime { rebaseClock() }
        if watching || !restedInLastStep.isEmpty || !saturatedInLastStep.isEmpty { frameState.pointee.needsPreparation = true }
    }

    /// A step reported saturation: finds the moving lanes left at the format's bounds (a rare event,
    /// so a scan is fine), marks their springs and predicts them again.
    private func markSaturatedSprings() {
        for case let batch? in batches {
            for slot in 0..<batch.movingCount {
                guard Lanes.isSaturated(lanePattern: batch.displacements[slot])
                    || Lanes.isSaturated(lanePattern: batch.velocities[slot])
                else { continue }
                let spring = Int(batch.springOfSlot[slot])
                batch.displacements[slot] = Lanes.saturating(lanePattern: batch.displacements[slot])
                batch.velocities[slot] = Lanes.saturating(lanePattern: batch.velocities[slot])
                records[spring].wasSaturated = true
                saturationCount += 1
                saturatedInLastStep.append(handle(ofRecord: spring))
                // Clamped: its lanes left the exact motion its rest was predicted from.
                trajectoryChanged(record: spring)
            }
        }
    }
}
