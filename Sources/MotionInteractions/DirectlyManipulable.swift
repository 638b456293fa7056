#if !$Embedded
import Foundation
#endif

/// Lets an element be dragged, rotated and pinched at once (the Material Motion
/// DirectlyManipulable interaction, as a plan): ``Draggable``, ``Rotatable`` and ``Scalable``,
/// each with ``PausesSpring`` on the springs of the properties the fingers own.
///
/// The element stops moving while it is dragged, rotated *or* scaled, as PausesSpring's
/// specification asks: its position spring is held by all three recognizers (three kernel pause
/// masks on one spring), its rotation spring by the rotation, its scale spring by the pinch. When
/// the last recognizer holding a spring lets go, the spring restarts from the property's value
/// with its own gesture's velocity: the position with the drag's release velocity (or none, if a
/// rotation or a pinch lets go after the drag ended: the finger had stopped moving it), the
/// rotation with the rotation's, the scale with the pinch's; each then springs on toward its
/// latest destination.
///
/// <!-- fragment: layer-runtime -->
/// ```swift
/// let manipulable = DirectlyManipulable()
/// runtime.addPlan(SpringTo(.position, destination: home), to: card)
/// runtime.addPlan(manipulable, to: card)
/// manipulable.rotationGestureRecognizer.handle(.began(timestamp: t))   // from the engine's input
/// ```
///
/// Adding it makes the element's position, rotation and scale springs (at rest where the element
/// is) if no plan made them yet.
public struct DirectlyManipulable: MotionPlan {
    /// The drag that moves the element.
    public let dragGestureRecognizer: GestureRecognizer
    /// The two-finger rotation that turns it.
    public let rotationGestureRecognizer: RotationGestureRecognizer
    /// The pinch that scales it.
    public let pinchGestureRecognizer: PinchGestureRecognizer
    /// The coordinate space the drag is measured in (nil: input points unchanged).
    public let space: MotionElement?

    /// Manipulates an element with the given recognizers (new ones by default), the drag
    /// measured in `space`.
    public init(
        dragGestureRecognizer: GestureRecognizer = GestureRecognizer(),
        rotationGestureRecognizer: RotationGestureRecognizer = RotationGestureRecognizer(),
        pinchGestureRecognizer: PinchGestureRecognizer = PinchGestureRecognizer(),
        in space: MotionElement? = nil
    ) {
        self.dragGestureRecognizer = dragGestureRecognizer
        self.rotationGestureRecognizer = rotationGestureRecognizer
        self.pinchGestureRecognizer = pinchGestureRecognizer
        self.space = space
    }

    /// Adds the three gestures' plans and their pauses to `element`.
    public func perform(on element: MotionElement, in runtime: MotionRuntime) {
        let drag = dragGestureRecognizer, rotation = rotationGestureRecognizer, pinch = pinchGestureRecognizer
        let space = self.space
        // One call per plan (each of its own type: Embedded Swift has no array of `any MotionPlan`).
        runtime.addPlan(Draggable(withGestureRecognizer: drag, in: space), to: element)
        runtime.addPlan(Rotatable(withGestureRecognizer: rotation), to: element)
        runtime.addPlan(Scalable(withGestureRecognizer: pinch), to: element)
        // The drag's velocity in the space its translation is measured in.
        runtime.addPlan(PausesSpring(.position, whileActive: drag) { $0.velocity(in: space) }, to: element)
        runtime.addPlan(PausesSpring(.position, whileActive: rotation), to: element)
        runtime.addPlan(PausesSpring(.position, whileActive: pinch), to: element)
        runtime.addPlan(PausesSpring(.rotation, whileActive: rotation), to: element)
        runtime.addPlan(PausesSpring(.scale, whileActive: pinch), to: element)
    }
}
