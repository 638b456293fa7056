/// One configuration's moving springs for one frame: the unit the hot loop advances.
///
/// A spring's state is its displacement from its target and its velocity; the step is the 2x2
/// propagator on that pair and never reads the target, so one spring-step moves 16 bytes (read
/// and write two lanes). Springs of one configuration share a batch of lane buffers, so the four
/// step coefficients are broadcast once per batch and the loop reads no per-spring coefficient.
/// Lanes outside
/// `finalBundleLanes` in the last bundle, and lanes set in a bundle's paused word, are computed
/// but never stored (Bepu's "discarded" lanes).
@frozen
public struct LaneWork {
    /// Displacements from the targets, `bundleCount` bundles of 64 bytes, 64-byte aligned.
    public let displacements: UnsafeMutableRawPointer
    /// Velocities, laid out like `displacements`.
    public let velocities: UnsafeMutableRawPointer
    /// One word per bundle: bit l set when lane l is paused.
    public let pausedLanes: UnsafePointer<UInt16>
    /// Bundles holding moving springs.
    public let bundleCount: Int
    /// Lanes of the last bundle that hold moving springs.
    public let finalBundleLanes: UInt16
    /// Whether any lane of this batch is paused (if not, the paused words need not be read).
    public let hasPausedLanes: Bool
    /// The step's parameters: a11, a12, a21, a22 as 32-bit lane patterns, then any the lane format
    /// adds (see ``SpringLaneArithmetic/coefficients(of:)``).
    public let coefficients: SIMD8<UInt32>

    /// Describes one batch's work for a frame.
    @inlinable
    public init(
        displacements: UnsafeMutableRawPointer, velocities: UnsafeMutableRawPointer,
        pausedLanes: UnsafePointer<UInt16>, bundleCount: Int, finalBundleLanes: UInt16, hasPausedLanes: Bool,
        coefficients: SIMD8<UInt32>
    ) {
        self.displacements = displacements
        self.velocities = velocities
        self.pausedLanes = pausedLanes
        self.bundleCount = bundleCount
        self.finalBundleLanes = finalBundleLanes
        self.hasPausedLanes = hasPausedLanes
        self.coefficients = coefficients
    }

    /// The lanes of bundle `bundle` whose results are stored: live and not paused.
    @inlinable @inline(__always)
    public func storedLanes(bundle: Int) -> UInt16 {
        let live = bundle == bundleCount - 1 ? finalBundleLanes : UInt16.max
        return hasPausedLanes ? live & ~pausedLanes[bundle] : live
    }
}

/// Which loop advances the lanes: both give bit-identical results.
public enum StepPath: String, Hashable, Sendable, CaseIterable {
    /// Explicit SIMD over whole bundles.
    case simd
    /// One lane at a time, the same arithmetic in the same order.
    case scalar
}
