/// Springs added and removed many at a time: an engine that spawns and retires effects every
/// frame makes one call for all of them, which checks every input before it changes anything.
extension SpringBank {
    /// Adds a spring for each i, at `values[i]`, pulled toward `targets[i]`, moving at
    /// `velocities[i]` (0 when nil), carrying `userValues[i]` (0 when nil), all with one
    /// configuration and tolerance, as ``add(value:target:velocity:configuration:tolerance:userValue:)``
    /// adds one; writes their handles to `handles`, whose length is the number of springs.
    ///
    /// The configuration's batch is looked up once and made room for once, not once a spring.
    ///
    /// - Throws: ``SpringKernelError/countMismatch(expected:given:)`` when a buffer's length is not
    ///   `handles.count`; any error the one-spring form throws, for the first spring that would
    ///   throw it (``SpringKernelError/tooManySprings`` if all of them do not fit,
    ///   ``SpringKernelError/outOfMemory`` if the record table cannot grow to hold them). Nothing
    ///   is added then, and `handles` is not written.
    ///
    /// - Complexity: Amortized O(n) for n springs added.
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public func add(
        values: UnsafeBufferPointer<Lanes.Value>, targets: UnsafeBufferPointer<Lanes.Value>,
        velocities: UnsafeBufferPointer<Lanes.Value>? = nil, userValues: UnsafeBufferPointer<UInt64>? = nil,
        configuration: SpringConfiguration = .default, tolerance: Lanes.Value,
        into handles: UnsafeMutableBufferPointer<SpringHandle>
    ) throws(SpringKernelError) {
        let rounding = enterNearestRounding()
        defer { NearestRounding.leave(ifEntered: rounding) }
        let configuration = NearestRounding.fenced(configuration, after: rounding)
        try core.checkMutable()
        let count = handles.count
        guard values.count == count else { throw .countMismatch(expected: count, given: values.count) }
        guard targets.count == count else { throw .countMismatch(expected: count, given: targets.count) }
        if let velocities, velocities.count != count { throw .countMismatch(expected: count, given: velocities.count) }
        if let userValues, userValues.count != count { throw .countMismatch(expected: count, given: userValues.count) }
        // Checked in the one-spring form's order: the first spring's value, target and velocity,
        // then the tolerance they share, then the rest.
        var band = Double.nan, scale = LaneScale.identity
        func checkTolerance() throws(SpringKernelError) {
            band = try Lanes.tolerance(tolerance)
            scale = core.laneScale(configuration: configuration, tolerance: band)
        }
        if count == 0 { try checkTolerance() }
        core.staged.removeAll()
        for i in 0..<count {
            let goal = try Lanes.lanePattern(of: targets[i], as: .target)
            let displacement = try Lanes.displacementPattern(value: try Lanes.lanePattern(of: values[i], as: .value), target: goal)
            let speed = try velocities.map { v throws(SpringKernelError) in try Lanes.lanePattern(of: v[i], as: .velocity) } ?? 0
            if i == 0 { try checkTolerance() }
            let stored = try Lanes.storedLanes(
            displacement: displacement, velocity: speed, target: goal,
                shift: scale, scale: scale, naturalFrequency: configuration.naturalFrequency)
            core.staged.append(StagedLanes(
                record: 0, batch: 0, displacement: stored.displacement, velocity: stored.velocity, target: goal))
        }
        try core.addStaged(configuration: configuration, tolerance: band, scale: scale, userValues: userValues, into: handles)
    }

    /// Adds a spring for each i (see the buffer form); returns their handles in order.
    ///
    /// <!-- fragment: kernel-bank -->
    /// ```swift
    /// let dots = try bank.add(values: [0, 10, 20], targets: [100, 100, 100], tolerance: 0.5)
    /// ```
    ///
    /// - Complexity: Amortized O(n) for n springs added.
    public func add(
        values: [Lanes.Value], targets: [Lanes.Value], velocities: [Lanes.Value]? = nil, userValues: [UInt64]? = nil,
        configuration: SpringConfiguration = .default, tolerance: Lanes.Value
    ) throws(SpringKernelError) -> [SpringHandle] {
        var handles = [SpringHandle](repeating: SpringHandle(index: 0, generation: 0, bankTag: 0), count: values.count)
        try handles.withUnsafeMutableBufferPointer { handles throws(SpringKernelError) in
            try values.withUnsafeBufferPointer { values throws(SpringKernelError) in
                try targets.withUnsafeBufferPointer { targets throws(SpringKernelError) in
                    try withOptionalBuffer(velocities) { velocities throws(SpringKernelError) in
                        try withOptionalBuffer(userValues) { userValues throws(SpringKernelError) in
                            try add(
                                values: values, targets: targets, velocities: velocities, userValues: userValues,
                                configuration: configuration, tolerance: tolerance, into: handles)
                        }
                    }
                }
            }
        }
        return handles
    }

    /// Removes every listed spring, as ``remove(_:)`` does one; their handles become stale.
    ///
    /// - Throws: ``SpringKernelError/staleHandle(_:)`` or ``SpringKernelError/foreignHandle`` for
    ///   the first handle that names no spring of this bank, and ``SpringKernelError/staleHandle(_:)``
    ///   for a spring listed twice (its second listing would name a removed spring);
    ///   ``SpringKernelError/reentrantMutation`` inside a callback. Nothing is removed then.
    ///
    /// - Complexity: O(n × d) for n springs listed, each listed by d masks.
    public func remove(_ springs: UnsafeBufferPointer<SpringHandle>) throws(SpringKernelError) {
        try core.remove(springs)
    }

    /// Removes every listed spring (see the buffer form).
    ///
    /// - Complexity: O(n × d) for n springs listed, each listed by d masks.
    public func remove(_ springs: [SpringHandle]) throws(SpringKernelError) {
        try springs.withUnsafeBufferPointer { springs throws(SpringKernelError) in try core.remove(springs) }
    }
}

/// Calls `body` with a buffer of the array's elements, or nil for no array.
private func withOptionalBuffer<Element, Result>(
    _ array: [Element]?, _ body: (UnsafeBufferPointer<Element>?) throws(SpringKernelError) -> Result
) throws(SpringKernelError) -> Result {
    guard let array else { return try body(nil) }
    return try array.withUnsafeBufferPointer { buffer throws(SpringKernelError) in try body(buffer) }
}
