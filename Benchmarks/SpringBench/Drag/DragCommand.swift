import BenchStatistics
import Foundation
@_spi(KernelInternals) import SpringKernel

/// `spring-bench drag`: springs that follow targets moving every frame (a drag, an attachment, a
/// camera follow), against the plain step of as many moving springs, in one run.
struct DragCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench drag [--springs 10000,100000,1000000] [--kernel float,fixed] [--springs-kind default,corpus]
                          [--path drag,slow,hold] [--modes storage,storage-step,handles,half,one-percent,calls] [--repeats R]
                          [--format table|json|csv] [--output DIR] [--quick]

          N springs whose targets move every frame along a pointer's path (each spring's own anchor plus
          one of 16 offsets in 16 phases at 1 Hz: `drag` swings 40-190 pt, 250-1200 pt/s at full speed, so
          springs lag, catch up and swing as under a finger; `slow` swings 10-160 pt, and its slowest
          springs come within their tolerance near the turns, rest, and are woken by the next frame's
          retarget, about 1 % of the springs a frame; `hold` swings 1-4 pt, a finger held on the glass:
          no frame moves a target by more than 0.42 pt, within the springs' tolerance, so springs at
          rest are given new targets they already satisfy),
          tolerance 0.5, stepped at 60 Hz. The springs are the default spring (tension 342, friction 30)
          or 64 configurations drawn as the settle corpus draws them (tension 10-5000 and damping ratio
          0.01-30 log-uniform, mass 0.25-4), so rests come due and are predicted as a real drag makes them.
            storage      every target written in storage order (retarget(in:to:)), then the step
            storage-step every target written in storage order by the step itself, in one pass over
                         the lanes (step(dt:retargetingIn:to:))
            handles      every target by handle in one call (retarget(_:to:) with buffers), then the step
            half         every other spring by handle in one call, then the step
            one-percent  every 100th spring by handle in one call, then the step (in these two, a bank of
                         their own whose other springs are the plain step's, moving as they do: the
                         difference from the plain step is what the retargeted springs cost)
            calls        one retarget(_:to:) call per spring, then the step
            plain        the step alone, of as many springs that keep moving (same tensions and masses,
                         friction 0.01 a unit of mass: a decay time of 200 s, and started
                         again before each repeat, so none comes to rest during one)
          The targets are computed in a lap of their own, outside the figure (in storage order, from the
          user values that the layout says each slot holds). Figures: ns per spring-frame of each mode; the
          storage and storage-step modes over the plain step (bound 2.0x); handles in ns per spring-frame (bound 5 ns);
          half, one-percent and calls as ns per retargeted spring above the plain step (bounds 5, 5, 10 ns).
          Medians of interleaved repeats, with 95 % intervals.
          --quick: 10000 and 100000 springs, float, the default spring.
        """

    /// What is done to the targets each frame.
    enum Mode: String, CaseIterable, Codable {
        case storage, storageStep = "storage-step", handles, half, onePercent = "one-percent", calls

        /// Every how many springs one is retargeted.
        var stride: Int {
            switch self {
            case .storage, .storageStep, .handles, .calls: 1
            case .half: 2
            case .onePercent: 100
            }
        }
    }

    /// One measured cell: a mode at a size, format and spring kind, with the plain step beside it.
    struct Row: Codable {
        var kernel: String
        var springs: Int
        var springKind: String
        /// "drag" (40-190 pt swings), "slow" (10-160 pt) or "hold" (1-4 pt); nil in runs written
        /// before the paths.
        var path: String?
        var mode: String
        var retargetedPerFrame: Int
        /// ns per spring-frame of the plain step and of the mode (retargets and step).
        var plainNanosecondsPerSpring: Double
        var nanosecondsPerSpring: Double
        var nanosecondsPerSpringInterval: Interval?
        /// The mode's frame over the plain frame.
        var ratio: Double
        var ratioInterval: Interval?
        /// (mode's frame − plain frame) / springs retargeted.
        var nanosecondsPerRetarget: Double
        var nanosecondsPerRetargetInterval: Interval?
        /// Springs that came to rest during the timed frames (a drag's rests are real work).
        var restsPerFrame: Double
        var repeats: Int
        /// Why the noise meter marked this cell noisy (empty: quiet; nil: not read).
        var noise: [String]?
        /// The noise meter's slowdown of the group (``NoiseReading/slowdown``; nil: not read).
        var slowdown: Double?
    }

    var sizes: [Int]
    var kernels: [String]
    var kinds: [String]
    var paths = ["drag"]
    var modes: [Mode]
    var timer: FrameTimer
    var format: OutputFormat
    var output: String?

    /// A measurement of these cells (the main job's).
    init(sizes: [Int], kernels: [String], kinds: [String], modes: [Mode], timer: FrameTimer) {
        self.sizes = sizes
        self.kernels = kernels
        self.kinds = kinds
        self.modes = modes
        self.timer = timer
        format = .table
        output = nil
    }

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        let quick = arguments.flag("quick")
        sizes = try arguments.sizes("springs", limit: 1 << 24, bytesEach: 256) ?? (quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000])
        guard sizes.allSatisfy({ $0 >= 100 }) else { throw .usage("--springs takes sizes within 100...16M") }
        kernels = try arguments.list("kernel", from: ["float", "fixed"]) ?? (quick ? ["float"] : ["float", "fixed"])
        kinds = try arguments.list("springs-kind", from: ["default", "corpus"]) ?? (quick ? ["default"] : ["default", "corpus"])
        var modes: [Mode] = []
        for name in arguments.list("modes") ?? Mode.allCases.map(\.rawValue) {
            guard let mode = Mode(rawValue: name) else {
                throw .usage("unknown mode \(printable(name)) (storage, storage-step, handles, half, one-percent, calls)")
            }
            modes.append(mode)
        }
        self.modes = modes
        paths = try arguments.list("path", from: ["drag", "slow", "hold"]) ?? ["drag"]
        timer = FrameTimer(repeats: try arguments.int("repeats", in: 2...1000) ?? (quick ? 5 : 9), secondsPerRepeat: 0.02)
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }
    }

    func run() throws {
        let rows = try measure(progress: Progress())
        switch format {
        case .table: print(Self.table(rows).render())
        case .csv: print(Self.table(rows).csv(), terminator: "")
        case .json: print(try jsonText(rows))
        }
        if let output { try Self.write(rows, to: output) }
    }

    func measure(progress: Progress, noise: NoiseMeter? = nil) throws -> [Row] {
        var rows: [Row] = []
        for path in paths {
            for kernel in kernels {
                for kind in kinds {
                    for springs in sizes {
                        progress.update("drag: \(path) \(kernel) \(kind) \(springs) springs")
                        rows += kernel == "float"
                            ? try Self.measure(Float32Lanes.self, springs: springs, kind: kind, path: path, modes: modes, timer: timer, noise: noise, value: { Float($0) })
                            : try Self.measure(Q16Lanes.self, springs: springs, kind: kind, path: path, modes: modes, timer: timer, noise: noise, value: { Q16($0)! })
                    }
                }
            }
        }
        progress.finish()
        return rows
    }

    /// The configurations of a spring kind, and each one's lightly damped twin for the plain step.
    static func configurations(kind: String) throws -> [(drag: SpringConfiguration, plain: SpringConfiguration)] {
        guard kind == "corpus" else {
            return [(SpringConfiguration.default, try SpringConfiguration(tension: 342, friction: 0.01))]
        }
        var generator = SplitMix64(seed: 33)
        return try (0..<64).map { _ in
            let zeta = generator.logUniform(0.01, 30), tension = generator.logUniform(10, 5000), mass = generator.logUniform(0.25, 4)
            return (
                try SpringConfiguration(tension: tension, friction: zeta * 2 * (tension * mass).squareRoot(), mass: mass),
                try SpringConfiguration(tension: tension, friction: 0.01 * mass, mass: mass))
        }
    }

    /// The pointer's offset for group `group` (of 16) at `frame` on `path`, at 1 Hz, each group in
    /// its own phase: `drag` 40-190 pt, `slow` 10-160 pt, `hold` 1-4 pt (a finger held on the
    /// glass: each frame's move, at most 0.42 pt, is within the springs' tolerance).
    static func offset(group: Int, frame: Int, path: String) -> Double {
        let amplitude = switch path {
        case "hold": 1 + 0.2 * Double(group)
        case "slow": 10 + Double(10 * group)
        default: 40 + Double(10 * group)
        }
        return amplitude * sin(2 * Double.pi * (Double(frame) / 60 + Double(group * 5) / 16))
    }

    /// Every mode of one size, format and kind, each timed against the plain step in interleaved rounds.
    static func measure<Lanes: SpringLaneArithmetic>(
        _ lanes: Lanes.Type, springs count: Int, kind: String, path: String, modes: [Mode], timer: FrameTimer, noise: NoiseMeter?,
        value: @escaping (Double) -> Lanes.Value
    ) throws -> [Row] {
        let dt = 1.0 / 60
        let configurations = try configurations(kind: kind)
        // Anchors spread over a screen; spring i has user value i.
        let anchors = (0..<count).map { Double(($0 * 7919) % 2000) - 1000 }
        // Spring i is dragged (the drag's configuration, at rest on its target) when i is a
        // multiple of `draggedEvery`, else the plain step's (lightly damped, moving); nil: none.
        func isDragged(_ i: Int, every stride: Int) -> Bool { i % stride == 0 }
        func makeBank(draggedEvery: Int?) throws -> (SpringBank<Lanes>, [SpringHandle]) {
            let bank = try SpringBank<Lanes>(threading: .single, capacity: count)
            var handles: [SpringHandle] = []
            handles.reserveCapacity(count)
            for i in 0..<count {
                let pair = configurations[i % configurations.count]
                let plain = draggedEvery.map { !isDragged(i, every: $0) } ?? true
                handles.append(try bank.add(
                    value: value(anchors[i] + (plain ? Double(i % 200) - 100 : 0)), target: value(anchors[i]),
                    velocity: value(plain ? Double(i % 7) * 10 : 0), configuration: plain ? pair.plain : pair.drag,
                    tolerance: value(0.5), userValue: UInt64(i)))
            }
            return (bank, handles)
        }
        // Lightly damped (decay time 200 s), started again before each repeat (in one bulk call):
        // none comes to rest within a repeat, however many frames it takes.
        let restartValues = (0..<count).map { (i: Int) -> Lanes.Value in value(anchors[i] + Double(i % 200) - 100) }
        let restartVelocities = (0..<count).map { (i: Int) -> Lanes.Value in value(Double(i % 7) * 10 + 5) }
        /// What starts the plain springs among `ids` (of `handles`) again, in one bulk call.
        func restart(_ bank: SpringBank<Lanes>, _ handles: [SpringHandle], ids: [Int]) -> () -> Void {
            let springs = ids.map { handles[$0] }, values = ids.map { restartValues[$0] }, velocities = ids.map { restartVelocities[$0] }
            return {
                springs.withUnsafeBufferPointer { springs in
                    values.withUnsafeBufferPointer { values in
                        velocities.withUnsafeBufferPointer { velocities in
                            _ = try? bank.setState(of: springs, values: values, velocities: velocities)
                        }
                    }
                }
            }
        }
        let (plainBank, plainHandles) = try makeBank(draggedEvery: nil)
        let plain = Contender(
            prepare: restart(plainBank, plainHandles, ids: Array(0..<count)),
            frame: { try plainBank.step(dt: dt) }, isOurs: true)

        var rows: [Row] = []
        // One bank for the modes that retarget every spring: each carries on the drag the one
        // before left. The modes that retarget a fraction have a bank each, whose other springs
        // are the plain step's, moving as they do and started again before each repeat: the
        // mode's frame over the plain one is then what the retargeted springs cost (their
        // retargets, rests and wakes), where on the shared bank it also held the settling of
        // the springs the mode before had dragged (corpus springs at 1M: about 3,500 rests a
        // frame, charged to 10,000 retargets) and saved the step of the springs at rest.
        let (sharedBank, sharedHandles) = try makeBank(draggedEvery: 1)
        var frame = 0
        for mode in modes {
            let (bank, handles) = mode.stride == 1 ? (sharedBank, sharedHandles) : try makeBank(draggedEvery: mode.stride)
            let restartPlainSprings = mode.stride == 1 ? {} : restart(bank, handles, ids: (0..<count).filter { !isDragged($0, every: mode.stride) })
            let listedIDs = (0..<count).filter { isDragged($0, every: mode.stride) }
            let listed = listedIDs.map { handles[$0] }
            let inStorageOrder = mode == .storage || mode == .storageStep
            var goals = [Lanes.Value](repeating: value(0), count: inStorageOrder ? count : listed.count)
            var ids = [UInt64](repeating: 0, count: count)
            var layout = bank.storageLayout(of: .all)
            try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: layout, into: $0) }
            var rests = 0
            var shifts = [Double](repeating: 0, count: 16)
            let laps = FrameLaps(parts: 2, clock: .threadCPU)
            let drag = Contender(
                prepare: restartPlainSprings,
                frame: {
                    frame += 1
                    laps.start()
                    // The user's part: this frame's targets, in the order the call takes them.
                    for group in 0..<16 { shifts[group] = offset(group: group, frame: frame, path: path) }
                    if inStorageOrder, layout.version != bank.layoutVersion || layout.count != count {
                        layout = bank.storageLayout(of: .all)
                        try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: layout, into: $0) }
                    }
                    // Through buffers: the captured arrays' exclusivity checks and uniqueness
                    // tests, once an element, took most of a run's time (outside the figure).
                    goals.withUnsafeMutableBufferPointer { goals in
                        anchors.withUnsafeBufferPointer { anchors in
                            shifts.withUnsafeBufferPointer { shifts in
                                if inStorageOrder {
                                    ids.withUnsafeBufferPointer { ids in
                                        for j in 0..<count { goals[j] = value(anchors[Int(ids[j])] + shifts[Int(ids[j]) & 15]) }
                                    }
                                } else {
                                    listedIDs.withUnsafeBufferPointer { listedIDs in
                                        for j in 0..<listedIDs.count { goals[j] = value(anchors[listedIDs[j]] + shifts[listedIDs[j] & 15]) }
                                    }
                                }
                            }
                        }
                    }
                    laps.lap(0)
                    switch mode {
                    case .storage:
                        try goals.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
                    case .storageStep:
                        break
                    case .handles, .half, .onePercent:
                        try listed.withUnsafeBufferPointer { springs in
                            try goals.withUnsafeBufferPointer { try bank.retarget(springs, to: $0) }
                        }
                    case .calls:
                        try listed.withUnsafeBufferPointer { springs in
                            try goals.withUnsafeBufferPointer { values in
                                for i in 0..<springs.count { try bank.retarget(springs[i], to: values[i]) }
                            }
                        }
                    }
                    if mode == .storageStep {
                        try goals.withUnsafeBufferPointer { try bank.step(dt: dt, retargetingIn: layout, to: $0) }
                    } else {
                        try bank.step(dt: dt)
                    }
                    rests += bank.restedInLastStep.count
                    laps.lap(1)
                },
                isOurs: true,
                tally: { [laps.seconds[1], Double(rests)] })
            // Two seconds of drag first: the schedule entries the springs were added with pop and go.
            // At least 8 frames a repeat (a million springs' frame takes milliseconds).
            var timer = timer
            timer.framesPerRepeat = timer.framesPerRepeat ?? Swift.max(8, Swift.min(400, 4_000_000 / count))
            let timing = try timer.measure([plain, drag], warmUpFrames: 120, clock: .threadCPU)
            let reading = noise?.read(after: "drag \(Lanes.formatName) \(kind) \(springCountLabel(count)) \(mode.rawValue)")
            // The mode's figure is its second lap (retargets and step), per frame of the repeat.
            let frames = Double(timing.framesPerRepeat[1])
            let dragSeconds = timing.tallies[1].map { $0[0] / frames }
            let plainSeconds = timing.samples[0]
            let restsPerFrame = timing.tallies[1].map { $0[1] / frames }.reduce(0, +) / Double(timing.repeats)
            let perSpring = dragSeconds.map { $0 * 1e9 / Double(count) }
            let ratios = zip(dragSeconds, plainSeconds).map { $0 / $1 }
            let perRetarget = zip(dragSeconds, plainSeconds).map { ($0 - $1) * 1e9 / Double(listed.count) }
            rows.append(Row(
                kernel: Lanes.formatName, springs: count, springKind: kind, path: path, mode: mode.rawValue, retargetedPerFrame: listed.count,
                plainNanosecondsPerSpring: Percentiles(plainSeconds).p50 * 1e9 / Double(count),
                nanosecondsPerSpring: Percentiles(perSpring).p50,
                nanosecondsPerSpringInterval: Bootstrap.medianInterval(perSpring, confidence: timer.confidence),
                ratio: Percentiles(ratios).p50, ratioInterval: Bootstrap.medianInterval(ratios, confidence: timer.confidence),
                nanosecondsPerRetarget: Percentiles(perRetarget).p50,
                nanosecondsPerRetargetInterval: Bootstrap.medianInterval(perRetarget, confidence: timer.confidence),
                restsPerFrame: restsPerFrame, repeats: timing.repeats, noise: reading?.reasons, slowdown: reading?.slowdown))
        }
        return rows
    }

    static func table(_ rows: [Row]) -> TextTable {
        var table = TextTable(header: [
            "path", "kernel", "springs", "kind", "mode", "retargets/frame", "plain ns/spring", "ns/spring", "ratio", "ns/retarget", "rests/frame",
        ])
        for row in rows {
            table.rows.append([
                row.path ?? "drag", row.kernel, "\(row.springs)", row.springKind, row.mode, "\(row.retargetedPerFrame)",
                String(format: "%.3f", row.plainNanosecondsPerSpring), String(format: "%.3f", row.nanosecondsPerSpring),
                String(format: "%.2f", row.ratio), String(format: "%.2f", row.nanosecondsPerRetarget), String(format: "%.1f", row.restsPerFrame),
            ])
        }
        return table
    }

    /// `drag.json` and `drag.csv`.
    static func write(_ rows: [Row], to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try writeFile(try jsonText(rows), to: "\(folder)/drag.json")
        try writeFile(table(rows).csv(), to: "\(folder)/drag.csv")
    }
}
