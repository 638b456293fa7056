/// Settle detection by prediction, on the bank's ``FrameClock``.
///
/// A spring whose trajectory changes (start, retarget, impulse, resume, new configuration or
/// tolerance) joins `pending`; the next step gives it a due time in the ``RestSchedule`` and each
/// step pops only the springs due. Nothing here depends on the frame duration, so a new `dt`
/// every frame costs nothing, and nothing here is per spring-step.
///
/// With a variable clock the due time is first a cheap lower bound on the spring's rest time
/// (``SettlePredictor/restTimeLowerBound(displacement:velocity:tolerance:motion:)``); only a spring
/// still undisturbed when that time comes is predicted exactly, from the state it changed at, and
/// then rests on the first frame that reaches its exact rest time. A spring retargeted every frame is never predicted exactly,
/// and keeps one schedule entry: a change that moves its check later leaves the entry in place,
/// and the entry is queued again at the new time when it pops.
///
/// With a fixed clock every changed spring is predicted exactly at the next step, as a frame count.
extension SpringBankCore {
    /// The spring's trajectory changed: it is given a new due time, at once under a variable clock
    /// (a lower bound from the lanes just written, while they are in cache), at the next step
    /// under a fixed one or when it is paused.
    func trajectoryChanged(record index: Int) {
        let (batchIndex, slot) = location(ofRecord: index)
        // Unretained, as on every per-event path.
        batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
            trajectoryChanged(record: index, batch: batch, slot: slot)
        }
    }

    /// ``trajectoryChanged(record:)`` for a caller that holds the spring's batch and slot.
    func trajectoryChanged(record index: Int, batch: ConfigurationBatch, slot: Int) {
        // Anchored here: no longer the watch's (see `SpringBankCore+Watch.swift`).
        batch.unwatch(slot: slot)
        records[index].dueIsRest = false
        records[index].scheduleSuspended = false
        if case .variable = frameClock, !records[index].awaitingPrediction {
            if slot < batch.movingCount {
                scheduleLowerBound(record: index, batch: batch, slot: slot, now: time)
                if records[index].queuedDue < frameState.pointee.nextDueTime {
                    frameState.pointee.nextDueTime = records[index].queuedDue
                }
                return
            }
        }
        frameState.pointee.needsPreparation = true
        guard !records[index].awaitingPrediction else { return }
        records[index].awaitingPrediction = true
        pending.append(UInt32(index))
    }

    /// ``trajectoryChanged(record:batch:slot:)`` for each of a batch's `slots`, in slot order:
    /// under a variable clock the moving springs' lower bounds in one loop, the batch's motion
    /// and the clock read once (a storage-order write's changes, predicted at the next step).
    func predictTrajectories(batch: ConfigurationBatch, slots: Range<Int>) {
        guard case .variable = frameClock else {
            for slot in slots { trajectoryChanged(record: Int(batch.springOfSlot[slot]), batch: batch, slot: slot) }
            return
        }
        let now = time, motion = batch.motion
        let moving = Swift.min(slots.upperBound, Swift.max(slots.lowerBound, batch.movingCount))
        var nextDue = frameState.pointee.nextDueTime
        for slot in slots.lowerBound..<moving {
            let index = Int(batch.springOfSlot[slot])
            let record = records.address(of: index)
            guard !record.pointee.awaitingPrediction else {
                trajectoryChanged(record: index, batch: batch, slot: slot)
                continue
            }
            anchorLowerBound(
                record: index, batch: batch, displacement: batch.displacements[slot], velocity: batch.velocities[slot], motion: motion,
                now: now)
            nextDue = Swift.min(nextDue, record.pointee.queuedDue)
        }
        frameState.pointee.nextDueTime = nextDue
        // Paused mid-motion: predicted when they resume.
        for slot in moving..<slots.upperBound { trajectoryChanged(record: Int(batch.springOfSlot[slot]), batch: batch, slot: slot) }
    }

    /// ``trajectoryChanged(record:)`` for every staged spring that is awake, once a bulk call
    /// has placed them all (``SpringBankCore/staged``; an element whose `batch` is negative is
    /// skipped: a resume's listed spring it did not restart). Under a variable clock a moving spring's
    /// lower bound is computed here, in one loop with no call per spring, its batch's motion read
    /// once per run of springs in one batch; the others take the one-spring path.
    ///
    /// - Parameter lanesAreStaged: the staged displacement and velocity are the lanes the springs
    ///   now hold (a resume's restart states, an add's), so they are read from the staged list in
    ///   order rather than from each spring's slot again.
    func stagedTrajectoriesChanged(lanesAreStaged: Bool = false) {
        let count = staged.count
        guard case .variable = frameClock else {
            for i in 0..<count where staged[i].batch >= 0 && isAwake(record: Int(staged[i].record)) {
                trajectoryChanged(record: Int(staged[i].record))
            }
            return
        }
        let now = time
        var motionBatch = -1
        var motion: SpringMotion?
        for i in 0..<count where staged[i].batch >= 0 {
            let index = Int(staged[i].record)
            let (batchIndex, slot) = location(ofRecord: index)
            let batch = batchObjects[batchIndex].unsafelyUnwrapped
            let (isMoving, isAwake) = batch._withUnsafeGuaranteedRef { (slot < $0.movingCount, slot < $0.awakeCount) }
            guard isAwake else { continue }
            guard isMoving, !records[index].awaitingPrediction else {
                trajectoryChanged(record: index)
                continue
            }
            if batchIndex != motionBatch {
                motionBatch = batchIndex
                motion = batch._withUnsafeGuaranteedRef { $0.motion }
            }
            batch._withUnsafeGuaranteedRef { batch in
                anchorLowerBound(
                    record: index, batch: batch,
                    displacement: lanesAreStaged ? staged[i].displacement : batch.displacements[slot],
                    velocity: lanesAreStaged ? staged[i].velocity : batch.velocities[slot],
                    motion: motion.unsafelyUnwrapped, now: now)
            }
            if records[index].queuedDue < frameState.pointee.nextDueTime { frameState.pointee.nextDueTime = records[index].queuedDue }
        }
    }

    /// Drops the spring from the schedule (it rests or leaves the bank).
    func unschedule(record index: Int) {
        if records[index].queuedDue.isFinite { queuedSprings -= 1 }
        records[index].queuedDue = .infinity
        records[index].due = .infinity
        records[index].dueIsRest = false
        records[index].scheduleSuspended = false
    }

    /// The spring leaves the bank: its record keeps its schedule entry (its queued time,
    /// still counted in `queuedSprings`) until the entry pops or a new spring takes the record
    /// over, so a spring removed and another added every frame leaves nothing stale behind.
    func retireSchedule(record index: Int) {
        records[index].due = .infinity
        records[index].dueIsRest = false
        records[index].scheduleSuspended = false
        records[index].awaitingPrediction = false
    }

    /// A moving spring is paused: its due time and change time are kept, measured from now.
    /// Its schedule entry stays: if it is still queued when the spring resumes (a pause of a
    /// frame or two), the resume need not queue another.
    func suspendSchedule(record index: Int) {
        guard !records[index].awaitingPrediction, !records[index].scheduleSuspended else { return }
        records[index].due -= clockReading
        records[index].scheduleSuspended = true
    }

    /// Undoes ``suspendSchedule(record:)`` exactly (a pause refused part way).
    func unsuspendSchedule(record index: Int) {
        guard records[index].scheduleSuspended else { return }
        records[index].due += clockReading
        records[index].scheduleSuspended = false
    }

    /// A spring paused mid-motion moves again from the state it was paused in: its motion is the
    /// one it had, started later by the time it was paused, and so is its rest. Under a fixed clock
    /// its frames are the same frames, later: its due frame moves by the frames it was paused.
    /// Under a variable clock it is anchored again at the lanes it resumes from (the motion a
    /// later exact prediction starts from), and its old due time, moved on, is kept as a check (a
    /// tenth early if it replaces an entry): a lower bound on the same motion's rest, without a
    /// prediction now. A spring changed while paused (or never scheduled) is predicted afresh.
    func resumeSchedule(record index: Int) {
        guard records[index].scheduleSuspended else { return trajectoryChanged(record: index) }
        records[index].scheduleSuspended = false
        let now = clockReading
        records[index].due += now
        switch frameClock {
        case .variable:
            let (batchIndex, slot) = location(ofRecord: index)
            (records[index].changeDisplacement, records[index].changeVelocity) =
                batchObjects[batchIndex].unsafelyUnwrapped._withUnsafeGuaranteedRef { ($0.displacements[slot], $0.velocities[slot]) }
            records[index].changeTime = now
            records[index].dueIsRest = false
            queueIfEarlier(record: index, now: now, early: true)
            frameState.pointee.nextDueTime = Swift.min(frameState.pointee.nextDueTime, records[index].queuedDue)
        case .fixed:
            queueIfEarlier(record: index, now: now)
            let queued = records[index].queuedDue
            if queued < Double(Int.max) { frameState.pointee.nextDueFrame = Swift.min(frameState.pointee.nextDueFrame, Int(queued)) }
        }
    }

    /// The schedule's clock: seconds stepped for a variable frame clock, frames for a fixed one.
    var clockReading: Double {
        switch frameClock {
        case .variable: time
        case .fixed: Double(frame)
        }
    }

    /// The spring's lanes as Doubles, its tolerance and its motion.
    private func restInputs(record index: Int) -> (displacement: Double, velocity: Double, tolerance: Double, motion: SpringMotion) {
        let (batch, slot) = batch(ofRecord: index)
        let state = batch.motionState(slot: slot)
        return (state.displacement, state.velocity, tolerance(record: index), batch.motion)
    }

    /// The exact rest time of the motion the spring's trajectory last changed to (variable clock),
    /// in seconds from that change: from the lanes it changed at, read as `batch` (the spring's)
    /// reads its lanes.
    func restTimeFromChange(record index: Int, batch: ConfigurationBatch) -> Double {
        let state = batch.motionState(displacement: records[index].changeDisplacement, velocity: records[index].changeVelocity)
        return SettlePredictor.restTime(
            displacement: state.displacement, velocity: state.velocity, tolerance: tolerance(record: index), motion: batch.motion)
    }

    /// The exact rest time of the spring's current state, in seconds from now.
    func restTime(record index: Int) -> Double {
        let inputs = restInputs(record: index)
        return SettlePredictor.restTime(
            displacement: inputs.displacement, velocity: inputs.velocity, tolerance: inputs.tolerance, motion: inputs.motion)
    }

    /// The sampled rest frame of the spring's current state, for frames of `duration`.
    func predictRest(record index: Int, duration: Double) -> RestPrediction {
        predictRest(record: index, duration: duration, by: SettlePredictor.restFrame)
    }

    /// ``predictRest(record:duration:)`` by `restFrame`
    /// (``SettlePredictor/restFrame(displacement:velocity:tolerance:motion:frameDuration:)``).
    private func predictRest(record index: Int, duration: Double, by restFrame: FixedClockRestFrame) -> RestPrediction {
        let inputs = restInputs(record: index)
        let frames = restFrame(inputs.displacement, inputs.velocity, inputs.tolerance, inputs.motion, duration)
        return frames < SettlePredictor.horizon ? .restsAfter(frames) : .unknown(checkAfter: frames)
    }

    /// Sets when the spring is next looked at, queuing an entry only if it has none as early.
    private func setDue(record index: Int, _ due: Double, isRest: Bool, now: Double) {
        records[index].due = due
        records[index].dueIsRest = isRest
        queueIfEarlier(record: index, now: now)
    }

    /// Queues the spring at its due time unless its entry comes as early. A check (not a rest) made
    /// after a change that replaces the spring's entry is queued `early`, a tenth of the way early,
    /// so that a spring whose check moves a little earlier at each change (an attachment chasing a
    /// target) does not queue a new entry every frame; popping early is safe, it is queued again at
    /// `due`. A spring with no entry is queued at `due` itself: popped early, it would only be
    /// queued again.
    private func queueIfEarlier(record index: Int, now: Double, early: Bool = false) {
        let due = records[index].due
        guard due < records[index].queuedDue else { return }
        if schedule.isFull, !schedule.growIfAvailable() {
            // The system cannot give the schedule more room: its stale entries go instead. It
            // keeps room for an entry a record (`reserveRecords`), so every live one fits; this
            // spring, if it had one, is queued at `due` by the compaction.
            compactSchedule()
            guard due < records[index].queuedDue else { return }
        }
        let replacing = records[index].queuedDue.isFinite
        if !replacing { queuedSprings += 1 }
        let queued = !early || !replacing || records[index].dueIsRest || !(due > now) ? due : now + (due - now) * 0.9
        records[index].queuedDue = queued
        schedule.insert(due: queued, spring: UInt32(index))
        // Entries replaced by earlier ones stay until they pop: keep them fewer than the live ones.
        if schedule.count > 2 * queuedSprings + 64 { compactSchedule() }
    }

    /// A variable clock's first due time for a changed spring: a cheap lower bound on its rest.
    private func scheduleLowerBound(record index: Int, batch: ConfigurationBatch, slot: Int, now: Double) {
        anchorLowerBound(
            record: index, batch: batch, displacement: batch.displacements[slot], velocity: batch.velocities[slot], motion: batch.motion,
            now: now)
    }

    /// A variable clock's change, in one place for every path that makes one: the spring's
    /// trajectory is anchored at these lanes of `batch` (the spring's) and this time (what its
    /// exact prediction later starts from), and its due time is a lower bound on its rest, queued
    /// unless its entry comes as early already (a record's entry outlives its changes): a tenth
    /// early if it replaces an entry.
    @inline(__always)
    private func anchorLowerBound(
        record index: Int, batch: ConfigurationBatch, displacement lane: UInt32, velocity velocityLane: UInt32, motion: SpringMotion,
        now: Double
    ) {
        let (displacement, velocity) = batch.motionState(displacement: lane, velocity: velocityLane)
        let tolerance = tolerance(record: index)
        let record = records.address(of: index)
        record.pointee.dueIsRest = false
        record.pointee.scheduleSuspended = false
        record.pointee.changeDisplacement = lane
        record.pointee.changeVelocity = velocityLane
        record.pointee.changeTime = now
        let due = now + SettlePredictor.restTimeLowerBound(
            displacement: displacement, velocity: velocity, tolerance: tolerance, motion: motion,
            inverseBandSquared: 1 / (tolerance * tolerance))
        record.pointee.due = due
        if due < record.pointee.queuedDue { queueIfEarlier(record: index, now: now, early: true) }
    }

    /// A fixed clock's exact prediction from now: rest is reported by a step, so at least one frame on.
    private func scheduleFixed(record index: Int, frameDuration: Double) {
        let prediction = predictRest(record: index, duration: frameDuration, by: fixedClockRestFrame!)
        setDue(record: index, Double(frame + max(prediction.frames, 1)), isRest: prediction.isFinal, now: Double(frame))
    }

    /// Before a step: gives every spring whose trajectory changed its due time.
    func schedulePendingSprings() {
        let now = clockReading
        for spring in pending {
            let index = Int(spring)
            guard places[index].isLive, records[index].awaitingPrediction else { continue }
            records[index].awaitingPrediction = false
            // A paused spring is scheduled when it resumes (which changes its trajectory again).
            let slot = Int(places[index].slot)
            batchObjects[Int(places[index].batch)].unsafelyUnwrapped._withUnsafeGuaranteedRef { batch in
                // Retargeted since its change: the watch's, and scheduled once it leaves the watch
                // (a fixed clock's exact prediction now would be dropped unread).
                guard slot < batch.movingCount, !batch.isWatched(slot: slot) else { return }
                switch frameClock {
                case .variable:
                    scheduleLowerBound(record: index, batch: batch, slot: slot, now: now)
                case .fixed(let frameDuration):
                    scheduleFixed(record: index, frameDuration: frameDuration)
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
        publishNextDue()
    }

    /// After a step: the springs due now rest, or are predicted exactly, or are queued again.
    func settleDueSprings() {
        let now = clockReading
        while let entry = schedule.popDue(by: now) {
            let index = Int(entry.spring)
            // The record's live entry, whether or not a spring lives there now (see `retireSchedule`).
            guard records[index].queuedDue == entry.due else { continue }
            records[index].queuedDue = .infinity
            queuedSprings -= 1
            guard places[index].isLive, isMoving(record: index), !records[index].awaitingPrediction else { continue }
            // Retargeted lately: the watch decides its rest, and schedules it again once it stops.
            if isWatched(record: index) {
                watchedEntriesDropped += 1
                continue
            }
            if records[index].due > now {
                // Changed since it was queued, and its check moved on (or queued early on purpose).
                queueIfEarlier(record: index, now: now)
                continue
            }
            if !records[index].dueIsRest {
                switch frameClock {
                case .variable:
                    // From the state the trajectory changed at: the exact motion the lanes follow.
                    let rest = records[index].changeTime + batchObjects[Int(places[index].batch)].unsafelyUnwrapped
                        ._withUnsafeGuaranteedRef { restTimeFromChange(record: index, batch: $0) }
                    if rest > now {
                        setDue(record: index, rest, isRest: true, now: now)
                        continue
                    }
                case .fixed(let frameDuration):
                    // A prediction cut off at the horizon: predict again.
                    scheduleFixed(record: index, frameDuration: frameDuration)
                    continue
                }
            }
            rest(record: index)
            restedInLastStep.append(handle(ofRecord: index))
        }
        // Springs that took to the watch all at once (every target moved, from a frame in which
        // every spring was given a new state: a lower bound each) keep their entries until each
        // pops, a sift through the heap apiece: 256K such springs, most of a frame's time for a
        // third of a second. Once watched springs' entries have dropped out for a sixty-fourth of
        // the records, the rest go in one pass over the records (a pop costs dozens of times
        // what a record's visit does, so the pass costs at most what those pops did).
        if watchedEntriesDropped > 0, watchedEntriesDropped * 64 >= records.count { compactSchedule() }
        // Listed in handle order, whatever order their times came in: the same on every run.
        if restedInLastStep.count > 1 { sortRestedInLastStep() }
        publishNextDue()
    }

    /// Sorts the last step's rest events by handle index: a few in place, many by radix over
    /// buffers kept between steps, so a frame in which a whole group of springs rests costs time
    /// linear in the group (a heapsort's cost a handle grows with the group). On 32-bit ARM and
    /// RISC-V always in place: the radix's count table alone is 8 KB there, more than a
    /// microcontroller's bank of hundreds of springs, and its code 0.9 KB of flash. (Handle indices
    /// are distinct: every sort gives the same order.)
    func sortRestedInLastStep() {
        #if arch(arm) || arch(riscv32)
        Self.sortInPlace(&restedInLastStep)
        #else
        let count = restedInLastStep.count
        guard count >= 256 else { return Self.sortInPlace(&restedInLastStep) }
        let digitBits = 11, buckets = 1 << digitBits
        let indexBits = UInt32.bitWidth - UInt32(records.count - 1).leadingZeroBitCount
        if restSortScratch.count < count {
            restSortScratch = Array(repeating: restedInLastStep[0], count: Swift.max(count, 2 * restSortScratch.count))
        }
        if restSortCounts.count < buckets { restSortCounts = Array(repeating: 0, count: buckets) }
        restedInLastStep.withUnsafeMutableBufferPointer { handles in
            restSortScratch.withUnsafeMutableBufferPointer { scratch in
                restSortCounts.withUnsafeMutableBufferPointer { starts in
                    var (from, to) = (handles.baseAddress!, scratch.baseAddress!)
                    var shift = 0
                    while shift < indexBits {
                        // One stable counting pass on the digit at `shift`.
                        for b in 0..<buckets { starts[b] = 0 }
                        for i in 0..<count { starts[Int(from[i].index >> UInt32(shift)) & (buckets - 1)] += 1 }
                        var sum = 0
                        for b in 0..<buckets { (starts[b], sum) = (sum, sum + starts[b]) }
                        for i in 0..<count {
                            let digit = Int(from[i].index >> UInt32(shift)) & (buckets - 1)
                            to[starts[digit]] = from[i]
                            starts[digit] += 1
                        }
                        swap(&from, &to)
                        shift += digitBits
                    }
                    if from != handles.baseAddress! { handles.baseAddress!.update(from: from, count: count) }
                }
            }
        }
        #endif
    }

    /// Heapsort by handle index: in place, so a step allocates nothing (the standard library's
    /// sort takes a scratch buffer).
    static func sortInPlace(_ handles: inout [SpringHandle]) {
        handles.withUnsafeMutableBufferPointer { h in
            func siftDown(_ start: Int, _ end: Int) {
                var root = start
                while 2 * root + 1 < end {
                    var child = 2 * root + 1
                    if child + 1 < end, h[child].index < h[child + 1].index { child += 1 }
                    guard h[root].index < h[child].index else { return }
                    h.swapAt(root, child)
                    root = child
                }
            }
            for start in stride(from: h.count / 2 - 1, through: 0, by: -1) { siftDown(start, h.count) }
            for end in stride(from: h.count - 1, to: 0, by: -1) {
                h.swapAt(0, end)
                siftDown(0, end)
            }
        }
    }

    /// Rebuilds the schedule from the springs' own due times, dropping stale entries and those of
    /// watched springs (what their pops would do: the watch decides their rest, and schedules them
    /// again once they leave it).
    private func compactSchedule() {
        schedule.removeAll()
        queuedSprings = 0
        watchedEntriesDropped = 0
        for index in records.indices where records[index].queuedDue.isFinite {
            records[index].queuedDue = .infinity
            // A paused spring is queued again when it resumes; a free record needs no entry.
            guard places[index].isLive, !records[index].scheduleSuspended, !isWatched(record: index) else { continue }
            queueIfEarlier(record: index, now: clockReading)
        }
    }

    /// Changes the frame clock: every moving spring is predicted again under the new rule.
    func setFrameClock(_ clock: FrameClock) throws(SpringKernelError) {
        try checkMutable()
        if case .fixed(let frameDuration) = clock, !(frameDuration.isFinite && frameDuration > 0) {
            throw .invalidTimeStep(frameDuration)
        }
        guard clock != frameClock else { return }
        if case .fixed = clock { fixedClockRestFrame = SettlePredictor.restFrame }
        frameClock = clock
        schedule.removeAll()
        queuedSprings = 0
        watchedEntriesDropped = 0
        for index in records.indices {
            records[index].queuedDue = .infinity
            records[index].due = .infinity
            if places[index].isLive, isAwake(record: index) { trajectoryChanged(record: index) }
        }
        publishNextDue()
    }

    /// Tells the inlined step when it must call back: the schedule's next due time, on its clock,
    /// and at the latest when the clock is to be rebased.
    func publishNextDue() {
        let next = schedule.nextDue ?? .infinity
        switch frameClock {
        case .variable:
            frameState.pointee.nextDueTime = Swift.min(next, Self.rebaseTime)
            frameState.pointee.nextDueFrame = .max
        case .fixed:
            frameState.pointee.nextDueTime = Self.rebaseTime
            frameState.pointee.nextDueFrame = next < Double(Int.max) ? Int(next) : .max
        }
    }

    /// The schedule's clock reading at which it is rebased to 0: 2²⁰ s, about 12 days, where a
    /// Double still resolves 2⁻³² s.
    static var rebaseTime: Double { BankLimits.rebaseTime }

    /// Moves the schedule's clock back to 0, and every time the schedule holds with it.
    ///
    /// The schedule compares absolute times (change time + rest time against the clock). Summed
    /// without end, the clock would lose the resolution to tell a frame from the next (at 10¹⁷ s a
    /// Double steps by 16 s; after one step of 10³⁰⁰ s by 10²⁸⁴), and a spring changed then would
    /// rest at once, early. Rebased, times are measured from at most 12 days ago, whatever the
    /// steps before.
    func rebaseClock() {
        let shift = frameState.pointee.time
        timeEpoch += shift
        frameState.pointee.time = 0
        for index in records.indices {
            records[index].changeTime -= shift
            guard case .variable = frameClock else { continue }
            records[index].queuedDue -= shift
            // A suspended due time is measured from its pause, not on the clock: it stays as it is.
            if !records[index].scheduleSuspended { records[index].due -= shift }
        }
        if case .variable = frameClock { compactSchedule() }
        publishNextDue()
    }
}
