#if !$Embedded
import Foundation
#endif

/// Names a ``ReactiveProperty`` of every ``MotionElement``, so a plan can say which property of
/// its target it drives (`SpringTo(.position, destination: open)`), and says how close to a
/// destination that property must be for a spring on it to come to rest.
///
/// A spring comes to rest once its motion stays within its threshold of the destination, and
/// then snaps onto it: the threshold is the largest jump the snap can make, so it must be
/// imperceptible *in the property's own units*. One number cannot serve every property: half a
/// point is invisible on a position, but on an opacity it is half the range (a spring from 1 to
/// 0.2 would snap from 0.79). Each property below carries its own default, and a plan that
/// names no threshold uses it.
public struct ElementProperty<Value> {
    /// Finds the property on an element.
    private let property: (MotionElement) -> ReactiveProperty<Value>
    /// The threshold, in the property's units, of a spring that ``SpringTo`` or ``PausesSpring``
    /// makes for the property when the plan names none.
    public let defaultThreshold: Float

    /// Names the property that `property` returns for an element (a closure, such as
    /// `{ $0.position }`), whose springs rest within `defaultThreshold` of their destination
    /// unless a plan says otherwise; a non-finite or non-positive threshold is replaced by
    /// ``Spring/defaultThreshold`` (0.5). Embedded Swift has no key paths: this is how a
    /// property is named there.
    public init(_ property: @escaping (MotionElement) -> ReactiveProperty<Value>, defaultThreshold: Float = 0.5) {
        self.property = property
        self.defaultThreshold = defaultThreshold.isFinite && defaultThreshold > 0 ? defaultThreshold : 0.5
    }

    #if !$Embedded
    /// Names the property at `keyPath` (`\.position`), as the initializer that takes a closure
    /// does (not in Embedded Swift, which has no key paths).
    public init(_ keyPath: KeyPath<MotionElement, ReactiveProperty<Value>>, defaultThreshold: Float = 0.5) {
        self.init({ $0[keyPath: keyPath] }, defaultThreshold: defaultThreshold)
    }
    #endif

    /// The property of `element`.
    public func of(_ element: MotionElement) -> ReactiveProperty<Value> {
        property(element)
    }

    /// `threshold` if it is finite and positive, otherwise ``defaultThreshold``.
    func threshold(_ threshold: Float?) -> Float {
        guard let threshold, threshold.isFinite, threshold > 0 else { return defaultThreshold }
        return threshold
    }
}

extension ElementProperty where Value == CGPoint {
    /// ``MotionElement/position``, threshold 0.5 points: the snap at rest moves the element by at
    /// most half a point (one pixel on a 2x display), below what the eye follows at the end of a
    /// motion.
    public static var position: ElementProperty<CGPoint> { ElementProperty({ $0.position }, defaultThreshold: 0.5) }
}

extension ElementProperty where Value == Float {
    /// ``MotionElement/opacity``, threshold 1/256: one step of an 8-bit alpha channel, so the snap
    /// at rest changes no composited pixel by more than one level.
    public static var opacity: ElementProperty<Float> { ElementProperty({ $0.opacity }, defaultThreshold: 1.0 / 256) }
}

extension ElementProperty where Value == CGFloat {
    /// ``MotionElement/scale``, threshold 0.001: a change of scale s moves the edges of a view w
    /// points wide by s·w/2, so 0.001 keeps the edges of a 1,000-point view (a full screen) within
    /// half a point at the snap.
    public static var scale: ElementProperty<CGFloat> { ElementProperty({ $0.scale }, defaultThreshold: 0.001) }

    /// ``MotionElement/rotation``, threshold 0.001 radians (0.057°): a rotation θ moves a point r
    /// from the center by r·θ, so 0.001 keeps every point within 500 points of the center (the
    /// corners of a view up to about 700 points across) within half a point at the snap.
    public static var rotation: ElementProperty<CGFloat> { ElementProperty({ $0.rotation }, defaultThreshold: 0.001) }
}

extension ElementProperty where Value == CGSize {
    /// ``MotionElement/size``, threshold 0.5 points, as for a position: an edge moves by at most
    /// half a point at the snap.
    public static var size: ElementProperty<CGSize> { ElementProperty({ $0.size }, defaultThreshold: 0.5) }
}
