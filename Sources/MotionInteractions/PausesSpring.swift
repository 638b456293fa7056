#if !$Embedded
import Foundation
#endif

/// Pauses a property's spring while a gesture recognizer is active (the Material Motion
/// PausesSpring plan).
///
/// Each recognizer/property pair has its own kernel pause mask, so several recognizers pause one
/// property together: the spring is held while any of them is active (the kernel counts the
/// holds). When the last one becomes inactive, the kernel restarts the spring from the
/// property's current value (where the drag left it) with the gesture's velocity, toward the
/// spring's latest destination. Each recognizer writes its release velocity to the spring's
/// ``Spring/initialVelocity`` (see ``PropertySpring/spring``) as it lets go, and the restart reads
/// it there, as a paused subscription's restart does: one pause mechanism for both. Adding the
/// same pair twice does nothing.
///
/// <!-- fragment: layer-runtime -->
/// ```swift
/// runtime.addPlan(PausesSpring(.position, whileActive: drag), to: element)
/// runtime.addPlan(PausesSpring(.position, whileActive: rotation), to: element)
/// runtime.addPlan(PausesSpring(.position, whileActive: pinch), to: element)
/// ```
///
/// If the property's value is not usable (NaN) at the release, the spring continues from where
/// it was paused; a non-finite velocity component is taken as zero.
public struct PausesSpring<T: SpringAnimatable>: MotionPlan {
    /// The property whose spring is paused.
    public let property: ElementProperty<T>
    /// The recognizer that pauses it while active: a drag, a rotation or a pinch.
    public let gestureRecognizer: any ContinuousGestureRecognizer
    /// The velocity the spring restarts with, read from the recognizer at its release.
    let releaseVelocity: () -> T
    /// Observes the recognizer's events (made where its type is known: Embedded Swift calls no
    /// method taking `Self` through an existential).
    let observeRecognizer: (@escaping () -> Void) -> Subscription

    /// Pauses `property`'s spring while the drag `recognizer` is active; on release the spring
    /// restarts with the drag's velocity in the element's coordinate space, laid onto the value's
    /// first two components (x and y for a point; x alone for a single number).
    public init(_ property: ElementProperty<T>, whileActive recognizer: GestureRecognizer) {
        self.init(property, whileActive: recognizer) { recognizer in
            let velocity = recognizer.velocity(in: recognizer.view)
            return T(springComponents: SIMD4(Float(velocity.x), Float(velocity.y), 0, 0))
        }
    }

    /// Pauses `property`'s spring while `recognizer` is active. On release, a one-component
    /// property (a rotation) restarts with the rotation's velocity in radians per second; a
    /// property of more components (a position) restarts with none, since an angular speed is not
    /// a speed of theirs.
    public init(_ property: ElementProperty<T>, whileActive recognizer: RotationGestureRecognizer) {
        self.init(property, whileActive: recognizer) { Self.velocity($0.velocity) }
    }

    /// Pauses `property`'s spring while `recognizer` is active. On release, a one-component
    /// property (a scale) restarts with the pinch's velocity in scale per second; a property of
    /// more components (a position) restarts with none.
    public init(_ property: ElementProperty<T>, whileActive recognizer: PinchGestureRecognizer) {
        self.init(property, whileActive: recognizer) { Self.velocity($0.velocity) }
    }

    /// Pauses `property`'s spring while `recognizer` is active; on release the spring restarts
    /// with the velocity `releaseVelocity` computes from the recognizer.
    public init<Recognizer: ContinuousGestureRecognizer>(
        _ property: ElementProperty<T>, whileActive recognizer: Recognizer,
        releaseVelocity: @escaping (Recognizer) -> T
    ) {
        self.property = property
        self.gestureRecognizer = recognizer
        self.releaseVelocity = { releaseVelocity(recognizer) }
        self.observeRecognizer = { body in recognizer.observe { _ in body() } }
    }

    /// Adds the recognizer's pause mask to the property's spring, making the spring if needed
    /// (at rest on the property's value, with the property's
    /// ``ElementProperty/defaultThreshold``).
    public func perform(on element: MotionElement, in runtime: MotionRuntime) {
        guard let propertySpring = runtime.makePropertySpring(for: property.of(element), threshold: property.defaultThreshold) else { return }
        runtime.addPause(
            of: propertySpring, whileActive: gestureRecognizer, observing: observeRecognizer, releaseVelocity: releaseVelocity)
    }

    /// A one-dimensional gesture's velocity as a value of `T`: itself for one component, none for more.
    private static func velocity(_ speed: CGFloat) -> T {
        T.springComponentCount == 1 ? T(springComponents: SIMD4(Float(speed), 0, 0, 0)) : T.springZero
    }
}
