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
/// denormals-are-zero need no pinning: no subnormal ever enters or leaves the step (see
/// ``Q16Lanes/smallestCoefficient``).
@usableFromInline
enum NearestRounding {
    /// Whether the thread's floating-point unit rounds to nearest even now, tested by arithmetic
    /// (what the step's instructions see, the SSE control register on x86, not the x87 one glibc's
    /// `fegetround` reads): 1 + 2⁻⁵⁴ rounds back to 1 unless rounding upward, and 1 − 2⁻⁵⁴ (a
    /// tie) unless rounding downward or toward zero. `one` must be 1 computed at run time (a frame
    /// passes dt / dt), so the compiler cannot fold the test away; anything else reads as "not
    /// nearest", which only costs the pinning.
    @inlinable @inline(__always)
    static func isCurrent(_ one: Double) -> Bool {
        one + 0x1p-54 == one - 0x1p-54 && one == 1
    }

    /// A thread's floating-point environment (mode, exception masks and flags) as ``enter()``
    /// found it.
    @usableFromInline
    struct SavedEnvironment {
        let environment: fenv_t
    }

    /// Masks floating-point exceptions, sets round-to-nearest and returns the environment it found.
    @usableFromInline @inline(never)
    static func enter() -> SavedEnvironment {
        var saved = fenv_t()
        feholdexcept(&saved)
        fesetround(FE_TONEAREST)
        return SavedEnvironment(environment: saved)
    }

    /// Restores an environment ``enter()`` returned: mode, masks and flags as they were.
    @usableFromInline @inline(never)
    static func leave(_ saved: SavedEnvironment) {
        var environment = saved.environment
        fesetenv(&environment)
    }
}
