import Foundation

/// `spring-bench settle`: when each detector reports rest, against the exact rest frame.
struct SettleCommand {
    static let help = """
        spring-bench settle --cases FILE.csv
        spring-bench settle [--count N] [--seed S] [--write-cases FILE.csv] [--quick] [--format table|json|csv] [--output DIR]

          With --cases: reads id,tension,friction,mass,from,to,velocity,tolerance,hz (one spring released
          at `from` with `velocity` toward `to`, stepped at exactly dt = 1/hz) and writes
          id,detector,rest_frame to stdout, for detector `ours` (the kernel's own detection).
          Without: a built-in seeded corpus over the whole range (damping ratio 0.01-30, distances
          0.01-3000, velocities to ±8000/s, 30-240 Hz), each case's exact rest frame R computed by brute
          force in Float64, and a summary of the kernel's rest frames D against it.
        """

    var casesPath: String?
    var count: Int
    var seed: UInt64
    var writeCases: String?
    var format: OutputFormat
    var output: String?

    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        casesPath = arguments.string("cases")
        let quick = arguments.flag("quick")
        count = try arguments.int("count") ?? (quick ? 500 : 20_000)
        guard count > 0 else { throw .usage("--count must be positive") }
        seed = UInt64(try arguments.int("seed") ?? 2026)
        writeCases = arguments.string("write-cases")
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
    }

    func run() throws {
        if let casesPath {
            let cases = try SettleCorpus.read(path: casesPath)
            let frames = try KernelRestFrames.restFrames(cases)
            var lines = ["id,detector,rest_frame"]
            for (c, frame) in zip(cases, frames) { lines.append("\(c.id),ours,\(frame.map(String.init) ?? "")") }
            print(lines.joined(separator: "\n"))
            return
        }
        let report = try Self.corpusReport(count: count, seed: seed, progress: Progress())
        if let writeCases { try writeFile(SettleCorpus.csv(report.cases), to: writeCases) }
        if let output { try report.write(to: output) }
        switch format {
        case .table: print(report.table().render())
        case .json: print(try jsonText(report.summaries), terminator: "")
        case .csv: print(report.table().csv(), terminator: "")
        }
    }

    static func corpusReport(count: Int, seed: UInt64, progress: Progress) throws -> SettleReport {
        let cases = SettleCorpus.generate(count: count, seed: seed)
        progress.note("settle: exact rest frames of \(count) cases")
        let exact = cases.map { ExactRest.restFrame($0) }
        progress.note("settle: the kernel's rest frames")
        let ours = try KernelRestFrames.restFrames(cases)
        progress.finish()
        return SettleReport(cases: cases, exact: exact, detectors: [("ours", ours)])
    }
}

/// Detectors' rest frames on one corpus, with the exact ones.
struct SettleReport {
    var cases: [SettleCase]
    var exact: [Int?]
    var detectors: [(name: String, frames: [Int?])]

    var summaries: [DetectorSummary] {
        detectors.map { DetectorSummary(detector: $0.name, cases: cases, exact: exact, reported: $0.frames) }
    }

    func table() -> TextTable {
        var table = TextTable(header: [
            "detector", "cases", "D=R", "D=R+1", "D>R+1", "early", "never", "within [R,R+1]",
            "latency p50", "p90", "p99", "max (frames)", "max (ms)",
        ])
        for s in summaries {
            table.rows.append([
                s.detector, "\(s.cases)", "\(s.exact)", "\(s.lateByOne)", "\(s.lateByMore)", "\(s.early)", "\(s.neverRested)",
                String(format: "%.3f%%", s.withinOneFrame * 100),
                String(format: "%g", s.latencyFrames.p50), String(format: "%g", s.latencyFrames.p90),
                String(format: "%g", s.latencyFrames.p99), String(format: "%g", s.latencyFrames.max),
                String(format: "%.1f", s.latencyMilliseconds.max),
            ])
        }
        return table
    }

    /// Per-case frames (`settle-cases.csv`), the summary as JSON and CSV.
    func write(to folder: String) throws {
        var lines = ["id,hz,exact_rest_frame," + detectors.map { "\($0.name)_rest_frame" }.joined(separator: ",")]
        for i in cases.indices {
            let frames = [exact[i]] + detectors.map { $0.frames[i] }
            lines.append("\(cases[i].id),\(cases[i].hz)," + frames.map { $0.map(String.init) ?? "" }.joined(separator: ","))
        }
        try writeFile(lines.joined(separator: "\n") + "\n", to: "\(folder)/settle-cases.csv")
        try writeFile(try jsonText(summaries), to: "\(folder)/settle.json")
        try writeFile(table().csv(), to: "\(folder)/settle.csv")
    }
}
