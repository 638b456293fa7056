import Foundation
@_spi(KernelInternals) import SpringKernel

/// `spring-bench settle`: when each detector reports rest, against the exact rest frame.
struct SettleCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench settle --cases FILE.csv [--frame-times FILE.txt] [--kernel float|fixed] [--detectors D[,D...]]
        spring-bench settle [--kernel float|fixed] [--count N] [--seed S] [--detectors D[,D...]]
                            [--write-cases FILE.csv] [--quick] [--format table|json|csv] [--output DIR]
        spring-bench settle --clocks steady,jitter,vrr,hitch [--kernel float|fixed] [--count N] [--quick] ...

          --kernel fixed runs the cases through the fixed-point (Q16.16) bank, judged like the float
          one against the exact trajectory of the case as the format holds it (cases the format
          clamps are not judged); the peers' detectors apply to the float kernel only.

          --clocks: the corpus (default 5,000 cases, --quick 300) stepped under each frame clock:
            steady  1/hz every frame (the bank declares it: FrameClock.fixed; bound R <= D <= R + 1)
            jitter  1/hz x (1 ± 15 %) every frame          vrr    stretches at 120/80/60/48 Hz
            hitch   1/hz, one frame in 50 a hitch of 0.05-0.6 s
          (the variable clocks: bound R <= D <= max(R_c, R + 1)), with R (the rest frame of the frames
          actually taken) and R_c (the first frame reaching T*, the last time the exact continuous
          motion is outside the band) computed in Float64 apart from the kernel; reports early rests
          (D < R_c: the motion would still leave its band), D < R, the share within the bound, latency.

          --frame-times FILE.txt (with --cases): every case stepped with these durations (seconds, one a
          line, cycled) instead of 1/hz, by a bank with a variable frame clock; detector ours only.

          Detectors (all by default):
            ours                        the kernel's own: rest predicted in closed form, reported by the step
            velocity-threshold-rebound  Rebound's isAtRest: |v| <= 0.005 and |x - end| <= 0.005 (absolute)
            velocity-threshold-pop      POP's isDone: converged values (|to - x| and |x' - x| < t/5) or a
                                        converged solver (|x - to| < t/2, v² < 25t, a² < 625t²), t = 1.0 for
                                        points, 0.01 for opacity, else 2 x tolerance
            frame-watcher               the "Detecting Pauses" chapter's watcher: unchanged within the
                                        tolerance (its laxity) for 0.1 s
          The peers' rules watch the exact Float64 trajectory, sampled once a frame.

          With --cases: reads id,tension,friction,mass,from,to,velocity,tolerance,hz (one spring released
          at `from` with `velocity` toward `to`, stepped at exactly dt = 1/hz) and writes
          id,detector,rest_frame to stdout, one row per case and detector (empty: not at rest within
          10,000,000 frames, the limit of a run);
          --format json prints the same rows as JSON objects; --output DIR also writes them to
          DIR/settle-cases-rest.csv and .json. Every row is checked before anything runs, and one
          outside the domain is refused with its line number: a configuration the kernel refuses,
          a value, target or velocity beyond the lanes' range (±10^15, or ±32767 with --kernel
          fixed), a tolerance not positive, hz outside 10...1000. Any number of distinct
          configurations (more than a bank's 65,536 batches, a configuration at one lane scale, run in
          several banks: with --kernel fixed, one per binary exponent of the tolerance).
          Without: a built-in seeded corpus over the whole range (damping ratio 0.01-30, distances
          0.01-3000, velocities to ±8000/s, 30-240 Hz; default 20,000 cases, --quick 500), each case's
          exact rest frame R found by brute force in Float64, and per detector: reported frame D against
          R, latency D - R (p50/p90/p99/max in frames and ms), early rests (D < R) and never-rested; plus
          the peer reference cases of ANCHORS (k342/c30 and k1323/c91, 0->1 and 0->100 at 60 Hz).
        """

    /// Every detector, `ours` first.
    static let allDetectors = ["ours"] + PeerDetector.allCases.map(\.rawValue)

    var casesPath: String?
    /// The cases of `--cases`, read (and checked) before anything runs.
    var cases: [SettleCase] = []
    var frameTimesPath: String?
    /// The durations of `--frame-times`, read before anything runs.
    var frameTimes: [Double] = []
    var clocks: [SettleClock]?
    var kernel: SettleKernel
    var count: Int
    var seed: UInt64
    var detectors: [String]
    var writeCases: String?
    var format: OutputFormat
    var output: String?

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        casesPath = arguments.string("cases")
        frameTimesPath = arguments.string("frame-times")
        if frameTimesPath != nil, casesPath == nil { throw .usage("--frame-times goes with --cases") }
        if let names = arguments.list("clocks") {
            var clocks: [SettleClock] = []
            for name in names {
                guard let clock = SettleClock(rawValue: name) else { throw .usage("unknown clock \(name) (steady, jitter, vrr, hitch)") }
                clocks.append(clock)
            }
            guard casesPath == nil else { throw .usage("--clocks runs the built-in corpus; with --cases use --frame-times") }
            self.clocks = clocks
        }
        guard let kernel = SettleKernel(rawValue: arguments.string("kernel") ?? "float") else {
            throw .usage("--kernel must be float or fixed")
        }
        self.kernel = kernel
        let quick = arguments.flag("quick")
        count = try arguments.int("count", in: 1...SettleCorpus.maximumCount) ?? (clocks != nil ? (quick ? 300 : 5_000) : (quick ? 500 : 20_000))
        guard count > 0 else { throw .usage("--count must be positive") }
        seed = try arguments.seed("seed") ?? 2026
        detectors = arguments.list("detectors") ?? (kernel == .fixed || frameTimesPath != nil ? ["ours"] : Self.allDetectors)
        if frameTimesPath != nil, detectors != ["ours"] { throw .usage("--frame-times has one detector: ours") }
        for name in detectors where !Self.allDetectors.contains(name) {
            throw .usage("unknown detector \(name) (\(Self.allDetectors.joined(separator: ", ")))")
        }
        if kernel == .fixed, detectors != ["ours"] { throw .usage("--kernel fixed has one detector: ours") }
        writeCases = arguments.string("write-cases")
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
        // Every input and the output folder are checked now: a bad row or an unwritable folder is
        // reported before the run, not after it.
        if let output { try FileAccess.prepareFolder(output) }
        if let casesPath { cases = try SettleCorpus.read(path: casesPath, kernel: kernel) }
        if let frameTimesPath { frameTimes = try FrameTimesFile.read(path: frameTimesPath) }
    }

    /// Runs the cases file or the corpus and prints (and writes) the results.
    func run() throws {
        if let clocks {
            let progress = Progress()
            let summaries = try ClockedSettle.summaries(
                SettleCorpus.generate(count: count, seed: seed), clocks: clocks, kernel: kernel, progress: progress,
                peers: kernel == .float ? detectors.compactMap(PeerDetector.init(rawValue:)) : [])
            progress.finish()
            if let output { try writeFile(try jsonText(summaries), to: "\(output)/settle-clocks.json") }
            switch format {
            case .table: print(ClockedSettle.table(summaries).render())
            case .csv: print(ClockedSettle.table(summaries).csv(), terminator: "")
            case .json: print(try jsonText(summaries), terminator: "")
            }
            return
        }
        if casesPath != nil {
            let columns: [(name: String, frames: [Int?])]
            if frameTimesPath != nil {
                let durations = frameTimes
                let frames = kernel == .fixed
                    ? try ClockedSettle.restFrames(cases, lanes: Q16Lanes.self, fixed: false, durations: { _ in durations }, limit: 10_000_000)
                    : try ClockedSettle.restFrames(cases, lanes: Float32Lanes.self, fixed: false, durations: { _ in durations }, limit: 10_000_000)
                columns = [("ours", frames)]
            } else {
                columns = try Self.detectorFrames(cases, detectors: detectors, kernel: kernel, progress: Progress())
            }
            var rows: [CaseRestFrame] = []
            for (i, c) in cases.enumerated() {
                for column in columns { rows.append(CaseRestFrame(id: c.id, detector: column.name, restFrame: column.frames[i])) }
            }
            let csv = CSVText.text(header: ["id", "detector", "rest_frame"], rows: rows.map { [$0.id, $0.detector, $0.restFrame.map(String.init) ?? ""] })
            if let output {
                try writeFile(csv, to: "\(output)/settle-cases-rest.csv")
                try writeFile(try jsonText(rows), to: "\(output)/settle-cases-rest.json")
            }
            if format == .json {
                print(try jsonText(rows), terminator: "")
            } else {
                print(csv, terminator: "")
            }
            return
        }
        let progress = Progress()
        let report = try Self.corpusReport(count: count, seed: seed, detectors: detectors, kernel: kernel, progress: progress)
        let reference = kernel == .float ? try SettleReference.rows() : []
        progress.finish()
        if let writeCases { try writeFile(SettleCorpus.csv(report.cases), to: writeCases) }
        if let output {
            try report.write(to: output)
            try SettleReference.write(reference, to: output)
            try writeFile(ResultsPlots.settleLatency(report), to: "\(output)/settle-latency.svg")
        }
        switch format {
        case .table:
            if !reference.isEmpty { print("Peer reference cases (ANCHORS), 60 Hz:\n" + SettleReference.table(reference).render() + "\n") }
            print("Corpus of \(report.cases.count) cases against the exact rest frame R:\n" + report.table().render())
        case .json: print(try jsonText(report.summaries), terminator: "")
        case .csv: print(report.summaryCSV(), terminator: "")
        }
    }

    /// Each detector's rest frames for `cases`: the kernel's from its banks, the peers' from the
    /// exact trajectory.
    static func detectorFrames(
        _ cases: [SettleCase], detectors: [String], kernel: SettleKernel = .float, progress: Progress
    ) throws -> [(name: String, frames: [Int?])] {
        let peers = PeerDetector.allCases.filter { detectors.contains($0.rawValue) }
        var peerFrames = [[Int?]](repeating: [], count: peers.count)
        if !peers.isEmpty {
            progress.note("settle: the peers' rest frames (\(peers.map(\.rawValue).joined(separator: ", ")))")
            for (n, c) in cases.enumerated() {
                if n % 1000 == 0 { progress.update("settle: peers, case \(n) of \(cases.count)") }
                for (i, frame) in PeerRestFrames.restFrames(c, detectors: peers).enumerated() { peerFrames[i].append(frame) }
            }
        }
        var columns: [(name: String, frames: [Int?])] = []
        for name in detectors {
            if name == "ours" {
                progress.note("settle: the kernel's rest frames")
                columns.append((name, try KernelRestFrames.restFrames(cases, kernel: kernel)))
            } else if let i = peers.firstIndex(where: { $0.rawValue == name }) {
                columns.append((name, peerFrames[i]))
            }
        }
        return columns
    }

    /// The seeded corpus, its exact rest frames and every detector's.
    static func corpusReport(
        count: Int, seed: UInt64, detectors: [String] = allDetectors, kernel: SettleKernel = .float, progress: Progress
    ) throws -> SettleReport {
        let cases = SettleCorpus.generate(count: count, seed: seed)
        progress.note("settle: exact rest frames of \(count) cases (\(kernel.rawValue) kernel)")
        let exact = cases.map { kernel.exactRestFrame($0) }
        let columns = try detectorFrames(cases, detectors: detectors, kernel: kernel, progress: progress)
        return SettleReport(cases: cases, exact: exact, detectors: columns)
    }
}

/// One row of `settle --cases`: a case's rest frame by one detector (nil: not at rest within the
/// run's 10,000,000 frames).
struct CaseRestFrame: Codable {
    var id: String
    var detector: String
    var restFrame: Int?
}

/// Detectors' rest frames on one corpus, with the exact ones.
struct SettleReport {
    var cases: [SettleCase]
    var exact: [Int?]
    var detectors: [(name: String, frames: [Int?])]

    /// One summary per detector.
    var summaries: [DetectorSummary] {
        detectors.map { DetectorSummary(detector: $0.name, cases: cases, exact: exact, reported: $0.frames) }
    }

    /// Each detector's latencies D - R in frames, over the cases with both.
    func latencies() -> [(name: String, frames: [Int])] {
        detectors.map { detector in
            (detector.name, cases.indices.compactMap { i in
                guard let r = exact[i], let d = detector.frames[i] else { return nil }
                return d - r
            })
        }
    }

    /// The summaries as a text table.
    func table() -> TextTable {
        var table = TextTable(header: [
            "detector", "cases", "D=R", "D=R+1", "D>R+1", "early", "never", "within [R,R+1]",
            "frames p50", "p90", "p99", "max", "ms p50", "p90", "p99", "max",
        ])
        for s in summaries {
            table.rows.append([
                s.detector, "\(s.cases)", "\(s.exact)", "\(s.lateByOne)", "\(s.lateByMore)", "\(s.early)", "\(s.neverRested)",
                String(format: "%.3f%%", s.withinOneFrame * 100),
                String(format: "%g", s.latencyFrames.p50), String(format: "%g", s.latencyFrames.p90),
                String(format: "%g", s.latencyFrames.p99), String(format: "%g", s.latencyFrames.max),
                String(format: "%.1f", s.latencyMilliseconds.p50), String(format: "%.1f", s.latencyMilliseconds.p90),
                String(format: "%.1f", s.latencyMilliseconds.p99), String(format: "%.1f", s.latencyMilliseconds.max),
            ])
        }
        return table
    }

    /// The summaries with full precision, one row per detector.
    func summaryCSV() -> String {
        let header = [
            "detector", "cases", "exact", "late_by_one", "late_by_more", "early", "never_rested", "within_one_frame",
            "latency_frames_p50", "latency_frames_p90", "latency_frames_p99", "latency_frames_max",
            "latency_ms_p50", "latency_ms_p90", "latency_ms_p99", "latency_ms_max",
        ]
        return CSVText.text(header: header, rows: summaries.map { s in
            let f = s.latencyFrames, m = s.latencyMilliseconds
            return [
                s.detector, "\(s.cases)", "\(s.exact)", "\(s.lateByOne)", "\(s.lateByMore)", "\(s.early)", "\(s.neverRested)",
                "\(s.withinOneFrame)", "\(f.p50)", "\(f.p90)", "\(f.p99)", "\(f.max)", "\(m.p50)", "\(m.p90)", "\(m.p99)", "\(m.max)",
            ]
        })
    }

    /// Per-case frames (`settle-cases.csv`), the summary as JSON and CSV.
    func write(to folder: String) throws {
        let header = ["id", "hz", "exact_rest_frame"] + detectors.map { "\($0.name)_rest_frame" }
        let rows = cases.indices.map { i in
            [cases[i].id, "\(cases[i].hz)"] + ([exact[i]] + detectors.map { $0.frames[i] }).map { $0.map(String.init) ?? "" }
        }
        try writeFile(CSVText.text(header: header, rows: rows), to: "\(folder)/settle-cases.csv")
        try writeFile(try jsonText(summaries), to: "\(folder)/settle.json")
        try writeFile(summaryCSV(), to: "\(folder)/settle.csv")
    }
}
