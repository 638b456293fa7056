extension MotionObservable {
    /// The values of `preferred` while it is active, and of this stream otherwise.
    ///
    /// `preferred` is connected first; this stream is connected only once `preferred` is at rest
    /// (at once, if it starts at rest or never says), as Material Motion does: a value this stream
    /// sends as it connects (a property's stream sends its current value) never goes out while
    /// `preferred` is active. While `preferred` is active again later (a drag), this stream's
    /// subscription is paused: a spring stream holds its springs still in the kernel rather than
    /// computing values nobody uses. When `preferred` comes to rest, this stream is resumed: a
    /// spring stream restarts from its spring's `initialValue` (the position the drag left) and
    /// `initialVelocity`.
    ///
    /// The state channel is `.active` while either stream is (`preferred` counting only while it
    /// is preferred), and reports each change once.
    public func toggled(with preferred: MotionObservable<T>) -> MotionObservable<T> {
        MotionObservable { observer in
            let state = ToggleState()
            let toggle = ToggleLinks()
            let connectOriginal = { [self] in
                // The original's closures hold only the state, which holds nothing: no cycle
                // through the original's subscription, and no weak reference to load per value.
                toggle.original = self.connect(MotionObserver(runtime: observer.runtime, next: { value in
                    if !state.preferredIsActive { observer.next(value) }
                }, state: { originalState in
                    state.originalIsActive = originalState == .active
                    state.report(to: observer.state)
                }))
            }
            let preferredSubscription = preferred.connect(MotionObserver(runtime: observer.runtime, next: { value in
                if state.preferredIsActive { observer.next(value) }
            }, state: { preferredState in
                let isActive = preferredState == .active
                guard isActive != state.preferredIsActive else { return }
                state.preferredIsActive = isActive
                if isActive {
                    toggle.original?.pause()
                } else if let original = toggle.original {
                    original.resume()
                } else if !toggle.isCancelled {
                    connectOriginal()
                }
                state.report(to: observer.state)
            }))
            if !state.preferredIsActive, toggle.original == nil, !toggle.isCancelled { connectOriginal() }
            state.report(to: observer.state)
            return ToggleSubscription(preferred: preferredSubscription, links: toggle)
        }
    }
}

/// What a ``MotionObservable/toggled(with:)`` connection knows about its two streams. It refers to
/// nothing, so both streams' closures hold it without making a cycle.
private final class ToggleState {
    var preferredIsActive = false
    var originalIsActive = false
    private var reported: MotionState?

    /// Sends the combined state if it changed since the last report.
    func report(to send: (MotionState) -> Void) {
        let state: MotionState = preferredIsActive || originalIsActive ? .active : .atRest
        guard state != reported else { return }
        reported = state
        send(state)
    }
}

/// The original stream's subscription, which the preferred stream's closures pause, resume or
/// make. It does not refer to the preferred stream, so those closures hold it without a cycle.
private final class ToggleLinks {
    /// The original stream's subscription, once it is connected.
    var original: Subscription?
    var isCancelled = false
}

/// A ``MotionObservable/toggled(with:)`` connection's subscription: cancels both streams.
private final class ToggleSubscription: Subscription {
    private var preferred: Subscription?
    private let links: ToggleLinks

    init(preferred: Subscription, links: ToggleLinks) {
        self.preferred = preferred
        self.links = links
    }

    override func sourceCancel() {
        links.isCancelled = true
        let preferred = self.preferred, original = links.original
        self.preferred = nil
        links.original = nil
        preferred?.cancel()
        original?.cancel()
    }
}
