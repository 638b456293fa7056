/// A spring's state at a glance, as ``SpringBank/state(of:)`` reads it.
public struct SpringState<Value: Sendable>: Sendable {
    /// The spring's value.
    public var value: Value
    /// Its velocity, in value units per second.
    public var velocity: Value
    /// The value it pulls toward.
    public var target: Value
    /// Exactly on its target, not moving, not scheduled.
    public var isAtRest: Bool
    /// Held by at least one pause mask.
    public var isPaused: Bool
}

extension SpringState: Equatable where Value: Equatable {}

/// Reads that do not throw, reads of many springs into the caller's buffers, and the caller's own
/// value per spring: what an engine reads every frame, without a side table keyed by handle.
extension SpringBank {
    /// The spring's value, velocity, target, rest and pause, or nil for a handle this bank does not
    /// hold (removed, or made by another bank).
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func state(of spring: SpringHandle) -> SpringState<Lanes.Value>? {
        guard let index = try? core.recordIndex(spring) else { return nil }
        let lanes = core.apiLanePatterns(Lanes.self, ofRecord: index)
        return SpringState(
            value: Lanes.value(ofLanePattern: Lanes.valuePattern(displacement: lanes.displacement, target: lanes.target)),
            velocity: Lanes.value(ofLanePattern: lanes.velocity), target: Lanes.value(ofLanePattern: lanes.target),
            isAtRest: !core.isAwake(record: index), isPaused: core.isPaused(record: index))
    }

    /// The caller's value for the spring, as given to ``add(value:target:velocity:configuration:tolerance:userValue:)``
    /// or ``setUserValue(_:of:)``.
    public func userValue(of spring: SpringHandle) throws(SpringKernelError) -> UInt64 {
        core.userValue(ofRecord: try core.recordIndex(spring))
    }

    /// Sets the caller's value for the spring. Allowed inside a resume's restart closure, like
    /// any read: it changes nothing the bank computes with.
    public func setUserValue(_ userValue: UInt64, of spring: SpringHandle) throws(SpringKernelError) {
        core.setUserValue(userValue, ofRecord: try core.recordIndex(spring))
    }

    /// Writes `springs[i]`'s value into `values[i]`, for every i.
    ///
    /// - Throws: ``SpringKernelError/countMismatch(expected:given:)`` when the buffers differ in
    ///   length, or the first handle's ``SpringKernelError/staleHandle(_:)`` or
    ///   ``SpringKernelError/foreignHandle``; `values` is then left as it was.
    ///
    /// - Complexity: O(n) for n springs listed.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func values(of springs: UnsafeBufferPointer<SpringHandle>, into values: UnsafeMutableBufferPointer<Lanes.Value>) throws(SpringKernelError) {
        try read(springs, into: values) { lanes in Lanes.value(ofLanePattern: Lanes.valuePattern(displacement: lanes.displacement, target: lanes.target)) }
    }

    /// Writes `springs[i]`'s velocity into `velocities[i]`, for every i (see ``values(of:into:)``).
    ///
    /// - Complexity: O(n) for n springs listed.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func velocities(of springs: UnsafeBufferPointer<SpringHandle>, into velocities: UnsafeMutableBufferPointer<Lanes.Value>) throws(SpringKernelError) {
        try read(springs, into: velocities) { lanes in Lanes.value(ofLanePattern: lanes.velocity) }
    }

    /// Writes `springs[i]`'s target into `targets[i]`, for every i (see ``values(of:into:)``).
    ///
    /// - Complexity: O(n) for n springs listed.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func targets(of springs: UnsafeBufferPointer<SpringHandle>, into targets: UnsafeMutableBufferPointer<Lanes.Value>) throws(SpringKernelError) {
        try read(springs, into: targets) { lanes in Lanes.value(ofLanePattern: lanes.target) }
    }

    /// Writes `springs[i]`'s user value into `userValues[i]`, for every i (see ``values(of:into:)``):
    /// with ``restedInLastStep``, a frame's rest events as the caller's own ids.
    ///
    /// - Complexity: O(n) for n springs listed.
    public func userValues(of springs: UnsafeBufferPointer<SpringHandle>, into userValues: UnsafeMutableBufferPointer<UInt64>) throws(SpringKernelError) {
        guard springs.count == userValues.count else { throw .countMismatch(expected: springs.count, given: userValues.count) }
        for spring in springs { _ = try core.recordIndex(spring) }
        for i in springs.indices { userValues[i] = core.userValue(ofRecord: Int(springs[i].index)) }
    }

    /// Checks every handle, then writes `read(lanes)` of each spring's API lanes into `out`.
    @inline(__always)
    private func read<T>(
        _ springs: UnsafeBufferPointer<SpringHandle>, into out: UnsafeMutableBufferPointer<T>,
        _ read: ((displacement: UInt32, velocity: UInt32, target: UInt32)) -> T
    ) throws(SpringKernelError) {
        guard springs.count == out.count else { throw .countMismatch(expected: springs.count, given: out.count) }
        for spring in springs { _ = try core.recordIndex(spring) }
        for i in springs.indices { out[i] = read(core.apiLanePatterns(Lanes.self, ofRecord: Int(springs[i].index))) }
    }
}
