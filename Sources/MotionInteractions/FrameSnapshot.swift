import SpringKernel

/// What the kernel says about the runtime's springs as a delivery begins, by stream slot: which
/// streams have a spring that moved or rested in the step, the values of those springs, and which
/// components are still moving.
///
/// Every spring in the runtime's kernel is a stream's (only the runtime adds springs to it), and
/// each carries its stream's slot and component as its user value: the kernel's reads and rest
/// events name the stream themselves, so the runtime keeps no table from spring to stream.
///
/// Reading each moving stream's values by handle costs a lookup a spring (handle, record, batch,
/// slot: a cache miss in the kernel's records, which do not fit the cache); the snapshot instead
/// streams the kernel's moving springs in storage order (`SpringBank.values(in:into:)` and
/// `SpringBank.userValues(in:into:)`), and scatters them into a table by slot that the delivery
/// then walks in slot order. The springs the step brought to rest (not in the moving region any
/// more) are read by handle: a few a frame.
///
/// A snapshot is only as good as the moment it was taken: a stream whose springs the runtime
/// changes during the delivery (a callback sets its destination, pauses it, restarts it) is
/// marked, and read from the kernel at its turn instead, as is a stream with a component that
/// neither moved nor rested in a step since the runtime last changed it (its value was not read).
///
/// Its fields are read and written in single statements, never across a callback: no runtime
/// exclusivity checks.
final class FrameSnapshot {
    /// Each slot's component values, for the components its bits name.
    @exclusivity(unchecked) private(set) var values: UnsafeMutablePointer<SIMD4<Float>>
    /// Each slot's components in the snapshot: bits 0–3 still moving after the step, bits 4–7
    /// brought to rest by it. Non-zero for exactly the slots a delivery walks. Zero past
    /// ``slotCount`` to the next multiple of 8, so it can be scanned 8 slots at a time.
    @exclusivity(unchecked) private(set) var components: UnsafeMutablePointer<UInt8>
    /// Each slot's components that a rest event of an earlier step (or this one) left at rest,
    /// their values in ``values``: the kernel leaves a spring at rest where it is until the
    /// runtime changes it, and the runtime forgets them whenever it does
    /// (``forgetRests(ofSlot:)``). Filled from rest events only, never by asking the kernel.
    @exclusivity(unchecked) private var resting: UnsafeMutablePointer<UInt8>
    /// One bit per slot: read the stream from the kernel, not from the snapshot.
    @exclusivity(unchecked) private var stale: UnsafeMutablePointer<UInt64>
    @exclusivity(unchecked) private var slotCapacity = 0
    /// The slots the last ``take(from:slotCount:)`` covered.
    @exclusivity(unchecked) private(set) var slotCount = 0
    /// Whether any stale bit is set.
    @exclusivity(unchecked) private var hasStaleSlots = false
    /// The kernel's layout version when the snapshot was taken: while it has not moved, no spring
    /// has started, rested, been held or let go since, and ``isMoving(slot:)`` is the kernel's.
    @exclusivity(unchecked) private(set) var layoutVersion: UInt64 = 0

    /// The slots a delivery walks, in order (``listMovedSlots()``).
    @exclusivity(unchecked) private(set) var order: UnsafeMutablePointer<Int32>
    /// The moving region's user values and values, in storage order (read buffers).
    private var layoutUserValues: UnsafeMutablePointer<UInt64>
    private var layoutValues: UnsafeMutablePointer<Float>
    private var springCapacity = 0
    /// For each moving spring in storage order, where its value goes in ``values`` (a byte
    /// offset, −1 for none), as the last full take decoded its user value; valid while the
    /// layout's version and count and the slot count are the ones below (`cachedLayoutVersion`
    /// nil: not valid). A frame whose moving springs are the last one's (every spring of an
    /// AttachWithSpring or a camera follow moving, none resting or starting) reads only their
    /// values, and ``components`` stays as it was.
    private var layoutOffsets: UnsafeMutablePointer<Int32>
    private var cachedLayoutVersion: UInt64?
    private var cachedLayoutCount = 0
    private var cachedSlotCount = 0

    /// The step's rest events (`SpringBank.restedInLastStep`, in its order) as
    /// `slot << 2 | component`, or −1 for a spring removed since the step.
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
        layoutOffsets = .allocate(capacity: 0)
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
        layoutOffsets.deallocate()
        restEvents.deallocate()
    }

    // MARK: User values

    /// The user value of component `component` of the stream in `slot`: the one place a spring
    /// says which stream it is.
    static func userValue(slot: Int, component: Int) -> UInt64 {
        UInt64(slot) << 2 | UInt64(component)
    }

    // MARK: Room

    /// Makes room for `slots` stream slots and `springs` kernel springs, so a frame allocates
    /// nothing (called as streams connect; ``take(from:slotCount:)`` grows if need be).
    func reserve(slots: Int, springs: Int) {
        if slots > slotCapacity {
            // Called during a delivery too (a callback connects a stream): what the snapshot
            // holds moves over.
            // Whole words of slots (the stale bits), so whole 8-slot chunks (the components).
            let capacity = (max(slots, 2 * slotCapacity, 64) + 63) & ~63
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
            layoutOffsets.deallocate()
            layoutUserValues = .allocate(capacity: capacity)
            layoutValues = .allocate(capacity: capacity)
            layoutOffsets = .allocate(capacity: capacity)
            cachedLayoutVersion = nil
            springCapacity = capacity
        }
    }

    // MARK: Taking

    /// Reads the moving springs in storage order and the step's rest events by handle.
    func take(from bank: SpringBank<Float32Lanes>, slotCount: Int) {
        let rested = bank.restedInLastStep
        let layout = bank.storageLayout(of: .moving)
        reserve(slots: slotCount, springs: max(layout.count, rested.count))
        let words = (max(slotCount, self.slotCount) + 63) >> 6
        if hasStaleSlots {
            stale.update(repeating: 0, count: words)
            hasStaleSlots = false
        }
        let count = layout.count
        let laneValues = UnsafeMutableBufferPointer(start: layoutValues, count: count)
        if rested.isEmpty, cachedLayoutVersion == layout.version, cachedLayoutCount == count, cachedSlotCount == slotCount {
            // The moving springs are the last take's, in the same places, and none rested (a
            // rest changes the layout): the components are as they were; only values move.
            // The last take that read them had no rests either (it is only then kept).
            self.slotCount = slotCount
            restEventCount = 0
            guard (try? bank.values(in: layout, into: laneValues)) != nil else { return }
            let bytes = UnsafeMutableRawPointer(values)
            for i in 0..<count where layoutOffsets[i] >= 0 {
                bytes.storeBytes(of: laneValues[i], toByteOffset: Int(layoutOffsets[i]), as: Float.self)
            }
            return
        }
        cachedLayoutVersion = nil
        self.slotCount = slotCount
        components.initialize(repeating: 0, count: (slotCount + 7) & ~7)
        layoutVersion = layout.version

        let userValues = UnsafeMutableBufferPointer(start: layoutUserValues, count: count)
        // The layout was just taken, so neither read throws; if one did, every stream with a
        // moving spring would go undelivered this frame (and the next frame reads them again).
        if (try? bank.userValues(in: layout, into: userValues)) != nil, (try? bank.values(in: layout, into: laneValues)) != nil {
            for i in 0..<count {
                let streamComponent = Int(truncatingIfNeeded: userValues[i])
                record(laneValues[i], streamComponent: streamComponent, bits: 0x01)
                let slot = streamComponent >> 2
                layoutOffsets[i] = slot < slotCount ? Int32(truncatingIfNeeded: slot << 4 | (streamComponent & 3) << 2) : -1
            }
            if rested.isEmpty {
                cachedLayoutVersion = layout.version
                cachedLayoutCount = count
                cachedSlotCount = slotCount
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
            guard let userValue, let value else {
                restEvents[i] = -1
                continue
            }
            let streamComponent = Int(truncatingIfNeeded: userValue)
            restEvents[i] = Int32(truncatingIfNeeded: streamComponent)
            record(value, streamComponent: streamComponent, bits: 0x10)
        }
    }

    /// Notes `value` for a component: `bits` 0x01 for a moving one, 0x10 for one the step
    /// brought to rest (which stays known at rest until the runtime changes the stream).
    @inline(__always)
    private func record(_ value: Float, streamComponent: Int, bits: UInt8) {
        let slot = streamComponent >> 2, component = streamComponent & 3
        guard slot < slotCount else { return }
        let seen = components[slot]
        // A spring that rested in the step and was started again before the delivery (by a
        // caller between ``MotionRuntime/stepSprings(by:)`` and ``MotionRuntime/deliverFrame()``):
        // read it by handle.
        if seen & (0x11 << component) != 0 { markStale(slot: slot) }
        components[slot] = seen | bits << component
        // A moving component's resting bit was cleared by the runtime as it started it (and a
        // moving bit wins over it anyway): only a rest touches the byte.
        if bits == 0x10 { resting[slot] |= 1 << component }
        UnsafeMutableRawPointer(values + slot).storeBytes(of: value, toByteOffset: component * 4, as: Float.self)
    }

    /// Forgets which components of the stream in `slot` are at rest: the runtime changed its
    /// springs (or the slot has a new stream), and a rest event will say again.
    @inline(__always)
    func forgetRests(ofSlot slot: Int) {
        guard slot >= 0, slot < slotCapacity else { return }
        resting[slot] = 0
    }

    /// Lists the slots with a spring that moved or rested in the step (a non-zero ``components``
    /// byte), in slot order, into ``order``; returns how many. It reads 8 slots at a time, so
    /// the step's records need no second table of their own.
    func listMovedSlots() -> Int {
        let bytes = UnsafeRawPointer(components)
        var count = 0
        for chunk in 0..<(slotCount + 7) >> 3 {
            var remaining = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: chunk << 3, as: UInt64.self))
            while remaining != 0 {
                let byte = remaining.trailingZeroBitCount >> 3
                order[count] = Int32(truncatingIfNeeded: chunk << 3 | byte)
                remaining &= ~(0xFF << UInt64(byte << 3))
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

    /// Whether the stream in `slot` was marked to be read from the kernel.
    @inline(__always)
    func isStale(slot: Int) -> Bool {
        hasStaleSlots && stale[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    /// The values of the stream in `slot` if the snapshot holds every one of `componentMask`'s
    /// components (bit c for component c), as they are in the kernel now.
    @inline(__always)
    func values(ofSlot slot: Int, componentMask: UInt8) -> SIMD4<Float>? {
        let seen = components[slot]
        guard (seen | resting[slot]) & componentMask == componentMask, !isStale(slot: slot) else { return nil }
        return values[slot]
    }

    /// Whether a component of the stream in `slot` was still moving after the step; nil when
    /// the snapshot cannot say (the kernel must be asked).
    @inline(__always)
    func isMoving(slot: Int) -> Bool? {
        guard !isStale(slot: slot) else { return nil }
        return components[slot] & 0x0F != 0
    }
}
