#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Round-to-nearest-even for the frames that need it: the Q16.16 step computes its increments in
/// binary32, and an IEEE operation gives the same bits on every machine only in the same rounding
/// mode. A thread that set another mode (`fesetround`, `_MM_SET_ROUNDING_MODE`) gets the nearest
/// mode for the frame and its own environment back afterwards. Flush-to-zero and
/// denormals-are-zero are turned off for the frame too: no subnormal enters or leaves the lanes
/// (see ``Q16Lanes/smallestCoefficient``), but the Double arithmetic around them can meet one (a
/// friction of 3e-307 at a mass of 10⁶ makes σ subnormal, and with DAZ the rest prediction saw an
/// undamped spring; found by the bank fuzz target).
@usableFromInline
enum NearestRounding {
    /// Whether the thread's floating-point unit rounds to nearest even now, tested by arithmetic
    /// (what the step's instructions see, the SSE control register on x86, not the x87 one glibc's
    /// `fegetround` reads): 1 + 2⁻⁵⁴ rounds back to 1 unless rounding upward, and 1 − 2⁻⁵⁴ (a
    /// tie) unless rounding downward or toward zero; 2⁻¹⁰²³ is kept unless flushing to zero, and
    /// 2⁻¹⁰⁷⁴ read unless denormals are zero. `one` must be a 1 the compiler cannot see
    /// (``NearestRounding/one``, read from memory), or it folds the test away; NaN reads as "not
    /// nearest", which only costs the pinning.
    @inlinable @inline(__always)
    static func isCurrent(_ one: Double) -> Bool {
        // The last two: a subnormal result is not flushed (FTZ), a subnormal operand not read as 0
        // (DAZ). No `one == 1` among them: an optimizer that knows `one` is 1 folds the others
        // in the default environment (to true), and the test with them (an optimized build of
        // the step never pinned the mode).
        one + 0x1p-54 == one - 0x1p-54 && 0x1p-1022 * one * 0.5 != 0 && 0x1p-1074 * one != 0
    }

    /// A thread's floating-point environment (mode, exception masks and flags) as ``enter()``
    /// found it.
    @usableFromInline
    struct SavedEnvironment {
        let environment: fenv_t
    }

    /// Masks floating-point exceptions, sets round-to-nearest (flush-to-zero and
    /// denormals-are-zero off) and returns the environment it found.
    @usableFromInline @inline(never)
    static func enter() -> SavedEnvironment {
        var saved = fenv_t()
        feholdexcept(&saved)
        fesetround(FE_TONEAREST)
        #if arch(x86_64)
        // Flush-to-zero (bit 15) and denormals-are-zero (bit 6) off: MXCSR alone has them.
        var nearest = fenv_t()
        fegetenv(&nearest)
        if nearest.__mxcsr & 0x8040 != 0 {
            nearest.__mxcsr &= ~0x8040
            fesetenv(&nearest)
        }
        #endif
        return SavedEnvironment(environment: saved)
    }

    /// Restores an environment ``enter()`` returned: mode, masks and flags as they were.
    @usableFromInline @inline(never)
    static func leave(_ saved: SavedEnvironment) {
        var environment = saved.environment
        fesetenv(&environment)
    }
}
