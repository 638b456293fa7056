import _SpringKernelShims

/// The float32 format's streamed parts of the storage-order writes (``SpringBank/retarget(in:to:)``,
/// ``SpringBank/setState(in:values:velocities:)``): the checks of the caller's arrays and the lane
/// arithmetic, sixteen lanes at a time. They are C streams (shims.c) compiled for AVX-512, AVX2
/// and the baseline and chosen by the CPU, as the storage-order reads are: this module is built
/// for the baseline, and a write that changes a million springs should cost the bytes it moves.
/// The arithmetic is the format's own, lane for lane (the storage-order tests compare every write
/// with the one-spring write, bit for bit).
extension Float32Lanes {
    /// Compares `count` new targets with the stored target lanes: whether any differs (in its
    /// bits), and whether every one that differs is one ``lanePattern(of:as:)`` accepts (finite,
    /// magnitude at most ``valueLimit``). A target equal to its stored lane was accepted when it
    /// was stored.
    static func scanTargets(_ goals: UnsafePointer<Float>, stored targets: UnsafeRawPointer, count: Int) -> (anyChanged: Bool, allStorable: Bool) {
        let flags = sk_scan_targets_f32(goals, targets.assumingMemoryBound(to: Float.self), valueLimit, count)
        return (flags & 1 != 0, flags & 2 == 0)
    }

    /// Whether every one of `count` values and velocities is one ``lanePattern(of:as:)`` accepts.
    static func allStorable(_ values: UnsafePointer<Float>, _ velocities: UnsafePointer<Float>, count: Int) -> Bool {
        sk_first_unstorable_f32(values, valueLimit, count) == count && sk_first_unstorable_f32(velocities, valueLimit, count) == count
    }

    /// Pulls every lane whose target differs (in its bits) from `goals[i]` toward it, as
    /// ``retargetedDisplacement(_:from:to:scale:)`` does one lane, and sets bit l of `changed[b]`
    /// for each lane 16b + l it changed (one mask per bundle, the last for a partial one).
    static func retarget(
        goals: UnsafePointer<Float>, targets: LaneBuffer, displacements: LaneBuffer, changed: UnsafeMutablePointer<UInt16>, count: Int
    ) {
        sk_stream_retarget_f32(
            goals, targets.base.assumingMemoryBound(to: Float.self), displacements.base.assumingMemoryBound(to: Float.self),
            changed, count)
    }

    /// Writes the first `count` lanes for `values` and `velocities` about their targets: the
    /// displacement value − target and the velocity as it is, as ``displacementPattern(value:target:)``
    /// stores them; every lane is written. Returns whether every value and velocity is one
    /// ``lanePattern(of:as:)`` accepts (if not, the lanes are to be discarded).
    static func setState(
        values: UnsafePointer<Float>, velocities: UnsafePointer<Float>, targets: LaneBuffer, displacements: LaneBuffer,
        velocityLanes: LaneBuffer, count: Int
    ) -> Bool {
        sk_stream_set_state_f32(
            values, velocities, targets.base.assumingMemoryBound(to: Float.self), displacements.base.assumingMemoryBound(to: Float.self),
            velocityLanes.base.assumingMemoryBound(to: Float.self), valueLimit, count) != 0
    }
}
