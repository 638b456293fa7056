import SpringKernel

/// Pulls a property of an element toward a destination with a spring (the Material Motion
/// SpringTo plan).
///
/// Every SpringTo for one property drives the same spring (see ``PropertySpring``): adding
/// another one changes the destination and keeps the velocity, and if the spring is paused (by
/// ``PausesSpring``), it moves on toward the latest destination when it is released. A spring at
/// rest starts from the property's current value, as the plan's contract says (pull the
/// property's current value to the destination): a value written to the property since the
/// spring came to rest is where it starts, and the same destination again starts it too.
///
/// <!-- fragment: layer-runtime -->
/// ```swift
/// runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 0, y: 200)), to: element)
/// ```
public struct SpringTo<T: SpringAnimatable>: MotionPlan {
    /// The property the spring drives.
    public let property: ElementProperty<T>
    /// Where the spring pulls the property.
    public let destination: T
    /// A configuration to apply, or nil to keep the spring's.
    public let configuration: SpringConfiguration?
    /// The threshold if this plan makes the property's spring (ignored otherwise), in the
    /// property's units; nil (or a non-finite or non-positive one) for the property's
    /// ``ElementProperty/defaultThreshold``.
    public let threshold: Float?

    /// Pulls `property` toward `destination`.
    public init(
        _ property: ElementProperty<T>, destination: T, configuration: SpringConfiguration? = nil, threshold: Float? = nil
    ) {
        self.property = property
        self.destination = destination
        self.configuration = configuration
        self.threshold = threshold
    }

    /// Sets the destination (and configuration) of the property's spring, making it if needed.
    /// A non-finite destination component is ignored by the spring (see ``Spring``).
    public func perform(on element: MotionElement, in runtime: MotionRuntime) {
        guard let propertySpring = runtime.makePropertySpring(for: property.of(element), threshold: property.threshold(threshold)) else { return }
        if let configuration { propertySpring.spring.configuration.value = configuration }
        propertySpring.spring.destination.value = destination
    }
}
