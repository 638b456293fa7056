import _SpringKernelShims

/// Rest for springs whose targets move every frame (a drag, an attachment, a camera follow): the
/// watch, Box2D's sleep check in the solver's loop rather than a schedule entry per change.
///
/// A retarget changes the spring's trajectory, and the rest schedule
/// (`SpringBankCore+Settle.swift`) would give it a new due time: a lower bound from its state, a
/// heap entry moved, and the exact prediction again whenever the bound comes due. A spring
/// retargeted every frame paid that every frame, hundreds of times the step. Instead a retarget
/// of a moving spring only writes its lanes and marks its slot (``ConfigurationBatch/retargetedLanes``,
/// one bit), and the rest rule is applied where the springs are:
///
/// - **After each step**, a spring retargeted before it rests if its exact motion from its state
///   now stays within its tolerance (``SettlePredictor/restTime(displacement:velocity:tolerance:motion:)``
///   is 0; under a fixed clock, ``SettlePredictor/restFrame(displacement:velocity:tolerance:motion:frameDuration:)``
///   is 0): the rule the schedule applies, "rest on the first frame that ends at or after the
///   last time the motion leaves the band", asked of the one frame. The exact question is asked
///   only of the springs whose displacement lies within their batch's band (the largest tolerance
///   of its springs, a little loosened: a spring outside it cannot be at rest), found by the step
///   itself, a block of bundles at a time while their lanes are cached (``StepWatch``,
///   `sk_watch_candidates`). A dragged spring lags its target by more than its tolerance and is
///   never asked.
/// - **Before the next step**, a spring retargeted before the last step and not since is watched
///   once more (a pointer that stands still for a frame at a turn); after a second step without a
///   retarget (the drag stopped) it goes back to the rest schedule, anchored at its lanes then: the
///   motion it follows from its last change, two steps on. From there the schedule predicts its
///   rest exactly, once.
///
/// So a spring is either watched (retargeted before the step) or on the schedule, never both: a
/// schedule entry of a watched spring is dropped when it pops (or with the rest of them, once many
/// have: see ``settleDueSprings()``), and a spring that leaves the
/// moving springs while watched (paused) goes back to the schedule first. A spring changed any
/// other way (an impulse, a new state or configuration) is anchored by the schedule at once, and
/// its marks cleared. The marks follow their spring from slot to slot like its lanes.
///
/// Cost: a retarget writes its lanes and a bit; a frame with watched springs adds a pass over
/// the watched batches' marks before the step and after it (four bundles a 64-bit word), the
/// band's compare in the step, and for each spring found within its band the probes of
/// ``RestProbes`` (the exact search only when they cannot tell).
extension SpringBankCore {
    /// A spring not moving (at rest, or paused) whose displacement and target lanes a retarget
    /// wrote: a resting one is woken and marked for the watch (or left at rest if its state is
    /// still a rest); a paused one is predicted again, as any change of a paused spring is.
    func retargetedAtRestOrPaused(record index: Int) {
        if isAwake(record: index) { setState(record: index) } else { wakeRetargeted(record: index) }
    }

    /// Puts back the lanes a refused bulk retarget logged in `staged`, latest first.
    func undoLoggedRetargets() {
        for i in stride(from: staged.count - 1, through: 0, by: -1) {
            let (batchIndex, slot) = location(ofRecord: Int(staged[i].record))
            let lanes = batchLanes[batchIndex]
            lanes.displacements.storeBytes(of: staged[i].displacement, toByteOffset: slot * 4, as: UInt32.self)
            lanes.targets.storeBytes(of: staged[i].target, toByteOffset: slot * 4, as: UInt32.self)
        }
        staged.removeAll()
        loggedRetargetsNotMoving = 0
    }

    /// An accepted bulk retarget: the springs it found at rest or paused are woken or predicted.
    func finishLoggedRetargets() {
        guard loggedRetargetsNotMoving > 0 else { return }
        loggedRetargetsNotMoving = 0
        for i in 0..<staged.count where staged[i].batch != 0 { retargetedAtRestOrPaused(record: Int(staged[i].record)) }
    }

    /// A resting spring whose target (and so displacement) a retarget has written: woken and
    /// marked for the watch if it moves now (a paused one goes through the schedule), left at
    /// rest with exact zeros if its state is still a rest.
    ///
    /// Still a rest: the new target is where it is, or within its tolerance of it, so that its
    /// exact motion from there never leaves the band (``restsNow(record:)``, the rule the watch
    /// applies after a step, asked now). It stays at rest, snapped onto its new target, as the
    /// step would rest it (a frame later, after a wake): no slot moves and no event, since it
    /// never left rest. A target moved by less than the tolerance each frame (a finger held on
    /// the glass) costs the retarget's lane writes and this question.
    func wakeRetargeted(record index: Int) {
        let (batchIndex, slot) = location(ofRecord: index)
        let tolerance = tolerance(record: index)
        // One look-up of its batch: a hold asks this of every spring, every frame.
        let keptAtRest = batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch -> Bool in
            let displacement = batch.displacements[slot], velocity = batch.velocities[slot]
            // Its velocity is 0 (a retarget moves only the displacement of a spring at rest): the
            // energy bound answers from the lanes, with no probe read, and the exact question is
            // left to the sliver of the band it cannot tell.
            guard isRestState(displacement: displacement, velocity: velocity)
                || (velocity == 0
                    && RestProbes.staysWithinFromStandstill(
                        displacement: batch.motionState(displacement: displacement, velocity: 0).displacement, tolerance: tolerance))
                || restsNow(batch: batch, slot: slot, tolerance: tolerance)
            else { return false }
            // Snapped onto its new target (exact zeros, no −0).
            batch.displacements[slot] = 0
            batch.velocities[slot] = 0
            return true
        }
        guard !keptAtRest else { return }
        wake(record: index)
        let movedTo = Int(places[index].slot)
        let watched = batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { markRetargeted(batch: $0, slot: movedTo) }
        if !watched { trajectoryChanged(record: index) }
    }

    /// Marks the moving springs in `slots` of `batch` with `changed` (bit l of `changed[b]`: slot
    /// 16b + l, as a streamed write leaves them) as retargeted.
    func noteRetargeted(batch: ConfigurationBatch, changedLanes changed: UnsafePointer<UInt16>, slots: Range<Int>) {
        let moving = Swift.min(slots.upperBound, batch.movingCount)
        guard moving > 0 else { return }
        let marks = batch.retargetedLanes.base
        // Whole bundles four at a time (a word of marks), then the rest one by one, the last
        // cut to the moving springs.
        let whole = moving / BundleIndexing.laneCount, words = whole / 4
        let source = UnsafeRawPointer(changed), target = UnsafeMutableRawPointer(marks)
        var any: UInt64 = 0
        for w in 0..<words {
            let lanes = source.loadUnaligned(fromByteOffset: w * 8, as: UInt64.self)
            target.storeBytes(of: target.load(fromByteOffset: w * 8, as: UInt64.self) | lanes, toByteOffset: w * 8, as: UInt64.self)
            any |= lanes
        }
        for b in words * 4..<BundleIndexing.bundleCount(springs: moving) {
            let lanes = changed[b] & BundleIndexing.liveLanes(bundle: b, springs: moving)
            marks[b] |= lanes
            any |= UInt64(lanes)
        }
        if any != 0, !batch.isWatching { startWatching(batch) }
    }

    /// Marks the spring in `slot` retargeted if it is moving (the watch decides its rest from the
    /// next step on); returns whether it was.
    @inline(__always)
    func markRetargeted(batch: ConfigurationBatch, slot: Int) -> Bool {
        guard slot < batch.movingCount else { return false }
        batch.retargetedLanes[slot] = true
        if !batch.isWatching { startWatching(batch) }
        return true
    }

    /// Lists the batch among those the watch visits.
    func startWatching(_ batch: ConfigurationBatch) {
        batch.isWatching = true
        batch.stepWatch.pointee.band = watchBand(batch)
        watchingBatches.append(Int32(batch.index))
        frameState.pointee.needsPreparation = true
    }

    /// Widens the band of the spring's batch to its tolerance (and lowers its least tolerance to it).
    func raiseWatchBand(record index: Int) {
        let tolerance = tolerance(record: index)
        batchObjects[Int(places[index].batch)].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            if tolerance > batch.maximumTolerance { batch.maximumTolerance = tolerance }
            batch.lowerMinimumTolerance(to: tolerance)
        }
    }

    /// Whether the spring in a live record is watched, or retargeted since the last step.
    func isWatched(record index: Int) -> Bool {
        let (batchIndex, slot) = location(ofRecord: index)
        return batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.isWatched(slot: slot) }
    }

    /// Before a step: the springs retargeted since the last step are watched by this one; so are
    /// those the last step watched, once more (aged), if they were not retargeted since: a pointer
    /// that stands still for a frame (at a turn, its target the same bits twice) does not send
    /// them back to the schedule. Aged springs not retargeted since go back to the rest
    /// schedule, anchored at their lanes now (two steps after their last change).
    func prepareWatchedSprings() {
        var kept = 0
        for i in 0..<watchingBatches.count {
            let batchIndex = Int(watchingBatches[i])
            guard let object = batchObjects[batchIndex] else { continue }
            let stillWatching = object._withUnsafeGuaranteedRef { batch -> Bool in
                // Four bundles' marks a word. Every slot in use: the marks are only ever set on
                // moving springs, but a slot past them with a mark would otherwise keep it.
                let words = (BundleIndexing.bundleCount(springs: batch.count) + 3) / 4
                let watched = UnsafeMutableRawPointer(batch.watchedLanes.base), aged = UnsafeMutableRawPointer(batch.agedLanes.base)
                let retargeted = UnsafeMutableRawPointer(batch.retargetedLanes.base)
                var any: UInt64 = 0
                for w in 0..<words {
                    let offset = w * 8
                    let now = retargeted.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    let last = watched.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    var leaving = aged.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & ~now
                    aged.storeBytes(of: last & ~now, toByteOffset: offset, as: UInt64.self)
                    watched.storeBytes(of: now, toByteOffset: offset, as: UInt64.self)
                    retargeted.storeBytes(of: 0, toByteOffset: offset, as: UInt64.self)
                    any |= now | last
                    while leaving != 0 {
                        let slot = w * 4 * BundleIndexing.laneCount + leaving.trailingZeroBitCount
                        leaving &= leaving - 1
                        trajectoryChanged(record: Int(batch.springOfSlot[slot]), batch: batch, slot: slot)
                    }
                }
                batch.isWatching = any != 0
                // The band as it is now: a spring added or given a larger tolerance widens it.
                if any != 0 { batch.stepWatch.pointee.band = watchBand(batch) }
                return any != 0
            }
            if stillWatching {
                watchingBatches[kept] = Int32(batchIndex)
                kept += 1
            }
        }
        watchingBatches.removeLast(watchingBatches.count - kept)
    }

    /// After a step: every watched spring whose exact motion from its state now stays within its
    /// tolerance rests (listed in `restedInLastStep`). The step found the watched springs within
    /// their batch's band (``ConfigurationBatch/candidateLanes``, see ``StepWatch``); the marks
    /// are read again here, since a spring the step saturated has left the watch since.
    func settleWatchedSprings() {
        watchCandidates.removeAll(keepingCapacity: true)
        for batchIndex in watchingBatches {
            batchObjects[Int(batchIndex)].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
                let moving = batch.movingCount
                guard moving > 0 else { return }
                let bundles = BundleIndexing.bundleCount(springs: moving)
                let candidates = batch.candidateLanes.base, watched = batch.watchedLanes.base, aged = batch.agedLanes.base
                // Most are carried through the band at speed: a probe of the batch's band, from
                // the lanes, turns them away before their records are read.
                let probes = batch.restProbes, band = batch.maximumTolerance
                // Four bundles a word (the marks are whole words); the last bundle cut to the
                // moving springs.
                let words = (bundles + 3) / 4
                let found = UnsafeRawPointer(candidates), watchedWords = UnsafeRawPointer(watched), agedWords = UnsafeRawPointer(aged)
                for w in 0..<words {
                    let offset = w * 8
                    var lanes = found.load(fromByteOffset: offset, as: UInt64.self)
                        & (watchedWords.load(fromByteOffset: offset, as: UInt64.self) | agedWords.load(fromByteOffset: offset, as: UInt64.self))
                    if w == words - 1 { lanes &= Self.liveWordLanes(bundles: bundles, springs: moving) }
                    while lanes != 0 {
                        let slot = w * 4 * BundleIndexing.laneCount + lanes.trailingZeroBitCount
                        lanes &= lanes - 1
                        let (displacement, velocity) = batch.motionState(slot: slot)
                        if probes.pointee.leavesBand(displacement: displacement, velocity: velocity, tolerance: band) { continue }
                        watchCandidates.append(batch.springOfSlot[slot])
                    }
                }
            }
        }
        // Decided once all are found: a rest moves slots.
        for spring in watchCandidates {
            let index = Int(spring)
            guard restsNow(record: index) else { continue }
            rest(record: index)
            restedInLastStep.append(handle(ofRecord: index))
        }
    }

    /// Whether the spring's exact motion from its lanes now stays within its tolerance: for any
    /// later frame durations under a variable clock, at every later frame under a fixed one.
    private func restsNow(record index: Int) -> Bool {
        let (batchIndex, slot) = location(ofRecord: index)
        let tolerance = tolerance(record: index)
        // Unretained, as on every per-spring path.
        return batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef {
            restsNow(batch: $0, slot: slot, tolerance: tolerance)
        }
    }

    /// ``restsNow(record:)`` of the spring in `slot` of `batch`, whose tolerance is `tolerance`.
    private func restsNow(batch: ConfigurationBatch, slot: Int, tolerance: Double) -> Bool {
        let (displacement, velocity) = batch.motionState(slot: slot)
        guard abs(displacement) <= tolerance else { return false }
        // Within the band for good: at rest under a variable clock, and at every later frame of a
        // fixed one. Outside it at a later time: at rest under neither.
        let probes = batch.restProbes
        if probes.pointee.staysWithin(displacement: displacement, velocity: velocity, tolerance: tolerance) { return true }
        if probes.pointee.leavesBand(displacement: displacement, velocity: velocity, tolerance: tolerance) { return false }
        switch frameClock {
        case .variable:
            return SettlePredictor.restTime(
                displacement: displacement, velocity: velocity, tolerance: tolerance, motion: batch.motion) <= 0
        case .fixed(let frameDuration):
            return fixedClockRestFrame!(displacement, velocity, tolerance, batch.motion, frameDuration) == 0
        }
    }

    /// The lanes of the last word of marks (four bundles) over `bundles` bundles that hold
    /// moving springs, of `springs`: the step looked at those bundles only, and the last one's
    /// lanes past `springs` are not moving.
    static func liveWordLanes(bundles: Int, springs: Int) -> UInt64 {
        let first = (bundles - 1) / 4 * 4
        var lanes: UInt64 = 0
        for b in first..<bundles {
            lanes |= UInt64(BundleIndexing.liveLanes(bundle: b, springs: springs)) << (16 * UInt64(b - first))
        }
        return lanes
    }

    /// The batch's band as a lane magnitude (``sk_watch_candidates``' `band`): its largest
    /// tolerance, loosened so that no lane's rounding can keep a spring at rest out of it (a float
    /// lane by 2⁻¹⁰, an integer lane by a sixteenth and two units).
    func watchBand(_ batch: ConfigurationBatch) -> UInt32 {
        let tolerance = batch.maximumTolerance
        guard let unit = Lanes.integerLaneUnit else {
            return Float(tolerance * (1 + 0x1p-10)).nextUp.bitPattern
        }
        let lanes = (tolerance / (unit * batch.scale.displacementFactor) * (1 + 1.0 / 16) + 2).rounded(.up)
        return lanes < 0x1p31 ? UInt32(lanes) : UInt32(Int32.max)
    }
}

extension ConfigurationBatch {
    /// Whether the spring in `slot` is watched or retargeted since the last step.
    @inline(__always)
    func isWatched(slot: Int) -> Bool { retargetedLanes[slot] || watchedLanes[slot] || agedLanes[slot] }

    /// Clears the watch's marks of `slot`.
    @inline(__always)
    func unwatch(slot: Int) {
        retargetedLanes[slot] = false
        watchedLanes[slot] = false
        agedLanes[slot] = false
    }
}
