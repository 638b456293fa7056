import CSpringReference
@_spi(KernelInternals) import SpringKernel

/// What a throughput run builds once and its cases share: banks by ``ThroughputCase/bankKey``, and
/// plain lanes, RK4 lanes and object springs by size. Dropping an entry frees its memory.
final class WorkloadCache {
    /// Banks by ``ThroughputCase/bankKey``.
    var banks: [String: BankWorkload] = [:]
    /// Plain lanes, RK4 lanes and object springs, by size.
    var lanes: [Int: ReferenceLanes] = [:]
    var rk4: [Int: RK4Lanes] = [:]
    var objects: [Int: ObjectSpringSystem] = [:]

    /// Frees everything but the banks named in `keys`.
    func keepOnlyBanks(_ keys: Set<String>) {
        banks = banks.filter { keys.contains($0.key) }
        lanes = [:]
        rk4 = [:]
        objects = [:]
    }
}

/// Builds the frames of throughput cases and times them.
struct ThroughputBench {
    /// How frames are timed.
    var timer: FrameTimer
    /// The instruction set this binary was built for, recorded in each result.
    var isa: String
    var progress = Progress()
    /// Read after each group, when given.
    var noise: NoiseMeter? = nil

    /// 1/60 s.
    static var frameDuration: Double { KernelEntry.frameDuration }

    /// The step of the first undamped configuration: the C loops, the probes and the bare kernel
    /// loop compute exactly what the plain bank's batch computes, on the same starting values.
    static func referencePropagator() throws -> SpringPropagator {
        SpringMotion(try BankWorkload.undampedConfigurations(1)[0]).propagator(over: frameDuration)
    }

    /// The starting state of spring `i`: reproducible, spread over a few hundred units.
    static func initialState(_ generator: inout SplitMix64) -> (value: Float, target: Float, velocity: Float) {
        (Float(generator.unit() * 1000 - 500), Float(generator.unit() * 1000 - 500), Float(generator.unit() * 4000 - 2000))
    }

    /// Measures cases together, their repeats interleaved, building what they need into `cache`.
    func run(_ cases: [ThroughputCase], cache: WorkloadCache = WorkloadCache()) throws -> [ThroughputResult] {
        var contenders: [Contender] = []
        var stepsPerFrame: [Int] = []
        for c in cases {
            let (contender, steps) = try contender(c, cache: cache)
            contenders.append(contender)
            stepsPerFrame.append(steps)
        }
        // The thread's CPU time when every case steps on this one thread; wall time otherwise.
        let clock: TimingClock = cases.allSatisfy({ !$0.kernel.isBank || $0.threads == 1 }) ? .threadCPU : .wall
        let group = try timer.measure(contenders, judged: Self.judgedPairs(cases), clock: clock)
        let reading = noise?.read(after: "throughput \(springCountLabel(cases[0].springs)) \(cases[0].group)")
        let timings = zip(group.samples, group.framesPerRepeat).map { (samples: $0, framesPerRepeat: $1) }
        return zip(zip(cases, stepsPerFrame), timings).map { item, timing in
            var result = result(item.0, stepsPerFrame: item.1, timing: timing)
            result.samplesNanosecondsPerFrame = timing.samples.map { $0 * 1e9 }
            result.budgetSeconds = group.budgetSeconds
            result.stoppedBy = group.stoppedBy
            result.clock = group.clock
            result.noise = reading?.reasons
            result.slowdown = reading?.slowdown
            if item.0.settle == .churn, let workload = cache.banks[item.0.bankKey] {
                let counts = workload.restartCounts()
                result.settledPerFrame = counts.frames > 0 ? Double(counts.restarts) / Double(counts.frames) : nil
            }
            return result
        }
    }

    /// The ratios the summary judges within a group, as (numerator, denominator) case indices, for
    /// the adaptive repeats to watch: in `kernels`, ours against C, the peers and the probe, and
    /// fixed point against C and float32; in any other group, each variant against the first case.
    static func judgedPairs(_ cases: [ThroughputCase]) -> [(Int, Int)] {
        func index(_ kernel: ThroughputKernel) -> Int? { cases.firstIndex { $0.kernel == kernel } }
        guard cases.first?.group == "kernels" else { return cases.count > 1 ? (1..<cases.count).map { ($0, 0) } : [] }
        let judged: [(ThroughputKernel, ThroughputKernel)] = [
            (.simd, .cAbsolute), (.simd, .cDisplacement), (.simd, .rk4), (.simd, .objectPerSpring), (.simd, .probeBandwidth),
            (.fixed, .cFixed), (.fixed, .simd),
        ]
        return judged.compactMap { a, b in index(a).flatMap { i in index(b).map { (i, $0) } } }
    }

    /// A case's figures from its timing.
    private func result(_ c: ThroughputCase, stepsPerFrame steps: Int, timing: (samples: [Double], framesPerRepeat: Int)) -> ThroughputResult {
        let moving = Int((Double(c.springs) * c.moving).rounded())
        let threads = c.kernel.isBank ? (c.threads.map { StepThreading.fixed($0) } ?? .automatic).threadCount(movingSprings: moving) : 1
        let stepsPerSecond = timing.samples.map { Double(steps) / $0 }
        return ThroughputResult(
            kernel: c.kernel.rawValue, springs: c.springs, frameClock: c.kernel.isBank ? c.frameClock.rawValue : nil, group: c.group, threads: threads,
            threadsRequested: c.kernel.isBank ? (c.threads.map(String.init) ?? "auto") : "1",
            moving: c.moving, paused: c.paused, settle: c.settle.rawValue, configurations: c.configurations,
            isa: isa, bytesPerSpringStep: c.kernel.bytesPerSpringStep, springStepsPerFrame: steps,
            framesPerRepeat: timing.framesPerRepeat, repeats: timing.samples.count,
            springStepsPerSecond: Percentiles(stepsPerSecond),
            nanosecondsPerFrame: Percentiles(timing.samples.map { $0 * 1e9 }),
            gigabytesPerSecond: Percentiles(stepsPerSecond.map { $0 * Double(c.kernel.bytesPerSpringStep) / 1e9 }))
    }

    /// A case's frame, and the spring-steps it makes.
    func contender(_ c: ThroughputCase, cache: WorkloadCache) throws -> (Contender, Int) {
        switch c.kernel.family {
        case .bank(let format, let path):
            let workload: BankWorkload
            if let built = cache.banks[c.bankKey] {
                workload = built
            } else {
                progress.note("  building a bank of \(springCountLabel(c.springs)) springs (\(c.bankKey))")
                workload = try BankWorkload.make(c, format: format)
                cache.banks[c.bankKey] = workload
            }
            let threading: StepThreading = c.threads.map { .fixed($0) } ?? .automatic
            return (Contender(
                prepare: { workload.setThreading(threading) }, frame: workload.makeFrame(path, c.frameClock.durations(hz: 1 / KernelEntry.frameDuration, count: 4096)),
                isOurs: true), c.springs)
        case .lanes, .probe:
            return try laneContender(c.kernel, lanes(c.springs, cache))
        case .peer:
            let configuration = try BankWorkload.undampedConfigurations(1)[0]
            switch c.kernel {
            case .rk4:
                let rk4 = cache.rk4[c.springs] ?? RK4Lanes(lanes: lanes(c.springs, cache), configuration: configuration)
                cache.rk4[c.springs] = rk4
                return (Contender(frame: { rk4.frame(Self.frameDuration) }), c.springs)
            default:
                let system = cache.objects[c.springs] ?? {
                    progress.note("  making \(springCountLabel(c.springs)) spring objects")
                    return ObjectSpringSystem(springs: c.springs, configuration: (configuration.tension, configuration.friction))
                }()
                cache.objects[c.springs] = system
                return (Contender(frame: { KernelEntry.objectPerSpring(system, dt: Self.frameDuration) }), c.springs)
            }
        }
    }

    private func lanes(_ springs: Int, _ cache: WorkloadCache) -> ReferenceLanes {
        if let lanes = cache.lanes[springs] { return lanes }
        let lanes = ReferenceLanes(springs: springs)
        cache.lanes[springs] = lanes
        return lanes
    }

    /// A frame of the bare kernel loop, a C loop or a probe over plain lanes, and its spring-steps.
    func laneContender(_ kernel: ThroughputKernel, _ lanes: ReferenceLanes) throws -> (Contender, Int) {
        let p = try Self.referencePropagator()
        let (a11, a12, a21, a22) = (Float(p.a11), Float(p.a12), Float(p.a21), Float(p.a22))
        let springs = lanes.springs
        switch kernel {
        case .simdLoop:
            let coefficients = Float32Lanes.coefficients(of: p)
            return (Contender(frame: { KernelEntry.float32Loop(lanes, coefficients: coefficients) }, isOurs: true), springs)
        case .cDisplacement:
            return (Contender(frame: { spring_reference_step_displacement(lanes.displacement, lanes.velocity, springs, a11, a12, a21, a22) }), springs)
        case .cAbsolute:
            return (Contender(frame: {
                spring_reference_step_absolute(lanes.position, lanes.velocity, lanes.target, springs, a11, a12, a21, a22)
            }), springs)
        case .cFixed:
            let c = Q16Lanes.coefficients(of: p)
            let (f11, f12, f21, f22) = (Float(bitPattern: c[0]), Float(bitPattern: c[1]), Float(bitPattern: c[2]), Float(bitPattern: c[3]))
            return (Contender(frame: {
                _ = spring_reference_step_fixed(lanes.fixedDisplacement, lanes.fixedVelocity, springs, f11, f12, f21, f22)
            }), springs)
        case .probeBandwidth:
            return (Contender(frame: { spring_probe_bandwidth(lanes.displacement, lanes.velocity, springs) }), springs)
        case .probeCompute:
            // As many register-resident steps as the frame of this size makes spring-steps.
            let perCall = Int(SPRING_PROBE_COMPUTE_SPRINGS)
            let steps = max(1, (springs + perCall - 1) / perCall)
            return (Contender(frame: { spring_probe_compute(lanes.computeState, steps, a11, a12, a21, a22) }), steps * perCall)
        case .simd, .scalar, .fixed, .fixedScalar, .rk4, .objectPerSpring:
            preconditionFailure("\(kernel.rawValue) does not run on plain lanes")
        }
    }
}
