import SpringKernel

/// The spring that plans drive for one property: ``SpringTo`` sets its destination and
/// ``PausesSpring`` pauses it. A runtime makes it when the first such plan is added for the
/// property, writes its values to the property, and finds it again for every later plan.
///
/// Its ``spring`` starts from the property's value (``Spring/initialValue`` *is* the property)
/// toward a destination that starts at the same value, so it starts at rest.
public final class PropertySpring<T: SpringAnimatable> {
    /// The property the spring writes.
    public let property: ReactiveProperty<T>
    /// The spring: its destination, configuration and threshold.
    public let spring: Spring<T>
    /// Whether the spring moves (`.active`, also while paused mid-motion) or is at rest.
    public let state: ReactiveProperty<MotionState>

    let connection: TypedSpringConnection<T>
    /// The runtime that made it, until the runtime goes away (it clears this first: not retained).
    unowned(unsafe) var runtime: MotionRuntime?
    var subscription = Subscription()
    /// The pause of each recognizer that pauses the spring through ``PausesSpring``, by recognizer.
    var gesturePauses: [ObjectIdentifier: GesturePause] = [:]

    init(property: ReactiveProperty<T>, spring: Spring<T>, state: ReactiveProperty<MotionState>, connection: TypedSpringConnection<T>) {
        self.property = property
        self.spring = spring
        self.state = state
        self.connection = connection
    }

    /// The kernel springs, one per component of `T` (empty once the spring was torn down).
    public var springs: [SpringHandle] { connection.isConnected ? Array(connection.handles) : [] }
}

/// What the runtime needs to tear a property spring down without knowing its value type.
protocol PropertySpringTeardown: AnyObject {
    /// The runtime is going away: the spring no longer reaches it.
    func runtimeGoesAway()
    /// Cancels the spring's subscription (and with it its pauses).
    func tearDown()
}

extension PropertySpring: PropertySpringTeardown {
    func runtimeGoesAway() { runtime = nil }
    func tearDown() { subscription.cancel() }
}

/// One recognizer's hold on one property's spring: a kernel pause mask.
final class GesturePause {
    let recognizer: any ContinuousGestureRecognizer
    let mask: PauseMaskID
    var isPausing = false
    var subscription = Subscription()

    init(recognizer: any ContinuousGestureRecognizer, mask: PauseMaskID) {
        self.recognizer = recognizer
        self.mask = mask
    }
}

extension MotionRuntime {
    /// The spring that plans drive for `property`, or nil if no plan made one.
    public func propertySpring<T: SpringAnimatable>(for property: ReactiveProperty<T>) -> PropertySpring<T>? {
        // The key is the property's identity, and a property's type is its `T`: the entry is a
        // `PropertySpring<T>` (no dynamic cast, which Embedded Swift does not have).
        guard let entry = propertySprings[ObjectIdentifier(property)] else { return nil }
        return unsafeDowncast(entry as AnyObject, to: PropertySpring<T>.self)
    }

    /// The spring for `property`, made (at rest on the property's value, resting within
    /// `threshold`) if there is none.
    func makePropertySpring<T: SpringAnimatable>(for property: ReactiveProperty<T>, threshold: Float) -> PropertySpring<T>? {
        if let existing = propertySpring(for: property) { return existing }
        let spring = Spring(to: ReactiveProperty(property.value), initialValue: property, threshold: threshold)
        let state = ReactiveProperty(MotionState.atRest)
        let observer = MotionObserver<T>(runtime: self, writingTo: property, state: { state.value = $0 })
        guard let connection = makeConnection(spring, observer: observer) else { return nil }
        let propertySpring = PropertySpring(property: property, spring: spring, state: state, connection: connection)
        let key = ObjectIdentifier(property)
        propertySpring.runtime = self
        // The spring's own subscription cancels once (a Subscription lets go of its closure), while
        // the runtime's table still holds the spring: it may reach it unretained.
        propertySpring.subscription = Subscription(onCancel: { [unowned(unsafe) propertySpring] in
            for pause in propertySpring.gesturePauses.values { pause.subscription.cancel() }
            guard let runtime = propertySpring.runtime else { return }
            runtime.disconnect(connection)
            if runtime.propertySprings[key] === propertySpring { runtime.propertySprings[key] = nil }
        })
        propertySprings[key] = propertySpring
        adopt(propertySpring.subscription)
        return propertySpring
    }

    /// Makes `recognizer` pause the property's spring while it is active, through its own mask.
    func addPause<T: SpringAnimatable>(
        of propertySpring: PropertySpring<T>, whileActive recognizer: any ContinuousGestureRecognizer,
        observing observeRecognizer: (@escaping () -> Void) -> Subscription,
        releaseVelocity: @escaping () -> T
    ) {
        let key = ObjectIdentifier(recognizer as AnyObject)
        let connection = propertySpring.connection
        retargets.flush()
        guard propertySpring.gesturePauses[key] == nil, connection.isConnected,
            let mask = try? bank.makePauseMask(connection.handles)
        else { return }
        let pause = GesturePause(recognizer: recognizer, mask: mask)
        propertySpring.gesturePauses[key] = pause
        // The observation is cancelled with the pause, which the spring's own cancellation
        // cancels first: both closures run while the spring is alive and may reach it unretained.
        let observation = observeRecognizer { [unowned(unsafe) propertySpring] in
            propertySpring.runtime?.updatePause(pause, of: propertySpring, releaseVelocity: releaseVelocity)
        }
        pause.subscription = Subscription(onCancel: { [unowned(unsafe) propertySpring] in
            observation.cancel()
            if propertySpring.gesturePauses[key] === pause { propertySpring.gesturePauses[key] = nil }
            guard let runtime = propertySpring.runtime else { return }
            runtime.retargets.flush()
            let layoutVersion = runtime.bank.layoutVersion
            try? runtime.bank.removePauseMask(mask)
            runtime.springsChanged(of: connection, sinceLayoutVersion: layoutVersion)
        })
        adopt(pause.subscription)
        updatePause(pause, of: propertySpring, releaseVelocity: releaseVelocity)
    }

    /// Pauses when the recognizer becomes active; when it stops, writes the gesture's velocity
    /// to the spring's `initialVelocity` and lets go: if no other recognizer holds the spring, it
    /// restarts from the property's current value (its `initialValue`) with that velocity.
    private func updatePause<T: SpringAnimatable>(
        _ pause: GesturePause, of propertySpring: PropertySpring<T>, releaseVelocity: () -> T
    ) {
        let connection = propertySpring.connection
        guard connection.isConnected else { return }
        let isActive = pause.recognizer.isActive
        if isActive, !pause.isPausing {
            pause.isPausing = true
            hold(connection, with: pause.mask)
        } else if !isActive, pause.isPausing {
            pause.isPausing = false
            propertySpring.spring.initialVelocity.value = releaseVelocity()
            letGo(connection, from: pause.mask)
        }
    }
}
