import Foundation

/// A platform-neutral stand-in for a view, layer or scene node: the target that plans are added
/// to, the coordinate space gestures are measured in, and the host of gesture recognizers.
///
/// An engine mirrors its node into an element (observe ``position`` and write it to the node) or
/// subclasses nothing at all: every interaction only reads and writes the element's properties.
///
/// ```swift
/// let card = MotionElement(position: CGPoint(x: 0, y: 0))
/// let drag = GestureRecognizer()
/// card.addGestureRecognizer(drag)
/// runtime.addPlan(Draggable(withGestureRecognizer: drag), to: card)
/// ```
public final class MotionElement {
    /// The element's position (a view's center), in its container's coordinates.
    public let position: ReactiveProperty<CGPoint>
    /// The element's opacity, 0 to 1.
    public let opacity: ReactiveProperty<Float>
    /// Input points per unit of this element's coordinate space (2 for a space zoomed out by
    /// half): gesture translations and velocities measured "in" the element are divided by it.
    public let coordinateScale: CGFloat
    /// The recognizers attached to the element, in the order they were added.
    public private(set) var gestureRecognizers: [GestureRecognizer] = []

    /// An element at `position`.
    ///
    /// - Parameter coordinateScale: input points per unit of the element's coordinate space;
    ///   must be finite and positive (a zero or infinite scale has no inverse).
    public init(position: CGPoint = .zero, opacity: Float = 1, coordinateScale: CGFloat = 1) {
        precondition(coordinateScale.isFinite && coordinateScale > 0, "coordinateScale must be finite and positive")
        self.position = ReactiveProperty(position)
        self.opacity = ReactiveProperty(opacity)
        self.coordinateScale = coordinateScale
    }

    /// Attaches `recognizer`: its ``GestureRecognizer/view`` becomes this element. A recognizer
    /// attached elsewhere moves here.
    public func addGestureRecognizer(_ recognizer: GestureRecognizer) {
        // A recognizer is in an element's list exactly while its view is that element, so this is
        // a constant-time check however many recognizers the element holds.
        guard recognizer.view !== self else { return }
        recognizer.view?.removeGestureRecognizer(recognizer)
        gestureRecognizers.append(recognizer)
        recognizer.view = self
    }

    /// Detaches `recognizer` if it is attached to this element: its ``GestureRecognizer/view``
    /// becomes nil. Its observers are untouched.
    public func removeGestureRecognizer(_ recognizer: GestureRecognizer) {
        guard recognizer.view === self else { return }
        gestureRecognizers.removeAll { $0 === recognizer }
        recognizer.view = nil
    }

    /// A vector (translation or velocity) measured in input points, in this element's space.
    func convertFromInput(_ vector: CGPoint) -> CGPoint {
        CGPoint(x: vector.x / coordinateScale, y: vector.y / coordinateScale)
    }
}

/// Names a ``ReactiveProperty`` of every ``MotionElement``, so a plan can say which property of
/// its target it drives: `SpringTo(.position, destination: open)`.
public struct ElementProperty<Value> {
    /// Where the property lives on an element.
    public let keyPath: KeyPath<MotionElement, ReactiveProperty<Value>>

    /// Names the property at `keyPath`.
    public init(_ keyPath: KeyPath<MotionElement, ReactiveProperty<Value>>) {
        self.keyPath = keyPath
    }

    /// The property of `element`.
    public func of(_ element: MotionElement) -> ReactiveProperty<Value> {
        element[keyPath: keyPath]
    }
}

extension ElementProperty where Value == CGPoint {
    /// ``MotionElement/position``.
    public static var position: ElementProperty<CGPoint> { ElementProperty(\.position) }
}

extension ElementProperty where Value == Float {
    /// ``MotionElement/opacity``.
    public static var opacity: ElementProperty<Float> { ElementProperty(\.opacity) }
}
