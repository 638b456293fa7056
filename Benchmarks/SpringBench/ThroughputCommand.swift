import CSpringReference
import SpringKernel

/// What advances the springs in a throughput run.
enum ThroughputKernel: String, CaseIterable, Codable {
    /// The bank's SIMD step (inlined here, so built for this binary's ISA).
    case simd
    /// The bank's bit-identical scalar step.
    case scalar
    /// The kernel's SIMD loop alone over the same lanes, without the bank's per-frame bookkeeping.
    case simdLoop = "simd-loop"
    /// C, clang -O3 -march=native, the same arithmetic on the same layout (displacement, velocity).
    case cDisplacement = "c-displacement"
    /// C, the ANCHORS reference loop on absolute positions with a target read (20 bytes a step).
    case cAbsolute = "c-absolute"

    /// Bytes read and written per spring-step.
    var bytesPerSpringStep: Int { self == .cAbsolute ? 20 : 16 }
}

/// One throughput measurement to make.
struct ThroughputCase {
    var kernel: ThroughputKernel
    var springs: Int
    /// Threads for the bank's step; nil lets the bank choose (`StepThreading.automatic`).
    var threads: Int?
    /// Fraction of the springs that move, scattered at random; the rest are at rest.
    var moving: Double = 1
    /// Distinct configurations the springs are spread over.
    var configurations: Int = 1
}

/// One throughput figure. Spring-steps count every spring in the bank, moving or not, so the
/// ratio of two runs of one size is the ratio of their frame costs.
struct ThroughputResult: Codable {
    var kernel: String
    var springs: Int
    /// Threads the step used.
    var threads: Int
    /// What was asked for: a thread count, or "auto" for the bank's automatic choice.
    var threadsRequested: String
    var moving: Double
    var configurations: Int
    var isa: String
    var bytesPerSpringStep: Int
    var framesPerRepeat: Int
    var repeats: Int
    var springStepsPerSecond: Percentiles
    var nanosecondsPerFrame: Percentiles
    var gigabytesPerSecond: Percentiles
}

/// Builds the springs of a throughput case and times their frames.
struct ThroughputBench {
    var timer: FrameTimer
    var isa: String
    static let frameDuration = 1.0 / 60

    /// Undamped configurations: every spring keeps moving for the whole run (the step's cost does
    /// not depend on the configuration), and each batch gets its own coefficients.
    static func configurations(_ count: Int) throws -> [SpringConfiguration] {
        try (0..<count).map { try SpringConfiguration(tension: 342 + 10 * Double($0), friction: 0) }
    }

    /// The step of the first configuration: the C loops and the bare kernel loop compute exactly
    /// what the bank's first batch computes, on the same starting values.
    static func referencePropagator() throws -> SpringPropagator {
        SpringMotion(try configurations(1)[0]).propagator(over: frameDuration)
    }

    /// The starting state of spring `i`: reproducible, spread over a few hundred units.
    static func initialState(_ generator: inout SplitMix64) -> (value: Float, target: Float, velocity: Float) {
        (Float(generator.unit() * 1000 - 500), Float(generator.unit() * 1000 - 500), Float(generator.unit() * 4000 - 2000))
    }

    static func makeBank(_ c: ThroughputCase, seed: UInt64 = 1) throws -> SpringBank<Float32Lanes> {
        var generator = SplitMix64(seed: seed)
        let configurations = try Self.configurations(c.configurations)
        let bank = SpringBank<Float32Lanes>(threading: c.threads.map { .fixed($0) } ?? .automatic, capacity: c.springs)
        var handles: [SpringHandle] = []
        handles.reserveCapacity(c.springs)
        for i in 0..<c.springs {
            let state = initialState(&generator)
            handles.append(try bank.add(
                value: state.value, target: state.target, velocity: state.velocity,
                configuration: configurations[i % configurations.count], tolerance: 0.5))
        }
        if c.moving < 1 {
            // Bring a random subset to rest (a partial Fisher-Yates shuffle picks it).
            let resting = c.springs - Int((Double(c.springs) * c.moving).rounded())
            for i in 0..<resting {
                let j = i + Int(generator.next() % UInt64(c.springs - i))
                handles.swapAt(i, j)
                try bank.setState(of: handles[i], value: try bank.target(of: handles[i]), velocity: 0)
            }
        }
        // The first step predicts every spring and moves the resting ones out of the way: untimed.
        try bank.step(dt: frameDuration)
        return bank
    }

    /// Measures cases together, their repeats interleaved. Bank cases with the same size, moving
    /// fraction and configurations share one bank (each repeat sets its threading first).
    func run(_ cases: [ThroughputCase]) throws -> [ThroughputResult] {
        var banks: [String: SpringBank<Float32Lanes>] = [:]
        var lanes: [Int: ReferenceLanes] = [:]
        defer { for buffers in lanes.values { buffers.deallocate() } }
        var contenders: [Contender] = []
        for c in cases {
            switch c.kernel {
            case .simd, .scalar:
                let key = "\(c.springs)/\(c.moving)/\(c.configurations)"
                let bank = try banks[key] ?? Self.makeBank(c)
                banks[key] = bank
                let path: StepPath = c.kernel == .simd ? .simd : .scalar
                let threading: StepThreading = c.threads.map { .fixed($0) } ?? .automatic
                contenders.append(Contender(
                    prepare: { bank.threading = threading },
                    frame: { try Self.advance(bank, path: path) }))
            case .simdLoop, .cDisplacement, .cAbsolute:
                let buffers = lanes[c.springs] ?? ReferenceLanes(springs: c.springs)
                lanes[c.springs] = buffers
                contenders.append(try Self.referenceContender(c.kernel, buffers, springs: c.springs))
            }
        }
        let timings = try timer.secondsPerFrame(contenders)
        return zip(cases, timings).map { c, timing in
            let moving = Int((Double(c.springs) * c.moving).rounded())
            let threads = c.kernel == .simd || c.kernel == .scalar
                ? (c.threads.map { StepThreading.fixed($0) } ?? .automatic).threadCount(movingSprings: moving) : 1
            let stepsPerSecond = timing.samples.map { Double(c.springs) / $0 }
            return ThroughputResult(
                kernel: c.kernel.rawValue, springs: c.springs, threads: threads,
                threadsRequested: c.threads.map(String.init) ?? "auto", moving: c.moving,
                configurations: c.configurations, isa: isa, bytesPerSpringStep: c.kernel.bytesPerSpringStep,
                framesPerRepeat: timing.framesPerRepeat, repeats: timing.samples.count,
                springStepsPerSecond: Percentiles(stepsPerSecond),
                nanosecondsPerFrame: Percentiles(timing.samples.map { $0 * 1e9 }),
                gigabytesPerSecond: Percentiles(stepsPerSecond.map { $0 * Double(c.kernel.bytesPerSpringStep) / 1e9 }))
        }
    }

    /// A frame of the bare kernel loop or a C loop over plain lanes.
    static func referenceContender(_ kernel: ThroughputKernel, _ lanes: ReferenceLanes, springs: Int) throws -> Contender {
        let p = try referencePropagator()
        switch kernel {
        case .simdLoop:
            let bundles = BundleIndexing.bundleCount(springs: springs)
            let work = LaneWork(
                displacements: UnsafeMutableRawPointer(lanes.displacement), velocities: UnsafeMutableRawPointer(lanes.velocity),
                pausedLanes: UnsafePointer(lanes.pausedLanes), bundleCount: bundles,
                finalBundleLanes: BundleIndexing.liveLanes(bundle: bundles - 1, springs: springs),
                hasPausedLanes: false, coefficients: Float32Lanes.coefficients(of: p))
            return Contender(frame: { Self.advance(work) })
        case .cDisplacement:
            let (a11, a12, a21, a22) = (Float(p.a11), Float(p.a12), Float(p.a21), Float(p.a22))
            return Contender(frame: { spring_reference_step_displacement(lanes.displacement, lanes.velocity, springs, a11, a12, a21, a22) })
        case .cAbsolute:
            let (a11, a12, a21, a22) = (Float(p.a11), Float(p.a12), Float(p.a21), Float(p.a22))
            return Contender(frame: { spring_reference_step_absolute(lanes.position, lanes.velocity, lanes.target, springs, a11, a12, a21, a22) })
        case .simd, .scalar:
            preconditionFailure("bank kernels are not reference contenders")
        }
    }

    /// One pass of the kernel's loop over `work`, out of line so its samples are its own.
    @inline(never)
    static func advance(_ work: LaneWork) {
        _ = Float32Lanes.advance(work, bundles: 0..<work.bundleCount)
    }

    /// One frame of the bank: the kernel entry point perf samples are charged to.
    @inline(never)
    static func advance(_ bank: SpringBank<Float32Lanes>, path: StepPath) throws(SpringKernelError) {
        try bank.step(dt: frameDuration, path: path)
    }
}

/// Plain aligned arrays for the C loops, filled like the bank.
struct ReferenceLanes {
    let displacement: UnsafeMutablePointer<Float>
    let velocity: UnsafeMutablePointer<Float>
    let position: UnsafeMutablePointer<Float>
    let target: UnsafeMutablePointer<Float>
    /// One zero word per bundle (no lane paused).
    let pausedLanes: UnsafeMutablePointer<UInt16>

    init(springs: Int) {
        pausedLanes = .allocate(capacity: BundleIndexing.bundleCount(springs: springs) + 1)
        pausedLanes.initialize(repeating: 0, count: BundleIndexing.bundleCount(springs: springs) + 1)
        func buffer() -> UnsafeMutablePointer<Float> {
            UnsafeMutableRawPointer.allocate(byteCount: max(springs, 1) * 4, alignment: 64).bindMemory(to: Float.self, capacity: springs)
        }
        displacement = buffer()
        velocity = buffer()
        position = buffer()
        target = buffer()
        var generator = SplitMix64(seed: 1)
        for i in 0..<springs {
            let state = ThroughputBench.initialState(&generator)
            position[i] = state.value
            target[i] = state.target
            displacement[i] = state.value - state.target
            velocity[i] = state.velocity
        }
    }

    func deallocate() {
        displacement.deallocate()
        velocity.deallocate()
        position.deallocate()
        target.deallocate()
        pausedLanes.deallocate()
    }
}

/// SplitMix64: the seeded generator every corpus and scene of the benchmark is drawn from.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
}
