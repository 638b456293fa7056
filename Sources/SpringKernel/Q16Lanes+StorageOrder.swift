/// The Q16.16 format's reads in storage order, sixteen lanes at a time (``SpringBank/values(in:into:)``):
/// lanes stored finer than the API's resolution (a ``LaneScale`` shift s > 0) rounded back to
/// Q16.16, and a value's target added, with no call per spring.
///
/// The rounding is ``Q16Lanes/rescaled(_:by:as:)``'s for a negative shift (to nearest, ties up:
/// ⌊(x + 2^(s−1)) / 2^s⌋, here `(x >> s) + ((x >> (s − 1)) & 1)`, which cannot overflow), and the
/// sum is ``Q16Lanes/valuePattern(displacement:target:)``'s (saturated to `Int32`); both are the
/// one-spring reads' own, which the storage-order tests compare bit for bit, edges included.
extension Q16Lanes {
    /// Shifts this path takes; any other (a coarser velocity lane, s ≤ 0) goes spring by spring.
    static func streamsShift(_ shift: Int) -> Bool { shift >= 1 && shift <= 31 }

    /// out[i] = target[i] + (displacement[i] at the API's resolution), saturated, for the whole
    /// bundles of `count` lanes; returns how many lanes it wrote (a multiple of 16).
    static func streamValues(
        displacements: UnsafeRawPointer, targets: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer
    ) -> Int {
        let bundles = count / BundleIndexing.laneCount
        for bundle in 0..<bundles {
            let offset = bundle * BundleIndexing.bundleBytes
            let d = apiLanes(displacements.load(fromByteOffset: offset, as: SIMD16<Int32>.self), shift: shift)
            let t = targets.load(fromByteOffset: offset, as: SIMD16<Int32>.self)
            let sum = t &+ d
            // Overflow when both operands' signs differ from the sum's: the bound of t's sign then.
            let overflow = ((t ^ sum) & (d ^ sum)) .< SIMD16<Int32>(repeating: 0)
            let limit = SIMD16<Int32>(repeating: .max) ^ (t &>> 31)
            out.storeBytes(of: sum.replacing(with: limit, where: overflow), toByteOffset: offset, as: SIMD16<Int32>.self)
        }
        return bundles * BundleIndexing.laneCount
    }

    /// out[i] = lane i at the API's resolution, for the whole bundles of `count` lanes; returns
    /// how many lanes it wrote.
    static func streamLanes(_ lanes: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer) -> Int {
        let bundles = count / BundleIndexing.laneCount
        for bundle in 0..<bundles {
            let offset = bundle * BundleIndexing.bundleBytes
            out.storeBytes(of: apiLanes(lanes.load(fromByteOffset: offset, as: SIMD16<Int32>.self), shift: shift),
                           toByteOffset: offset, as: SIMD16<Int32>.self)
        }
        return bundles * BundleIndexing.laneCount
    }

    /// Lanes stored 2^shift finer, rounded to nearest (ties up) at the API's resolution.
    @inline(__always)
    private static func apiLanes(_ stored: SIMD16<Int32>, shift: Int) -> SIMD16<Int32> {
        let s = SIMD16<Int32>(repeating: Int32(shift))
        return (stored &>> s) &+ ((stored &>> (s &- 1)) & 1)
    }
}
