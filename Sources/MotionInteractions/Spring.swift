import SpringKernel

/// A spring from a starting value toward a destination, described by properties: the
/// springSource specification's `Spring`.
///
/// A spring does nothing by itself; ``springSource(_:)`` connects it to a runtime's kernel, one
/// kernel spring per component of `T`.
///
/// - ``destination`` is read when the spring starts and observed: writing it pulls the moving
///   spring toward the new destination, keeping its velocity. Writing it while the spring is at
///   rest (and not paused) starts the spring again from ``initialValue`` as it is then, with no
///   velocity, even if the destination is unchanged.
/// - ``initialValue`` is read when the spring starts, each time it restarts after a pause
///   (``Subscription/resume()``) and each time a destination written at rest starts it again:
///   it is where the motion begins (usually the property the spring drives, so a write to that
///   property while the spring rests is where the next motion starts). ``initialVelocity`` is
///   read when the spring starts and when it restarts after a pause. Writing either while the
///   spring moves does not change the motion.
/// - ``configuration`` (the kernel's `SpringConfiguration`, valid by construction) is observed:
///   writing it changes the moving spring's tension, friction and mass, keeping its state.
/// - ``threshold`` is the kernel's settle tolerance, in the value's own units: the spring comes to
///   rest on the frame its trajectory stays within it of the destination for good.
///
/// ## Non-finite input
/// Springs never take a non-finite number (or one beyond the kernel's ±10¹⁵ range), component by
/// component: a destination component that is not finite is ignored (the spring keeps pulling
/// toward the last usable one); at a start, an unusable initial value component starts at the
/// destination, and an unusable velocity component is zero; at a restart, an unusable initial
/// value component continues from where it was paused. A spring only ever emits finite values,
/// so a NaN written to the property a moving spring drives is overwritten on the next frame.
public final class Spring<T: SpringAnimatable> {
    /// The value the spring pulls toward.
    public let destination: ReactiveProperty<T>
    /// The value the spring starts (and restarts) from.
    public let initialValue: ReactiveProperty<T>
    /// The velocity the spring starts (and restarts) with, in value units per second.
    public let initialVelocity: ReactiveProperty<T>
    /// The spring's physical parameters (the Material Motion default: tension 342, friction 30).
    ///
    /// Made on first read, holding the default: a spring whose configuration is never read or
    /// written carries no property for it (nor do its streams observe one). The streams already
    /// connected observe it from then on.
    public var configuration: ReactiveProperty<SpringConfiguration> {
        switch configurationLink {
        case .made(let property):
            return property
        case .none, .awaited:
            let property = ReactiveProperty(SpringConfiguration.default)
            let awaited = configurationLink
            configurationLink = .made(property)
            if case .awaited(let first) = awaited { TypedSpringConnection.observe(property, fromFirst: first) }
            return property
        }
    }
    /// The settle tolerance, in value units, for every component.
    public let threshold: Float
    /// The configuration property once made; until then, the connected streams that will observe
    /// it, a list through their ``TypedSpringConnection/nextAwaitingConfiguration`` (one word
    /// either way).
    var configurationLink = ConfigurationLink.none

    /// ``configuration``'s property, or the streams waiting for it to be made.
    enum ConfigurationLink {
        /// Not made, and no stream waits for it.
        case none
        /// Not made; the first of the connected streams that observe it once it is.
        case awaited(Unmanaged<TypedSpringConnection<T>>)
        /// Made.
        case made(ReactiveProperty<SpringConfiguration>)
    }

    /// ``configuration``'s value, without making the property: the default until it is made.
    var currentConfiguration: SpringConfiguration {
        if case .made(let property) = configurationLink { return property.value }
        return .default
    }

    /// The threshold used when none is given or the one given is not finite and positive.
    public static var defaultThreshold: Float { 0.5 }

    /// A spring from `initialValue` toward `destination`, at rest within `threshold`.
    ///
    /// - Parameters:
    ///   - destination: the property whose value the spring pulls toward.
    ///   - initialValue: the property whose value the spring starts from.
    ///   - threshold: the kernel's settle tolerance in the value's units (0.5 points for a
    ///     position, 1/256 for an opacity); a non-finite or non-positive threshold is replaced by
    ///     ``defaultThreshold``.
    public init(to destination: ReactiveProperty<T>, initialValue: ReactiveProperty<T>, threshold: Float = Spring.defaultThreshold) {
        self.destination = destination
        self.initialValue = initialValue
        self.initialVelocity = ReactiveProperty(T.springZero)
        self.threshold = threshold.isFinite && threshold > 0 ? threshold : Self.defaultThreshold
    }
}
