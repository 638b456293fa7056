/// Interactions, plans, streams written to properties, and waiting for rest.
extension MotionRuntime {
    /// Adds an interaction: runs its ``Interaction/setUp(in:)``, and keeps every subscription
    /// it makes meanwhile so ``remove(_:)`` can cancel them.
    ///
    /// Adding an interaction this runtime already runs does nothing.
    ///
    /// - Throws: ``MotionRuntimeError/interactionBelongsToAnotherRuntime`` if another runtime
    ///   runs it; nothing changes in either runtime.
    public func add(_ interaction: Interaction) throws(MotionRuntimeError) {
        if let owner = interaction.runtime {
            if owner === self { return }
            throw .interactionBelongsToAnotherRuntime
        }
        interaction.placeInRuntime = Int32(interactions.count)
        interactions.append(interaction)
        interaction.runtime = self
        let outer = adoptingInteraction
        adoptingInteraction = interaction
        interaction.setUp(in: self)
        adoptingInteraction = outer
        // Removed while it was being set up: cancel what it made after the removal, too.
        if interaction.runtime !== self { interaction.cancelAdoptedSubscriptions() }
    }

    /// Removes an interaction: cancels every subscription its set-up made. Its springs leave the
    /// kernel at once and it receives nothing more, even if this is called from inside one of its
    /// own callbacks during a frame. Removing an interaction this runtime does not run does nothing.
    ///
    /// - Complexity: O(subscriptions its set-up made, and their springs).
    public func remove(_ interaction: Interaction) {
        guard interaction.runtime === self else { return }
        // Out of the table: the last interaction takes its place.
        let place = Int(interaction.placeInRuntime)
        let last = interactions.removeLast()
        if place < interactions.count {
            interactions[place] = last
            last.placeInRuntime = Int32(place)
        }
        interaction.placeInRuntime = -1
        interaction.runtime = nil
        interaction.cancelAdoptedSubscriptions()
    }

    /// Whether this runtime runs `interaction`.
    public func contains(_ interaction: Interaction) -> Bool {
        interaction.runtime === self
    }

    /// Adds a plan to an element: the plan connects what it needs to the element's properties.
    public func addPlan<Plan: MotionPlan>(_ plan: Plan, to element: MotionElement) {
        plan.perform(on: element, in: self)
    }

    /// Writes every value of `stream` to `property`.
    @discardableResult
    public func write<T>(_ stream: MotionObservable<T>, to property: ReactiveProperty<T>) -> Subscription {
        stream.subscribe(in: self, writingTo: property)
    }

    /// Runs `action` once, as soon as every spring of the runtime is at rest: now, if none moves;
    /// otherwise at the end of the frame (or removal) that brings the last one to rest. Springs
    /// held by a pause in mid-motion count as moving.
    @discardableResult
    public func whenAllAtRest(_ action: @escaping () -> Void) -> Subscription {
        if activeConnectionCount == 0 {
            action()
            return Subscription()
        }
        let waiter = RestWaiter(action)
        restWaiters.append(waiter)
        return Subscription(onCancel: { waiter.action = nil })
    }

    /// Runs and forgets the waiting actions if no spring moves.
    func runRestWaitersIfAllAtRest() {
        guard activeConnectionCount == 0, !restWaiters.isEmpty else { return }
        let waiters = restWaiters
        restWaiters.removeAll()
        for waiter in waiters {
            let action = waiter.action
            waiter.action = nil
            action?()
        }
    }

    /// Makes `subscription` belong to the interaction being set up, if any.
    func adopt(_ subscription: Subscription) {
        adoptingInteraction?.adoptedSubscriptions.append(subscription)
    }
}
