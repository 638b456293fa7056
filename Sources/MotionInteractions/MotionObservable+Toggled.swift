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
            let toggle = ToggleState()
            let connectOriginal = {
                // Weak: the toggle holds the original's subscription, which holds these closures.
                toggle.original = self.connect(MotionObserver(runtime: observer.runtime, next: { [weak toggle] value in
                    if let toggle, !toggle.preferredIsActive { observer.next(value) }
                }, state: { [weak toggle] state in
                    guard let toggle else { return }
                    toggle.originalIsActive = state == .active
                    toggle.report(to: observer.state)
                }))
            }
            let preferredSubscription = preferred.connect(MotionObserver(runtime: observer.runtime, next: { value in
                if toggle.preferredIsActive { observer.next(value) }
            }, state: { state in
                let isActive = state == .active
                guard isActive != toggle.preferredIsActive else { return }
                toggle.preferredIsActive = isActive
                if isActive {
                    toggle.original?.pause()
                } else if let original = toggle.original {
                    original.resume()
                } else if !toggle.isCancelled {
                    connectOriginal()
                }
                toggle.report(to: observer.state)
            }))
            if !toggle.preferredIsActive, toggle.original == nil, !toggle.isCancelled { connectOriginal() }
            toggle.report(to: observer.state)
            return Subscription(onCancel: {
                toggle.isCancelled = true
                preferredSubscription.cancel()
                toggle.original?.cancel()
            })
        }
    }
}

/// What a ``MotionObservable/toggled(with:)`` connection knows about its two streams.
private final class ToggleState {
    var preferredIsActive = false
    var originalIsActive = false
    /// The original stream's subscription, once it is connected.
    var original: Subscription?
    var isCancelled = false
    private var reported: MotionState?

    /// Sends the combined state if it changed since the last report.
    func report(to send: (MotionState) -> Void) {
        let state: MotionState = preferredIsActive || originalIsActive ? .active : .atRest
        guard state != reported else { return }
        reported = state
        send(state)
    }
}
