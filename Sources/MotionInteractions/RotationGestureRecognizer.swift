#if !$Embedded
import Foundation
#endif

/// A platform-neutral two-finger rotation, fed by timestamped events from an engine's input
/// layer: the rotation since the gesture began, in radians, and its velocity.
///
/// <!-- fragment: layer -->
/// ```swift
/// let twist = RotationGestureRecognizer()
/// twist.handle(.began(timestamp: 0))
/// twist.handle(.changed(rotation: 0.1, timestamp: 1.0 / 60))
/// twist.handle(.ended(rotation: 0.2, timestamp: 2.0 / 60))
/// print(twist.velocity)   // the release velocity, 6 radians per second
/// ```
///
/// It has a ``GestureRecognizer``'s states, bad-input policy and velocity estimate exactly (it
/// tracks the rotation with one): events that do not fit the state are ignored and counted,
/// out-of-order or non-finite timestamps are taken as the newest one, a non-finite rotation is
/// replaced by the last one, and the velocity is a least-squares slope over the last
/// ``velocityWindow`` seconds, always finite and at most ``maximumSpeed``.
public final class RotationGestureRecognizer: ContinuousGestureRecognizer {
    /// Tracks the rotation as the x of a drag's translation: one state machine, one bad-input
    /// policy and one velocity fit for every kind of gesture.
    private let tracker: GestureRecognizer

    /// A recognizer in the `.possible` state.
    ///
    /// - Parameters:
    ///   - maximumSpeed: the fastest velocity reported, in radians per second (60, about ten
    ///     turns a second, is beyond any hand); a non-finite or non-positive value means no limit.
    ///   - velocityWindow: how many seconds of recent samples the velocity is estimated from.
    public init(maximumSpeed: Double = 60, velocityWindow: Double = 0.1) {
        tracker = GestureRecognizer(maximumSpeed: maximumSpeed, velocityWindow: velocityWindow)
    }

    /// Where the gesture is in its life.
    public var state: GestureRecognitionState { tracker.state }
    /// Whether the gesture is in progress (`.began` or `.changed`).
    public var isActive: Bool { tracker.isActive }
    /// The rotation since the gesture began, in radians (positive: clockwise on a y-down screen).
    public var rotation: CGFloat { tracker.translation.x }
    /// The velocity, in radians per second: the estimate while the gesture is in progress, the
    /// release velocity after it ended, zero otherwise (a cancelled gesture has none).
    public var velocity: CGFloat { tracker.velocity.x }
    /// The newest timestamp accepted, or nil before the first event.
    public var timestamp: Double? { tracker.timestamp }
    /// Events ignored because they did not fit the state.
    public var ignoredEventCount: Int { tracker.ignoredEventCount }
    /// The fastest velocity reported, in radians per second.
    public var maximumSpeed: Double { tracker.maximumSpeed }
    /// How far back, in seconds, samples count towards the velocity.
    public var velocityWindow: Double { tracker.velocityWindow }

    /// Calls `body` after every event the recognizer accepts, until the subscription is cancelled.
    public func observe(_ body: @escaping (RotationGestureRecognizer) -> Void) -> Subscription {
        // The tracker lives exactly as long as this recognizer, so its observers never outlive it.
        tracker.observe { [unowned(unsafe) self] _ in body(self) }
    }

    /// Applies one input event and notifies the observers; returns false when the event was
    /// ignored because it did not fit the state.
    @discardableResult
    public func handle(_ event: RotationGestureEvent) -> Bool {
        switch event {
        case .began(let rotation, let time): tracker.handle(.began(translation: CGPoint(x: rotation, y: 0), timestamp: time))
        case .changed(let rotation, let time): tracker.handle(.changed(translation: CGPoint(x: rotation, y: 0), timestamp: time))
        case .ended(let rotation, let time): tracker.handle(.ended(translation: CGPoint(x: rotation, y: 0), timestamp: time))
        case .cancelled(let time): tracker.handle(.cancelled(timestamp: time))
        }
    }
}

/// One timestamped input event for a ``RotationGestureRecognizer``: `rotation` is the total
/// rotation since the gesture began, in radians; `timestamp` is in seconds (see ``GestureEvent``).
public enum RotationGestureEvent: Hashable, Sendable {
    /// The gesture started (with the rotation so far).
    case began(rotation: CGFloat = 0, timestamp: Double)
    /// The fingers turned.
    case changed(rotation: CGFloat, timestamp: Double)
    /// The fingers lifted; the rotation is the final one.
    case ended(rotation: CGFloat, timestamp: Double)
    /// The gesture was interrupted.
    case cancelled(timestamp: Double)
}
