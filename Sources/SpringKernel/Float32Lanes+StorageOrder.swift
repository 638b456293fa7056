/// The float32 format's sixteen-at-a-time parts of a retarget in storage order
/// (``SpringBank/retarget(in:to:)``): the check of the caller's targets, and which stored targets
/// they change. The arithmetic of a changed spring is the format's own, one spring at a time.
extension Float32Lanes {
    /// Whether every one of `count` values is one ``lanePattern(of:as:)`` accepts: finite, with
    /// magnitude at most ``valueLimit`` (NaN fails both comparisons).
    static func allStorable(_ values: UnsafePointer<Float>, count: Int) -> Bool {
        let limit = SIMD16<Float>(repeating: valueLimit)
        var refused = SIMD16<UInt32>(repeating: 0)
        let bundles = count / BundleIndexing.laneCount
        let raw = UnsafeRawPointer(values)
        for bundle in 0..<bundles {
            let v = raw.loadUnaligned(fromByteOffset: bundle * BundleIndexing.bundleBytes, as: SIMD16<Float>.self)
            refused |= SIMD16<UInt32>(repeating: 1).replacing(with: 0, where: (v .<= limit) .& (v .>= -limit))
        }
        guard orOfLanes(refused) == 0 else { return false }
        for i in bundles * BundleIndexing.laneCount..<count where !(abs(values[i]) <= valueLimit) { return false }
        return true
    }

    /// Bit i set where `goals[i]` differs, in its bits, from the stored target lane `targets[i]`,
    /// for the sixteen lanes of `bundle`.
    @inline(__always)
    static func changedLanes(goals: UnsafePointer<Float>, targets: UnsafeRawPointer, bundle: Int) -> UInt16 {
        let offset = bundle * BundleIndexing.bundleBytes
        let goal = UnsafeRawPointer(goals).loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt32>.self)
        let stored = targets.load(fromByteOffset: offset, as: SIMD16<UInt32>.self)
        let laneBits = SIMD16<UInt32>(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
        let bits = laneBits.replacing(with: 0, where: goal .== stored)
        return UInt16(truncatingIfNeeded: orOfLanes(bits))
    }

    /// The OR of the sixteen lanes, by halves: shuffles and ORs, no call (`any()` and `sum()`
    /// can be out-of-line calls).
    @inline(__always)
    static func orOfLanes(_ v: SIMD16<UInt32>) -> UInt32 {
        let half = v.lowHalf | v.highHalf
        let quarter = half.lowHalf | half.highHalf
        let eighth = quarter.lowHalf | quarter.highHalf
        return eighth[0] | eighth[1]
    }
}
