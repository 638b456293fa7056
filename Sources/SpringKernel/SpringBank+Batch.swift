/// Events for many springs in one call: what an engine does once per frame (an attachment that
/// follows a dragged target retargets every spring of it, every frame).
///
/// Each call checks every input before it changes anything, so a refused call leaves the bank as
/// it was, like every other call. The changed springs are predicted at the next step, in one pass.
extension SpringBank {
    /// Pulls `springs[i]` toward `targets[i]`, for every i, as ``retarget(_:to:)`` does one spring.
    ///
    /// - Throws: ``SpringKernelError/countMismatch(expected:given:)`` when the buffers differ in
    ///   length; any error ``retarget(_:to:)`` throws, for the first spring that would throw it.
    ///   Nothing is changed then.
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func retarget(_ springs: UnsafeBufferPointer<SpringHandle>, to targets: UnsafeBufferPointer<Lanes.Value>) throws(SpringKernelError) {
        try core.checkMutable()
        guard springs.count == targets.count else { throw .countMismatch(expected: springs.count, given: targets.count) }
        // Check everything first. A spring listed twice keeps its value (value = target +
        // displacement) through a retarget, so checking each against the current state suffices.
        for i in springs.indices {
            _ = try retargetedDisplacement(record: try core.recordIndex(springs[i]), to: try Lanes.lanePattern(of: targets[i], as: .target))
        }
        for i in springs.indices {
            let index = Int(springs[i].index)
            let goal = try Lanes.lanePattern(of: targets[i], as: .target)
            core.setState(record: index, displacement: try retargetedDisplacement(record: index, to: goal), target: goal)
        }
    }

    /// Pulls `springs[i]` toward `targets[i]`, for every i (see the buffer form).
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
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func setState(
        of springs: UnsafeBufferPointer<SpringHandle>, values: UnsafeBufferPointer<Lanes.Value>,
        velocities: UnsafeBufferPointer<Lanes.Value>
    ) throws(SpringKernelError) {
        try core.checkMutable()
        guard springs.count == values.count else { throw .countMismatch(expected: springs.count, given: values.count) }
        guard springs.count == velocities.count else { throw .countMismatch(expected: springs.count, given: velocities.count) }
        // A set state keeps the target, the only lane the check reads, so checking each against
        // the state before the call suffices.
        for i in springs.indices {
            _ = try storedState(record: try core.recordIndex(springs[i]), value: values[i], velocity: velocities[i])
        }
        for i in springs.indices {
            let index = Int(springs[i].index)
            let state = try storedState(record: index, value: values[i], velocity: velocities[i])
            core.setState(record: index, displacement: state.displacement, velocity: state.velocity)
        }
    }

    /// Adds `deltas[i]` to the velocity of `springs[i]`, for every i, as
    /// ``addVelocity(_:to:)`` does one spring; a spring listed twice gets both, in order.
    ///
    /// - Throws: ``SpringKernelError/countMismatch(expected:given:)`` when the buffers differ in
    ///   length; any error ``addVelocity(_:to:)`` throws, for the first impulse that would throw
    ///   it (counting the earlier impulses of the call). Nothing is changed then.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func addVelocity(_ deltas: UnsafeBufferPointer<Lanes.Value>, to springs: UnsafeBufferPointer<SpringHandle>) throws(SpringKernelError) {
        try core.checkMutable()
        guard springs.count == deltas.count else { throw .countMismatch(expected: springs.count, given: deltas.count) }
        // Impulses to one spring add up, so the check follows each spring's velocity through the
        // call (kept aside, not in the lanes); the table keeps its storage between calls.
        core.batchVelocities.removeAll(keepingCapacity: true)
        for i in springs.indices {
            let index = try core.recordIndex(springs[i])
            let base = core.batchVelocities[index] ?? core.lanePatterns(ofRecord: index).velocity
            core.batchVelocities[index] = try impulsedVelocity(record: index, adding: deltas[i], to: base)
        }
        for i in springs.indices {
            let index = Int(springs[i].index)
            core.setState(record: index, velocity: try impulsedVelocity(record: index, adding: deltas[i]))
        }
    }

    /// Adds `velocity` to the velocity of every spring the mask lists (an impulse to a group);
    /// springs at rest start moving, paused ones keep the new velocity until they are resumed.
    ///
    /// - Throws: what ``addVelocity(_:to:)`` throws for the first member that would throw it,
    ///   or ``SpringKernelError/stalePauseMask(_:)``; nothing is changed then.
    // Compiled for the shipped formats: a call per event reaches their arithmetic directly.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func addVelocity(_ velocity: Lanes.Value, toEveryMemberOf mask: PauseMaskID) throws(SpringKernelError) {
        try core.checkMutable()
        let members = core.memberRecords(ofMask: try core.maskIndex(mask))
        for index in members { _ = try impulsedVelocity(record: index, adding: velocity) }
        for index in members { core.setState(record: index, velocity: try impulsedVelocity(record: index, adding: velocity)) }
    }
}
