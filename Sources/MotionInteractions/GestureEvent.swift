#if !$Embedded
import Foundation
#endif

/// Where a continuous gesture is in its life, as UIKit and Android name the phases.
public enum GestureRecognitionState: Hashable, Sendable {
    /// Not recognized yet, or never started.
    case possible
    /// The gesture started with its first event.
    case began
    /// The gesture moved.
    case changed
    /// The gesture finished normally (the finger lifted): it has a release velocity.
    case ended
    /// The gesture was interrupted (by the system, another gesture): its velocity is zero.
    case cancelled
}

/// One timestamped input event for a ``GestureRecognizer``, as an engine's input layer reports it.
///
/// `translation` is the total movement since the gesture began, in input points; `timestamp` is in
/// seconds on any clock that does not go backwards within a gesture (the event's own time, not
/// the time it was processed).
public enum GestureEvent: Hashable, Sendable {
    /// The gesture started (after any slop, with the translation so far).
    case began(translation: CGPoint = .zero, timestamp: Double)
    /// The gesture moved.
    case changed(translation: CGPoint, timestamp: Double)
    /// The finger lifted; the translation is the final one.
    case ended(translation: CGPoint, timestamp: Double)
    /// The gesture was interrupted.
    case cancelled(timestamp: Double)

    /// The event's timestamp, in seconds.
    public var timestamp: Double {
        switch self {
        case .began(_, let timestamp), .changed(_, let timestamp), .ended(_, let timestamp): timestamp
        case .cancelled(let timestamp): timestamp
        }
    }
}
