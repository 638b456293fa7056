import _SpringKernelShims

/// The float32 format's streamed parts of the storage-order writes (``SpringBank/retarget(in:to:)``,
/// ``SpringBank/setState(in:values:velocities:)``): the checks of the caller's arrays and the lane
/// arithmetic, sixteen lanes at a time. They are C streams (shims.c) compiled for AVX-512, AVX2
/// and the baseline and chosen by the CPU, as the storage-order reads are: this module is built
/// for the baseline, and a write that changes a million springs should cost the bytes it moves.
/// The arithmetic is the format's own, lane for lane (the storage-order tests compare every write
/// with the one-spring write, bit for bit).
extension Float32Lanes {
    @_spi(KernelInternals)
    public static func streamValues(
        displacements: UnsafeRawPointer, targets: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer
    ) -> Int {
        // One scale (shift 0): target + displacement, one add a spring.
        sk_stream_values_f32(
            displacements.assumingMemoryBound(to: Float.self), targets.assumingMemoryBound(to: Float.self),
            out.assumingMemoryBound(to: Float.self), count)
        return count
    }

    @_spi(KernelInternals)
    public static func streamLanes(_ lanes: UnsafeRawPointer, shift: Int, count: Int, into out: UnsafeMutableRawPointer) -> Int {
        // The lanes are the values' own bits: memcpy (a compiled copy loop ran at 0.74-0.79x of it in cache).
        out.copyMemory(from: lanes, byteCount: count * MemoryLayout<Float>.size)
        return count
    }

    @_spi(KernelInternals)
    public static func streamsWrites(at scale: LaneScale) -> Bool { true }

    @_spi(KernelInternals)
    public static func streamState(
        values: UnsafeRawPointer, velocities: UnsafeRawPointer, targets: UnsafeRawPointer, displacements: UnsafeMutableRawPointer,
        velocityLanes: UnsafeMutableRawPointer, scale: LaneScale, naturalFrequency: Double, count: Int
    ) -> Bool {
        setState(
            values: values.assumingMemoryBound(to: Float.self), velocities: velocities.assumingMemoryBound(to: Float.self),
            targets: targets, displacements: displacements, velocityLanes: velocityLanes, count: count)
    }

    @_spi(KernelInternals)
    public static func allStorable(values: UnsafeRawPointer, velocities: UnsafeRawPointer, count: Int) -> Bool? {
        allStorable(values.assumingMemoryBound(to: Float.self), velocities.assumingMemoryBound(to: Float.self), count: count)
    }

    @_spi(KernelInternals)
    public static func scanTargets(goals: UnsafeRawPointer, stored targets: UnsafeRawPointer, count: Int) -> (anyChanged: Bool, allStorable: Bool)? {
        scanTargets(goals.assumingMemoryBound(to: Float.self), stored: targets, count: count)
    }

    @_spi(KernelInternals)
    public static func acceptsAll(goals: UnsafeRawPointer, count: Int) -> Bool {
        sk_first_unstorable_f32(goals.assumingMemoryBound(to: Float.self), valueLimit, count) == count
    }

    @_spi(KernelInternals)
    public static func streamRetarget(
        goals: UnsafeRawPointer, targets: UnsafeMutableRawPointer, displacements: UnsafeMutableRawPointer,
        changed: UnsafeMutablePointer<UInt16>, resting: (from: Int, band: UInt32), count: Int
    ) -> Bool {
        sk_stream_retarget_f32(
            goals.assumingMemoryBound(to: Float.self), targets.assumingMemoryBound(to: Float.self),
            displacements.assumingMemoryBound(to: Float.self), changed, resting.from, resting.band, count)
        return true
    }

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

    /// Writes the first `count` lanes for `values` and `velocities` about their targets: the
    /// displacement value − target and the velocity as it is, as ``displacementPattern(value:target:)``
    /// stores them; every lane is written. Returns whether every value and velocity is one
    /// ``lanePattern(of:as:)`` accepts (if not, the lanes are to be discarded).
    static func setState(
        values: UnsafePointer<Float>, velocities: UnsafePointer<Float>, targets: UnsafeRawPointer, displacements: UnsafeMutableRawPointer,
        velocityLanes: UnsafeMutableRawPointer, count: Int
    ) -> Bool {
        sk_stream_set_state_f32(
            values, velocities, targets.assumingMemoryBound(to: Float.self), displacements.assumingMemoryBound(to: Float.self),
            velocityLanes.assumingMemoryBound(to: Float.self), valueLimit, count) != 0
    }
}
