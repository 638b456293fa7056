import Foundation

/// Everything one default run measured: written as `results.json`, the file `compare` reads.
struct RunResults: Codable {
    /// Bumped when a field changes meaning.
    var schema = 1
    /// Whether this was a `--quick` (CI-sized) run.
    var quick: Bool
    var machine: MachineInfo
    var durationSeconds: Double
    var throughput: [ThroughputResult]
    var settle: [DetectorSummary]
    var settleReference: [SettleReference.Row]
    var seedScenario: SeedScenario.Report
    var interactions: InteractionsReport
    /// The fixed-point kernel on the same corpus, judged against the exact trajectory (nil in runs
    /// written before it was measured).
    var fixedSettle: [DetectorSummary]?
    /// The determinism scene's rest frame and hash for each kernel, 1 and 2 threads.
    var determinism: [DeterminismCommand.Report]?
    /// The cost of each event kind, and of a new frame duration every frame (nil in runs written
    /// before they were measured).
    var events: [EventsCommand.Row]?
    /// The kernel's rest under each frame clock, float32 and Q16.16 (nil in earlier runs).
    var settleClocks: [ClockSummary]?
    /// The fixed-point bank against the exact trajectory, frame by frame (nil in earlier runs).
    var fidelity: FidelityCommand.Report?
}

/// `spring-bench` with no command: the README's main job. Measures the throughput sweep with the
/// probes and the peers' algorithms, settle detection on the corpus and the reference cases, the
/// seed scenario and the interaction layer; prints a summary and writes everything to
/// `results/local/<machine>-<isa>/` (untracked), with its README on top, or under `--output DIR`.
struct DefaultRun {
    /// The command's `--help`.
    static let help = """
        spring-bench [--quick] [--output DIR] [--format table|json|csv]

          The main job (a few minutes): `throughput` (1K to 16M springs: the bank's step, C, the peers'
          algorithms, the bandwidth and compute probes, threads, pause masks, settling, configurations), `settle`
          (20,000 cases, 4 detectors, the ANCHORS reference cases), `seed-scenario`, and `interactions`
          (13,000 Tossables, about 10,000 moving), `events` (each event kind and a new dt every frame, 16K to 1M springs). Prints a Markdown summary (--format json: results.json; csv: the figures
          against the issue's targets) and writes DIR/<machine>-<isa>/ (default DIR: results/local,
          which git ignores; --output results refreshes the committed runs): results.json (everything,
          for `compare`), JSON and CSV per command, throughput.svg, settle-latency.svg and README.md,
          and DIR/README.md.
          --quick: CI-sized (1K and 16K springs, 500 cases, 1,000 Tossables), well under a minute.
        """

    /// Where a run writes unless told: a folder git ignores, so that running the README's first
    /// command leaves the checkout clean. The committed runs in `results/` are refreshed on purpose,
    /// with `--output results`.
    static let defaultOutputRoot = "results/local"

    var quick: Bool
    var outputRoot: String
    var format: OutputFormat

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        quick = arguments.flag("quick")
        outputRoot = arguments.string("output") ?? Self.defaultOutputRoot
        format = try outputFormat(&arguments)
        try arguments.rejectUnread()
        try FileAccess.prepareFolder(outputRoot)  // refused before the run, not after it
    }

    /// Measures everything; `progress` reports each phase.
    static func measure(quick: Bool, progress: Progress) throws -> (RunResults, SettleReport) {
        let started = now()
        let machine = MachineInfo.current()
        let timer = FrameTimer(repeats: quick ? 3 : 7, secondsPerRepeat: quick ? 0.01 : 0.05)
        let bench = ThroughputBench(timer: timer, isa: machine.isa, progress: progress)
        let throughput = try ThroughputSuite.run(sizes: quick ? ThroughputSuite.quickSizes : ThroughputSuite.sizes, quick: quick, bench: bench)
        let settle = try SettleCommand.corpusReport(count: quick ? 500 : 20_000, seed: 2026, progress: progress)
        progress.note("settle: reference cases")
        let reference = try SettleReference.rows()
        let fixedSettle = try SettleCommand.corpusReport(
            count: quick ? 500 : 20_000, seed: 2026, detectors: ["ours"], kernel: .fixed, progress: progress)
        progress.note("determinism scene")
        var determinism: [DeterminismCommand.Report] = []
        for kernel in [SettleKernel.fixed, .float] {
            for threads in [1, 2] {
                determinism.append(try DeterminismCommand.report(kernel: kernel, threads: threads, path: .simd, isa: machine.isa))
            }
        }
        let clockCases = SettleCorpus.generate(count: quick ? 300 : 5_000, seed: 2026)
        let settleClocks = try ClockedSettle.summaries(
            clockCases, clocks: SettleClock.allCases, kernel: .float, progress: progress, peers: PeerDetector.allCases)
            + ClockedSettle.summaries(clockCases, clocks: SettleClock.allCases, kernel: .fixed, progress: progress)
        let events = try EventsCommand(
            sizes: quick ? [4 << 10] : [16 << 10, 256 << 10, 1 << 20], kernels: ["float", "fixed"],
            fractions: quick ? [1] : [0.01, 0.1, 1], kinds: EventsCommand.EventKind.allCases, repeats: quick ? 2 : 5
        ).measure(progress: progress)
        progress.note("fidelity: the fixed-point bank against the exact trajectory")
        let fidelity = try FidelityCommand.measure(FidelityCommand.corpus(count: quick ? 1_000 : 10_000, seed: 11))
        progress.note("seed scenario")
        let seed = try SeedScenario.run()
        let interactions = try InteractionsBench(
            count: quick ? 1_000 : InteractionsBench.defaultCount, frames: quick ? 120 : 600, warmUpFrames: quick ? 120 : 300).run(progress: progress)
        let results = RunResults(
            quick: quick, machine: machine, durationSeconds: now() - started, throughput: throughput, settle: settle.summaries,
            settleReference: reference, seedScenario: seed, interactions: interactions,
            fixedSettle: fixedSettle.summaries, determinism: determinism, events: events, settleClocks: settleClocks,
            fidelity: fidelity)
        return (results, settle)
    }

    /// Measures, writes the files and prints the summary.
    func run() throws {
        let progress = Progress()
        let (results, settle) = try Self.measure(quick: quick, progress: progress)
        progress.finish()
        let folder = "\(outputRoot)/\(results.machine.slug)"
        try Self.write(results, settle: settle, folder: folder, root: outputRoot)
        switch format {
        case .table: print(ResultsSummary.markdown(results, plotFolder: "."))
        case .csv: print(ResultsSummary.figuresCSV(results), terminator: "")
        case .json: print(try jsonText(results), terminator: "")
        }
        FileHandle.standardError.write(Data("results written to \(folder)/ and \(outputRoot)/README.md in \(String(format: "%.0f", results.durationSeconds)) s\n".utf8))
    }

    /// Every file of a run.
    static func write(_ results: RunResults, settle: SettleReport, folder: String, root: String) throws {
        try writeFile(try jsonText(results), to: "\(folder)/results.json")
        // `compare` must be able to read what was written (snake_case keys round-trip).
        _ = try CompareCommand.load("\(folder)/results.json")
        try writeFile(try jsonText(results.machine), to: "\(folder)/machine.json")
        try writeFile(try jsonText(results.throughput), to: "\(folder)/throughput.json")
        try writeFile(ThroughputCommand.csv(results.throughput), to: "\(folder)/throughput.csv")
        try settle.write(to: folder)
        try SettleReference.write(results.settleReference, to: folder)
        try writeFile(try jsonText(results.seedScenario), to: "\(folder)/seed-scenario.json")
        try writeFile(SeedScenarioCommand.csv(results.seedScenario), to: "\(folder)/seed-scenario.csv")
        try writeFile(try jsonText(results.interactions), to: "\(folder)/interactions.json")
        try writeFile(results.interactions.csv(), to: "\(folder)/interactions.csv")
        if let events = results.events { try EventsCommand.write(events, to: folder) }
        if let clocks = results.settleClocks {
            try writeFile(try jsonText(clocks), to: "\(folder)/settle-clocks.json")
            try writeFile(ClockedSettle.table(clocks).csv(), to: "\(folder)/settle-clocks.csv")
        }
        if let plot = ResultsPlots.throughput(results.throughput, machine: results.machine) {
            try writeFile(plot, to: "\(folder)/throughput.svg")
        }
        try writeFile(ResultsPlots.settleLatency(settle), to: "\(folder)/settle-latency.svg")
        try writeFile(ResultsSummary.markdown(results, plotFolder: "."), to: "\(folder)/README.md")
        let slug = URL(fileURLWithPath: folder).lastPathComponent
        try writeFile(ResultsSummary.markdown(results, plotFolder: slug, otherRuns: ResultsSummary.runFolders(in: root)), to: "\(root)/README.md")
    }
}
