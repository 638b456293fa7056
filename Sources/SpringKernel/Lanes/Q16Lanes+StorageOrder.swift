import _SpringKernelShims

/// The Q16.16 format's reads in storage order (``SpringBank/values(in:into:)``): lanes stored finer
/// than the API's resolution (a ``LaneScale`` shift s > 0) rounded back to Q16.16, and a value's
/// target added, with no call per spring.
///
/// The loops are C (`sk_stream_values_q16`, `sk_stream_lanes_q16` in the shims), compiled for
/// AVX-512, AVX2 and the baseline and chosen at load: the library itself is built for the
/// baseline, where a stream falls well short of memory's speed. The rounding is
/// ``Q16Lanes/rescaled(_:by:as:)``'s for a negative shift (to nearest, ties up: ⌊(x + 2^(s−1)) / 2^s⌋,
/// there `(x >> s) + ((x >> (s − 1)) & 1)`, which cannot overflow), and the sum is
/// ``Q16Lanes/valuePattern(displacement:target:)``'s (saturated to `Int32`); both are the
/// one-spring reads' own, which the storage-order tests compare bit for bit, edges included.
extension Q16Lanes {
    /// Shifts the streams take; any other (a coarser velocity lane, s < 0) goes spring by spring.
    static func streamsShift(_ shift: Int) -> Bool { shift >= 1 && shift <= 31 }

    /// out[i] = target[i] + (displacement[i] at the API's resolution), saturated, for lanes stored
    /// finer than the API's (shift 1...31); none otherwise (the bank reads those one by one).
    @_spi(KernelInternals)
    public static func streamValues(
        displacements: UnsafeRawPointer, targets: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer
    ) -> Int {
        guard streamsShift(shift) else { return 0 }
        sk_stream_values_q16(
            displacements.assumingMemoryBound(to: Int32.self), targets.assumingMemoryBound(to: Int32.self), Int32(shift),
            out.assumingMemoryBound(to: Int32.self), count)
        return count
    }

    /// out[i] = lane i at the API's resolution: a copy at shift 0 (the lanes are ``Q16``'s raw
    /// bits), the stream at shifts 1...31, none otherwise.
    @_spi(KernelInternals)
    public static func streamLanes(_ lanes: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer) -> Int {
        if shift == 0 {
            out.copyMemory(from: lanes, byteCount: count * MemoryLayout<Int32>.size)
            return count
        }
        guard streamsShift(shift) else { return 0 }
        sk_stream_lanes_q16(lanes.assumingMemoryBound(to: Int32.self), Int32(shift), out.assumingMemoryBound(to: Int32.self), count)
        return count
    }

    // MARK: State writes

    /// Whether a batch at `scale` has its storage-order writes streamed (``streamState(values:velocities:targets:displacements:velocityLanes:scale:naturalFrequency:count:)``,
    /// ``streamRetarget(goals:targets:displacements:velocities:newTargets:newDisplacements:changed:scale:naturalFrequency:count:)``): the shifts the streams
    /// take. Every scale ``laneScale(tolerance:naturalFrequency:)`` makes has a displacement shift
    /// of 0...14; a velocity shift past 30 (ω below 2⁻¹⁶) goes spring by spring.
    @_spi(KernelInternals)
    public static func streamsWrites(at scale: LaneScale) -> Bool {
        (0...30).contains(scale.displacementShift) && (-30...30).contains(scale.velocityShift)
    }

    /// Bounds within which a state write is accepted without the exact check: with |value| and
    /// |target| at most 2³⁰ and |value − target| and |velocity| at most these, the stored lanes
    /// fit `Int32` (a negative velocity shift's round trip too), and the motion's energy norm
    /// (the displacement lane and the velocity lane over ω, each within 2²⁹ steps) stays within
    /// 2^29.5, so ``holdsMotion(displacement:velocity:target:scale:naturalFrequency:)`` holds (it
    /// needs 2³⁰, and |target| + reach ≤ 2³⁰ + 2^29.5 within `Int32`). A state beyond them is not
    /// refused: the exact check, one spring at a time, decides.
    static func conservativeStateLimits(scale: LaneScale, naturalFrequency omega: Double) -> (displacement: Int32, velocity: Int32) {
        let ds = scale.displacementShift, vs = scale.velocityShift
        let displacement = Int32((1 << 29) >> ds)
        guard omega.isFinite, omega > 0 else { return (displacement, 0) }
        // |w| = |velocity lane| · 2^(ds − vs) / ω ≤ 2²⁹, the lane rounded up by one step when vs < 0.
        let byEnergy = 0x1p29 * omega / Double(sign: .plus, exponent: ds, significand: 1)
            - (vs < 0 ? Double(sign: .plus, exponent: -vs, significand: 1) : 0) - 1
        // The lane itself: << vs within 2²⁹, or for vs < 0 its round trip (at most |v| + 2^(−vs−1)) within Int32.
        let byLane = vs >= 0 ? Double((1 << 29) >> vs) : 0x1p29
        let velocity = Swift.max(0, Swift.min(byEnergy, byLane)).rounded(.down)
        return (displacement, Int32(velocity))
    }

    /// The Q16.16 state write streamed (`sk_stream_set_state_q16` in the shims): the first `count`
    /// displacement and velocity lanes for `values` and `velocities` about their targets, at
    /// `scale`, as ``SpringBank/setState(of:value:velocity:)`` stores one spring, every lane
    /// written. Returns whether every lane is within ``conservativeStateLimits(scale:naturalFrequency:)``
    /// (then the exact check accepts them all; if not, it decides, and the lanes are exact for every
    /// spring it accepts).
    @_spi(KernelInternals)
    public static func streamState(
        values: UnsafeRawPointer, velocities: UnsafeRawPointer, targets: UnsafeRawPointer, displacements: UnsafeMutableRawPointer,
        velocityLanes: UnsafeMutableRawPointer, scale: LaneScale, naturalFrequency: Double, count: Int
    ) -> Bool {
        let limits = conservativeStateLimits(scale: scale, naturalFrequency: naturalFrequency)
        return sk_stream_set_state_q16(
            values.assumingMemoryBound(to: Int32.self), velocities.assumingMemoryBound(to: Int32.self),
            targets.assumingMemoryBound(to: Int32.self), displacements.assumingMemoryBound(to: Int32.self),
            velocityLanes.assumingMemoryBound(to: Int32.self), Int32(scale.displacementShift), Int32(scale.velocityShift),
            limits.displacement, limits.velocity, count) != 0
    }

    // MARK: Retargets

    /// Bounds within which a retarget is accepted without the exact check: with |goal|, |target|
    /// and the displacement lane at most 2³⁰, |target − goal| at most `displacement` (so its
    /// stored shift fits), the new displacement lane within 2²⁹ and the velocity lane at most
    /// `velocity`, the lanes fit `Int32` (a negative velocity shift's round trip too) and the
    /// motion's energy norm stays within 2^29.5, so ``holdsMotion(displacement:velocity:target:scale:naturalFrequency:)``
    /// holds. A retarget beyond them is not refused: the exact check decides.
    static func conservativeRetargetLimits(scale: LaneScale, naturalFrequency omega: Double) -> (displacement: Int32, velocity: Int32) {
        let ds = scale.displacementShift, vs = scale.velocityShift
        let displacement = Int32((1 << 29) >> ds)
        guard omega.isFinite, omega > 0 else { return (displacement, 0) }
        // |w| = |velocity lane| · 2^(ds − vs) / ω ≤ 2²⁹.
        let byEnergy = 0x1p29 * omega / Double(sign: .plus, exponent: ds - vs, significand: 1) - 1
        // For vs < 0, the lane read back at the API's resolution (<< −vs) fits Int32.
        let byLane = vs >= 0 ? 0x1p30 : Double((1 << 30) >> -vs)
        return (displacement, Int32(Swift.max(0, Swift.min(byEnergy, byLane)).rounded(.down)))
    }

    /// ``conservativeRetargetLimits(scale:naturalFrequency:)`` where the streamed retarget takes
    /// the scale (``streamsWrites(at:)``); (0, 0), which accepts no retarget, elsewhere.
    @_spi(KernelInternals)
    public static func retargetLimits(scale: LaneScale, naturalFrequency: Double) -> (displacement: Int32, velocity: Int32) {
        streamsWrites(at: scale) ? conservativeRetargetLimits(scale: scale, naturalFrequency: naturalFrequency) : (0, 0)
    }

    /// One lane of the streamed retarget's check (`SK_Q16_RETARGET_BUNDLE` in the shims): |goal|,
    /// |target| and the displacement lane at most 2³⁰, |target − goal| within `limits.displacement`,
    /// the new displacement lane within 2²⁹ and the velocity lane within `limits.velocity`. In
    /// those bounds no sum wraps, so the lane is ``retargetedDisplacement(_:from:to:scale:)``'s,
    /// and the motion fits (``conservativeRetargetLimits(scale:naturalFrequency:)``).
    // Inlined: a retarget by handle asks this of every spring.
    @_spi(KernelInternals) @inline(__always)
    public static func quicklyRetargetedDisplacement(
        _ displacement: UInt32, velocity: UInt32, from oldTarget: UInt32, to newTarget: UInt32, displacementShift: Int,
        limits: (displacement: Int32, velocity: Int32)
    ) -> UInt32? {
        @inline(__always) func within(_ x: Int32, _ limit: Int32) -> Bool { x <= limit && x >= -limit }
        let goal = Int32(bitPattern: newTarget), target = Int32(bitPattern: oldTarget)
        let d = Int32(bitPattern: displacement), difference = target &- goal
        // A shift past 30 has limits (0, 0): the shifted difference is then never used.
        let moved = d &+ (difference &<< Int32(truncatingIfNeeded: displacementShift))
        guard within(goal, 1 << 30), within(target, 1 << 30), within(d, 1 << 30), within(difference, limits.displacement),
              within(moved, 1 << 29), within(Int32(bitPattern: velocity), limits.velocity)
        else { return nil }
        return UInt32(bitPattern: moved)
    }

    @_spi(KernelInternals)
    public static func scanTargets(goals: UnsafeRawPointer, stored targets: UnsafeRawPointer, count: Int) -> (anyChanged: Bool, allStorable: Bool)? {
        // Only whether any differs: a changed target's check needs the spring's velocity too.
        (sk_lanes_differ(goals, targets, count) != 0, false)
    }

    @_spi(KernelInternals)
    public static func streamRetarget(
        goals: UnsafeRawPointer, targets: UnsafeRawPointer, displacements: UnsafeRawPointer, velocities: UnsafeRawPointer,
        newTargets: UnsafeMutableRawPointer, newDisplacements: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<UInt16>,
        resting: (from: Int, band: UInt32), scale: LaneScale, naturalFrequency: Double, count: Int
    ) -> Bool {
        let limits = conservativeRetargetLimits(scale: scale, naturalFrequency: naturalFrequency)
        return sk_stream_retarget_q16(
            goals.assumingMemoryBound(to: Int32.self), targets.assumingMemoryBound(to: Int32.self),
            displacements.assumingMemoryBound(to: Int32.self), velocities.assumingMemoryBound(to: Int32.self),
            newTargets.assumingMemoryBound(to: Int32.self), newDisplacements.assumingMemoryBound(to: Int32.self), changed,
            Int32(scale.displacementShift), limits.displacement, limits.velocity, resting.from, resting.band, count) != 0
    }
}
