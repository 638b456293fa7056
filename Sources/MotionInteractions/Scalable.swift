#if !$Embedded
import Foundation
#endif

/// Makes an element's scale follow a pinch (the Material Motion Scalable plan): while the gesture
/// is in progress, scale = scale at the start × the gesture's scale.
///
/// Scalable writes the scale; pair it with `PausesSpring(.scale, whileActive:)` so a spring on
/// the same scale holds still meanwhile (``DirectlyManipulable`` does both).
public struct Scalable: MotionPlan {
    /// The recognizer whose pinch scales the element.
    public let gestureRecognizer: PinchGestureRecognizer

    /// Scales the element's scale with `recognizer`.
    public init(withGestureRecognizer recognizer: PinchGestureRecognizer) {
        gestureRecognizer = recognizer
    }

    /// Connects the recognizer's scale to the element's scale.
    public func perform(on element: MotionElement, in runtime: MotionRuntime) {
        runtime.write(gestureSource(gestureRecognizer).scaled(from: element.scale), to: element.scale)
    }
}
