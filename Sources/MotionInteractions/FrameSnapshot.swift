import SpringKernel

/// What the kernel says about the runtime's springs as a delivery begins, by stream slot: the
/// values of the springs that moved, and which components are still moving.
///
/// The runtime takes a snapshot only while the bank holds nothing but its streams' springs (it
/// counts them); otherwise every stream is read by handle, as a spring added by hand could carry
/// a user value that passes for a stream's.
///
/// Reading each moving stream's values by handle costs a lookup a spring (handle, record, batch,
/// slot: a cache miss in the kernel's records, which do not fit the cache); the snapshot instead
/// streams the kernel's moving springs in storage order (``SpringBank/values(in:into:)`` and
/// ``SpringBank/userValues(in:into:)``), each spring's user value naming its stream's slot and
/// component, and scatters them into a table by slot that the delivery then walks in slot order.
/// The springs the step brought to rest (not in the moving region any more) are read by handle:
/// a few a frame.
///
/// A snapshot is only as good as the moment it was taken: a stream whose springs the runtime
/// changes during the delivery (a callback sets its destination, pauses it, restarts it) is
/// marked, and read from the kernel at its turn instead, as is a stream with a component that
/// neither moved nor rested in the step (its value was not streamed).
///
/// Its fields are read and written in single statements, never across a callback: no runtime
/// exclusivity checks.
final class FrameSnapshot {
    /// Each slot's component values, for the components its bits name.
    @exclusivity(unchecked) private(set) var values: UnsafeMutablePointer<SIMD4<Float>>
    /// Each slot's components in the snapshot: bits 0–3 still moving after the step, bits 4–7
    /// brought to rest by it.
    @exclusivity(unchecked) private(set) var components: UnsafeMutablePointer<UInt8>
    /// Each slot's components known to be at rest, their values in ``values``: noted when the
    /// runtime last asked the kernel about the stream (``noteComponent(slot:_:restingAt:)``) or
    /// when a step brought them to rest, and kept across frames (a spring at rest stays where it
    /// is until the runtime changes it, and then asks again).
    @exclusivity(unchecked) private var resting: UnsafeMutablePointer<UInt8>
    /// One bit per slot: read the stream from the kernel, not from the snapshot.
    @exclusivity(unchecked) private var stale: UnsafeMutablePointer<UInt64>
    @exclusivity(unchecked) private var slotCapacity = 0
    /// The slots the last ``take(from:slotCount:)`` covered.
    @exclusivity(unchecked) private(set) var slotCount = 0
    /// Whether any stale bit is set.
    @exclusivity(unchecked) private var hasStaleSlots = false

    /// The slots a delivery walks, in order (``deliveryOrder(from:words:)``).
    @exclusivity(unchecked) private(set) var order: UnsafeMutablePointer<Int32>
    /// The moving region's user values and values, in storage order (read buffers).
    private var layoutUserValues: UnsafeMutablePointer<UInt64>
    private var layoutValues: UnsafeMutablePointer<Float>
    private var springCapacity = 0

    /// The step's rest events (``SpringBank/restedInLastStep``, in its order) as
    /// `slot << 2 | component`, or −1 for a spring that is no stream's any more.
    @exclusivity(unchecked) private(set) var restEvents: UnsafeMutablePointer<Int32>
    private var restCapacity = 0
    @exclusivity(unchecked) private(set) var restEventCount = 0

    init() {
        values = .allocate(capacity: 0)
        components = .allocate(capacity: 0)
        resting = .allocate(capacity: 0)
        stale = .allocate(capacity: 0)
        order = .allocate(capacity: 0)
        layoutUserValues = .allocate(capacity: 0)
        layoutValues = .allocate(capacity: 0)
        restEvents = .allocate(capacity: 0)
    }

    deinit {
        values.deallocate()
        components.deallocate()
        resting.deallocate()
        stale.deallocate()
        order.deallocate()
        layoutUserValues.deallocate()
        layoutValues.deallocate()
        restEvents.deallocate()
    }

    // MARK: User values

    /// Marks the runtime's user values (the high half), so a spring added to the bank by its
    /// owner with a user value of its own is never taken for a stream's.
    private static var userValueTag: UInt64 { 0x4D6F_7469 << 32 }

    /// The user value of component `component` of the stream in `slot`.
    static func userValue(slot: Int, component: Int) -> UInt64 {
        userValueTag | UInt64(slot) << 2 | UInt64(component)
    }

    /// `slot << 2 | component` of a user value, or nil for one the runtime did not give.
    @inline(__always)
    static func streamComponent(ofUserValue userValue: UInt64) -> Int? {
        guard userValue & ~0xFFFF_FFFF == userValueTag else { return nil }
        return Int(userValue & 0xFFFF_FFFF)
    }

    // MARK: Room

    /// Makes room for `slots` stream slots and `springs` kernel springs, so a frame allocates
    /// nothing (called as streams connect; ``take(from:slotCount:)`` grows for springs the
    /// runtime did not add).
    func reserve(slots: Int, springs: Int) {
        if slots > slotCapacity {
            // Called during a delivery too (a callback connects a stream): what the snapshot
            // holds moves over.
            let capacity = max(slots, 2 * slotCapacity, 64)
            let words = (capacity + 63) >> 6, oldWords = (slotCapacity + 63) >> 6
            let newValues = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: capacity)
            let newComponents = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            let newResting = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            let newStale = UnsafeMutablePointer<UInt64>.allocate(capacity: words)
            newValues.moveInitialize(from: values, count: slotCapacity)
            newComponents.moveInitialize(from: components, count: slotCapacity)
            newResting.moveInitialize(from: resting, count: slotCapacity)
            (newResting + slotCapacity).initialize(repeating: 0, count: capacity - slotCapacity)
            newStale.moveInitialize(from: stale, count: oldWords)
            (newStale + oldWords).initialize(repeating: 0, count: words - oldWords)
            values.deallocate()
            components.deallocate()
            resting.deallocate()
            stale.deallocate()
            values = newValues
            components = newComponents
            resting = newResting
            stale = newStale
            // Not read once a delivery has listed its slots.
            order.deallocate()
            order = .allocate(capacity: capacity)
            slotCapacity = capacity
        }
        if springs > springCapacity {
            let capacity = max(springs, 2 * springCapacity, 64)
            layoutUserValues.deallocate()
            layoutValues.deallocate()
            layoutUserValues = .allocate(capacity: capacity)
            layoutValues = .allocate(capacity: capacity)
            springCapacity = capacity
        }
    }

    // MARK: Taking

    /// Whether the last ``take(from:slotCount:holdsOnlyStreamSprings:)`` read anything: false
    /// when the bank held springs that are no stream's (added by hand), whose user values could
    /// pass for a stream's.
    @exclusivity(unchecked) private(set) var isTrusted = false

    /// Reads the moving springs in storage order and the step's rest events by handle. Unless
    /// the bank holds only the streams' springs, it reads nothing but the rest events, and every
    /// stream is read from the kernel.
    func take(from bank: SpringBank<Float32Lanes>, slotCount: Int, holdsOnlyStreamSprings: Bool) {
        let rested = bank.restedInLastStep
        let layout = bank.storageLayout(of: .moving)
        reserve(slots: slotCount, springs: max(layout.count, rested.count))
        if hasStaleSlots {
            stale.update(repeating: 0, count: (self.slotCount + 63) >> 6)
            hasStaleSlots = false
        }
        self.slotCount = slotCount
        components.initialize(repeating: 0, count: slotCount)
        isTrusted = holdsOnlyStreamSprings

        let count = layout.count
        let userValues = UnsafeMutableBufferPointer(start: layoutUserValues, count: count)
        let laneValues = UnsafeMutableBufferPointer(start: layoutValues, count: count)
        // The layout was just taken, so neither read throws; if one did, every stream with a
        // moving spring would read its values by handle.
        if isTrusted, (try? bank.userValues(in: layout, into: userValues)) != nil, (try? bank.values(in: layout, into: laneValues)) != nil {
            for i in 0..<count {
                guard let streamComponent = Self.streamComponent(ofUserValue: userValues[i]) else { continue }
                record(laneValues[i], streamComponent: streamComponent, bits: 0x01)
            }
        }

        if rested.count > restCapacity {
            restEvents.deallocate()
            restCapacity = max(rested.count, 2 * restCapacity, 64)
            restEvents = .allocate(capacity: restCapacity)
        }
        restEventCount = rested.count
        guard !rested.isEmpty else { return }
        // In one call each (the kernel's look-ups of the springs overlap); a spring removed since
        // the step (its stream cancelled by a caller between the step and the delivery) makes
        // them throw, and then each is read alone.
        let restedUserValues = UnsafeMutableBufferPointer(start: layoutUserValues, count: rested.count)
        let restedValues = UnsafeMutableBufferPointer(start: layoutValues, count: rested.count)
        let read = rested.withUnsafeBufferPointer { springs in
            (try? bank.userValues(of: springs, into: restedUserValues)) != nil && (try? bank.values(of: springs, into: restedValues)) != nil
        }
        for (i, spring) in rested.enumerated() {
            let userValue = read ? restedUserValues[i] : try? bank.userValue(of: spring)
            let value = read ? restedValues[i] : try? bank.value(of: spring)
            guard let userValue, let value, let streamComponent = Self.streamComponent(ofUserValue: userValue) else {
                restEvents[i] = -1
                continue
            }
            restEvents[i] = Int32(truncatingIfNeeded: streamComponent)
            if isTrusted { record(value, streamComponent: streamComponent, bits: 0x10) }
        }
    }

    /// Notes `value` for a component: `bits` 0x01 for a moving one, 0x10 for one the step
    /// brought to rest (which stays known at rest).
    @inline(__always)
    private func record(_ value: Float, streamComponent: Int, bits: UInt8) {
        let slot = streamComponent >> 2, component = streamComponent & 3
        guard slot < slotCount else { return }
        let seen = components[slot]
        // Two springs claiming one component (not the runtime's doing): read it by handle.
        if seen & (0x11 << component) != 0 { markStale(slot: slot) }
        components[slot] = seen | bits << component
        // A moving component's resting bit was cleared by the runtime as it started it (and a
        // moving bit wins over it anyway): only a rest touches the byte.
        if bits == 0x10 { resting[slot] |= 1 << component }
        UnsafeMutableRawPointer(values + slot).storeBytes(of: value, toByteOffset: component * 4, as: Float.self)
    }

    /// Notes what the runtime just asked the kernel about a component of the stream in `slot`:
    /// at rest at `value`, or (nil) moving or held.
    @inline(__always)
    func noteComponent(slot: Int, _ component: Int, restingAt value: Float?) {
        guard slot >= 0, slot < slotCapacity else { return }
        let bit: UInt8 = 1 << component
        guard let value else { return resting[slot] &= ~bit }
        resting[slot] |= bit
        UnsafeMutableRawPointer(values + slot).storeBytes(of: value, toByteOffset: component * 4, as: Float.self)
    }

    /// Lists the slots whose bits are set in `bits` (`words` words), in slot order, into
    /// ``order``; returns how many. `words * 64` must not exceed the slots reserved.
    func listSlots(of bits: UnsafePointer<UInt64>, words: Int) -> Int {
        var count = 0
        for word in 0..<words {
            var remaining = bits[word]
            while remaining != 0 {
                order[count] = Int32(truncatingIfNeeded: word << 6 | remaining.trailingZeroBitCount)
                remaining &= remaining - 1
                count += 1
            }
        }
        return count
    }

    // MARK: Reading

    /// The stream in `slot` is to be read from the kernel, not from this snapshot (the runtime
    /// changed its springs).
    @inline(__always)
    func markStale(slot: Int) {
        guard slot >= 0, slot < slotCount else { return }
        stale[slot >> 6] |= 1 << UInt64(slot & 63)
        hasStaleSlots = true
    }

    /// The values of the stream in `slot` if the snapshot holds every one of `componentMask`'s
    /// components (bit c for component c), as they are in the kernel now.
    @inline(__always)
    func values(ofSlot slot: Int, componentMask: UInt8) -> SIMD4<Float>? {
        guard isTrusted else { return nil }
        let seen = components[slot]
        guard (seen | resting[slot]) & componentMask == componentMask else { return nil }
        guard !hasStaleSlots || stale[slot >> 6] & (1 << UInt64(slot & 63)) == 0 else { return nil }
        return values[slot]
    }

    /// Whether a component of the stream in `slot` was still moving after the step; nil when
    /// the snapshot cannot say (the kernel must be asked).
    @inline(__always)
    func isMoving(slot: Int) -> Bool? {
        guard isTrusted, !hasStaleSlots || stale[slot >> 6] & (1 << UInt64(slot & 63)) == 0 else { return nil }
        return components[slot] & 0x0F != 0
    }
}
