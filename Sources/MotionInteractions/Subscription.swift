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
public final class Subscription {
    private var cancelAction: (() -> Void)?
    private var pauseAction: (() -> Void)?
    private var resumeAction: (() -> Void)?

    /// Whether ``cancel()`` has been called.
    public private(set) var isCancelled = false
    /// Whether the subscription is paused (see ``pause()``).
    public private(set) var isPaused = false

    /// A subscription that runs `onCancel` once when cancelled, and `onPause` / `onResume` when it
    /// is paused or resumed (each only on a change).
    public init(onCancel: (() -> Void)? = nil, onPause: (() -> Void)? = nil, onResume: (() -> Void)? = nil) {
        cancelAction = onCancel
        pauseAction = onPause
        resumeAction = onResume
    }

    /// Ends the connection. Calling it again does nothing.
    public func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        let action = cancelAction
        // Release everything the actions captured (the stream, and through it the subscriber's
        // closures, which may hold this subscription): a cancelled subscription keeps nothing alive.
        cancelAction = nil
        pauseAction = nil
        resumeAction = nil
        action?()
    }

    /// Asks the source to stop producing until ``resume()``. Does nothing if already paused or cancelled.
    public func pause() {
        guard !isCancelled, !isPaused else { return }
        isPaused = true
        pauseAction?()
    }

    /// Lets a paused source produce again. Does nothing if not paused or cancelled.
    public func resume() {
        guard !isCancelled, isPaused else { return }
        isPaused = false
        resumeAction?()
    }
}
