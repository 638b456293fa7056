/// How a batch's stored displacement and velocity lanes relate to the format's patterns at the
/// API: stored = pattern × 2^shift, exactly when the shift is non-negative, rounded to nearest
/// when it is negative.
///
/// Float lanes store the API patterns themselves (both shifts zero). Fixed-point lanes store each
/// spring in a resolution that follows its tolerance and its configuration (see ``Q16Lanes``), so
/// springs of one configuration but tolerances of different size live in different batches.
@_spi(KernelInternals)
public struct LaneScale: Hashable, Sendable, BitwiseCopyable {
    /// Stored displacement = API displacement × 2^displacementShift.
    public let displacementShift: Int
    /// Stored velocity = API velocity × 2^velocityShift.
    public let velocityShift: Int

    /// Stores the API patterns as they are.
    public static let identity = LaneScale(displacementShift: 0, velocityShift: 0)

    /// A scale with these shifts.
    public init(displacementShift: Int, velocityShift: Int) {
        self.displacementShift = displacementShift
        self.velocityShift = velocityShift
    }

    /// The real displacement one unit of a stored displacement lane's API reading stands for.
    var displacementFactor: Double { Double(sign: .plus, exponent: -displacementShift, significand: 1) }
    /// The real velocity one unit of a stored velocity lane's API reading stands for.
    var velocityFactor: Double { Double(sign: .plus, exponent: -velocityShift, significand: 1) }
}
