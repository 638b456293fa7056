#if !$Embedded
import Foundation
#endif

/// Makes an element's rotation follow a rotation gesture (the Material Motion Rotatable plan):
/// while the gesture is in progress, rotation = rotation at the start + the gesture's rotation.
///
/// Rotatable writes the rotation; pair it with `PausesSpring(.rotation, whileActive:)` so a
/// spring on the same rotation holds still meanwhile (``DirectlyManipulable`` does both).
public struct Rotatable: MotionPlan {
    /// The recognizer whose rotation turns the element.
    public let gestureRecognizer: RotationGestureRecognizer

    /// Rotates the element's rotation with `recognizer`.
    public init(withGestureRecognizer recognizer: RotationGestureRecognizer) {
        gestureRecognizer = recognizer
    }

    /// Connects the recognizer's rotation to the element's rotation.
    public func perform(on element: MotionElement, in runtime: MotionRuntime) {
        runtime.write(gestureSource(gestureRecognizer).rotated(from: element.rotation), to: element.rotation)
    }
}
