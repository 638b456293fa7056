/// Where a spring's lane sits: every lane buffer is cut into bundles of ``laneCount`` springs, one
/// SIMD register each (SIMD16 of 32-bit lanes: one zmm on AVX-512, two ymm on AVX2).
///
/// All lane and bundle arithmetic lives here, so no loop computes a bundle index or a trailing-lane
/// mask of its own.
public enum BundleIndexing {
    /// Springs per bundle.
    public static let laneCount = 16
    /// Bytes per bundle of one 32-bit field: one cache line.
    public static let bundleBytes = 64

    /// The bundles needed to hold `springs` springs.
    @inlinable @inline(__always)
    public static func bundleCount(springs: Int) -> Int { (springs + laneCount - 1) / laneCount }

    /// The bundle of slot `slot`.
    @inlinable @inline(__always)
    public static func bundle(ofSlot slot: Int) -> Int { slot / laneCount }

    /// The lane of slot `slot` within its bundle.
    @inlinable @inline(__always)
    public static func lane(ofSlot slot: Int) -> Int { slot % laneCount }

    /// The one-bit lane mask of slot `slot` within its bundle.
    @inlinable @inline(__always)
    public static func laneBit(ofSlot slot: Int) -> UInt16 { 1 &<< UInt16(slot % laneCount) }

    /// The mask of the live lanes of bundle `bundle` when the first `springs` slots are live.
    @inlinable @inline(__always)
    public static func liveLanes(bundle: Int, springs: Int) -> UInt16 {
        let live = springs - bundle * laneCount
        if live >= laneCount { return .max }
        return live <= 0 ? 0 : UInt16(truncatingIfNeeded: (1 << live) - 1)
    }
}
