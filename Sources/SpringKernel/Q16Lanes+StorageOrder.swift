import _SpringKernelShims

/// The Q16.16 format's reads in storage order (``SpringBank/values(in:into:)``): lanes stored finer
/// than the API's resolution (a ``LaneScale`` shift s > 0) rounded back to Q16.16, and a value's
/// target added, with no call per spring.
///
/// The loops are C (`sk_stream_values_q16`, `sk_stream_lanes_q16` in the shims), compiled for
/// AVX-512, AVX2 and the baseline and chosen at load: the library itself is built for the
/// baseline, where a stream runs at a third of memory's speed. The rounding is
/// ``Q16Lanes/rescaled(_:by:as:)``'s for a negative shift (to nearest, ties up: ⌊(x + 2^(s−1)) / 2^s⌋,
/// there `(x >> s) + ((x >> (s − 1)) & 1)`, which cannot overflow), and the sum is
/// ``Q16Lanes/valuePattern(displacement:target:)``'s (saturated to `Int32`); both are the
/// one-spring reads' own, which the storage-order tests compare bit for bit, edges included.
extension Q16Lanes {
    /// Shifts this path takes; any other (a coarser velocity lane, s ≤ 0) goes spring by spring.
    static func streamsShift(_ shift: Int) -> Bool { shift >= 1 && shift <= 31 }

    /// out[i] = target[i] + (displacement[i] at the API's resolution), saturated, for `count`
    /// lanes; returns how many it wrote (all).
    static func streamValues(
        displacements: UnsafeRawPointer, targets: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer
    ) -> Int {
        sk_stream_values_q16(
            displacements.assumingMemoryBound(to: Int32.self), targets.assumingMemoryBound(to: Int32.self), Int32(shift),
            out.assumingMemoryBound(to: Int32.self), count)
        return count
    }

    /// out[i] = lane i at the API's resolution, for `count` lanes; returns how many it wrote (all).
    static func streamLanes(_ lanes: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer) -> Int {
        sk_stream_lanes_q16(lanes.assumingMemoryBound(to: Int32.self), Int32(shift), out.assumingMemoryBound(to: Int32.self), count)
        return count
    }
}
