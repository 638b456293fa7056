import SpringKernel

/// A read-only view of a runtime's spring kernel (``MotionRuntime/kernel``): its clock, its
/// counts, its rest events and each spring's state, for inspection, tests and profilers.
///
/// It offers no call that changes the kernel: only the runtime adds, retargets, pauses and
/// removes its streams' springs, so what it derives from the kernel (which streams move, which
/// rest, which are held, and which stream each spring belongs to) cannot be broken from outside.
///
/// <!-- fragment: layer-springs -->
/// ```swift
/// let handles = runtime.springHandles
/// print(runtime.kernel.frame, try runtime.kernel.value(of: handles[0]))
/// ```
public struct SpringBankReader {
    /// The runtime's queue of retargets, and through it the kernel: every read flushes it first,
    /// so the kernel read is as every retarget written so far left it.
    private let queue: RetargetQueue

    init(_ queue: RetargetQueue) {
        self.queue = queue
    }

    private var bank: SpringBank<Float32Lanes> {
        queue.flush()
        return queue.bank
    }

    /// Frames stepped so far.
    public var frame: Int { bank.frame }
    /// Seconds stepped so far: the sum of every step's duration.
    public var time: Double { bank.time }
    /// Springs in the kernel: one per component of every connected spring stream.
    public var count: Int { bank.count }
    /// Springs not at rest: moving, or held by a pause in mid-motion.
    ///
    /// - Complexity: O(*c*), *c* the configurations in use.
    public var awakeCount: Int { bank.awakeCount }
    /// The springs the last step brought to rest, in the kernel's order.
    public var restedInLastStep: [SpringHandle] { bank.restedInLastStep }
    /// Moved on whenever a spring changes slot or region (it rests, starts to move, is paused,
    /// resumed, added, removed or configured).
    public var layoutVersion: UInt64 { bank.layoutVersion }

    /// Whether the kernel holds `spring`.
    public func contains(_ spring: SpringHandle) -> Bool { bank.contains(spring) }

    /// The spring's value, velocity, target, rest and pause, or nil for a handle the kernel does
    /// not hold.
    public func state(of spring: SpringHandle) -> SpringState<Float>? { bank.state(of: spring) }

    // Each read below throws `SpringKernelError.staleHandle` for a handle the kernel does not
    // hold (its stream was cancelled), as the kernel's own reads do.

    /// The spring's value.
    public func value(of spring: SpringHandle) throws(SpringKernelError) -> Float { try bank.value(of: spring) }

    /// The spring's velocity, in value units per second.
    public func velocity(of spring: SpringHandle) throws(SpringKernelError) -> Float { try bank.velocity(of: spring) }

    /// The value the spring pulls toward.
    public func target(of spring: SpringHandle) throws(SpringKernelError) -> Float { try bank.target(of: spring) }

    /// The spring's configuration.
    public func configuration(of spring: SpringHandle) throws(SpringKernelError) -> SpringConfiguration {
        try bank.configuration(of: spring)
    }

    /// The spring's rest tolerance.
    public func tolerance(of spring: SpringHandle) throws(SpringKernelError) -> Double { try bank.tolerance(of: spring) }

    /// Whether the spring is at rest: exactly on its target, not moving, not scheduled.
    public func isAtRest(_ spring: SpringHandle) throws(SpringKernelError) -> Bool { try bank.isAtRest(spring) }

    /// Whether at least one pause mask holds the spring.
    public func isPaused(_ spring: SpringHandle) throws(SpringKernelError) -> Bool { try bank.isPaused(spring) }

    /// How many pause masks hold the spring.
    public func pauseDepth(of spring: SpringHandle) throws(SpringKernelError) -> Int { try bank.pauseDepth(of: spring) }

    /// Seconds from now after which the spring's exact motion never leaves its tolerance band
    /// again (0: it already never does; `.infinity`: it never settles), as
    /// `SpringBank.restTime(of:)` answers it; a paused spring is answered as if resumed now.
    public func restTime(of spring: SpringHandle) throws(SpringKernelError) -> Double { try bank.restTime(of: spring) }
}

extension MotionRuntime {
    /// The runtime's spring kernel, read-only: every spring of every connected spring stream.
    public var kernel: SpringBankReader { SpringBankReader(retargets) }
}
