@_spi(KernelInternals) import SpringKernel

/// The lane format of a bank kernel. A second format is one case here and one line in
/// ``BankWorkload/make(_:format:)``.
enum BankFormat: String, Codable {
    case float32
    /// Q16.16 fixed point (``Q16Lanes``).
    case fixed
}

/// What advances the springs in a throughput run.
///
/// Each kernel belongs to a ``Family`` that says how its frame is built: a bank kernel is a lane
/// format and a step path, so a fixed-point bank is `case fixed` with family
/// `.bank(.fixed, .simd)`; a C loop is `.lanes` plus one line in
/// ``ThroughputBench/laneContender(_:_:)``.
enum ThroughputKernel: String, CaseIterable, Codable {
    /// The bank's SIMD step (inlined here, so built for this binary's ISA).
    case simd
    /// The bank's bit-identical scalar step.
    case scalar
    /// The kernel's SIMD loop alone over plain lanes, without the bank's per-frame bookkeeping.
    case simdLoop = "simd-loop"
    /// C, clang -O3 -march=native, the same arithmetic on the same layout (displacement, velocity).
    case cDisplacement = "c-displacement"
    /// C, the ANCHORS reference loop on absolute positions with a target read (20 bytes a step).
    case cAbsolute = "c-absolute"
    /// The peers' integrator at its best: RK4 in 1 ms substeps, vectorised over struct-of-arrays
    /// lanes (SIMD16<Float>), every spring of a frame stepping together.
    case rk4 = "rk4-1ms"
    /// The peers' data layout and integrator: one object per spring, RK4 in 1 ms substeps with a
    /// 64 ms frame clamp, interpolation and a rest check (Rebound's `Spring.advance`).
    case objectPerSpring = "object-per-spring"
    /// The fixed-point (Q16.16) bank's step.
    case fixed
    /// The fixed-point bank's bit-identical scalar step.
    case fixedScalar = "fixed-scalar"
    /// C, clang -O3 -march=native, the fixed-point kernel's arithmetic and saturation report.
    case cFixed = "c-fixed"
    /// The bandwidth probe: an in-place read and write of the kernel's 16 bytes per spring (C).
    case probeBandwidth = "probe-bandwidth"
    /// The compute probe: the exact step's arithmetic on springs held in registers (C).
    case probeCompute = "probe-compute"

    /// How a kernel's frame is built.
    enum Family: Equatable {
        /// A `SpringBank` of a lane format, stepped by one path.
        case bank(BankFormat, StepPath)
        /// A loop over ``ReferenceLanes``.
        case lanes
        /// A peer's algorithm, written here in Swift.
        case peer
        /// A probe over ``ReferenceLanes``.
        case probe
    }

    /// How the kernel's frame is built.
    var family: Family {
        switch self {
        case .simd: .bank(.float32, .simd)
        case .scalar: .bank(.float32, .scalar)
        case .fixed: .bank(.fixed, .simd)
        case .fixedScalar: .bank(.fixed, .scalar)
        case .simdLoop, .cDisplacement, .cAbsolute, .cFixed: .lanes
        case .rk4, .objectPerSpring: .peer
        case .probeBandwidth, .probeCompute: .probe
        }
    }

    /// Whether the kernel is a bank's step (threads, pauses, settling and configurations apply).
    var isBank: Bool {
        if case .bank = family { return true }
        return false
    }

    /// State bytes read and written per spring-step. The exact step reads and writes displacement
    /// and velocity (16); the absolute loop also reads the target (20). RK4 lanes move the same 16
    /// bytes (its substeps run in registers). An object spring reads and writes its position,
    /// velocity, previous position and velocity and time accumulator, and reads its end value,
    /// tension and friction: 88 bytes of Float64. The compute probe touches no memory.
    var bytesPerSpringStep: Int {
        switch self {
        case .cAbsolute: 20
        case .objectPerSpring: 88
        case .probeCompute: 0
        default: 16
        }
    }
}

/// Settle detection in this kernel has no per-step part: a spring's rest frame is predicted once
/// per trajectory, so there is no check to switch off. What differs is the workload.
enum SettleWorkload: String, Codable, CaseIterable {
    /// Undamped springs: the predictor says once that they never rest, and no step pays anything
    /// for settling.
    case off
    /// Default springs (tension 342, friction 30) that come to rest on their predicted frame and
    /// are retargeted at once (to minus their target), so every frame pays for the predictions,
    /// rest-schedule pushes and pops, snaps and restarts of the springs that settle in it
    /// (about 1 in 25 a frame).
    case churn
}

/// One throughput measurement to make.
struct ThroughputCase {
    var kernel: ThroughputKernel
    var springs: Int
    /// Threads for a bank's step; nil lets the bank choose (`StepThreading.automatic`).
    var threads: Int? = 1
    /// Fraction of the springs that move, scattered at random; the rest are at rest.
    var moving: Double = 1
    /// Fraction of the springs held by a pause mask, scattered at random.
    var paused: Double = 0
    var settle: SettleWorkload = .off
    /// Distinct configurations the springs are spread over.
    var configurations: Int = 1
    /// The frame durations the bank is stepped with: steady 1/60 s, or a clock of nominal 60 Hz.
    var frameClock: SettleClock = .steady
    /// The comparison this case belongs to: cases of one group are measured together, their
    /// repeats interleaved.
    var group: String = "custom"

    /// Cases that can share one bank: the same lane format and workload (threads are set per
    /// repeat, the path per frame).
    var bankKey: String {
        let format = if case .bank(let format, _) = kernel.family { format.rawValue } else { "none" }
        return "\(format)/\(springs)/\(moving)/\(paused)/\(settle.rawValue)/\(configurations)"
    }
}

/// One throughput figure. Spring-steps count every spring in the bank, moving, paused or at rest,
/// so the ratio of two runs of one size is the ratio of their frame costs. GB/s and the roofline
/// share count the kernel's bytes for every spring-step too: for paused or resting springs, whose
/// bytes a step skips, they overstate the traffic.
struct ThroughputResult: Codable {
    var kernel: String
    var springs: Int
    /// The frame clock the bank was stepped with (nil in earlier runs: steady).
    var frameClock: String?
    var group: String
    /// Threads the step used.
    var threads: Int
    /// What was asked for: a thread count, or "auto" for the bank's automatic choice.
    var threadsRequested: String
    var moving: Double
    var paused: Double
    var settle: String
    var configurations: Int
    var isa: String
    var bytesPerSpringStep: Int
    var springStepsPerFrame: Int
    var framesPerRepeat: Int
    var repeats: Int
    var springStepsPerSecond: Percentiles
    var nanosecondsPerFrame: Percentiles
    var gigabytesPerSecond: Percentiles
    /// This figure against the bandwidth probe at this size (nil when the run measured no probes).
    var roofline: RooflineShare?
    /// For ``SettleWorkload/churn``: springs that came to rest (and were restarted) per frame, over
    /// every frame the bank stepped after its warm-up.
    var settledPerFrame: Double?
    /// Nanoseconds per frame of each repeat, in round order: repeat i of every case of the group
    /// ran in round i, so two cases' samples are pairs (nil in runs written before schema 2).
    var samplesNanosecondsPerFrame: [Double]?
    /// The group's time budget for adaptive repeats (nil: a fixed `--repeats`).
    var budgetSeconds: Double?
    /// Why the group's repeats stopped: precision, budget, cap or fixed.
    var stoppedBy: String?
    /// The clock its repeats were timed by: the thread's CPU time (every case of the group on one
    /// thread) or wall time (nil in runs before schema 2: wall).
    var clock: TimingClock?
    /// Why the noise meter marked the group noisy (empty: quiet; nil: not read).
    var noise: [String]?
    /// The noise meter's slowdown of the group (``NoiseReading/slowdown``; nil: not read).
    var slowdown: Double?

    /// Whether this is the plain bank case: every spring moving, none paused, settle off, one
    /// configuration.
    var isPlain: Bool { moving == 1 && paused == 0 && settle == SettleWorkload.off.rawValue && configurations == 1 }
}

/// A figure's share of the bandwidth probe measured in the same run at the same size (the JSON key
/// is `roofline`, its historical name; see ``Roofline``).
struct RooflineShare: Codable {
    /// The bandwidth probe's GB/s over this kernel's bytes per spring-step (p50): what moving its
    /// bytes alone runs at here, a reference and not a bound (see ``Roofline``).
    var springStepsPerSecond: Double
    /// "bandwidth" (or "compute" for the compute probe itself, which moves no bytes).
    var bound: String
    /// The bandwidth probe's GB/s (p50) at this size.
    var probeGigabytesPerSecond: Double
    /// The compute probe's spring-steps/s (p50): a reference loop, not a ceiling.
    var probeComputeSpringStepsPerSecond: Double
    /// Spring-steps/s over the ceiling, per repeat.
    var fraction: Percentiles
    /// GB/s over the bandwidth probe's, per repeat.
    var bandwidthFraction: Percentiles
}
