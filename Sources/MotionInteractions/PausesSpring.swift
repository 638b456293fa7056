import Foundation

/// Pauses a property's spring while a gesture recognizer is active (the Material Motion
/// PausesSpring plan).
///
/// Each recognizer/property pair has its own kernel pause mask, so several recognizers pause one
/// property together: the spring is held while any of them is active (the kernel counts the
/// holds). When the last one becomes inactive, the kernel restarts the spring from the
/// property's current value (where the drag left it) with the gesture's velocity, toward the
/// spring's latest destination. Adding the same pair twice does nothing.
///
/// ```swift
/// runtime.addPlan(PausesSpring(.position, whileActive: drag), to: element)
/// runtime.addPlan(PausesSpring(.position, whileActive: rotation), to: element)
/// ```
///
/// If the property's value is not usable (NaN) at the release, the spring continues from where
/// it was paused; a non-finite velocity component is taken as zero.
public struct PausesSpring<T: SpringAnimatable>: MotionPlan {
    /// The property whose spring is paused.
    public let property: ElementProperty<T>
    /// The recognizer that pauses it while active.
    public let gestureRecognizer: GestureRecognizer
    /// The velocity the spring restarts with, from the recognizer at its release.
    public let releaseVelocity: (GestureRecognizer) -> T

    /// Pauses `property`'s spring while `recognizer` is active; on release the spring restarts
    /// with the gesture's velocity in the element's coordinate space, laid onto the value's first
    /// two components (x and y for a point; x alone for a single number).
    public init(_ property: ElementProperty<T>, whileActive recognizer: GestureRecognizer) {
        self.init(property, whileActive: recognizer) { recognizer in
            let velocity = recognizer.velocity(in: recognizer.view)
            return T(springComponents: SIMD4(Float(velocity.x), Float(velocity.y), 0, 0))
        }
    }

    /// Pauses `property`'s spring while `recognizer` is active; on release the spring restarts
    /// with the velocity `releaseVelocity` computes from the recognizer.
    public init(
        _ property: ElementProperty<T>, whileActive recognizer: GestureRecognizer,
        releaseVelocity: @escaping (GestureRecognizer) -> T
    ) {
        self.property = property
        self.gestureRecognizer = recognizer
        self.releaseVelocity = releaseVelocity
    }

    /// Adds the recognizer's pause mask to the property's spring, making the spring if needed
    /// (at rest on the property's value, with the property's
    /// ``ElementProperty/defaultThreshold``).
    public func perform(on element: MotionElement, in runtime: MotionRuntime) {
        guard let propertySpring = runtime.makePropertySpring(for: property.of(element), threshold: property.defaultThreshold) else { return }
        runtime.addPause(of: propertySpring, whileActive: gestureRecognizer, releaseVelocity: releaseVelocity)
    }
}
