import _SpringKernelShims

/// Reads and writes of many springs in the bank's own order (see ``StorageLayout``): the fast path
/// for an engine that reads every moved spring's value each frame, or writes many targets at once.
///
/// The per-handle forms (``values(of:into:)``, ``retarget(_:to:)-(UnsafeBufferPointer<SpringHandle>,_)``)
/// look up each spring (handle, record, batch, slot: a cache miss a spring once the records
/// outgrow the cache). These stream each batch's lanes in slot order instead, so they run at the
/// speed of memory (`spring-bench c-boundary` times the C interface's forms of both against
/// `memcpy` of the same bytes); the layout's ``userValues(in:into:)`` say which spring each element
/// is. Values are read as the per-handle reads give them, to the bit (float32 lanes hold the
/// displacement from the target, added back on the way out; Q16.16 lanes are read at the API's
/// resolution from their batch's scale).
extension SpringBank {
    /// Moved on whenever a spring changes slot or region (it rests, starts to move, is paused,
    /// resumed, added, removed or configured): the version of every ``StorageLayout`` taken since.
    public var layoutVersion: UInt64 { core.layoutVersion }

    /// The bank's current order of the springs in `region`, for the calls that read and write in it.
    ///
    /// - Complexity: O(configuration batches).
    public func storageLayout(of region: StorageRegion = .all) -> StorageLayout { core.layout(of: region) }

    /// Writes the value of the layout's i-th spring into `values[i]`, for every i: a stream of each
    /// batch's lanes, at memory speed.
    ///
    /// - Throws: ``SpringKernelError/staleLayout`` for a layout the bank no longer has (a spring
    ///   moved since it was taken) or another bank's, ``SpringKernelError/countMismatch(expected:given:)``
    ///   when `values` is not `layout.count` long; `values` is then left as it was.
    ///
    /// - Complexity: O(springs in the layout).
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func values(in layout: StorageLayout, into values: UnsafeMutableBufferPointer<Lanes.Value>) throws(SpringKernelError) {
        try core.check(layout, count: values.count)
        guard let out = values.baseAddress else { return }
        core.forEachRun(in: layout.region) { batch, slots, offset in
            Self.readValues(displacements: batch.displacements, targets: batch.targets, shift: batch.scale.displacementShift,
                            count: slots, into: out + offset)
        }
    }

    /// Writes the velocity of the layout's i-th spring into `velocities[i]` (see ``values(in:into:)``).
    ///
    /// - Complexity: O(springs in the layout).
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func velocities(in layout: StorageLayout, into velocities: UnsafeMutableBufferPointer<Lanes.Value>) throws(SpringKernelError) {
        try core.check(layout, count: velocities.count)
        guard let out = velocities.baseAddress else { return }
        core.forEachRun(in: layout.region) { batch, slots, offset in
            Self.readLanes(batch.velocities, shift: batch.scale.velocityShift, count: slots, into: out + offset)
        }
    }

    /// Writes the target of the layout's i-th spring into `targets[i]` (see ``values(in:into:)``).
    ///
    /// - Complexity: O(springs in the layout).
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func targets(in layout: StorageLayout, into targets: UnsafeMutableBufferPointer<Lanes.Value>) throws(SpringKernelError) {
        try core.check(layout, count: targets.count)
        guard let out = targets.baseAddress else { return }
        core.forEachRun(in: layout.region) { batch, slots, offset in
            Self.readLanes(batch.targets, shift: 0, count: slots, into: out + offset)
        }
    }

    /// Writes the user value of the layout's i-th spring into `userValues[i]` (see
    /// ``values(in:into:)``): which spring each element of the layout's other buffers is, as the
    /// caller's own ids, copied as they are stored.
    ///
    /// - Complexity: O(springs in the layout).
    public func userValues(in layout: StorageLayout, into userValues: UnsafeMutableBufferPointer<UInt64>) throws(SpringKernelError) {
        try core.check(layout, count: userValues.count)
        guard let out = userValues.baseAddress else { return }
        core.forEachRun(in: layout.region) { batch, slots, offset in
            // A raw copy (memmove) in every build: Embedded Swift's update(from:count:) copied
            // element by element through a call, at half memcpy's speed.
            UnsafeMutableRawPointer(out + offset).copyMemory(from: batch.userValues.base, byteCount: slots * MemoryLayout<UInt64>.stride)
        }
    }

    /// Writes the handle of the layout's i-th spring into `springs[i]` (see ``values(in:into:)``).
    ///
    /// The handles are streamed like the values: each batch keeps its slots' record indices and
    /// generations beside its lanes, so no spring's record is visited.
    ///
    /// - Complexity: O(springs in the layout).
    public func springs(in layout: StorageLayout, into springs: UnsafeMutableBufferPointer<SpringHandle>) throws(SpringKernelError) {
        try core.check(layout, count: springs.count)
        guard let out = springs.baseAddress else { return }
        let tag = core.tag
        core.forEachRun(in: layout.region) { batch, slots, offset in
            // Each slot's record index and generation, kept by slot: no record is visited.
            for slot in 0..<slots {
                out[offset + slot] = SpringHandle(index: batch.springOfSlot[slot], generation: batch.generationOfSlot[slot], bankTag: tag)
            }
        }
    }

    /// ``springs(in:into:)`` packed into 64 bits each: `high | (generation & generationMask) <<
    /// indexBits | index` (the C interface's handles), streamed (`sk_stream_pack_handles`).
    ///
    /// - Throws: what ``values(in:into:)`` throws; nothing is written then.
    ///
    /// - Complexity: O(springs in the layout).
    @_spi(KernelInternals)
    public func packedSprings(
        in layout: StorageLayout, into packed: UnsafeMutableBufferPointer<UInt64>, high: UInt64, generationMask: UInt32, indexBits: Int
    ) throws(SpringKernelError) {
        try core.check(layout, count: packed.count)
        guard let out = packed.baseAddress else { return }
        core.forEachRun(in: layout.region) { batch, slots, offset in
            sk_stream_pack_handles(
                batch.springOfSlot.base.assumingMemoryBound(to: UInt32.self), batch.generationOfSlot.base.assumingMemoryBound(to: UInt32.self),
                high, generationMask, Int32(indexBits), out + offset, slots)
        }
    }

    /// Sets the user value of the layout's i-th spring to `userValues[i]`, for every i. Allowed
    /// inside a resume's restart closure, like ``setUserValue(_:of:)``.
    ///
    /// - Throws: what ``values(in:into:)`` throws; nothing is changed then.
    ///
    /// - Complexity: O(springs in the layout).
    public func setUserValues(in layout: StorageLayout, from userValues: UnsafeBufferPointer<UInt64>) throws(SpringKernelError) {
        try core.check(layout, count: userValues.count)
        guard let values = userValues.baseAddress else { return }
        core.forEachRun(in: layout.region) { batch, slots, offset in
            // A raw copy, as in userValues(in:into:).
            UnsafeMutableRawPointer(batch.userValues.base).copyMemory(from: values + offset, byteCount: slots * MemoryLayout<UInt64>.stride)
        }
    }

    /// Pulls the layout's i-th spring toward `targets[i]`, for every i, as `retarget(_:to:)` (one spring) does
    /// one spring; a spring whose target is already `targets[i]` (the same bits) is left exactly as
    /// it is, so an engine that writes every target every frame changes, and later predicts, only
    /// the springs whose targets moved.
    ///
    /// A spring at rest that is given a new target starts to move, which changes the layout: take
    /// a new one before the next call that needs one. (A new target within its tolerance of where
    /// it rests leaves it at rest, snapped onto it: that changes no layout.)
    ///
    /// Q16.16: a call that moves a target beyond ±16384 (2³⁰ steps), or a motion near the limits of
    /// its batch's lanes, is checked one spring at a time: the same result, at the cost of a call
    /// per spring.
    ///
    /// - Throws: what ``values(in:into:)`` throws, or what `retarget(_:to:)` (one spring) throws for the first
    ///   spring that would throw it (a NaN target: ``SpringKernelError/nonFinite(_:)``). Nothing is
    ///   changed then.
    ///
    /// - Complexity: O(springs in the layout); each spring whose target moved is predicted again at
    ///   the next step.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func retarget(in layout: StorageLayout, to targets: UnsafeBufferPointer<Lanes.Value>) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable(predictingChanges: false)
        try core.check(layout, count: targets.count)
        guard let goals = targets.baseAddress else { return }
        // Springs at rest are woken after the walk: waking moves slots, and the walk follows them.
        // Listed in the bank's kept buffer, so a call allocates nothing once it has woken as many.
        var woken = core.takeWokenScratch()
        defer { core.returnWokenScratch(&woken) }
        if Lanes.hasScaledLanes {
            // A format with scaled lanes bounds the motion (checkMotion): a retarget's check reads
            // the velocity lanes too, so the lanes are written, checked, into spare lanes in one pass.
            try retargetThroughSpareLanes(in: layout, to: goals, woken: &woken)
            return wake(woken)
        }
        var anyChanged = false
        try core.forEachRun(in: layout.region) { (batch, slots, offset) throws(SpringKernelError) in
            anyChanged = try checkRetarget(batch, count: slots, to: goals + offset) || anyChanged
        }
        // Every target as it was (an engine writing all its targets, none of which moved): one
        // read of the two arrays, nothing written.
        guard anyChanged else { return }
        core.forEachRun(in: layout.region) { batch, slots, offset in
            // Streamed in place where the format streams it (float32), the changed lanes marked per
            // bundle and noted from the marks.
            let changed = core.changedLaneMasks(springs: slots)
            if Lanes.streamRetarget(
                goals: UnsafeRawPointer(goals + offset), targets: batch.targets.base, displacements: batch.displacements.base,
                changed: changed, resting: batch.restingLanesForRetarget, count: slots) {
                return core.trajectoriesChanged(batch: batch, changedLanes: changed, slots: slots, woken: &woken)
            }
            retargetOneByOne(batch, count: slots, to: goals + offset, woken: &woken)
        }
        wake(woken)
    }

    /// ``retarget(in:to:)`` of a Q16.16 bank: the goals compared with the targets in their bits
    /// first (every target unchanged: one read of the two arrays, nothing written); then each
    /// run's lanes written whole into its batch's spare lanes, checked in the same pass (the
    /// check reads the velocity lanes too: the motion must still fit the format), with the
    /// changed lanes marked per bundle, and taken by the batches once the whole call is accepted.
    /// Runs at a scale the stream does not take go one spring at a time. The resting springs
    /// changed are listed in `woken`.
    private func retargetThroughSpareLanes(
        in layout: StorageLayout, to goals: UnsafePointer<Lanes.Value>, woken: inout [Int]
    ) throws(SpringKernelError) {
        let goalLanes = UnsafeRawPointer(goals)
        let laneSize = MemoryLayout<UInt32>.size
        var anyChanged = false, bundles = 0
        core.forEachRun(in: layout.region) { batch, slots, offset in
            anyChanged = anyChanged
                || Lanes.scanTargets(goals: goalLanes + offset * laneSize, stored: batch.targets.base, count: slots)?.anyChanged ?? true
            bundles += BundleIndexing.bundleCount(springs: slots)
        }
        guard anyChanged else { return }
        let marks = core.changedLaneMasks(springs: bundles * BundleIndexing.laneCount)
        var accepted = true, mark = 0
        core.forEachRun(in: layout.region) { batch, slots, offset in
            if streamsRetargets(batch) {
                let spare = batch.spareLanes(filling: slots, .targets)
                accepted = Lanes.streamRetarget(
                    goals: goalLanes + offset * laneSize, targets: batch.targets.base, displacements: batch.displacements.base,
                    velocities: batch.velocities.base, newTargets: spare.beside.base, newDisplacements: spare.displacements.base,
                    changed: marks + mark, resting: batch.restingLanesForRetarget, scale: batch.scale,
                    naturalFrequency: batch.configuration.naturalFrequency,
                    count: slots) && accepted
            } else if accepted {
                accepted = (try? checkRetarget(batch, count: slots, to: goals + offset)) != nil
            }
            mark += BundleIndexing.bundleCount(springs: slots)
        }
        if !accepted {
            // Checked one by one, to name the first target refused (or, for lanes past the
            // stream's conservative bounds, to decide).
            try core.forEachRun(in: layout.region) { (batch, slots, offset) throws(SpringKernelError) in
                _ = try checkRetarget(batch, count: slots, to: goals + offset)
            }
        }
        mark = 0
        core.forEachRun(in: layout.region) { batch, slots, offset in
            if streamsRetargets(batch) {
                batch.adoptFilledLanes(.targets, slots: slots)
                core.trajectoriesChanged(batch: batch, changedLanes: marks + mark, slots: slots, woken: &woken)
            } else {
                retargetOneByOne(batch, count: slots, to: goals + offset, woken: &woken)
            }
            mark += BundleIndexing.bundleCount(springs: slots)
        }
    }

    /// Writes the new targets of a run (checked) one spring at a time, noting the awake springs
    /// changed as runs of adjacent slots (predicted later) and listing the resting ones in `woken`.
    private func retargetOneByOne(_ batch: ConfigurationBatch, count: Int, to goals: UnsafePointer<Lanes.Value>, woken: inout [Int]) {
        var run = 0..<0
        retarget(batch, count: count, to: goals) { slot in
            guard slot < batch.awakeCount else { return woken.append(Int(batch.springOfSlot[slot])) }
            // Moving: the watch decides its rest while it keeps being retargeted.
            if core.markRetargeted(batch: batch, slot: slot) { return }
            if slot == run.upperBound { return run = run.lowerBound..<slot + 1 }
            core.trajectoriesChanged(batch: batch, slots: run)
            run = slot..<slot + 1
        }
        core.trajectoriesChanged(batch: batch, slots: run)
    }

    /// Sets the value and velocity of the layout's i-th spring to `values[i]` and `velocities[i]`,
    /// for every i, as ``setState(of:value:velocity:)`` does one spring (a teleport, or a hand-off
    /// from many gestures at once).
    ///
    /// A spring at rest that is given a state other than its rest starts to move, which changes
    /// the layout: take a new one before the next call that needs one.
    ///
    /// The moving and paused springs are written at memory speed. Q16.16: a call with a value or
    /// target beyond ±16384 (2³⁰ steps), or a motion near the limits of its batch's lanes, is
    /// checked one spring at a time instead: the same result, at the cost of a call per spring.
    ///
    /// - Throws: what ``values(in:into:)`` throws (for either buffer), or what
    ///   ``setState(of:value:velocity:)`` throws for the first spring that would throw it.
    ///   Nothing is changed then.
    ///
    /// - Complexity: O(springs in the layout); each spring changed is predicted again at the next step.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func setState(
        in layout: StorageLayout, values: UnsafeBufferPointer<Lanes.Value>, velocities: UnsafeBufferPointer<Lanes.Value>
    ) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        try core.checkMutable(predictingChanges: false)
        try core.check(layout, count: values.count)
        try core.check(layout, count: velocities.count)
        guard let values = values.baseAddress, let velocities = velocities.baseAddress else { return }
        // Each run's awake slots (float32, and Q16.16 at the scales its stream takes) are written
        // into its batch's spare lanes, checked in the same pass, and the batches take those lanes
        // only once the whole call is accepted; the resting slots are checked here and set below.
        var accepted = true
        core.forEachRun(in: layout.region) { batch, slots, offset in
            let streamed = streamedStateSlots(batch, slots: slots)
            if streamed > 0 {
                let spare = batch.spareLanes(filling: streamed, .motion)
                accepted = fillState(
                    values: UnsafeRawPointer(values + offset), velocities: UnsafeRawPointer(velocities + offset), batch: batch,
                    displacements: spare.displacements, velocities: spare.beside, count: streamed) && accepted
            }
            if streamed < slots, accepted {
                if let storable = Lanes.allStorable(
                    values: UnsafeRawPointer(values + offset + streamed), velocities: UnsafeRawPointer(velocities + offset + streamed),
                    count: slots - streamed) {
                    accepted = storable
                } else {
                    for slot in streamed..<slots where accepted {
                        accepted = (try? storedState(slot: slot, of: batch, value: values[offset + slot], velocity: velocities[offset + slot])) != nil
                    }
                }
            }
        }
        if !accepted {
            // Checked one by one: to name the first element refused (or, for a Q16.16 lane beyond
            // its stream's conservative bounds, to decide).
            try core.forEachRun(in: layout.region) { (batch, slots, offset) throws(SpringKernelError) in
                for slot in 0..<slots { _ = try storedState(slot: slot, of: batch, value: values[offset + slot], velocity: velocities[offset + slot]) }
            }
        }
        // Springs at rest are woken after the walk, as in retarget(in:to:).
        var woken = core.takeWokenScratch()
        defer { core.returnWokenScratch(&woken) }
        core.forEachRun(in: layout.region) { batch, slots, offset in
            // The awake slots written above taken; the others one by one (a resting spring wakes,
            // or keeps the exact rest patterns).
            let streamed = streamedStateSlots(batch, slots: slots)
            if streamed > 0 { batch.adoptFilledLanes(.motion, slots: streamed) }
            for slot in streamed..<slots {
                // Checked before the walk: it does not throw here.
                guard let state = try? storedState(slot: slot, of: batch, value: values[offset + slot], velocity: velocities[offset + slot])
                else { continue }
                batch.displacements[slot] = state.displacement
                batch.velocities[slot] = state.velocity
                if slot >= batch.awakeCount { woken.append(Int(batch.springOfSlot[slot])) }
            }
            // Every awake spring of the run changed (regions: moving, paused, at rest).
            core.trajectoriesChanged(batch: batch, slots: 0..<Swift.min(slots, batch.awakeCount))
        }
        wake(woken, retargeted: false)
    }

    /// Whether a run's retarget through spare lanes is streamed: at the scales its stream takes.
    @inline(__always)
    private func streamsRetargets(_ batch: ConfigurationBatch) -> Bool {
        Lanes.streamsWrites(at: batch.scale)
    }

    /// How many of a run's first slots a state write streams: its awake ones, in the formats and
    /// scales a stream takes (the resting ones wake one by one).
    @inline(__always)
    private func streamedStateSlots(_ batch: ConfigurationBatch, slots: Int) -> Int {
        Lanes.streamsWrites(at: batch.scale) ? Swift.min(slots, batch.awakeCount) : 0
    }

    /// Writes the stored lanes of `count` values and velocities about the batch's targets into
    /// `displacements` and `velocities` (every lane), and returns whether each passed the stream's
    /// check (else the exact check, one by one, decides).
    @inline(__always)
    private func fillState(
        values: UnsafeRawPointer, velocities: UnsafeRawPointer, batch: ConfigurationBatch, displacements: LaneBuffer,
        velocities velocityLanes: LaneBuffer, count: Int
    ) -> Bool {
        Lanes.streamState(
            values: values, velocities: velocities, targets: batch.targets.base, displacements: displacements.base,
            velocityLanes: velocityLanes.base, scale: batch.scale, naturalFrequency: batch.configuration.naturalFrequency,
            count: count)
    }

    /// After a storage-order write: wakes the springs at rest it changed (listed during the walk,
    /// as waking moves slots, which the walk follows), once the awake springs it changed, which
    /// it noted by slot, are predicted. Retargeted ones (`retargeted`) are marked for the watch
    /// as they start to move, as the moving ones were.
    private func wake(_ woken: [Int], retargeted: Bool = true) {
        guard !woken.isEmpty else { return }
        core.predictChangedRuns()
        for record in woken {
            if retargeted { core.wakeRetargeted(record: record) } else { core.setState(record: record) }
        }
    }

    /// The stored lanes of the spring in `slot` at `value` and `velocity` about its target.
    @inline(__always)
    private func storedState(
        slot: Int, of batch: ConfigurationBatch, value: Lanes.Value, velocity: Lanes.Value
    ) throws(SpringKernelError) -> (displacement: UInt32, velocity: UInt32) {
        try storedState(
            value: value, velocity: velocity, target: batch.targets[slot], scale: batch.scale,
            naturalFrequency: batch.configuration.naturalFrequency)
    }

    // MARK: Streams

    /// out[i] = the value of a spring with displacement lane `displacements[i]` (stored `shift`
    /// finer than the API's) and target lane `targets[i]`, as ``value(of:)`` reads it.
    @inline(__always)
    static func readValues(
        displacements: LaneBuffer, targets: LaneBuffer, shift: Int, count: Int, into out: UnsafeMutablePointer<Lanes.Value>
    ) {
        let d = UnsafePointer(displacements.base.assumingMemoryBound(to: UInt32.self))
        let t = UnsafePointer(targets.base.assumingMemoryBound(to: UInt32.self))
        // Streamed where the format streams it (the shims' loops, compiled for AVX-512 and AVX2
        // too: this module is built for the baseline, whose 16-byte loop ran at 0.51-0.54x memcpy
        // in cache); the rest one by one.
        let streamed = Lanes.streamValues(displacements: displacements.base, targets: targets.base, shift: shift, count: count, into: out)
        for i in streamed..<count {
            let displacement = Lanes.apiPattern(d[i], storedShift: shift)
            out[i] = Lanes.value(ofLanePattern: Lanes.valuePattern(displacement: displacement, target: t[i]))
        }
    }

    /// out[i] = the API value of lane `lanes[i]`, stored `shift` finer than the API's.
    @inline(__always)
    static func readLanes(_ lanes: LaneBuffer, shift: Int, count: Int, into out: UnsafeMutablePointer<Lanes.Value>) {
        let stored = UnsafePointer(lanes.base.assumingMemoryBound(to: UInt32.self))
        let streamed = Lanes.streamLanes(lanes.base, shift: shift, count: count, into: out)
        for i in streamed..<count { out[i] = Lanes.value(ofLanePattern: Lanes.apiPattern(stored[i], storedShift: shift)) }
    }

    /// Checks that every spring of a run can take its new target (what ``retarget(_:to:)`` checks);
    /// returns whether any target differs from the spring's.
    @inline(__always)
    private func checkRetarget(_ batch: ConfigurationBatch, count: Int, to goals: UnsafePointer<Lanes.Value>) throws(SpringKernelError) -> Bool {
        // Compared and checked sixteen at a time where the format can (float32); the element loop
        // below then only runs to name the first target refused.
        if let scan = Lanes.scanTargets(goals: UnsafeRawPointer(goals), stored: batch.targets.base, count: count), scan.allStorable {
            return scan.anyChanged
        }
        var anyChanged = false
        for slot in 0..<count {
            let goal = try Lanes.lanePattern(of: goals[slot], as: .target)
            guard goal != batch.targets[slot] else { continue }
            _ = try retargetedDisplacement(slot: slot, in: batch, to: goal)
            anyChanged = true
        }
        return anyChanged
    }

    /// Writes the new targets of a run (checked), calling `changed` with each slot whose target
    /// moved (runs not streamed: float32 lanes go through ``Float32Lanes/streamRetarget(goals:targets:displacements:changed:count:)``,
    /// Q16.16 lanes at the stream's scales through ``Q16Lanes/streamRetarget(goals:targets:displacements:velocities:newTargets:newDisplacements:changed:scale:naturalFrequency:count:)``).
    @inline(__always)
    private func retarget(
        _ batch: ConfigurationBatch, count: Int, to goals: UnsafePointer<Lanes.Value>, changed: (Int) -> Void
    ) {
        for slot in 0..<count { retarget(slot: slot, of: batch, to: goals[slot], changed: changed) }
    }

    /// Pulls the spring in `slot` toward `target` (checked) unless that is its target already.
    @inline(__always)
    private func retarget(slot: Int, of batch: ConfigurationBatch, to target: Lanes.Value, changed: (Int) -> Void) {
        // Checked before the walk: neither throws here.
        guard let goal = try? Lanes.lanePattern(of: target, as: .target), goal != batch.targets[slot],
              let displacement = try? retargetedDisplacement(slot: slot, in: batch, to: goal)
        else { return }
        batch.displacements[slot] = displacement
        batch.targets[slot] = goal
        changed(slot)
    }

    /// The stored displacement of the spring in `slot` once pulled toward `goal`, checked to fit
    /// the format: the computation and check of a spring found by handle
    /// (``retargetedLanes(slot:of:to:)``); its displacement as it is when `goal` is its target.
    @inline(__always)
    private func retargetedDisplacement(slot: Int, in batch: ConfigurationBatch, to goal: UInt32) throws(SpringKernelError) -> UInt32 {
        try retargetedLanes(slot: slot, of: core.batchLanes[batch.index], to: goal)?.moved ?? batch.displacements[slot]
    }
}
