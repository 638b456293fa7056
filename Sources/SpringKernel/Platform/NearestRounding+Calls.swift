/// Round-to-nearest for the calls outside the step whose arithmetic reaches a Q16.16 bank's bits
/// or decides what it accepts: a configuration's checks, a spring's lane scale (from ω and its
/// tolerance) and admission, the lower bounds and rests predicted when a spring changes. Like the
/// step, each pins the nearest mode when the caller's thread is in another (and restores the
/// caller's environment after), so the same calls give the same bits and the same refusals in
/// every rounding mode, with flush-to-zero and denormals-are-zero or without.
extension NearestRounding {
    /// Enters round-to-nearest unless the thread is in it already: nil then.
    @inline(__always)
    static func enterUnlessCurrent() -> SavedEnvironment? {
        isCurrent ? nil : enter()
    }

    /// `configuration`, through a call the optimizer cannot see into, when `entered` (a pinned
    /// environment): the compiler assumes one floating-point environment and may compute
    /// arithmetic on an argument (ω, σ of a configuration passed by value) ahead of the call that
    /// sets the mode, in the caller's mode after all (the bank fuzz target found one, in an
    /// optimized build). Arithmetic on the result cannot move before ``enter()``.
    @inline(__always)
    static func fenced(_ configuration: SpringConfiguration, after entered: SavedEnvironment?) -> SpringConfiguration {
        entered == nil ? configuration : fence(configuration)
    }

    @usableFromInline @inline(never) @_optimize(none)
    static func fence(_ configuration: SpringConfiguration) -> SpringConfiguration { configuration }

    /// `values`, through a call the optimizer cannot see into (see ``fenced(_:after:)``): for
    /// arithmetic on arguments after ``enter()``, and on results before ``leave(_:)``.
    @usableFromInline @inline(never) @_optimize(none)
    static func fence(_ values: (Double, Double, Double)) -> (Double, Double, Double) { values }

    /// Leaves what ``enterUnlessCurrent()`` entered, if anything.
    @inline(__always)
    static func leave(ifEntered saved: SavedEnvironment?) {
        if let saved { leave(saved) }
    }
}

extension SpringBank {
    /// Round-to-nearest for a call on a bank of scaled (Q16.16) lanes, whose bits must not depend
    /// on the caller's mode; float32 banks follow the caller's mode, as their step does. Pair with
    /// `defer { NearestRounding.leave(ifEntered: saved) }`.
    @inline(__always)
    func enterNearestRounding() -> NearestRounding.SavedEnvironment? {
        Lanes.hasScaledLanes ? NearestRounding.enterUnlessCurrent() : nil
    }
}
