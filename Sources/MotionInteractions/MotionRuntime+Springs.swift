import SpringKernel

/// Spring streams: adding their springs to the kernel, following their properties, pausing, and
/// telling each stream's subscriber what the kernel says about its springs.
///
/// The runtime keeps no copy of what the kernel knows. Which streams get values on a frame comes
/// from the kernel's moving springs and rest events (``FrameSnapshot``); when a stream comes to
/// rest, from the rest events; whether a change started or stopped a stream, from the kernel's
/// layout version (moved on by every spring that changes region: starts, rests, is held or let go)
/// and, only when it moved, the stream's springs' state. What the runtime keeps is its own: each
/// stream's slot and the state it last sent.
extension MotionRuntime {
    /// Connects a spring stream: one kernel spring per component. See ``springSource(_:)``.
    func connect<T: SpringAnimatable>(_ spring: Spring<T>, to observer: MotionObserver<T>) -> Subscription {
        guard let connection = makeConnection(spring, observer: observer) else {
            // The kernel is full (springs or configurations): the stream stays where it is.
            observer.state(.atRest)
            return Subscription()
        }
        return SpringSubscription(connection)
    }

    /// Adds the springs, follows the spring's properties, and sends the starting state.
    func makeConnection<T: SpringAnimatable>(_ spring: Spring<T>, observer: MotionObserver<T>) -> TypedSpringConnection<T>? {
        retargets.flush()
        let destination = spring.destination.value.springComponents
        let start = spring.initialValue.value.springComponents
        let velocity = spring.initialVelocity.value.springComponents
        let configuration = spring.currentConfiguration
        let slot = takeSlot()
        var handles: [SpringHandle] = []
        handles.reserveCapacity(T.springComponentCount)
        for component in 0..<T.springComponentCount {
            let startUsable = SpringInput.isUsable(start[component])
            let target = SpringInput.isUsable(destination[component])
                ? destination[component] : (startUsable ? start[component] : 0)
            let value = startUsable ? start[component] : target
            let speed = SpringInput.isUsable(velocity[component]) ? velocity[component] : 0
            do {
                handles.append(try bank.add(
                    value: value, target: target, velocity: speed, configuration: configuration, tolerance: spring.threshold,
                    userValue: FrameSnapshot.userValue(slot: slot, component: component)))
            } catch {
                for handle in handles { try? bank.remove(handle) }
                freeStreamSlots.append(slot)
                return nil
            }
        }
        let connection = TypedSpringConnection(runtime: self, spring: spring, observer: observer, handles: ComponentHandles(handles))
        connection.slot = slot
        streamSlots[slot] = .passRetained(connection)
        streamSinks[slot] = connection.pointSink
        frameSnapshot.reserve(slots: streamSlots.count, springs: bank.count)
        frameSnapshot.forgetRests(ofSlot: slot)
        connection.observeSpring()
        // The state it starts in, as the kernel has it.
        let isActive = isAwake(connection)
        if isActive {
            connection.isActive = true
            activeConnectionCount += 1
        }
        connection.deliverState(isActive ? .active : .atRest)
        return connection
    }

    /// A free slot for a new stream.
    private func takeSlot() -> Int {
        if let free = freeStreamSlots.popLast() { return free }
        streamSlots.append(nil)
        streamSinks.append(nil)
        streamActive.append(false)
        return streamSlots.count - 1
    }

    /// Removes the stream's springs from the kernel. It sends nothing more, not even `.atRest`.
    func disconnect(_ connection: SpringConnection) {
        guard connection.isConnected else { return }
        retargets.flush()
        for handle in connection.handles { try? bank.remove(handle) }
        if let mask = connection.subscriptionMask {
            try? bank.removePauseMask(mask)
            connection.subscriptionMask = nil
        }
        releaseSlot(of: connection)
        connection.detach()
        if connection.isActive {
            connection.isActive = false
            activeConnectionCount -= 1
            runRestWaitersIfAllAtRest()
        }
    }

    /// Frees the stream's slot and lets go of the stream; during a delivery, the slot and the
    /// stream are kept until it ends.
    private func releaseSlot(of connection: SpringConnection) {
        let slot = connection.slot
        connection.slot = -1
        guard let entry = streamSlots[slot] else { return }
        streamSlots[slot] = nil
        streamSinks[slot] = nil
        streamActive[slot] = false
        if isDelivering {
            slotsFreedDuringDelivery.append(slot)
            retiredConnections.append(entry.takeRetainedValue())
        } else {
            freeStreamSlots.append(slot)
            entry.release()
        }
    }

    /// Whether any of the stream's springs is awake in the kernel (moving, or held mid-motion).
    func isAwake(_ connection: SpringConnection) -> Bool {
        connection.handles.contains { (try? bank.isAtRest($0)) == false }
    }

    /// After the runtime changed the stream's springs: a delivery running now reads the stream
    /// from the kernel, not from its snapshot, and what the snapshot knew of its rests is
    /// forgotten. If the kernel's layout version moved since `layoutVersion` (taken before the
    /// change), a spring changed region, perhaps starting or stopping the stream: the kernel is
    /// asked, and the state sent if it changed. If it did not move, no spring started, rested,
    /// was held or let go, and the stream's state stands.
    func springsChanged(of connection: SpringConnection, sinceLayoutVersion layoutVersion: UInt64) {
        let slot = connection.slot
        if isDelivering { frameSnapshot.markStale(slot: slot) }
        frameSnapshot.forgetRests(ofSlot: slot)
        guard bank.layoutVersion != layoutVersion else { return }
        let isActive = isAwake(connection)
        guard isActive != connection.isActive else { return }
        connection.isActive = isActive
        activeConnectionCount += isActive ? 1 : -1
        connection.deliverState(isActive ? .active : .atRest)
        if !isActive { runRestWaitersIfAllAtRest() }
    }

    /// Pulls toward a new destination, keeping velocity; unusable components are ignored.
    ///
    /// A spring at rest (and not held by a pause) *starts* instead: from its spring's
    /// `initialValue` as it is now, with no velocity, as the springSource specification reads the
    /// initial value when a spring starts. The initial value is usually the property the spring
    /// drives, so a write to it while the spring rests is where the next motion begins, and even
    /// an unchanged destination starts a motion back to it.
    func retarget<T>(_ connection: TypedSpringConnection<T>, to destination: SIMD4<Float>) {
        guard connection.isConnected, let initialValue = connection.initialValue else { return }
        retargets.flush()
        let start = isResting(connection) ? initialValue.value.springComponents : nil
        let layoutVersion = bank.layoutVersion
        var changed = false
        for (component, handle) in connection.handles.enumerated() {
            let target = destination[component]
            if SpringInput.isUsable(target), target.bitPattern != (try? bank.target(of: handle))?.bitPattern,
                (try? bank.retarget(handle, to: target)) != nil
            {
                changed = true
            }
            // An unusable start component stays where the kernel has it.
            guard let start, SpringInput.isUsable(start[component]),
                (try? bank.value(of: handle))?.bitPattern != start[component].bitPattern,
                (try? bank.setState(of: handle, value: start[component], velocity: 0)) != nil
            else { continue }
            changed = true
        }
        guard changed else { return }
        springsChanged(of: connection, sinceLayoutVersion: layoutVersion)
    }

    /// Queues the retarget of a moving (or held mid-motion) stream's springs to `destination`
    /// (``RetargetQueue``), and returns true; false when the retarget must be made at once
    /// (``retarget(_:to:)``): the stream is at rest (a destination written then starts it), or a
    /// step is not delivered yet or a delivery is running (the state last sent may be stale).
    ///
    /// The stream's state last sent is `.active` and no step has been taken since it was decided
    /// (each change of its springs since asked the kernel again), so some spring of it moves or is
    /// held: a retarget starts nothing, rests nothing and holds nothing, and a resting component
    /// it wakes leaves the stream active. A component whose target is unusable is ignored, and
    /// one whose target is unchanged is left as the kernel leaves it (its retarget changes
    /// nothing).
    @inline(__always)
    func queueRetarget(_ connection: SpringConnection, to destination: SIMD4<Float>) -> Bool {
        guard connection.isConnected else { return false }
        return connection.handles.withUnsafeBufferPointer { queueRetarget(slot: connection.slot, springs: $0, to: destination) }
    }

    /// ``queueRetarget(_:to:)`` of the stream in `slot`, whose springs are `springs` (one per
    /// component), from the runtime's tables: a destination observation that holds its stream's
    /// slot and springs queues a retarget without reading the stream's object.
    @inline(__always)
    func queueRetarget(slot: Int, springs: UnsafeBufferPointer<SpringHandle>, to destination: SIMD4<Float>) -> Bool {
        guard streamActive[slot], !stepAwaitingDelivery, !isDelivering else { return false }
        let queue = retargets
        for component in springs.indices where SpringInput.isUsable(destination[component]) {
            queue.append(springs[component], to: destination[component], slot: slot, component: component)
        }
        // What the snapshot knew of the stream's rests is forgotten when the queue is flushed.
        return true
    }

    /// Debug builds: after a flush of the retarget queue, the queued stream in `slot` still has a
    /// spring awake, so its state `.active` stands (see ``RetargetQueue``).
    func checkQueuedStreamAwake(slot: Int) {
        guard slot < streamSlots.count, let entry = streamSlots[slot] else { return }
        let connection = entry.takeUnretainedValue()
        assert(!connection.isActive || isAwake(connection), "a queued retarget stopped a moving stream")
    }

    /// Whether every one of the stream's springs is at rest in the kernel and none is held.
    private func isResting(_ connection: SpringConnection) -> Bool {
        connection.handles.allSatisfy { handle in
            bank.state(of: handle).map { $0.isAtRest && !$0.isPaused } ?? false
        }
    }

    /// Gives every component the new configuration, keeping state; if the kernel refuses it
    /// (65,536 configurations in use already), a component keeps the one it had.
    func reconfigure(_ connection: SpringConnection, _ configuration: SpringConfiguration) {
        guard connection.isConnected else { return }
        retargets.flush()
        let layoutVersion = bank.layoutVersion
        for handle in connection.handles { try? bank.setConfiguration(of: handle, to: configuration) }
        springsChanged(of: connection, sinceLayoutVersion: layoutVersion)
    }

    // MARK: Pauses
    //
    // One mechanism: a kernel pause mask per source of pauses (the stream's own subscription, or
    // each recognizer of a PausesSpring), held with `hold` and let go with `letGo`, which restarts
    // the springs no other mask holds from the spring's `initialValue` and `initialVelocity`.

    /// Holds the stream's springs still through `mask`. A hold changes no stream's state (held
    /// mid-motion is still active, held at rest still at rest), and held springs are not among
    /// the kernel's moving springs, so the stream gets no values until it is let go.
    func hold(_ connection: SpringConnection, with mask: PauseMaskID) {
        guard connection.isConnected else { return }
        retargets.flush()
        try? bank.pause(mask)
        // The layout version moved, but only to holding: nothing to ask.
        springsChanged(of: connection, sinceLayoutVersion: bank.layoutVersion)
    }

    /// Lets go of `mask`'s hold; the springs no other mask holds restart from the spring's
    /// `initialValue` and `initialVelocity` (a component whose initial value is not usable
    /// continues from where it was paused).
    func letGo(_ connection: SpringConnection, from mask: PauseMaskID) {
        guard connection.isConnected else { return }
        retargets.flush()
        let layoutVersion = bank.layoutVersion
        // Every mask the runtime makes holds all of a stream's springs, so this frees all of them
        // or none: the restart states are given for every component with a usable initial value
        // (the kernel applies them to the springs it frees, and checks them all first).
        let restart = connection.restartState()
        var springs = (SpringHandle, SpringHandle, SpringHandle, SpringHandle)(
            connection.handles[0], connection.handles[0], connection.handles[0], connection.handles[0])
        var values = SIMD4<Float>(), velocities = SIMD4<Float>()
        var count = 0
        withUnsafeMutableBytes(of: &springs) { handleBytes in
            let handles = handleBytes.bindMemory(to: SpringHandle.self)
            for component in 0..<connection.handles.count where restart.restarting & 1 << component != 0 {
                handles[count] = connection.handles[component]
                values[count] = restart.values[component]
                velocities[count] = restart.velocities[component]
                count += 1
            }
        }
        do {
            try withUnsafeBytes(of: springs) { handleBytes throws(SpringKernelError) in
                try withUnsafeBytes(of: values) { valueBytes throws(SpringKernelError) in
                    try withUnsafeBytes(of: velocities) { velocityBytes throws(SpringKernelError) in
                        try bank.resume(
                            mask, restarting: UnsafeBufferPointer(rebasing: handleBytes.bindMemory(to: SpringHandle.self)[0..<count]),
                            values: UnsafeBufferPointer(rebasing: valueBytes.bindMemory(to: Float.self)[0..<count]),
                            velocities: UnsafeBufferPointer(rebasing: velocityBytes.bindMemory(to: Float.self)[0..<count]))
                    }
                }
            }
        } catch {
            // Restart states are validated, so this is not expected; resume in place rather than stay held.
            try? bank.resume(mask)
        }
        springsChanged(of: connection, sinceLayoutVersion: layoutVersion)
    }

    /// The stream's entry in ``streamSinks``: its point sink while its values are not suppressed.
    func updateSink(of connection: SpringConnection) {
        guard connection.isConnected else { return }
        streamSinks[connection.slot] = connection.isValueSuppressed ? nil : connection.pointSink
    }

    /// Holds the stream's springs still through its own pause mask (made on first use).
    func pauseSubscription(of connection: SpringConnection) {
        guard connection.isConnected else { return }
        retargets.flush()
        if connection.subscriptionMask == nil {
            connection.subscriptionMask = try? bank.makePauseMask(connection.handles)
        }
        guard let mask = connection.subscriptionMask else { return }
        hold(connection, with: mask)
    }

    /// Lets go of the stream's own pause.
    func resumeSubscription(of connection: SpringConnection) {
        guard let mask = connection.subscriptionMask else { return }
        letGo(connection, from: mask)
    }
}
