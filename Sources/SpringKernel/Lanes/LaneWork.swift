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
    /// Bundles holding moving springs (32 bits, so that the work fits a 64-byte line with its
    /// watch pointer).
    @usableFromInline let bundles: Int32
    /// Lanes of the last bundle that hold moving springs.
    @usableFromInline let finalBundleLanes: UInt16
    /// The batch's watch (its springs' targets move: see ``StepWatch``), nil when none of its
    /// springs is watched: the step then finds the watched springs within their band as it goes.
    @usableFromInline let watch: UnsafeMutablePointer<StepWatch>?
    /// The step's parameters: a11, a12, a21, a22 as 32-bit lane patterns, then any the lane format
    /// adds (see ``SpringLaneArithmetic/coefficients(of:)``).
    @usableFromInline let coefficients: SIMD8<UInt32>

    /// Describes one batch's work for a frame.
    @inlinable
    init(
        displacements: UnsafeMutableRawPointer, velocities: UnsafeMutableRawPointer,
        bundleCount: Int, finalBundleLanes: UInt16, coefficients: SIMD8<UInt32>,
        watch: UnsafeMutablePointer<StepWatch>? = nil
    ) {
        self.displacements = displacements
        self.velocities = velocities
        self.bundles = Int32(truncatingIfNeeded: bundleCount)
        self.finalBundleLanes = finalBundleLanes
        self.coefficients = coefficients
        self.watch = watch
    }

    /// Bundles holding moving springs.
    @inlinable var bundleCount: Int { Int(bundles) }

    /// The lanes of bundle `bundle` whose results are stored: every lane but the last bundle's
    /// unused ones.
    @inlinable @inline(__always)
    func storedLanes(bundle: Int) -> UInt16 {
        bundle == bundleCount - 1 ? finalBundleLanes : UInt16.max
    }
}

/// What the step needs of a batch whose springs are watched (their targets move every frame: see
/// `SpringBankCore+Watch.swift`): the batch's marks and band, and where to put the springs found
/// within it. Owned by its batch (one allocation, refreshed when its marks move or its band widens).
///
/// Public only so that the inlined step can reach it; its contents are the kernel's own.
@frozen
public struct StepWatch {
    /// The springs watched by this step, and those watched once more (bit l of word b: slot 16b + l).
    @usableFromInline var watched: UnsafeMutablePointer<UInt16>
    @usableFromInline var aged: UnsafeMutablePointer<UInt16>
    /// The springs retargeted since the last step, which a step that retargets
    /// (``SpringLaneArithmetic/advance(_:retargeting:toward:bundles:path:)``) moves into
    /// `watched` with those whose goals move, as the watch's preparation does before any other step.
    @usableFromInline var retargeted: UnsafeMutablePointer<UInt16>
    /// Written by the step: the watched springs whose displacement after it lies within `band`.
    @usableFromInline var candidates: UnsafeMutablePointer<UInt16>
    /// The batch's band as a lane magnitude (see `SpringBankCore.watchBand(_:)`).
    @usableFromInline var band: UInt32
    /// 1 for integer lanes (compared as Int32 magnitudes), 0 for float lanes.
    @usableFromInline var integerLanes: Int32

    /// Moves bundle `b`'s marks on as a step that retargets does (what `sk_advance_retargeting_f32`
    /// does for whole bundles): watched are the springs retargeted since the last step and those
    /// whose goals differ (`moved`), aged the others the last step watched, none retargeted; the
    /// candidates are the lanes of `within` (left within the band) among watched and aged.
    @inlinable @inline(__always)
    func moveMarksOn(bundle b: Int, moved: UInt16, within: UInt16) {
        let now = retargeted[b] | moved, watchedLast = watched[b]
        watched[b] = now
        aged[b] = watchedLast & ~now
        retargeted[b] = 0
        candidates[b] = within & (now | watchedLast)
    }

    /// Bundles stepped before the step looks for candidates among them: 64 bundles' two lane
    /// arrays (8 KB) are still in the first-level cache, so the look costs no second trip to memory.
    @usableFromInline static var blockBundles: Int { 64 }

    init(
        watched: UnsafeMutablePointer<UInt16>, aged: UnsafeMutablePointer<UInt16>, retargeted: UnsafeMutablePointer<UInt16>,
        candidates: UnsafeMutablePointer<UInt16>, band: UInt32, integerLanes: Int32
    ) {
        self.watched = watched
        self.aged = aged
        self.retargeted = retargeted
        self.candidates = candidates
        self.band = band
        self.integerLanes = integerLanes
    }
}

/// Which loop advances the lanes: both give bit-identical results.
public enum StepPath: String, Hashable, Sendable, CaseIterable {
    /// Explicit SIMD over whole bundles.
    case simd
    /// One lane at a time, the same arithmetic in the same order.
    case scalar
}
