/// One configuration's moving springs for one frame: the unit the hot loop advances.
///
/// A spring's state is its displacement from its target and its velocity; the step is the 2x2
/// propagator on that pair and never reads the target, so one spring-step moves 16 bytes (read
/// and write two lanes). Springs of one configuration share a batch of lane buffers, so the four
/// step coefficients are broadcast once per batch and the loop reads no per-spring coefficient.
/// Every lane of the bundles is a moving spring (paused and resting springs
/// live past them in their batch) except those outside `finalBundleLanes` in the last bundle,
/// which are computed but never stored (Bepu's "discarded" lanes).
///
/// Public only so that a lane format's step (``SpringLaneArithmetic/advance(_:bundles:path:checksBound:)``)
/// can take it; its contents are the kernel's own.
@frozen
public struct LaneWork {
    /// Displacements from the targets, `bundleCount` bundles of 64 bytes, 64-byte aligned.
    @usableFromInline let displacements: UnsafeMutableRawPointer
    /// Velocities, laid out like `displacements`.
    @usableFromInline let velocities: UnsafeMutableRawPointer
    /// Bundles holding moving springs.
    @usableFromInline let bundleCount: Int
    /// Lanes of the last bundle that hold moving springs.
    @usableFromInline let finalBundleLanes: UInt16
    /// The step's parameters: a11, a12, a21, a22 as 32-bit lane patterns, then any the lane format
    /// adds (see ``SpringLaneArithmetic/coefficients(of:)``).
    @usableFromInline let coefficients: SIMD8<UInt32>

    /// Describes one batch's work for a frame.
    @inlinable
    init(
        displacements: UnsafeMutableRawPointer, velocities: UnsafeMutableRawPointer,
        bundleCount: Int, finalBundleLanes: UInt16, coefficients: SIMD8<UInt32>
    ) {
        self.displacements = displacements
        self.velocities = velocities
        self.bundleCount = bundleCount
        self.finalBundleLanes = finalBundleLanes
        self.coefficients = coefficients
    }

    /// The lanes of bundle `bundle` whose results are stored: every lane but the last bundle's
    /// unused ones.
    @inlinable @inline(__always)
    func storedLanes(bundle: Int) -> UInt16 {
        bundle == bundleCount - 1 ? finalBundleLanes : UInt16.max
    }
}

/// Which loop advances the lanes: both give bit-identical results.
public enum StepPath: String, Hashable, Sendable, CaseIterable {
    /// Explicit SIMD over whole bundles.
    case simd
    /// One lane at a time, the same arithmetic in the same order.
    case scalar
}
