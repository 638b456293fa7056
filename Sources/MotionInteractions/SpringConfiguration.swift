import SpringKernel

/// The tension and friction of a spring, as the springSource specification names them: the
/// spring m x'' = −tension (x − destination) − friction x' with mass 1.
///
/// The defaults, tension 342 and friction 30, are the Material Motion defaults (damping ratio
/// 0.811, natural frequency 18.5 rad/s, overshoot 1.3 %). This layer's type is a value so it can
/// sit in a ``ReactiveProperty`` and be written whole; it maps onto the kernel's
/// `SpringKernel.SpringConfiguration`, which validates it.
///
/// A configuration the kernel refuses (tension not in (0, 10⁶], friction not in [0, 10⁶], or
/// either non-finite) is not applied: a spring keeps the configuration it had (the default, for
/// a spring that never had a valid one).
public struct SpringConfiguration: Hashable, Sendable, CustomStringConvertible {
    /// Stiffness: force per unit of displacement.
    public var tension: Float
    /// Damping: force per unit of velocity.
    public var friction: Float

    /// A configuration; the defaults are the Material Motion defaults.
    public init(tension: Float = 342, friction: Float = 30) {
        self.tension = tension
        self.friction = friction
    }

    /// Tension 342, friction 30.
    public static let `default` = SpringConfiguration()

    /// The kernel's configuration, or nil if the kernel refuses these parameters.
    var kernelConfiguration: SpringKernel.SpringConfiguration? {
        try? SpringKernel.SpringConfiguration(tension: Double(tension), friction: Double(friction))
    }

    /// A description: "SpringConfiguration(tension: 342.0, friction: 30.0)".
    public var description: String { "SpringConfiguration(tension: \(tension), friction: \(friction))" }
}
