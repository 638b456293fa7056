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
