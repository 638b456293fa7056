import BenchStatistics
import Foundation
@_spi(KernelInternals) import SpringKernel

/// `spring-bench events`: what an event costs, the step's share included, when an engine sends
/// many every frame (an attachment following a dragged target retargets every spring of it).
struct EventsCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench events [--springs 16K,256K,1M] [--kernel float,fixed] [--fractions 0.01,0.1,1]
                            [--events \(EventKind.allCases.map(\.rawValue).joined(separator: ","))]
                            [--forms single,bulk,closure] [--springs-kind default,light] [--repeats R]
                            [--format table|json|csv] [--output DIR] [--quick]

          N springs, all moving, stepped at 60 Hz: the default spring (tension 342, friction 30; a second
          configuration 400/40 for `configure`), started again before each repeat, so rests come due and
          are predicted as in an engine; or (--springs-kind light) lightly damped ones (tension 120,
          friction 0.02: they swing for minutes, so no rest ever comes due; a labelled extra). Each frame a
          fraction of them gets one event of a kind, one call per spring ("single") or one call for all
          ("bulk": from buffers of handles and values, an impulse to a mask, a mask's pause and
          resume; "closure": a resume asking a closure for each spring's restart state):
            retarget   a new target every frame          impulse    a velocity added
            set-state  a new value and velocity          start      a spring removed and a new one added
            resume     a mask paused and resumed with new values and velocities
            pause      a mask paused and resumed as it was: ns/event is the pair, a pause and a resume of one spring
            configure  another configuration (two alternate)
            new-dt     no call: every frame lasts 1/60 s ± 15 % (a measured frame time); reported as the
                       frame cost over a steady frame's
          ns per event = (frame with the events − frame without them) / events, medians of interleaved
          repeats; the frame without them is the plain step of as many lightly damped springs, all moving. The issue's bound: 25 ns (float32) and 50 ns (Q16.16) at 100 % of 100K springs.
          --quick: 16K springs, fractions 0.01 and 1.
        """

    enum EventKind: String, CaseIterable, Codable {
        case retarget, impulse, setState = "set-state", start, resume, pause, configure
        /// Not a call: every frame has a new duration (60 Hz ± 15 %), for the frame cost against a
        /// steady one (the bound: 1.1x).
        case newDuration = "new-dt"

        /// The forms this kind has.
        var forms: [String] {
            switch self {
            case .retarget, .impulse, .setState, .start, .configure: ["single", "bulk"]
            case .resume: ["closure", "bulk"]
            case .pause: ["bulk"]
            case .newDuration: ["frame"]
            }
        }
    }

    /// One measured cell.
    struct Row: Codable {
        var kernel: String
        var springs: Int
        var fraction: Double
        var event: String
        var form: String
        var eventsPerFrame: Int
        /// "default" (342/30) or "light" (120/0.02); nil in runs written before the kinds.
        var springKind: String?
        var baseFrameNanoseconds: Double
        var eventFrameNanoseconds: Double
        var nanosecondsPerEvent: Double
        /// The frame with the events over the frame without them.
        var frameRatio: Double
        /// The 95 % intervals of the frame ratio and of ns per event: medians of the rounds'
        /// paired figures, bootstrapped over the rounds (nil in runs written before schema 2).
        var frameRatioInterval: Interval?
        var nanosecondsPerEventInterval: Interval?
        /// Interleaved rounds taken.
        var repeats: Int?
        /// Why the noise meter marked this cell noisy (empty: quiet; nil: not read).
        var noise: [String]?
        /// The noise meter's slowdown of the group (``NoiseReading/slowdown``; nil: not read).
        var slowdown: Double?
    }

    var sizes: [Int]
    var kernels: [String]
    var fractions: [Double]
    var kinds: [EventKind]
    /// "default" and/or "light" springs.
    var springKinds = ["default"]
    /// The forms to measure (nil: every form of each kind).
    var forms: Set<String>? = nil
    /// How each cell's two frames are timed (interleaved; fixed repeats or adaptive).
    var timer: FrameTimer
    var format: OutputFormat
    var output: String?

    /// A measurement of these cells (the main job's).
    init(sizes: [Int], kernels: [String], fractions: [Double], kinds: [EventKind], timer: FrameTimer) {
        self.sizes = sizes
        self.kernels = kernels
        self.fractions = fractions
        self.kinds = kinds
        self.timer = timer
        format = .table
        output = nil
    }

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        let quick = arguments.flag("quick")
        sizes = try arguments.sizes("springs", limit: 1 << 24, bytesEach: 256) ?? (quick ? [16 << 10] : [16 << 10, 256 << 10, 1 << 20])
        kernels = try arguments.list("kernel", from: ["float", "fixed"]) ?? ["float", "fixed"]
        fractions = try arguments.doubles("fractions", in: 0...1) ?? (quick ? [0.01, 1] : [0.01, 0.1, 1])
        guard fractions.allSatisfy({ $0 > 0 && $0 <= 1 }) else { throw .usage("--fractions must lie in (0, 1]") }
        var kinds: [EventKind] = []
        for name in arguments.list("events") ?? EventKind.allCases.map(\.rawValue) {
            guard let kind = EventKind(rawValue: name) else { throw .usage("unknown event \(name)") }
            kinds.append(kind)
        }
        self.kinds = kinds
        forms = arguments.list("forms").map(Set.init)
        springKinds = try arguments.list("springs-kind", from: ["default", "light"]) ?? ["default"]
        timer = FrameTimer(repeats: try arguments.int("repeats", in: 1...1000) ?? (quick ? 3 : 5), secondsPerRepeat: 0.02)
        guard sizes.allSatisfy({ $0 >= 16 && $0 <= 1 << 24 }) else { throw .usage("--springs takes sizes within 16...16M") }
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
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
        for springKind in springKinds {
        for kernel in kernels {
            for springs in sizes {
                for fraction in fractions {
                    // A new frame duration involves no share of the springs: measured once a size.
                    for kind in kinds where kind != .newDuration || fraction == fractions.last {
                        for form in kind.forms where forms?.contains(form) ?? true {
                            progress.update("events: \(springKind) \(kernel) \(springCountLabel(springs)) \(Int(fraction * 100)) % \(kind.rawValue) \(form)")
                            rows.append(kernel == "float"
                                ? try Self.measure(Float32Lanes.self, springs: springs, fraction: fraction, kind: kind, form: form, springKind: springKind, timer: timer, noise: noise, value: { Float($0) })
                                : try Self.measure(Q16Lanes.self, springs: springs, fraction: fraction, kind: kind, form: form, springKind: springKind, timer: timer, noise: noise, value: { Q16($0)! }))
                        }
                    }
                }
            }
        }
        }
        progress.finish()
        return rows
    }

    /// One cell: the same bank stepped with and without the events, interleaved.
    static func measure<Lanes: SpringLaneArithmetic>(
        _ lanes: Lanes.Type, springs count: Int, fraction: Double, kind: EventKind, form: String, springKind: String = "default",
        timer: FrameTimer, noise: NoiseMeter?, value: @escaping (Double) -> Lanes.Value
    ) throws -> Row {
        // The default spring comes to rest within a second, as in an engine (its rests are part of
        // the cost). Lightly damped (ζ ≈ 0.001): every spring swings for minutes, so the frame
        // without events keeps all of them moving and no rest ever comes due.
        // A new dt every frame is the step's cost: measured on springs that keep moving.
        let springKind = kind == .newDuration ? "light" : springKind
        let light = [try SpringConfiguration(tension: 120, friction: 0.02), try SpringConfiguration(tension: 150, friction: 0.025)]
        let configurations = springKind == "light" ? light : [SpringConfiguration.default, try SpringConfiguration(tension: 400, friction: 40)]
        let dt = 1.0 / 60
        let eventCount = kind == .newDuration ? count : max(1, Int((Double(count) * fraction).rounded()))
        func makeBank(_ configuration: SpringConfiguration) throws -> (SpringBank<Lanes>, [SpringHandle]) {
            let bank = try SpringBank<Lanes>(threading: .single, capacity: count)
            var handles: [SpringHandle] = []
            handles.reserveCapacity(count)
            for i in 0..<count {
                handles.append(try bank.add(
                    value: value(Double(i % 200) - 100), target: value(0), velocity: value(Double(i % 7) * 10),
                    configuration: configuration, tolerance: value(0.5)))
            }
            return (bank, handles)
        }
        // Without events: the plain step of as many lightly damped springs, which swing for
        // minutes, far longer than a measurement (default springs left alone would come to rest,
        // and the frame without events would be the one paying for their rests).
        let (base, baseHandles) = try makeBank(light[0])
        let (bank, initialHandles) = try makeBank(configurations[0])
        var handles = initialHandles
        let targets = [[Lanes.Value](repeating: value(1), count: eventCount), [Lanes.Value](repeating: value(-1), count: eventCount)]
        let goals = [Lanes.Value](repeating: value(50), count: eventCount)
        let mask = try bank.makePauseMask(handles[0..<eventCount])
        var frame = 0
        // A new duration every frame: measured frame times, drawn before the timing and cycled.
        // The steady frame runs the same loop over durations that are all 1/60 s, so the two
        // differ only in what the bank does with a new duration.
        var jitter = SplitMix64(seed: 60)
        let jittered = (0..<1024).map { _ in dt * (1 + (jitter.unit() * 2 - 1) * 0.15) }
        let steady = [Double](repeating: dt, count: 1024)
        var baseFrame = 0
        let baseStep: () throws -> Void = kind != .newDuration ? { try base.step(dt: dt) } : {
            baseFrame = (baseFrame + 1) & 1023
            try base.step(dt: steady[baseFrame])
        }
        let eventFrame: () throws -> Void = {
            frame += 1
            let parity = frame & 1
            switch (kind, form) {
            case (.newDuration, _):
                try bank.step(dt: jittered[frame & 1023])
                return
            case (.retarget, "single"):
                // The engine's own buffers: no array checks of the harness in the timing.
                try handles.withUnsafeBufferPointer { springs in
                    try targets[parity].withUnsafeBufferPointer { values in
                        for i in 0..<eventCount { try bank.retarget(springs[i], to: values[i]) }
                    }
                }
            case (.retarget, _):
                try handles.withUnsafeBufferPointer { springs in
                    try targets[parity].withUnsafeBufferPointer { values in
                        try bank.retarget(UnsafeBufferPointer(rebasing: springs[0..<eventCount]), to: values)
                    }
                }
            case (.impulse, "single"):
                try handles.withUnsafeBufferPointer { springs in
                    try targets[parity].withUnsafeBufferPointer { values in
                        for i in 0..<eventCount { try bank.addVelocity(values[i], to: springs[i]) }
                    }
                }
            case (.impulse, _):
                try bank.addVelocity(targets[parity][0], toEveryMemberOf: mask)
            case (.setState, "bulk"):
                try handles.withUnsafeBufferPointer { springs in
                    try targets[parity].withUnsafeBufferPointer { values in
                        try bank.setState(of: UnsafeBufferPointer(rebasing: springs[0..<eventCount]), values: values, velocities: values)
                    }
                }
            case (.setState, _):
                try handles.withUnsafeBufferPointer { springs in
                    try targets[parity].withUnsafeBufferPointer { values in
                        for i in 0..<eventCount { try bank.setState(of: springs[i], value: values[i], velocity: values[i]) }
                    }
                }
            case (.start, "bulk"):
                try handles.withUnsafeMutableBufferPointer { springs in
                    let listed = UnsafeMutableBufferPointer(rebasing: springs[0..<eventCount])
                    try bank.remove(UnsafeBufferPointer(listed))
                    try targets[parity].withUnsafeBufferPointer { values in
                        try targets[1 - parity].withUnsafeBufferPointer { velocities in
                            try goals.withUnsafeBufferPointer { goals in
                                try bank.add(
                                    values: values, targets: goals, velocities: velocities, configuration: configurations[0],
                                    tolerance: value(0.5), into: listed)
                            }
                        }
                    }
                }
            case (.start, _):
                // The engine's own buffers, as for retarget: no array checks of the harness in the timing.
                let goal = value(50), band = value(0.5), configuration = configurations[0]
                try handles.withUnsafeMutableBufferPointer { springs in
                    try targets[parity].withUnsafeBufferPointer { values in
                        try targets[1 - parity].withUnsafeBufferPointer { velocities in
                            for i in 0..<eventCount {
                                try bank.remove(springs[i])
                                springs[i] = try bank.add(
                                    value: values[i], target: goal, velocity: velocities[i], configuration: configuration, tolerance: band)
                            }
                        }
                    }
                }
            case (.resume, "bulk"):
                try bank.pause(mask)
                try handles.withUnsafeBufferPointer { springs in
                    try targets[parity].withUnsafeBufferPointer { values in
                        try targets[1 - parity].withUnsafeBufferPointer { velocities in
                            try bank.resume(
                                mask, restarting: UnsafeBufferPointer(rebasing: springs[0..<eventCount]), values: values,
                                velocities: velocities)
                        }
                    }
                }
            case (.resume, _):
                try bank.pause(mask)
                try bank.resume(mask) { _ in (value: targets[parity][0], velocity: targets[1 - parity][0]) }
            case (.pause, _):
                try bank.pause(mask)
                try bank.resume(mask)
            case (.configure, "bulk"):
                try handles.withUnsafeBufferPointer { springs in
                    try bank.setConfiguration(of: UnsafeBufferPointer(rebasing: springs[0..<eventCount]), to: configurations[parity])
                }
            case (.configure, _):
                let configuration = configurations[parity]
                try handles.withUnsafeBufferPointer { springs in
                    for i in 0..<eventCount { try bank.setConfiguration(of: springs[i], to: configuration) }
                }
            }
            try bank.step(dt: dt)
        }
        // Before each repeat (untimed), both banks start over from their first state, so that no
        // spring comes to rest however many frames the timer runs.
        func restart(_ bank: SpringBank<Lanes>, _ springs: [SpringHandle]) {
            for (i, spring) in springs.enumerated() {
                try? bank.setState(of: spring, value: value(Double(i % 200) - 100), velocity: value(Double(i % 7) * 10))
            }
        }
        // Both banks step on this thread (`.single`): its CPU time.
        let timing = try timer.measure([
            Contender(prepare: { restart(base, baseHandles) }, frame: baseStep, isOurs: true),
            Contender(prepare: { restart(bank, handles) }, frame: eventFrame, isOurs: true),
        ], clock: .threadCPU)
        let reading = noise?.read(after: "events \(Lanes.formatName) \(springCountLabel(count)) \(kind.rawValue) \(form)")
        let baseSeconds = Percentiles(timing.samples[0]).p50
        let eventSeconds = Percentiles(timing.samples[1]).p50
        let pairs = zip(timing.samples[1], timing.samples[0])
        return Row(
            kernel: Lanes.formatName, springs: count, fraction: fraction, event: kind.rawValue, form: form,
            eventsPerFrame: eventCount, springKind: springKind, baseFrameNanoseconds: baseSeconds * 1e9, eventFrameNanoseconds: eventSeconds * 1e9,
            nanosecondsPerEvent: (eventSeconds - baseSeconds) * 1e9 / Double(eventCount), frameRatio: eventSeconds / baseSeconds,
            frameRatioInterval: Bootstrap.medianInterval(pairs.map { $0 / $1 }, confidence: timer.confidence),
            nanosecondsPerEventInterval: Bootstrap.medianInterval(pairs.map { ($0 - $1) * 1e9 / Double(eventCount) }, confidence: timer.confidence),
            repeats: timing.repeats, noise: reading?.reasons, slowdown: reading?.slowdown)
    }

    static func table(_ rows: [Row]) -> TextTable {
        var table = TextTable(header: [
            "kernel", "springs", "kind", "share", "event", "form", "events/frame", "frame (µs)", "base (µs)", "ratio", "ns/event",
        ])
        for row in rows {
            table.rows.append([
                row.kernel, springCountLabel(row.springs), row.springKind ?? "default", String(format: "%g %%", row.fraction * 100), row.event, row.form,
                "\(row.eventsPerFrame)", String(format: "%.1f", row.eventFrameNanoseconds / 1000),
                String(format: "%.1f", row.baseFrameNanoseconds / 1000), String(format: "%.2f", row.frameRatio),
                String(format: "%.1f", row.nanosecondsPerEvent),
            ])
        }
        return table
    }

    /// `events.json` and `events.csv`.
    static func write(_ rows: [Row], to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try writeFile(try jsonText(rows), to: "\(folder)/events.json")
        try writeFile(table(rows).csv(), to: "\(folder)/events.csv")
    }
}
