/// A continuous gesture (a drag, a rotation, a pinch) as streams and plans see it: where it is in
/// its life, and a way to hear about every event it accepts.
///
/// ``GestureRecognizer`` (a drag), ``RotationGestureRecognizer`` and ``PinchGestureRecognizer``
/// conform; ``gestureSource(_:)`` and ``PausesSpring`` take any of them, so several kinds of
/// gesture can hold one property's spring together.
public protocol ContinuousGestureRecognizer: AnyObject {
    /// Where the gesture is in its life.
    var state: GestureRecognitionState { get }
    /// Whether the gesture is in progress (`.began` or `.changed`).
    var isActive: Bool { get }
    /// Calls `body` after every event the recognizer accepts, until the subscription is cancelled.
    func observe(_ body: @escaping (Self) -> Void) -> Subscription
}

extension GestureRecognizer: ContinuousGestureRecognizer {}
