import SpringKernel

/// Spring streams: adding their springs to the kernel, following their properties, pausing,
/// and keeping each stream's view of its springs (awake, held) in step with the kernel's.
extension MotionRuntime {
    /// Connects a spring stream: one kernel spring per component. See ``springSource(_:)``.
    func connect<T: SpringAnimatable>(_ spring: Spring<T>, to observer: MotionObserver<T>) -> Subscription {
        guard let connection = makeConnection(spring, observer: observer) else {
            // The kernel is full (springs or configurations): the stream stays where it is.
            observer.state(.atRest)
            return Subscription()
        }
        return Subscription(
            onCancel: { [weak self] in self?.disconnect(connection) },
            onPause: { [weak self] in self?.pauseSubscription(of: connection) },
            onResume: { [weak self] in self?.resumeSubscription(of: connection) })
    }

    /// Adds the springs, follows the spring's properties, and sends the starting state.
    func makeConnection<T: SpringAnimatable>(_ spring: Spring<T>, observer: MotionObserver<T>) -> TypedSpringConnection<T>? {
        let destination = spring.destination.value.springComponents
        let start = spring.initialValue.value.springComponents
        let velocity = spring.initialVelocity.value.springComponents
        let configuration = spring.configuration.value
        var handles: [SpringHandle] = []
        handles.reserveCapacity(T.springComponentCount)
        var targets = SIMD4<Float>.zero
        for component in 0..<T.springComponentCount {
            let startUsable = SpringInput.isUsable(start[component])
            let target = SpringInput.isUsable(destination[component])
                ? destination[component] : (startUsable ? start[component] : 0)
            let value = startUsable ? start[component] : target
            let speed = SpringInput.isUsable(velocity[component]) ? velocity[component] : 0
            do {
                handles.append(try bank.add(
                    value: value, target: target, velocity: speed, configuration: configuration, tolerance: spring.threshold))
            } catch {
                for handle in handles { try? bank.remove(handle) }
                return nil
            }
            targets[component] = target
        }
        let connection = TypedSpringConnection(
            spring: spring, observer: observer, handles: ComponentHandles(handles), targets: targets)
        register(connection)
        connection.observations = [
            spring.destination.observe { [weak self, unowned connection] destination in
                self?.retarget(connection, to: destination.springComponents)
            },
            spring.configuration.observe { [weak self, unowned connection] configuration in
                self?.reconfigure(connection, configuration)
            },
        ]
        refresh(connection, announcing: true)
        return connection
    }

    private func register(_ connection: SpringConnection) {
        let slot: Int
        if let free = freeStreamSlots.popLast() {
            slot = free
            streamSlots[slot] = Unmanaged.passUnretained(connection)
        } else {
            slot = streamSlots.count
            streamSlots.append(Unmanaged.passUnretained(connection))
            if slot >> 6 >= deliveryBits.count { deliveryBits.append(0) }
        }
        connection.slot = slot
        for (component, handle) in connection.handles.enumerated() {
            let index = Int(handle.index)
            if index >= connectionOfSpring.count {
                let grown = max(index + 1, connectionOfSpring.count * 2)
                connectionOfSpring.append(contentsOf: repeatElement(nil, count: grown - connectionOfSpring.count))
                componentOfSpring.append(contentsOf: repeatElement(0, count: grown - componentOfSpring.count))
            }
            connectionOfSpring[index] = connection
            componentOfSpring[index] = UInt8(component)
        }
    }

    /// Removes the stream's springs from the kernel. It sends nothing more, not even `.atRest`.
    func disconnect(_ connection: SpringConnection) {
        guard connection.isConnected else { return }
        connection.isConnected = false
        connection.cancelObservations()
        for handle in connection.handles {
            let index = Int(handle.index)
            if index < connectionOfSpring.count, connectionOfSpring[index] === connection {
                connectionOfSpring[index] = nil
            }
            try? bank.remove(handle)
        }
        if let mask = connection.subscriptionMask {
            try? bank.removePauseMask(mask)
            connection.subscriptionMask = nil
        }
        releaseSlot(of: connection)
        if connection.isActive {
            connection.isActive = false
            activeConnectionCount -= 1
            runRestWaitersIfAllAtRest()
        }
    }

    /// Reads from the kernel which components are awake and whether they are held, updates the
    /// stream's delivery bit, and sends the state if it changed (or always, when `announcing`).
    func refresh(_ connection: SpringConnection, announcing: Bool = false) {
        guard connection.isConnected else { return }
        var awake: UInt8 = 0
        for (component, handle) in connection.handles.enumerated() where (try? bank.isAtRest(handle)) == false {
            awake |= 1 << UInt8(component)
        }
        connection.awakeComponents = awake
        connection.isHeld = connection.handles.first.map { (try? bank.isPaused($0)) ?? false } ?? false
        syncDeliveryBit(of: connection)
        let isActive = awake != 0
        guard announcing || isActive != connection.isActive else { return }
        if isActive != connection.isActive {
            connection.isActive = isActive
            activeConnectionCount += isActive ? 1 : -1
        }
        connection.deliverState(isActive ? .active : .atRest)
        if !isActive { runRestWaitersIfAllAtRest() }
    }

    /// Frees the stream's slot; during a delivery, the slot and the stream are kept until it ends.
    private func releaseSlot(of connection: SpringConnection) {
        let slot = connection.slot
        guard slot >= 0 else { return }
        deliveryBits[slot >> 6] &= ~(1 << UInt64(slot & 63))
        streamSlots[slot] = nil
        connection.slot = -1
        if isDelivering {
            slotsFreedDuringDelivery.append(slot)
            retiredConnections.append(connection)
        } else {
            freeStreamSlots.append(slot)
        }
    }

    /// Sets the stream's delivery bit to whether it wants delivery.
    @inline(__always)
    func syncDeliveryBit(of connection: SpringConnection) {
        let slot = connection.slot
        guard slot >= 0 else { return }
        let bit: UInt64 = 1 << UInt64(slot & 63)
        if connection.wantsDelivery {
            deliveryBits[slot >> 6] |= bit
        } else {
            deliveryBits[slot >> 6] &= ~bit
        }
    }

    /// Pulls toward a new destination, keeping velocity; unusable components are ignored.
    ///
    /// A spring at rest (and not held by a pause) *starts* instead: from its spring's
    /// `initialValue` as it is now, with no velocity, as the springSource specification reads the
    /// initial value when a spring starts. The initial value is usually the property the spring
    /// drives, so a write to it while the spring rests is where the next motion begins, and even
    /// an unchanged destination starts a motion back to it.
    func retarget<T>(_ connection: TypedSpringConnection<T>, to destination: SIMD4<Float>) {
        guard connection.isConnected else { return }
        let start = isResting(connection) ? connection.spring.initialValue.value.springComponents : nil
        var changed = false
        for (component, handle) in connection.handles.enumerated() {
            let target = destination[component]
            if SpringInput.isUsable(target), target.bitPattern != connection.targets[component].bitPattern,
                (try? bank.retarget(handle, to: target)) != nil
            {
                connection.targets[component] = target
                changed = true
            }
            // An unusable start component stays where the kernel has it.
            guard let start, SpringInput.isUsable(start[component]),
                (try? bank.value(of: handle))?.bitPattern != start[component].bitPattern,
                (try? bank.setState(of: handle, value: start[component], velocity: 0)) != nil
            else { continue }
            changed = true
        }
        if changed { refresh(connection) }
    }

    /// Whether every one of the stream's springs is at rest in the kernel and none is held.
    private func isResting(_ connection: SpringConnection) -> Bool {
        connection.handles.allSatisfy { (try? bank.isAtRest($0)) == true && (try? bank.isPaused($0)) == false }
    }

    /// Gives every component the new configuration, keeping state; if the kernel refuses it
    /// (65,536 configurations in use already), a component keeps the one it had.
    func reconfigure(_ connection: SpringConnection, _ configuration: SpringConfiguration) {
        guard connection.isConnected else { return }
        for handle in connection.handles { try? bank.setConfiguration(of: handle, to: configuration) }
        refresh(connection)
    }

    /// Holds the stream's springs still through its own pause mask.
    func pauseSubscription(of connection: SpringConnection) {
        guard connection.isConnected else { return }
        if connection.subscriptionMask == nil {
            connection.subscriptionMask = try? bank.makePauseMask(connection.handles)
        }
        guard let mask = connection.subscriptionMask else { return }
        try? bank.pause(mask)
        refresh(connection)
    }

    /// Lets go of the stream's own pause; springs no other mask holds restart from the spring's
    /// `initialValue` and `initialVelocity`.
    func resumeSubscription(of connection: SpringConnection) {
        guard connection.isConnected, let mask = connection.subscriptionMask else { return }
        do {
            try bank.resume(mask) { handle in
                connection.component(of: handle).flatMap { connection.restartState(component: $0) }
            }
        } catch {
            // Restart states are validated, so this is not expected; resume in place rather than stay held.
            try? bank.resume(mask)
        }
        refresh(connection)
    }
}
