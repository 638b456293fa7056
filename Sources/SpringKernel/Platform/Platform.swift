import _SpringKernelShims
#if !hasFeature(Embedded) && canImport(Dispatch)
import Dispatch
#endif

// Everything the kernel needs from the platform, in this folder: the rounding mode, the processor
// count and cache size, memory that may be refused, and worker threads. The C parts are in the
// shims (shims.c, built for the real platform); no other file of the kernel imports a C library or
// Dispatch, so the kernel builds as Embedded Swift, where a step runs on the caller's thread.

/// Round-to-nearest-even for the frames that need it: the Q16.16 step computes its increments in
/// binary32, and an IEEE operation gives the same bits on every machine only in the same rounding
/// mode. A thread that set another mode (`fesetround`, `_MM_SET_ROUNDING_MODE`) gets the nearest
/// mode for the frame and its own environment back afterwards. Flush-to-zero and
/// denormals-are-zero are turned off for the frame too: no subnormal enters or leaves the lanes
/// (see `Q16Lanes.smallestCoefficient`), but the Double arithmetic around them can meet one (a
/// friction of 3e-307 at a mass of 10⁶ makes σ subnormal, and with DAZ the rest prediction saw an
/// undamped spring; found by the bank fuzz target).
@usableFromInline
enum NearestRounding {
    /// Whether the thread's floating-point environment is round-to-nearest even with flush-to-zero
    /// and denormals-are-zero off: the control register the step's instructions use, read
    /// (`sk_float_environment_is_nearest`: x86's MXCSR, not the x87 word glibc's `fegetround`
    /// reads; aarch64's FPCR). A few cycles, and the optimizer cannot fold it. (An arithmetic
    /// probe of the same three things works on subnormals, which cost each Q16.16 call two
    /// microcode assists: a single retarget took about twice as long.)
    @inlinable @inline(__always)
    static var isCurrent: Bool { sk_float_environment_is_nearest() != 0 }

    /// A thread's floating-point environment (mode, exception masks and flags) as ``enter()``
    /// found it.
    @usableFromInline
    struct SavedEnvironment {
        var environment: sk_saved_fp_environment
    }

    /// Masks floating-point exceptions, sets round-to-nearest (flush-to-zero and
    /// denormals-are-zero off) and returns the environment it found.
    @usableFromInline @inline(never)
    static func enter() -> SavedEnvironment {
        var saved = SavedEnvironment(environment: sk_saved_fp_environment())
        sk_enter_nearest_rounding(&saved.environment)
        return saved
    }

    /// Restores an environment ``enter()`` returned: mode, masks and flags as they were.
    @usableFromInline @inline(never)
    static func leave(_ saved: SavedEnvironment) {
        var saved = saved
        sk_leave_nearest_rounding(&saved.environment)
    }
}

/// The processors, the cache and the threads a step may use.
@usableFromInline
enum Platform {
    /// The processors online (1 where the platform cannot say).
    static var processorCount: Int { Swift.max(1, sk_processor_count()) }

    /// The largest data cache of CPU 0 in bytes, or nil where the platform does not say (Linux's
    /// sysfs is read).
    static var lastLevelCacheBytes: Int? {
        let bytes = sk_last_level_cache_bytes()
        return bytes > 0 ? bytes : nil
    }

    /// `bytes` of memory aligned for any scalar (malloc's 16 bytes), or nil when the system
    /// cannot give them, where a Swift allocation stops the process. Released with ``free(_:)``.
    static func allocateIfAvailable(bytes: Int) -> UnsafeMutableRawPointer? { sk_allocate_if_available(bytes) }

    /// `bytes` at `alignment` (a power of two, at least a pointer's size), or nil when the system
    /// cannot give them; released with ``free(_:)``.
    static func allocateIfAvailable(bytes: Int, alignment: Int) -> UnsafeMutableRawPointer? {
        sk_allocate_aligned_if_available(bytes, alignment)
    }

    /// Room for `count` values of `T` (at least one), at `alignment` (nil: malloc's 16 bytes),
    /// or nil when its size overflows an `Int` or the system cannot give it; released with
    /// ``free(_:)``. The one rule every refusable allocation of the bank follows.
    static func allocateIfAvailable<T>(count: Int, of _: T.Type, alignment: Int? = nil) -> UnsafeMutablePointer<T>? {
        let count = Swift.max(count, 1)
        let (bytes, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<T>.stride)
        guard !overflow else { return nil }
        let raw = if let alignment { allocateIfAvailable(bytes: bytes, alignment: alignment) } else { allocateIfAvailable(bytes: bytes) }
        return raw?.bindMemory(to: T.self, capacity: count)
    }

    /// Releases memory ``allocateIfAvailable(bytes:)`` gave.
    static func free(_ pointer: UnsafeMutableRawPointer) { sk_free(pointer) }

    /// Whether ``concurrentPerform(iterations:_:)`` runs its iterations on several threads (false
    /// in an Embedded build: there they run one after another on the caller's thread).
    static var hasWorkerThreads: Bool {
        #if !hasFeature(Embedded) && canImport(Dispatch)
        return true
        #else
        return false
        #endif
    }

    /// Runs `body(0)`, …, `body(iterations - 1)`, on the platform's worker threads where it has
    /// them (Dispatch), and returns once every one has.
    @usableFromInline
    static func concurrentPerform(iterations: Int, _ body: @Sendable (Int) -> Void) {
        #if !hasFeature(Embedded) && canImport(Dispatch)
        DispatchQueue.concurrentPerform(iterations: iterations, execute: body)
        #else
        for iteration in 0..<iterations { body(iteration) }
        #endif
    }
}
