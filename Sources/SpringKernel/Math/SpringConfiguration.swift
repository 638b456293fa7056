/// The physical parameters of a spring: m x'' = -k (x - target) - c x'.
///
/// Tension k, friction c and mass m default to 342, 30 and 1, the springSource defaults of the
/// Material Motion specification (damping ratio 0.811, natural frequency 18.5 rad/s).
///
/// Each parameter is validated when the configuration is made, so a bank never sees one that could
/// produce a non-finite step or an early rest: tension in (0, 10⁶], friction in [0, 10⁶], mass in
/// [10⁻⁶, 10⁶], tension / mass (ω₀²) at least 10⁻⁴⁰ and the damping ratio at most 10⁶.
/// A friction of zero is valid; such a spring oscillates forever and comes to rest only if its
/// whole motion already lies within its tolerance.
///
/// The parameters designers use today (SwiftUI's duration and bounce or response and damping
/// ratio, Flutter's, Motion's visual duration, Compose's damping ratio and stiffness) make a
/// configuration too, by each peer's own formula: see `SpringConfiguration+Parameters.swift`.
///
/// <!-- fragment: kernel -->
/// ```swift
/// let snappy = try SpringConfiguration(tension: 1323, friction: 91)
/// let smooth = try SpringConfiguration(duration: 0.5, bounce: 0.2)   // SwiftUI's Spring(duration:bounce:)
/// ```
public struct SpringConfiguration: Hashable, Sendable, CustomStringConvertible {
    /// Stiffness k, in force per unit of displacement.
    public let tension: Double
    /// Damping c, in force per unit of velocity.
    public let friction: Double
    /// Mass m.
    public let mass: Double

    /// The largest tension, friction or mass a configuration accepts.
    public static let parameterLimit = 1e6
    /// The smallest mass a configuration accepts.
    public static let minimumMass = 1e-6
    /// The smallest tension / mass (ω₀², in rad²/s²) a configuration accepts: 10⁻⁴⁰, a period of
    /// 6·10²⁰ s.
    ///
    /// Far below it ω₀² underflows to 0 (10⁻³²⁴ / 10⁶): the closed form would see a free particle,
    /// and its rest prediction would snap a spring whose exact motion goes on. Well before that, a
    /// slow spring's swing v/ω₀ leaves float32: from a speed of 10¹⁵ (the float32 lanes' limit)
    /// the motion reaches 10¹⁵/ω₀, and at the limit that is 10³⁵, so every valid spring's lanes
    /// stay finite (a factor 3000 below Float's largest value, for rounding).
    public static let minimumStiffnessPerMass = 1e-40
    /// The largest damping ratio ζ = c / (2√(km)) a configuration accepts.
    ///
    /// Beyond it the over-damped motion's two rates, ω₀²/(σ + β) and σ + β, differ by more than
    /// Double can tell apart from 1 − (β/σ), so the time of its one extremum cannot be located and
    /// its rest would be predicted early. A ratio of 10⁶ is far past any designed spring (Compose's
    /// and SwiftUI's go to a few), and leaves β/σ a million ulps from 1.
    public static let maximumDampingRatio = 1e6

    /// The Material Motion default: tension 342, friction 30, mass 1.
    public static let `default` = SpringConfiguration(unchecked: 342, 30, 1)

    /// The parameter a ``SpringKernelError/invalidConfiguration(_:)`` is about.
    public enum Parameter: String, Hashable, Sendable {
        /// Tension must be finite and in (0, 10⁶].
        case tension
        /// Friction must be finite and in [0, 10⁶].
        case friction
        /// Mass must be finite and in [10⁻⁶, 10⁶].
        case mass
        /// Tension / mass (ω₀², the natural frequency squared) must be at least
        /// ``SpringConfiguration/minimumStiffnessPerMass``.
        case naturalFrequency
        /// A duration (SwiftUI's `duration` or `response`, Motion's `visualDuration`) must be finite
        /// and positive, and give a stiffness in [``SpringConfiguration/minimumStiffnessPerMass``,
        /// 10⁶] (the mass is 1).
        case duration
        /// A bounce must be finite; SwiftUI's and Flutter's must be in (−1, 1].
        case bounce
        /// A damping ratio must be finite and non-negative; any configuration's, c / (2√(km)), at
        /// most ``SpringConfiguration/maximumDampingRatio``.
        case dampingRatio
    }

    /// Makes a configuration, or throws ``SpringKernelError/invalidConfiguration(_:)``.
    ///
    /// The checks run in round-to-nearest whatever the caller's rounding mode, so a configuration
    /// is accepted or refused alike on every thread.
    public init(tension: Double = 342, friction: Double = 30, mass: Double = 1) throws(SpringKernelError) {
        let rounding = NearestRounding.enterUnlessCurrent()
        defer { NearestRounding.leave(ifEntered: rounding) }
        // The checks' arithmetic after the mode is set (see NearestRounding.fenced).
        let (tension, friction, mass) = rounding == nil ? (tension, friction, mass) : NearestRounding.fence((tension, friction, mass))
        guard tension.isFinite, tension > 0, tension <= Self.parameterLimit else {
            throw .invalidConfiguration(.tension)
        }
        guard friction.isFinite, friction >= 0, friction <= Self.parameterLimit else {
            throw .invalidConfiguration(.friction)
        }
        guard mass.isFinite, mass >= Self.minimumMass, mass <= Self.parameterLimit else {
            throw .invalidConfiguration(.mass)
        }
        // The same quotient as SpringMotion's ω₀², so the check holds for the closed form.
        guard tension / mass >= Self.minimumStiffnessPerMass else { throw .invalidConfiguration(.naturalFrequency) }
        // ζ = σ / ω₀, as SpringMotion's σ and ω₀ (no product that could underflow).
        guard friction / (2 * mass) <= Self.maximumDampingRatio * (tension / mass).squareRoot() else {
            throw .invalidConfiguration(.dampingRatio)
        }
        self.init(unchecked: tension, friction, mass)
    }

    private init(unchecked tension: Double, _ friction: Double, _ mass: Double) {
        self.tension = tension
        self.friction = friction
        self.mass = mass
    }

    /// ζ = c / (2 √(k m)): below 1 the spring overshoots, at 1 it is critically damped.
    public var dampingRatio: Double { friction / (2 * (tension * mass).squareRoot()) }

    /// ω₀ = √(k / m), in radians per second.
    public var naturalFrequency: Double { (tension / mass).squareRoot() }

    public var description: String { "SpringConfiguration(tension: \(tension), friction: \(friction), mass: \(mass))" }
}
