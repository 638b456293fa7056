#if !$Embedded
import Foundation
#endif

/// Makes an element's position follow a gesture's translation (the Material Motion Draggable
/// plan): while the gesture is in progress, position = position at the start + translation,
/// measured in `space`, optionally rubber-banded at the edges of a region.
///
/// Draggable writes the position; pair it with ``PausesSpring`` so a spring on the same
/// position holds still meanwhile.
public struct Draggable: MotionPlan {
    /// The recognizer whose translation moves the element.
    public let gestureRecognizer: GestureRecognizer
    /// The coordinate space the translation is measured in (nil: input points unchanged).
    public let space: MotionElement?
    /// Resistance past the edges of a region, or nil for none.
    public let rubberBand: RubberBand?

    /// Drags the element's position with `recognizer`.
    public init(withGestureRecognizer recognizer: GestureRecognizer, in space: MotionElement? = nil, rubberBand: RubberBand? = nil) {
        self.gestureRecognizer = recognizer
        self.space = space
        self.rubberBand = rubberBand
    }

    /// Connects the recognizer's translation to the element's position.
    public func perform(on element: MotionElement, in runtime: MotionRuntime) {
        let translation = gestureSource(gestureRecognizer).translated(from: element.position, in: space)
        let dragged = rubberBand.map { translation.rubberBanded(outsideOf: $0.bounds, maxLength: $0.maximumOverflow) } ?? translation
        runtime.write(dragged, to: element.position)
    }
}
