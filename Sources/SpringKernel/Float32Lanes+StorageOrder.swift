/// The float32 format's sixteen-at-a-time parts of a retarget in storage order
/// (``SpringBank/retarget(in:to:)``): the check of the caller's targets, and which stored targets
/// they change. The arithmetic of a changed spring is the format's own, one spring at a time.
extension Float32Lanes {
    /// Whether any of `count` new targets differs, in its bits, from its stored target lane: one
    /// compare a bundle, so a write that moves nothing costs a read of the two arrays.
    static func anyTargetChanged(_ goals: UnsafePointer<Float>, stored targets: UnsafeRawPointer, count: Int) -> Bool {
        var differs = SIMD16<UInt32>(repeating: 0)
        let bundles = count / BundleIndexing.laneCount
        let raw = UnsafeRawPointer(goals)
        for bundle in 0..<bundles {
            let offset = bundle * BundleIndexing.bundleBytes
            differs |= raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt32>.self) ^ targets.load(fromByteOffset: offset, as: SIMD16<UInt32>.self)
        }
        if orOfLanes(differs) != 0 { return true }
        for i in bundles * BundleIndexing.laneCount..<count where values(goals[i], differFrom: targets, at: i) { return true }
        return false
    }

    /// Compares `count` new targets with the stored target lanes, sixteen at a time: whether any
    /// differs (in its bits), and whether every one that differs is one ``lanePattern(of:as:)``
    /// accepts (finite, magnitude at most ``valueLimit``; NaN fails both comparisons). A target
    /// equal to its stored lane was accepted when it was stored.
    static func scanTargets(_ goals: UnsafePointer<Float>, stored targets: UnsafeRawPointer, count: Int) -> (anyChanged: Bool, allStorable: Bool) {
        let limit = SIMD16<Float>(repeating: valueLimit)
        let one = SIMD16<UInt32>(repeating: 1)
        var changed = SIMD16<UInt32>(repeating: 0), refused = changed
        let bundles = count / BundleIndexing.laneCount
        let raw = UnsafeRawPointer(goals)
        for bundle in 0..<bundles {
            let offset = bundle * BundleIndexing.bundleBytes
            let goal = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<Float>.self)
            let same = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt32>.self) .== targets.load(fromByteOffset: offset, as: SIMD16<UInt32>.self)
            changed |= one.replacing(with: 0, where: same)
            refused |= one.replacing(with: 0, where: same .| ((goal .<= limit) .& (goal .>= -limit)))
        }
        var anyChanged = orOfLanes(changed) != 0, allStorable = orOfLanes(refused) == 0
        for i in bundles * BundleIndexing.laneCount..<count where values(goals[i], differFrom: targets, at: i) {
            anyChanged = true
            if !(abs(goals[i]) <= valueLimit) { allStorable = false }
        }
        return (anyChanged, allStorable)
    }

    @inline(__always)
    private static func values(_ goal: Float, differFrom targets: UnsafeRawPointer, at slot: Int) -> Bool {
        goal.bitPattern != targets.load(fromByteOffset: slot * 4, as: UInt32.self)
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
