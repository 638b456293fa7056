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
    var displacementFactor: Double { Self.powerOfTwo(-displacementShift) }
    /// The real velocity one unit of a stored velocity lane's API reading stands for.
    var velocityFactor: Double { Self.powerOfTwo(-velocityShift) }

    /// 2^`exponent`, exactly: built from its bits where it is a normal Double (every lane shift is),
    /// which costs a shift and an add where `Double(sign:exponent:significand:)` is a call per event.
    @inline(__always)
    static func powerOfTwo(_ exponent: Int) -> Double {
        guard exponent > -1023, exponent < 1024 else { return Double(sign: .plus, exponent: exponent, significand: 1) }
        return Double(bitPattern: UInt64(exponent + 1023) << 52)
    }
}
