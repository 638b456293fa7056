/// The state channel of a ``MotionObservable``: whether the motion behind it is moving.
public enum MotionState: Hashable, Sendable {
    /// The motion started and is delivering values.
    case active
    /// The motion came to rest on the kernel's rest frame.
    case atRest
}
