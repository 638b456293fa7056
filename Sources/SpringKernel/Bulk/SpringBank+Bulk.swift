/// Events for many springs in one call: what an engine does once per frame (an attachment that
/// follows a dragged target retargets every spring of it, every frame).
///
/// Each call checks every input before it changes anything, so a refused call leaves the bank as
/// it was, like every other call. The changed springs are predicted at the next step, in one pass.
extension SpringBank {
    /// Pulls `springs[i]` toward `targets[i]`, for every i, as ``retarget(_:to:)`` does one spring.
    ///
    /// The springs may be listed in any order. A long list whose springs alternate among
    /// configurations is taken batch by batch (the same result, for 20 bytes of scratch a listed
    /// spring, kept by the bank); listing each configuration's springs together saves that pass.
    ///
    /// - Throws: ``SpringKernelError/countMismatch(expected:given:)`` when the buffers differ in
    ///   length; any error ``retarget(_:to:)`` throws, for the first spring that would throw it;
    ///   ``SpringKernelError/outOfMemory`` when the system cannot give the call's undo log (20
    ///   bytes a listed spring, reserved before any spring changes). Nothing is changed then.
    ///
    /// - Complexity: O(n + c) for n springs listed, in a bank of c configurations.
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func retarget(_ springs: UnsafeBufferPointer<SpringHandle>, to targets: UnsafeBufferPointer<Lanes.Value>) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        guard springs.count == targets.count else { throw .countMismatch(expected: springs.count, given: targets.count) }
        // One pass: each spring is checked and retargeted in turn (a spring listed twice moves on
        // from where its earlier element left it, as one call per spring would), its old lanes
        // logged; the first refusal puts every logged lane back, so a refused call changes
        // nothing. Springs at rest or paused are woken or predicted once all are accepted.
        core.staged.removeAll()
        core.loggedRetargetsNotMoving = 0
        // Room for every element's log entry, before any spring changes: a call the system
        // cannot give it is refused with nothing changed, and no append in the loop grows.
        try core.staged.reserveCapacity(appending: springs.count)
        // A moving spring (most of a drag's) is retargeted by the loop itself, from its batch's
        // lanes kept at hand while consecutive springs share the batch; any other goes through
        // `retarget(record:to:logging:)`, which the fast path matches exactly.
        var run: RetargetRun?
        do throws(SpringKernelError) {
            // A format that checks its values (float32: finite, within its limit) checks every
            // goal first, in one vector pass, and the loop takes each goal's bits as its lane. Any
            // goal refused: each is checked in turn, so the first element that throws does.
            if Lanes.retargetsInStep, let goalLanes = UnsafeRawPointer(targets.baseAddress),
               Lanes.acceptsAll(goals: goalLanes, count: targets.count) {
                if retargetGroupedByBatch(springs, goal: { i throws(SpringKernelError) in goalLanes.load(fromByteOffset: i &* 4, as: UInt32.self) }) {
                    core.finishLoggedRetargets()
                    return
                }
                for i in springs.indices {
                    try retargetListed(
                        record: try core.recordIndex(springs[i]),
                        to: goalLanes.load(fromByteOffset: i &* 4, as: UInt32.self), run: &run)
                }
            } else {
                if retargetGroupedByBatch(springs, goal: { i throws(SpringKernelError) in try Lanes.lanePattern(of: targets[i], as: .target) }) {
                    core.finishLoggedRetargets()
                    return
                }
                for i in springs.indices {
                    try retargetListed(
                        record: try core.recordIndex(springs[i]), to: try Lanes.lanePattern(of: targets[i], as: .target), run: &run)
                }
            }
        } catch {
            core.undoLoggedRetargets()
            throw error
        }
        core.finishLoggedRetargets()
    }

    /// A bulk retarget whose springs alternate among configurations (an engine's list in its own
    /// order, each element with its own spring), made batch by batch: the same retargets as the
    /// list-order loop, with the same lanes, marks and log, so the call's result is the same.
    ///
    /// In list order, every element that changes batch rebuilds the loop's view of its batch, and
    /// the loop reads three lanes of each of those batches at once: with 64 batches, 192
    /// interleaved streams, which no prefetcher follows (a spring-frame took twice what it takes
    /// batch by batch). Here the list's springs are counted per batch and copied, with their
    /// slots and goals, into runs of their batch by a counting sort (stable: a spring listed twice
    /// is retargeted in list order), then retargeted run by run. Springs of different batches
    /// commute; springs at rest or paused (woken or predicted once the call is accepted, from the
    /// log, in its order) are taken after, in list order, so the log lists them as the list-order
    /// loop does.
    ///
    /// Returns false, with nothing changed, when the list is short (under 256 springs, or under a
    /// quarter of the bank's), its first 64 springs change batch fewer than 16 times, a handle or
    /// a goal is refused (the list-order loop then throws what it throws) or the system cannot
    /// give the runs' room (20 bytes a listed spring). A retarget refused part way is undone, and
    /// false returned: the list-order loop then refuses the first element that throws, as it
    /// would have.
    private func retargetGroupedByBatch(
        _ springs: UnsafeBufferPointer<SpringHandle>, goal: (Int) throws(SpringKernelError) -> UInt32
    ) -> Bool {
        let n = springs.count
        // A list of a few springs of a large bank (1 %, say) reads their lanes a line each in any
        // order: taken batch by batch it would only add the passes below.
        guard n >= 256, 4 * n >= core.springCount else { return false }
        var switches = 0, last: Int32 = -2
        for i in 0..<64 {
            let index = Int(springs[i].index)
            guard index < core.places.count else { return false }
            let batch = core.places[index].batch
            if batch != last {
                switches += 1
                last = batch
            }
        }
        guard switches >= 16 else { return false }
        // Each listed spring's batch (n words), a count per batch, and the listed springs in
        // batch order, four words each: record, slot, goal lane, position in the list.
        let batches = core.batchLanes.count
        let needed = 5 * n + batches
        if core.groupingScratchCapacity < needed {
            guard let fresh = Platform.allocateIfAvailable(count: needed, of: UInt32.self) else { return false }
            core.groupingScratch.map { Platform.free($0) }
            core.groupingScratch = fresh
            core.groupingScratchCapacity = needed
        }
        let batchOf = core.groupingScratch.unsafelyUnwrapped, counts = batchOf + n, grouped = counts + batches
        counts.update(repeating: 0, count: batches)
        for i in 0..<n {
            guard let index = try? core.recordIndex(springs[i]) else { return false }
            let batch = Int(core.places[index].batch)
            batchOf[i] = UInt32(truncatingIfNeeded: batch)
            counts[batch] &+= 1
        }
        var start: UInt32 = 0
        for b in 0..<batches {
            let count = counts[b]
            counts[b] = start
            start &+= count
        }
        // The list read in order again, each spring written to its batch's run: the retargets
        // below then read one stream, not the list's three at a stride.
        for i in 0..<n {
            let b = Int(batchOf[i])
            let index = Int(springs[i].index)
            guard let goal = try? goal(i) else { return false }
            let entry = grouped + 4 * Int(counts[b])
            entry[0] = UInt32(truncatingIfNeeded: index)
            entry[1] = UInt32(truncatingIfNeeded: core.places[index].slot)
            entry[2] = goal
            entry[3] = UInt32(truncatingIfNeeded: i)
            counts[b] &+= 1
        }
        do throws(SpringKernelError) {
            var waiting = false, first = 0
            for b in 0..<batches {
                let end = Int(counts[b])
                guard end > first else { continue }
                var run = RetargetRun(core: core, batch: Int32(b))
                for k in first..<end {
                    let entry = grouped + 4 * k
                    let slot = Int(entry[1])
                    if slot < run.movingCount {
                        try retargetMoving(record: Int(entry[0]), slot: slot, to: entry[2], in: &run)
                    } else {
                        batchOf[Int(entry[3])] = .max
                        waiting = true
                    }
                }
                first = end
            }
            if waiting {
                for i in 0..<n where batchOf[i] == .max {
                    try retarget(record: Int(springs[i].index), to: try goal(i), logging: true)
                }
            }
        } catch {
            core.undoLoggedRetargets()
            return false
        }
        core.retargetsGroupedByBatch += 1
        return true
    }

    /// One element of a bulk retarget: the spring of record `index` toward `goal` (its lane
    /// pattern), logged. A moving spring goes by `run` (made again when the spring lives in
    /// another batch); any other by ``retarget(record:to:logging:)``, which ends the run.
    @inline(__always)
    private func retargetListed(record index: Int, to goal: UInt32, run: inout RetargetRun?) throws(SpringKernelError) {
        let place = core.places[index]
        if run?.batch != place.batch { run = RetargetRun(core: core, batch: place.batch) }
        let slot = Int(place.slot)
        if slot < run!.movingCount {
            try retargetMoving(record: index, slot: slot, to: goal, in: &run!)
        } else {
            try retarget(record: index, to: goal, logging: true)
            run = nil
        }
    }

    /// ``retarget(record:to:logging:)`` with `logging`, for a moving spring at `slot` of `run`'s
    /// batch: the same lanes written, the same mark and log entry, from the lanes `run` keeps.
    @inline(__always)
    private func retargetMoving(record index: Int, slot: Int, to goal: UInt32, in run: inout RetargetRun) throws(SpringKernelError) {
        guard let (target, displacement, moved) = try retargetedLanes(slot: slot, of: run.lanes, to: goal) else { return }
        run.lanes.targets.storeBytes(of: goal, toByteOffset: slot * 4, as: UInt32.self)
        run.lanes.displacements.storeBytes(of: moved, toByteOffset: slot * 4, as: UInt32.self)
        run.retargetedLanes[slot] = true
        if !run.isWatching {
            core.batchObjects[Int(run.batch)].unsafelyUnwrapped._withUnsafeGuaranteedRef { core.startWatching($0) }
            run.isWatching = true
        }
        core.staged.appendInReservedRoom(StagedLanes(record: UInt32(index), batch: 0, displacement: displacement, velocity: 0, target: target))
    }

    /// Pulls `springs[i]` toward `targets[i]`, for every i (see the buffer form).
    ///
    /// - Complexity: O(n) for n springs listed.
    public func retarget(_ springs: [SpringHandle], to targets: [Lanes.Value]) throws(SpringKernelError) {
        try springs.withUnsafeBufferPointer { springs throws(SpringKernelError) in
            try targets.withUnsafeBufferPointer { targets throws(SpringKernelError) in try retarget(springs, to: targets) }
        }
    }

    /// Sets the value and velocity of `springs[i]` to `values[i]` and `velocities[i]`, for every i,
    /// as ``setState(of:value:velocity:)`` does one spring (a spring listed twice takes its last
    /// state).
    ///
    /// - Throws: ``SpringKernelError/countMismatch(expected:given:)`` when the buffers differ in
    ///   length; any error ``setState(of:value:velocity:)`` throws, for the first spring that would
    ///   throw it. Nothing is changed then.
    ///
    /// - Complexity: O(n) for n springs listed.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func setState(
        of springs: UnsafeBufferPointer<SpringHandle>, values: UnsafeBufferPointer<Lanes.Value>,
        velocities: UnsafeBufferPointer<Lanes.Value>
    ) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        guard springs.count == values.count else { throw .countMismatch(expected: springs.count, given: values.count) }
        guard springs.count == velocities.count else { throw .countMismatch(expected: springs.count, given: velocities.count) }
        // A set state keeps the target, the only lane the check reads, so checking each against
        // the state before the call suffices; the second pass writes what the first computed.
        core.staged.removeAll()
        for i in springs.indices {
            let index = try core.recordIndex(springs[i])
            let state = try storedState(record: index, value: values[i], velocity: velocities[i])
            core.staged.append(StagedLanes(
                record: UInt32(index), batch: 0, displacement: state.displacement, velocity: state.velocity, target: 0))
        }
        for i in 0..<core.staged.count {
            let element = core.staged[i]
            core.setState(record: Int(element.record), displacement: element.displacement, velocity: element.velocity)
        }
    }

    /// Adds `deltas[i]` to the velocity of `springs[i]`, for every i, as
    /// ``addVelocity(_:to:)`` does one spring; a spring listed twice gets both, in order.
    ///
    /// - Throws: ``SpringKernelError/countMismatch(expected:given:)`` when the buffers differ in
    ///   length; any error ``addVelocity(_:to:)`` throws, for the first impulse that would throw
    ///   it (counting the earlier impulses of the call). Nothing is changed then.
    ///
    /// - Complexity: O(n) for n springs listed.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func addVelocity(_ deltas: UnsafeBufferPointer<Lanes.Value>, to springs: UnsafeBufferPointer<SpringHandle>) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        guard springs.count == deltas.count else { throw .countMismatch(expected: springs.count, given: deltas.count) }
        // Impulses to one spring add up, so the check follows each spring's velocity through the
        // call: a spring's record marks its latest element, whose staged velocity the next one
        // adds to (no table keyed by spring).
        core.staged.removeAll()
        for i in springs.indices {
            do throws(SpringKernelError) {
                let index = try core.recordIndex(springs[i])
                let earlier = Int(core.records[index].listedAt)
                let base = earlier != 0 ? core.staged[earlier - 1].velocity : core.lanePatterns(ofRecord: index).velocity
                let velocity = try impulsedVelocity(record: index, adding: deltas[i], to: base)
                core.staged.append(StagedLanes(record: UInt32(index), batch: 0, displacement: 0, velocity: velocity, target: 0))
                core.records[index].listedAt = UInt32(core.staged.count)
            } catch {
                core.unmarkStagedRecords()
                throw error
            }
        }
        for i in 0..<core.staged.count {
            let element = core.staged[i]
            core.records[Int(element.record)].listedAt = 0
            core.setState(record: Int(element.record), velocity: element.velocity)
        }
    }

    /// Adds `velocity` to the velocity of every spring the mask lists (an impulse to a group);
    /// springs at rest start moving, paused ones keep the new velocity until they are resumed.
    ///
    /// - Throws: what `addVelocity(_:to:)` (one spring) throws for a member that would throw it, or
    ///   ``SpringKernelError/stalePauseMask(_:)`` or ``SpringKernelError/foreignHandle`` for a mask
    ///   this bank does not hold; nothing is changed then.
    ///
    /// - Complexity: O(members of the mask).
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func addVelocity(_ velocity: Lanes.Value, toEveryMemberOf mask: PauseMaskID) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        let mask = try core.maskIndex(mask)
        // Each member once (a mask lists a spring at most once), in the mask's own order: the
        // result does not depend on the order, and handle order would cost a sort.
        core.staged.removeAll()
        try core.forEachMember(ofMask: mask) { (index) throws(SpringKernelError) in
            let velocity = try impulsedVelocity(record: index, adding: velocity)
            core.staged.append(StagedLanes(record: UInt32(index), batch: 0, displacement: 0, velocity: velocity, target: 0))
        }
        for i in 0..<core.staged.count {
            core.setState(record: Int(core.staged[i].record), velocity: core.staged[i].velocity)
        }
    }

    /// Gives every listed spring `configuration`, as ``setConfiguration(of:to:)`` does one spring
    /// (a spring listed twice is predicted again, as a second call would). The configuration's
    /// batch is looked up once, not once a spring.
    ///
    /// - Throws: any error ``setConfiguration(of:to:)`` throws, for the first spring that would
    ///   throw it (a stale handle; for ``Q16Lanes``, a motion the new lane scale cannot hold);
    ///   nothing is changed then.
    ///
    /// - Complexity: O(n) for n springs listed, amortized (a batch is made at most once for the call).
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func setConfiguration(of springs: UnsafeBufferPointer<SpringHandle>, to configuration: SpringConfiguration) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        try move(springs, configuration: NearestRounding.fenced(configuration, after: rounding), tolerance: nil)
    }

    /// Sets the tolerance of every listed spring, as ``setTolerance(of:to:)`` does one (each keeps
    /// its configuration).
    ///
    /// - Throws: what ``setTolerance(of:to:)`` throws, for the tolerance or for the first spring
    ///   that would throw it (a stale handle; for ``Q16Lanes``, a motion the new lane scale cannot
    ///   hold); nothing is changed then.
    ///
    /// - Complexity: O(n) for n springs listed, amortized (a batch is made at most once per lane
    ///   scale).
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func setTolerance(of springs: UnsafeBufferPointer<SpringHandle>, to tolerance: Lanes.Value) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        try move(springs, configuration: nil, tolerance: try Lanes.tolerance(tolerance))
    }

    /// Sets the tolerance of every listed spring (see the buffer form).
    ///
    /// - Complexity: O(n) for n springs listed, amortized (a batch is made at most once per lane
    ///   scale).
    public func setTolerance(of springs: [SpringHandle], to tolerance: Lanes.Value) throws(SpringKernelError) {
        try springs.withUnsafeBufferPointer { springs throws(SpringKernelError) in try setTolerance(of: springs, to: tolerance) }
    }

    /// Moves every listed spring to the batch of `configuration` (nil: its own) and `tolerance`
    /// (nil: its own), checking all of them before any moves.
    @inline(__always)
    private func move(
        _ springs: UnsafeBufferPointer<SpringHandle>, configuration newConfiguration: SpringConfiguration?, tolerance newTolerance: Double?
    ) throws(SpringKernelError) {
        // The destination batch depends on the configuration and on the lane scale, which follows
        // the tolerance in scaled formats: looked up again only when either changes along the list.
        var lastKey: (configuration: SpringConfiguration, tolerance: UInt64)? = nil
        var destination = -1, scale = LaneScale.identity
        core.staged.removeAll()
        do throws(SpringKernelError) {
            for spring in springs {
                let index = try core.recordIndex(spring)
                let configuration = newConfiguration ?? core.batch(ofRecord: index).batch.configuration
                let tolerance = newTolerance ?? core.tolerance(record: index)
                let toleranceKey = Lanes.hasScaledLanes ? tolerance.bitPattern : 0
                if lastKey == nil || lastKey!.configuration != configuration || lastKey!.tolerance != toleranceKey {
                    // A batch made for an earlier element and left empty goes if this one is refused.
                    scale = core.laneScale(configuration: configuration, tolerance: tolerance)
                    destination = try core.batchIndex(for: configuration, scale: scale)
                    lastKey = (configuration, toleranceKey)
                }
                guard Lanes.hasScaledLanes else {
                    // One lane scale: the lanes move as they are, read when they move.
                    core.staged.append(StagedLanes(record: UInt32(index), batch: Int32(destination), displacement: 0, velocity: 0, target: 0))
                    continue
                }
                let lanes = core.lanePatterns(ofRecord: index)
                let old = core.storage(ofRecord: index).scale
                let converted = try Lanes.storedLanes(
            displacement: lanes.displacement, velocity: lanes.velocity, target: lanes.target,
                    shift: LaneScale(
                        displacementShift: scale.displacementShift - old.displacementShift,
                        velocityShift: scale.velocityShift - old.velocityShift),
                    scale: scale, naturalFrequency: configuration.naturalFrequency)
                core.staged.append(StagedLanes(
                    record: UInt32(index), batch: Int32(destination), displacement: converted.displacement,
                    velocity: converted.velocity, target: lanes.target))
            }
            try core.reserveStagedArrivals()
        } catch {
            // Batches made for the call and left empty go again.
            core.releaseStagedBatches(andAlso: destination)
            throw error
        }
        if let newTolerance {
            let pattern = SpringBankCore<Lanes>.tolerancePattern(newTolerance)
            for i in 0..<core.staged.count {
                core.records[Int(core.staged[i].record)].tolerancePattern = pattern
                core.raiseWatchBand(record: Int(core.staged[i].record))
            }
        }
        core.setConfigurationStaged(lanesStaged: Lanes.hasScaledLanes)
    }

    /// Gives every listed spring `configuration` (see the buffer form).
    ///
    /// - Complexity: O(n) for n springs listed, amortized (a batch is made at most once for the call).
    public func setConfiguration(of springs: [SpringHandle], to configuration: SpringConfiguration) throws(SpringKernelError) {
        try springs.withUnsafeBufferPointer { springs throws(SpringKernelError) in try setConfiguration(of: springs, to: configuration) }
    }

    /// Lets go of the mask's hold, as ``resume(_:restart:)`` does, with the restart states in
    /// buffers (the hand-off from a gesture: where each finger let go, at its release velocity):
    /// a spring this frees moves again from `values[i]` and `velocities[i]` if it is
    /// `springs[i]` (the last i if it is listed twice), any other freed spring from where it was
    /// paused. Listed springs this does not free (held by another mask, or not in this one) are
    /// left alone. Resuming a mask that is not pausing does nothing.
    ///
    /// Every listed spring and state is checked first, whatever the mask: a stale handle or a
    /// value the format cannot hold refuses the whole call, and nothing changes. Unlike the
    /// closure form, this asks nothing per spring and finds the listed springs without a table.
    ///
    /// - Throws: ``SpringKernelError/countMismatch(expected:given:)`` when the buffers differ in
    ///   length, ``SpringKernelError/stalePauseMask(_:)`` or ``SpringKernelError/foreignHandle`` for
    ///   a mask this bank does not hold, or what ``setState(of:value:velocity:)`` throws for the
    ///   first listed spring that would throw it.
    ///
    /// - Complexity: O(members of the mask + n) for n springs listed.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func resume(
        _ mask: PauseMaskID, restarting springs: UnsafeBufferPointer<SpringHandle>, values: UnsafeBufferPointer<Lanes.Value>,
        velocities: UnsafeBufferPointer<Lanes.Value>
    ) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable()
        guard springs.count == values.count else { throw .countMismatch(expected: springs.count, given: values.count) }
        guard springs.count == velocities.count else { throw .countMismatch(expected: springs.count, given: velocities.count) }
        let maskIndex = try core.maskIndex(mask)
        core.staged.removeAll()
        for i in springs.indices {
            let index = try core.recordIndex(springs[i])
            let state = try storedState(record: index, value: values[i], velocity: velocities[i])
            core.staged.append(StagedLanes(
                record: UInt32(index), batch: 0, displacement: state.displacement, velocity: state.velocity, target: 0))
        }
        core.resumeStaged(mask: maskIndex)
    }

    /// Lets go of the mask's hold, restarting the listed springs it frees (see the buffer form).
    ///
    /// - Complexity: O(members of the mask + n) for n springs listed.
    public func resume(
        _ mask: PauseMaskID, restarting springs: [SpringHandle], values: [Lanes.Value], velocities: [Lanes.Value]
    ) throws(SpringKernelError) {
        try springs.withUnsafeBufferPointer { springs throws(SpringKernelError) in
            try values.withUnsafeBufferPointer { values throws(SpringKernelError) in
                try velocities.withUnsafeBufferPointer { velocities throws(SpringKernelError) in
                    try resume(mask, restarting: springs, values: values, velocities: velocities)
                }
            }
        }
    }
}

/// What a bulk retarget keeps at hand of the batch its last spring lived in, so that a run of
/// springs in one batch (a drag's) reads the batch's lanes, moving count and marks once.
/// Nothing a retarget of a moving spring does changes them; anything else the call does to a
/// spring starts a new run.
private struct RetargetRun {
    let batch: Int32
    let lanes: BatchLanes
    /// Slots below this hold moving springs.
    let movingCount: Int
    let retargetedLanes: LaneMarks
    var isWatching: Bool

    init<Lanes>(core: SpringBankCore<Lanes>, batch: Int32) {
        self.batch = batch
        lanes = core.batchLanes[Int(batch)]
        (movingCount, retargetedLanes, isWatching) = core.batchObjects[Int(batch)].unsafelyUnwrapped._withUnsafeGuaranteedRef {
            ($0.movingCount, $0.retargetedLanes, $0.isWatching)
        }
    }
}
