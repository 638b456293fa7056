#if !$Embedded
import Foundation
#endif

/// A platform-neutral pinch, fed by timestamped events from an engine's input layer: the scale
/// since the gesture began (1 when it begins, 2 when the fingers are twice as far apart) and its
/// velocity, in scale per second.
///
/// <!-- fragment: layer -->
/// ```swift
/// let pinch = PinchGestureRecognizer()
/// pinch.handle(.began(timestamp: 0))
/// pinch.handle(.changed(scale: 1.1, timestamp: 1.0 / 60))
/// pinch.handle(.ended(scale: 1.2, timestamp: 2.0 / 60))
/// print(pinch.velocity)   // the release velocity, 6 per second
/// ```
///
/// It has a ``GestureRecognizer``'s states, bad-input policy and velocity estimate exactly (it
/// tracks the scale with one), as ``RotationGestureRecognizer`` does.
public final class PinchGestureRecognizer: ContinuousGestureRecognizer {
    /// Tracks scale − 1 as the x of a drag's translation (which starts at zero as the scale starts
    /// at 1): one state machine, bad-input policy and velocity fit for every kind of gesture.
    private let tracker: GestureRecognizer

    /// A recognizer in the `.possible` state.
    ///
    /// - Parameters:
    ///   - maximumSpeed: the fastest velocity reported, in scale per second (30 is beyond any
    ///     hand); a non-finite or non-positive value means no limit.
    ///   - velocityWindow: how many seconds of recent samples the velocity is estimated from.
    public init(maximumSpeed: Double = 30, velocityWindow: Double = 0.1) {
        tracker = GestureRecognizer(maximumSpeed: maximumSpeed, velocityWindow: velocityWindow)
    }

    /// Where the gesture is in its life.
    public var state: GestureRecognitionState { tracker.state }
    /// Whether the gesture is in progress (`.began` or `.changed`).
    public var isActive: Bool { tracker.isActive }
    /// The scale since the gesture began: 1 at its start.
    public var scale: CGFloat { 1 + tracker.translation.x }
    /// The velocity, in scale per second: the estimate while the gesture is in progress, the
    /// release velocity after it ended, zero otherwise (a cancelled gesture has none).
    public var velocity: CGFloat { tracker.velocity.x }
    /// The newest timestamp accepted, or nil before the first event.
    public var timestamp: Double? { tracker.timestamp }
    /// Events ignored because they did not fit the state.
    public var ignoredEventCount: Int { tracker.ignoredEventCount }
    /// The fastest velocity reported, in scale per second.
    public var maximumSpeed: Double { tracker.maximumSpeed }
    /// How far back, in seconds, samples count towards the velocity.
    public var velocityWindow: Double { tracker.velocityWindow }

    /// Calls `body` after every event the recognizer accepts, until the subscription is cancelled.
    public func observe(_ body: @escaping (PinchGestureRecognizer) -> Void) -> Subscription {
        // The tracker lives exactly as long as this recognizer, so its observers never outlive it.
        tracker.observe { [unowned(unsafe) self] _ in body(self) }
    }

    /// Applies one input event and notifies the observers; returns false when the event was
    /// ignored because it did not fit the state.
    @discardableResult
    public func handle(_ event: PinchGestureEvent) -> Bool {
        switch event {
        case .began(let scale, let time): tracker.handle(.began(translation: CGPoint(x: scale - 1, y: 0), timestamp: time))
        case .changed(let scale, let time): tracker.handle(.changed(translation: CGPoint(x: scale - 1, y: 0), timestamp: time))
        case .ended(let scale, let time): tracker.handle(.ended(translation: CGPoint(x: scale - 1, y: 0), timestamp: time))
        case .cancelled(let time): tracker.handle(.cancelled(timestamp: time))
        }
    }
}

/// One timestamped input event for a ``PinchGestureRecognizer``: `scale` is the scale since the
/// gesture began (1 at its start); `timestamp` is in seconds (see ``GestureEvent``).
public enum PinchGestureEvent: Hashable, Sendable {
    /// The gesture started (with the scale so far).
    case began(scale: CGFloat = 1, timestamp: Double)
    /// The fingers moved apart or together.
    case changed(scale: CGFloat, timestamp: Double)
    /// The fingers lifted; the scale is the final one.
    case ended(scale: CGFloat, timestamp: Double)
    /// The gesture was interrupted.
    case cancelled(timestamp: Double)
}
