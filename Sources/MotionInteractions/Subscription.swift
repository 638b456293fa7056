/// A live connection to a stream, a property or a gesture recognizer.
///
/// A subscription lasts until it is cancelled; dropping the object does not end it (the runtime,
/// an interaction or the caller keeps it to cancel it later). Cancelling is idempotent, and safe
/// from anywhere, including from inside one of the callbacks it connects: the source finishes the
/// delivery in progress to its other subscribers, none skipped and none repeated, and never calls
/// the cancelled one again.
///
/// A subscription can also be asked to *pause*: a spring stream then holds its springs still in
/// the kernel (a pause mask) until ``resume()``, when it restarts from its spring's
/// `initialValue` and `initialVelocity`. ``MotionObservable/toggled(with:)`` pauses the stream a
/// gesture takes over from. A source with nothing to pause ignores both calls.
///
/// The layer's own sources are subclasses: a property's or a recognizer's observer *is* its
/// connection, and a spring stream's subscription is one small object holding its stream, so a
/// subscription costs no closures.
public class Subscription {
    // Read by every delivery of an observer list and never held across a callback: no runtime
    // exclusivity check (a call per read) is needed.
    /// Whether ``cancel()`` has been called.
    @exclusivity(unchecked) public private(set) var isCancelled = false
    /// Whether the subscription is paused (see ``pause()``).
    @exclusivity(unchecked) public private(set) var isPaused = false
    /// The closures given to ``init(onCancel:onPause:onResume:)``; nil for the layer's own kinds.
    private var actions: SubscriptionActions?

    /// A subscription that runs `onCancel` once when cancelled, and `onPause` / `onResume` when it
    /// is paused or resumed (each only on a change).
    public init(onCancel: (() -> Void)? = nil, onPause: (() -> Void)? = nil, onResume: (() -> Void)? = nil) {
        if onCancel != nil || onPause != nil || onResume != nil {
            actions = SubscriptionActions(cancel: onCancel, pause: onPause, resume: onResume)
        }
    }

    /// Ends the connection. Calling it again does nothing.
    public final func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        // Release everything the actions captured (the stream, and through it the subscriber's
        // closures, which may hold this subscription): a cancelled subscription keeps nothing alive.
        let actions = self.actions
        self.actions = nil
        sourceCancel()
        actions?.cancel?()
    }

    /// Asks the source to stop producing until ``resume()``. Does nothing if already paused or cancelled.
    public final func pause() {
        guard !isCancelled, !isPaused else { return }
        isPaused = true
        sourcePause()
        actions?.pause?()
    }

    /// Lets a paused source produce again. Does nothing if not paused or cancelled.
    public final func resume() {
        guard !isCancelled, isPaused else { return }
        isPaused = false
        sourceResume()
        actions?.resume?()
    }

    /// What the source does when the subscription is cancelled (once); the layer's own kinds override it.
    func sourceCancel() {}
    /// What the source does when the subscription is paused.
    func sourcePause() {}
    /// What the source does when the subscription is resumed.
    func sourceResume() {}
    /// The spring stream this holds (as ``SpringConnection/holder``) was detached: cancelled, or
    /// its runtime went away. The layer's holders let go of it here.
    func springStreamDetached() {}
    /// A hint from the subscriber: it passes the states it receives on to a closure whose
    /// context is `context`, which a spring stream's frame prefetches before it sends a rest.
    /// Nothing is read through it but by the closure itself; other sources ignore it.
    func forwardsStates(to context: UnsafeRawPointer?) {}
}

/// The closures of a subscription made with ``Subscription/init(onCancel:onPause:onResume:)``.
private final class SubscriptionActions {
    let cancel: (() -> Void)?
    let pause: (() -> Void)?
    let resume: (() -> Void)?

    init(cancel: (() -> Void)?, pause: (() -> Void)?, resume: (() -> Void)?) {
        self.cancel = cancel
        self.pause = pause
        self.resume = resume
    }
}
