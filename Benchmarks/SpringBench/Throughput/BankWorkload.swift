@_spi(KernelInternals) import SpringKernel

/// A bank built for a throughput case, with closures made inside a function generic over the lane
/// format, so the frame is specialised for it (a call through a protocol would run the generic,
/// unspecialised step).
final class BankWorkload {
    /// Springs in the bank.
    let springs: Int
    /// Sets the bank's threading (the next frame re-plans).
    let setThreading: (StepThreading) -> Void
    /// Makes a frame: the bank's step by a path and, for ``SettleWorkload/churn``, the restarts of
    /// the springs that came to rest in it. (A frame closure per path, so timing a frame costs one
    /// indirect call, as for every other contender.)
    /// A frame on a path, stepping with the given durations in turn (cycled).
    let makeFrame: (StepPath, [Double]) -> () throws -> Void
    /// Frames stepped and springs restarted since the bank was built (churn only): their ratio
    /// is the springs that settle in a frame, in steady state.
    let restartCounts: () -> (frames: Int, restarts: Int)
    /// Released with the workload (the churn targets).
    private let release: () -> Void

    private init(
        springs: Int, setThreading: @escaping (StepThreading) -> Void, makeFrame: @escaping (StepPath, [Double]) -> () throws -> Void,
        restartCounts: @escaping () -> (frames: Int, restarts: Int), release: @escaping () -> Void
    ) {
        self.springs = springs
        self.setThreading = setThreading
        self.makeFrame = makeFrame
        self.restartCounts = restartCounts
        self.release = release
    }

    deinit { release() }

    /// Builds the bank of `c` in `format`.
    static func make(_ c: ThroughputCase, format: BankFormat) throws -> BankWorkload {
        switch format {
        case .float32: try make(c, lanes: Float32Lanes.self)
        case .fixed: try make(c, lanes: Q16Lanes.self)
        }
    }

    /// Undamped configurations: a spring keeps moving for the whole run (the step's cost does not
    /// depend on the configuration), and each batch has its own coefficients.
    static func undampedConfigurations(_ count: Int) throws -> [SpringConfiguration] {
        try (0..<count).map { try SpringConfiguration(tension: 342 + 10 * Double($0), friction: 0) }
    }

    /// Configurations whose springs come to rest: the default spring, then tensions 10 apart.
    static func dampedConfigurations(_ count: Int) throws -> [SpringConfiguration] {
        try (0..<count).map { try SpringConfiguration(tension: 342 + 10 * Double($0), friction: 30) }
    }

    private static func make<Lanes: BenchLaneFormat>(_ c: ThroughputCase, lanes: Lanes.Type) throws -> BankWorkload {
        typealias Bank = SpringBank<Lanes>
        var generator = SplitMix64(seed: 1)
        let churn = c.settle == .churn
        let configurations = churn ? try dampedConfigurations(c.configurations) : try undampedConfigurations(c.configurations)
        let bank = try Bank(threading: c.threads.map { .fixed($0) } ?? .automatic, capacity: c.springs)
        // Churn: the target each spring pulls toward now, by handle index (fresh bank: 0..<springs),
        // the frames and restarts counted since the warm-up, and the next frame duration's index.
        let targets = UnsafeMutablePointer<Double>.allocate(capacity: churn ? c.springs : 0)
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 3)
        counts.initialize(repeating: 0, count: 3)
        var handles: [SpringHandle] = []
        handles.reserveCapacity(c.springs)
        for i in 0..<c.springs {
            var state = ThroughputBench.initialState(&generator)
            if churn {
                // Targets 10 to 500 away from zero, so a restart (target to minus target) moves
                // 20 to 1000: trajectories of 15 to 35 frames at 60 Hz, well spread.
                let magnitude = Float(10 + 490 * generator.unit())
                state.target = state.target < 0 ? -magnitude : magnitude
                targets[i] = Double(state.target)
            }
            handles.append(try bank.add(
                value: Bank.nearestValue(to: Double(state.value)), target: Bank.nearestValue(to: Double(state.target)),
                velocity: Bank.nearestValue(to: Double(state.velocity)),
                configuration: configurations[i % configurations.count], tolerance: Bank.nearestValue(to: 0.5)))
        }
        // A random subset (a partial Fisher-Yates shuffle picks it) comes to rest, then another is paused.
        var order = Array(0..<c.springs)
        func pickRandom(_ count: Int, from start: Int) -> ArraySlice<Int> {
            for i in start..<(start + count) {
                order.swapAt(i, i + Int(generator.next() % UInt64(c.springs - i)))
            }
            return order[start..<(start + count)]
        }
        let resting = c.springs - Int((Double(c.springs) * c.moving).rounded())
        for i in pickRandom(resting, from: 0) {
            try bank.setState(of: handles[i], value: try bank.target(of: handles[i]), velocity: Bank.nearestValue(to: 0))
        }
        let paused = min(Int((Double(c.springs) * c.paused).rounded()), c.springs - resting)
        if paused > 0 {
            let mask = try bank.makePauseMask(pickRandom(paused, from: resting).map { handles[$0] })
            try bank.pause(mask)
        }

        let restart: (Bank) throws -> Void = { bank in
            counts[0] += 1
            counts[1] += bank.restedInLastStep.count
            for spring in bank.restedInLastStep {
                let i = Int(spring.index)
                targets[i] = -targets[i]
                try bank.retarget(spring, to: Bank.nearestValue(to: targets[i]))
            }
        }
        // The first step predicts every spring and moves the resting ones out of the way; a churning
        // bank then runs until its restarts have spread over every frame of a trajectory.
        try Lanes.benchStep(bank, path: .simd, dt: KernelEntry.frameDuration)
        if churn {
            for _ in 0..<90 {
                try Lanes.benchStep(bank, path: .simd, dt: KernelEntry.frameDuration)
                try restart(bank)
            }
            counts.update(repeating: 0, count: 2)
        }
        return BankWorkload(
            springs: c.springs,
            setThreading: { try? bank.setThreading($0) },  // never inside a callback here
            makeFrame: { path, durations in
                if durations == [KernelEntry.frameDuration] {
                    return churn
                        ? {
                            try Lanes.benchStep(bank, path: path, dt: KernelEntry.frameDuration)
                            try restart(bank)
                        }
                        : { try Lanes.benchStep(bank, path: path, dt: KernelEntry.frameDuration) }
                }
                // A changing frame duration: the next one each frame. Its index lives behind a
                // pointer, as the counts do: a captured `var` is a box with two runtime
                // exclusivity checks a frame (about 15 ns, all an empty frame would cost).
                let next = counts + 2
                next.pointee = 0
                return {
                    try Lanes.benchStep(bank, path: path, dt: durations[next.pointee])
                    next.pointee = next.pointee + 1 == durations.count ? 0 : next.pointee + 1
                    if churn { try restart(bank) }
                }
            },
            restartCounts: { (counts[0], counts[1]) },
            release: {
                targets.deallocate()
                counts.deallocate()
            })
    }
}

/// A lane format the benchmark can step: its entry point in ``KernelEntry``, resolved statically
/// wherever the bench is specialised for the format.
protocol BenchLaneFormat: SpringLaneArithmetic {
    /// One frame of `bank` through the format's ``KernelEntry`` entry point.
    static func benchStep(_ bank: SpringBank<Self>, path: StepPath, dt: Double) throws(SpringKernelError)
}

extension Float32Lanes: BenchLaneFormat {
    @inline(__always)
    static func benchStep(_ bank: SpringBank<Float32Lanes>, path: StepPath, dt: Double = KernelEntry.frameDuration) throws(SpringKernelError) {
        try KernelEntry.step(bank, path: path, dt: dt)
    }
}

extension Q16Lanes: BenchLaneFormat {
    @inline(__always)
    static func benchStep(_ bank: SpringBank<Q16Lanes>, path: StepPath, dt: Double = KernelEntry.frameDuration) throws(SpringKernelError) {
        try KernelEntry.step(bank, path: path, dt: dt)
    }
}
