#if !$Embedded
import Foundation
#endif

/// A platform-neutral stand-in for a view, layer or scene node: the target that plans are added
/// to, the coordinate space gestures are measured in, and the host of gesture recognizers.
///
/// An engine mirrors its node into an element (observe ``position`` and write it to the node) or
/// subclasses nothing at all: every interaction only reads and writes the element's properties.
///
/// <!-- fragment: layer-card -->
/// ```swift
/// let card = MotionElement(position: CGPoint(x: 0, y: 0))
/// let drag = GestureRecognizer()
/// card.addGestureRecognizer(drag)
/// runtime.addPlan(Draggable(withGestureRecognizer: drag), to: card)
/// ```
public final class MotionElement {
    /// The element's position (a view's center), in its container's coordinates.
    public let position: ReactiveProperty<CGPoint>
    /// The element's opacity, 0 to 1. Made on first use, so an element whose opacity is never
    /// read, written or animated carries no property for it.
    public private(set) lazy var opacity = ReactiveProperty<Float>(1)
    /// The element's scale about its center (1: its natural size). Made on first use, so an
    /// element that is never scaled, rotated or resized carries no property for it.
    public private(set) lazy var scale = ReactiveProperty<CGFloat>(1)
    /// The element's rotation about its center, in radians (positive: clockwise on a y-down screen).
    public private(set) lazy var rotation = ReactiveProperty<CGFloat>(0)
    /// The element's size (a view's bounds size), in its container's coordinates.
    public private(set) lazy var size = ReactiveProperty(CGSize.zero)
    /// Input points per unit of this element's coordinate space (2 for a space zoomed out by
    /// half): gesture translations and velocities measured "in" the element are divided by it.
    public let coordinateScale: CGFloat
    /// The recognizers attached to the element, in the order they were added (a new array each
    /// time it is read).
    public var gestureRecognizers: [GestureRecognizer] { attachedRecognizers.compactMap { $0 } }
    /// The attached recognizers in the order they were added, with a hole where one was detached
    /// (each recognizer knows its place, so detaching one is constant time); compacted once the
    /// holes outnumber the recognizers, so a container outliving many recognizers does not
    /// grow, and detaching them all is linear, not quadratic.
    private var attachedRecognizers: [GestureRecognizer?] = []
    private var attachedRecognizerCount = 0
    /// Sample rings of the attached recognizers' gestures that are not active: a recognizer
    /// borrows one as its gesture begins and gives it back as it ends. When none is idle, the
    /// pool doubles (as many new rings as are lent out), so there are at most twice as many rings
    /// as gestures were ever active at once here, and a new peak of gestures allocates only where
    /// it passes a power of two: once warmed up, an event allocates nothing.
    private var idleSampleRings: [GestureSampleRing] = []
    /// Rings lent by ``lendSampleRing()`` and not given back here yet.
    private var lentSampleRingCount = 0

    /// An element at `position`, with the given opacity, scale, rotation and size.
    ///
    /// - Parameters:
    ///   - position: its position (a view's center) in its container's coordinates.
    ///   - opacity: its opacity, 0 to 1.
    ///   - scale: its scale about its center (1: natural size).
    ///   - rotation: its rotation in radians.
    ///   - size: its size.
    ///   - coordinateScale: input points per unit of the element's coordinate space; must be
    ///     finite and positive (a zero or infinite scale has no inverse).
    public init(
        position: CGPoint = .zero, opacity: Float = 1, scale: CGFloat = 1, rotation: CGFloat = 0, size: CGSize = .zero,
        coordinateScale: CGFloat = 1
    ) {
        precondition(coordinateScale.isFinite && coordinateScale > 0, "coordinateScale must be finite and positive")
        self.position = ReactiveProperty(position)
        self.coordinateScale = coordinateScale
        if opacity != 1 { self.opacity = ReactiveProperty(opacity) }
        if scale != 1 { self.scale = ReactiveProperty(scale) }
        if rotation != 0 { self.rotation = ReactiveProperty(rotation) }
        if size != .zero { self.size = ReactiveProperty(size) }
    }

    /// The recognizers still attached let go of the element (their ``GestureRecognizer/view``
    /// becomes nil).
    deinit {
        for case let recognizer? in attachedRecognizers { recognizer.view = nil }
        for ring in idleSampleRings { ring.deallocate() }
    }

    /// Attaches `recognizer`: its ``GestureRecognizer/view`` becomes this element. A recognizer
    /// attached elsewhere moves here.
    public func addGestureRecognizer(_ recognizer: GestureRecognizer) {
        // A recognizer is in an element's list exactly while its view is that element, so this is
        // a constant-time check however many recognizers the element holds.
        guard recognizer.view !== self else { return }
        recognizer.view?.removeGestureRecognizer(recognizer)
        recognizer.placeInView = Int32(attachedRecognizers.count)
        attachedRecognizers.append(recognizer)
        attachedRecognizerCount += 1
        recognizer.view = self
    }

    /// Detaches `recognizer` if it is attached to this element: its ``GestureRecognizer/view``
    /// becomes nil. Its observers are untouched.
    ///
    /// - Complexity: Amortized O(1): the element's list is compacted when more than half of it is
    ///   empty.
    public func removeGestureRecognizer(_ recognizer: GestureRecognizer) {
        guard recognizer.view === self else { return }
        attachedRecognizers[Int(recognizer.placeInView)] = nil
        attachedRecognizerCount -= 1
        recognizer.view = nil
        guard attachedRecognizers.count > 2 * attachedRecognizerCount + 16 else { return }
        attachedRecognizers.removeAll { $0 == nil }
        for (place, attached) in attachedRecognizers.enumerated() { attached?.placeInView = Int32(place) }
    }

    /// A sample ring for a gesture that begins on a recognizer attached here: an idle one; if
    /// every ring is in use, the pool first doubles (see ``idleSampleRings``).
    func lendSampleRing() -> GestureSampleRing {
        if idleSampleRings.isEmpty {
            let added = max(1, lentSampleRingCount)
            // Room for every ring, so that giving them all back allocates nothing either.
            idleSampleRings.reserveCapacity(lentSampleRingCount + added)
            for _ in 0..<added { idleSampleRings.append(GestureSampleRing.make()) }
        }
        lentSampleRingCount += 1
        return idleSampleRings.removeLast()
    }

    /// The sample rings this element made and holds or lent out (idle and lent).
    var sampleRingCount: Int { idleSampleRings.count + lentSampleRingCount }

    /// A ring lent by ``lendSampleRing()`` (or by another element the recognizer was attached
    /// to), given back as its gesture ends.
    func takeBackSampleRing(_ ring: GestureSampleRing) {
        lentSampleRingCount = max(0, lentSampleRingCount - 1)
        idleSampleRings.append(ring)
    }

    /// A vector (translation or velocity) measured in input points, in this element's space.
    func convertFromInput(_ vector: CGPoint) -> CGPoint {
        CGPoint(x: vector.x / coordinateScale, y: vector.y / coordinateScale)
    }
}
