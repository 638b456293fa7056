/// Where a spring's lane sits: every lane buffer is cut into bundles of ``laneCount`` springs, one
/// SIMD register each (SIMD16 of 32-bit lanes: one zmm on AVX-512, two ymm on AVX2).
///
/// All lane and bundle arithmetic lives here, so no loop computes a bundle index or a trailing-lane
/// mask of its own.
@usableFromInline
enum BundleIndexing {
    /// Springs per bundle.
    @usableFromInline static let laneCount = 16
    /// Bytes per bundle of one 32-bit field: one cache line.
    @usableFromInline static let bundleBytes = 64

    /// The alignment of a lane buffer of `bytes` (whole bundles): 4096 from 4 KB up, else the
    /// power of two at or above `bytes`; on 32-bit ARM and RISC-V (microcontrollers) one bundle,
    /// 64 bytes.
    ///
    /// A step streams a batch's displacement and velocity lanes a bundle at a time, loading each
    /// bundle before storing it. A load whose address matches an unfinished store's in its low 12
    /// bits waits for it ("4K aliasing"). Two lane buffers that start 64 bytes apart modulo 4096,
    /// as two heap blocks allocated one after the other often do, make the load of one buffer's
    /// next bundle wait for the store of the other's last, and the step runs at the stores' pace:
    /// the same bank stepped several times slower in one process than in another. Aligned this
    /// way, two large buffers start at the same address modulo 4096, and two small ones a multiple
    /// of their own size apart, so no load in the loop's reach matches a pending store's low bits.
    ///
    /// A microcontroller (Cortex-M, 32-bit RISC-V) has no such penalty, no cache to speak of, and
    /// a few KB to hundreds of KB of RAM, where each 4096-aligned block wasted up to 4 KB of heap
    /// before it: there a lane buffer is aligned to its bundles only (what the shims' 64-byte
    /// vector stores assume).
    @usableFromInline
    static func bufferAlignment(bytes: Int) -> Int {
        #if arch(arm) || arch(riscv32)
        return bundleBytes
        #else
        let page = 4096
        if bytes >= page { return page }
        var alignment = bundleBytes
        while alignment < bytes { alignment *= 2 }
        return alignment
        #endif
    }

    /// The bundles needed to hold `springs` springs.
    @inlinable @inline(__always)
    static func bundleCount(springs: Int) -> Int { (springs + laneCount - 1) / laneCount }

    // A slot is never negative: the three below divide unsigned, a shift and a mask with no
    // sign fix-up and no trap (a bulk retarget marks a slot a spring).

    /// The bundle of slot `slot`.
    @inlinable @inline(__always)
    static func bundle(ofSlot slot: Int) -> Int { Int(bitPattern: UInt(bitPattern: slot) / UInt(laneCount)) }

    /// The lane of slot `slot` within its bundle.
    @inlinable @inline(__always)
    static func lane(ofSlot slot: Int) -> Int { Int(bitPattern: UInt(bitPattern: slot) % UInt(laneCount)) }

    /// The one-bit lane mask of slot `slot` within its bundle.
    @inlinable @inline(__always)
    static func laneBit(ofSlot slot: Int) -> UInt16 { 1 &<< UInt16(truncatingIfNeeded: lane(ofSlot: slot)) }

    /// The mask of the live lanes of bundle `bundle` when the first `springs` slots are live.
    @inlinable @inline(__always)
    static func liveLanes(bundle: Int, springs: Int) -> UInt16 {
        let live = springs - bundle * laneCount
        if live >= laneCount { return .max }
        return live <= 0 ? 0 : UInt16(truncatingIfNeeded: (1 << live) - 1)
    }
}

/// The lane layout and the float32 loop over plain lanes, for a benchmark that lays out lanes as
/// the kernel does and times its loop without a bank.
@_spi(KernelInternals)
public enum LaneLayout {
    /// Springs per bundle.
    public static var laneCount: Int { BundleIndexing.laneCount }
    /// Bytes per bundle of one 32-bit field.
    public static var bundleBytes: Int { BundleIndexing.bundleBytes }

    /// The alignment the bank gives a lane buffer of `bytes` (whole bundles), so that a loop
    /// outside a bank meets no 4K aliasing the bank's step does not (see the bank's lane buffers).
    public static func bufferAlignment(bytes: Int) -> Int { BundleIndexing.bufferAlignment(bytes: bytes) }

    /// The bundles needed to hold `springs` springs.
    public static func bundleCount(springs: Int) -> Int { BundleIndexing.bundleCount(springs: springs) }

    /// One step of the float32 SIMD loop over `springs` displacement and velocity lanes (aligned
    /// as ``bufferAlignment(bytes:)`` says, padded to whole bundles), with `coefficients` from
    /// ``SpringLaneArithmetic/coefficients(of:)``. Inlined into the caller, as the bank's step is.
    @inlinable @inline(__always)
    public static func advanceFloat32(
        displacements: UnsafeMutableRawPointer, velocities: UnsafeMutableRawPointer, springs: Int, coefficients: SIMD8<UInt32>
    ) {
        let bundles = BundleIndexing.bundleCount(springs: springs)
        let work = LaneWork(
            displacements: displacements, velocities: velocities, bundleCount: bundles,
            finalBundleLanes: BundleIndexing.liveLanes(bundle: bundles - 1, springs: springs), coefficients: coefficients)
        _ = Float32Lanes.advance(work, bundles: 0..<bundles)
    }
}
