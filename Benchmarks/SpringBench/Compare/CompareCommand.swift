import BenchStatistics
import Foundation

/// `spring-bench compare`: each figure of a run against a baseline run. A change is a regression
/// only when the 95 % intervals show one beyond the noise threshold.
struct CompareCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench compare BASELINE.json [CURRENT.json] [--threshold F] [--confidence C] [--across-machines]
                             [--format table|json|csv] [--output DIR]

          Reads two results.json files written by the default run (results/<machine>-<isa>/results.json);
          without CURRENT.json, measures a fresh run first (quick if the baseline was). Exit status:
            0  nothing regressed, and at least half the figures in both runs were judged
            1  a regression: a figure regressed; a figure of the baseline is missing from a group the current
               run measured (a benchmark that dropped a row); or a group of figures the baseline has is
               missing or empty in the current run
            2  bad input: a file that is not a results.json of a schema this spring-bench reads, or that has
               two rows of one figure, an impossible figure (0 or negative ns, a negative or fractional
               count, a share above 1) or, from schema 2 on, a timed figure without repeats; runs of
               different machines without --across-machines; an option out of range
            3  no verdict: fewer than half the figures in both runs were judged (their conditions differed,
               or a run of schema 1 has no repeats to judge its timed figures by)

          Each figure is the median of its repeats (spring-steps/s; a ratio within one run, round by round:
          simd vs C, vs rk4-1ms and object-per-spring, variants vs the plain bank). Its change is
          current/baseline with a C (default 0.95) bootstrap interval over both runs' repeats, and is
            a regression   when the whole interval is worse than 1 by more than a factor of 1 + F (F in
                           \(ChangeDetection.thresholds), default 0.05): above 1 + F for a time, below 1/(1 + F)
                           for a rate or a ratio; so every F detects a slowdown
            better         when the whole interval is better than 1 by more than that factor
            ok             otherwise (the change is within the noise, or within the factor)
          Timed figures of runs written before intervals (schema 1) have no spread: "not judged".
          Exact figures (settle: early rests, never-rested, share within [R, R + 1], latency p99; the seed
          scenario's rest frame; heap allocations per frame) regress on any worsening.
          A change is judged only between comparable conditions: when the noise meter's readings of the
          two runs (and of the figure's group) agree, other processes' CPU within a tenth of the cores and
          steal within 2 points, the memory-bandwidth loops' medians within 25 %; otherwise it is "not
          judged" (a neighbour on the other core moved interleaved ratios by up to 36 %). Absolute figures
          (spring-steps/s, ns) also need the compute calibration loops to agree within a factor of 1 + F;
          ratios of a step on two threads, a quiet group.
          When either run was noisy (the noise meter marked a group), the intervals do not hold what moves
          a whole run (two loaded runs of the same code differed by up to 1.37x on single figures, both
          ways): a change is then told from the pair's noise by the changes the other way (knockoff+,
          false discovery rate 0.1). A loaded pair calls a regression only when at least 10 figures
          regress and few improve as much; the rest is "not judged".
          The table's last line counts the figures: how many of those in both runs were judged, regressed,
          better, not judged (with the reasons), dropped from a group the current run measured, and in one
          run only (a size one run did not measure). --output DIR writes DIR/compare.json.
        """

    /// The baseline results.json.
    var baselinePath: String
    /// The results.json to judge; nil: measure a fresh run.
    var currentPath: String?
    /// The relative change below which nothing counts, whatever the interval says.
    var threshold: Double
    var confidence: Double
    var acrossMachines: Bool
    var format: OutputFormat
    var output: String?

    /// Reads the command's operands and options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        let operands = arguments.operands()
        guard let baseline = operands.first else { throw .usage("compare needs BASELINE.json (spring-bench compare --help)") }
        guard operands.count <= 2 else { throw .usage("compare takes BASELINE.json and at most one CURRENT.json") }
        baselinePath = baseline
        currentPath = operands.count == 2 ? operands[1] : nil
        threshold = try arguments.double("threshold", in: ChangeDetection.thresholds) ?? 0.05
        confidence = try arguments.double("confidence", in: 0.5...0.999) ?? 0.95
        acrossMachines = arguments.flag("across-machines")
        format = try outputFormat(&arguments)
        _ = arguments.flag("quick")
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
    }

    /// The schemas `compare` reads.
    static let readableSchemas = 1...RunResults.currentSchema

    /// Decodes a results.json (snake_case keys) of a schema this spring-bench reads.
    static func load(_ path: String) throws(BenchError) -> RunResults {
        let data = try FileAccess.readData(path)
        guard !data.isEmpty else { throw .input("\(printable(path)) is empty: not a spring-bench results.json") }
        struct Versioned: Decodable { var schema: Int? }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let versioned = try? decoder.decode(Versioned.self, from: data), let schema = versioned.schema else {
            throw .input("\(printable(path)) is not a spring-bench results.json (no \"schema\" number)")
        }
        guard readableSchemas.contains(schema) else {
            throw .input("\(printable(path)) has schema \(schema); this spring-bench reads schemas \(readableSchemas.lowerBound)...\(readableSchemas.upperBound)")
        }
        // A group of figures left out altogether reads as an empty one, so that `run` names it as
        // missing (exit 1), as it names an empty group, instead of refusing the file as bad input.
        var document = data
        if var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] {
            let arrayGroups = ["throughput", "settle", "settle_reference"]
            if arrayGroups.contains(where: { object[$0] == nil }) {
                for key in arrayGroups where object[key] == nil { object[key] = [Any]() }
                if let patched = try? JSONSerialization.data(withJSONObject: object) { document = patched }
            }
        }
        do { return try decoder.decode(RunResults.self, from: document) } catch {
            throw .input("\(printable(path)) is not a spring-bench results.json (schema \(schema)): \(Self.describe(error))")
        }
    }

    /// The groups of figures a run holds, with how many entries each has: each throughput group
    /// (`throughput/kernels`), and each other command's part of the run (`settle`, `events`...).
    static func groups(_ r: RunResults) -> [String: Int] {
        var groups: [String: Int] = [:]
        for result in r.throughput { groups["throughput/\(result.group)", default: 0] += 1 }
        groups["settle"] = r.settle.count
        groups["settle-reference"] = r.settleReference.count
        groups["seed-scenario"] = r.seedScenario.rows.count
        groups["interactions"] = r.interactions.frames > 0 ? 1 : 0
        if let fixed = r.fixedSettle { groups["fixed-settle"] = fixed.count }
        if let determinism = r.determinism { groups["determinism"] = determinism.count }
        if let events = r.events { groups["events"] = events.count }
        if let clocks = r.settleClocks { groups["settle-clocks"] = clocks.count }
        if r.fidelity != nil { groups["fidelity"] = 1 }
        return groups
    }

    /// The groups the baseline has (not empty) that the current run lacks or has empty: comparing
    /// nothing there is a failure, not a pass.
    static func missingGroups(baseline: RunResults, current: RunResults) -> [String] {
        let now = groups(current)
        return groups(baseline).filter { $0.value > 0 && (now[$0.key] ?? 0) == 0 }.map(\.key).sorted()
    }

    /// The figures of the run read from `path`, refused (exit 2, one line naming the file and the
    /// figure) when two rows give the same figure, when a figure is impossible, or when a run of
    /// schema 2 on has a timed figure without repeats (``RunComparison/problem(in:repeatsRecorded:)``).
    static func checkedFigures(_ r: RunResults, path: String) throws(BenchError) -> [RunFigure] {
        let figures = figures(r)
        if let problem = RunComparison.problem(in: figures, repeatsRecorded: r.schema >= 2) { throw .input("\(printable(path)): \(problem)") }
        return figures
    }

    /// The groups a run measured: its figures' groups (`throughput 16K kernels`, `settle`), and
    /// every group of ``groups(_:)`` it holds entries of (a seed scenario whose `ours` never rested
    /// has no figure, but was measured).
    static func measuredGroups(_ r: RunResults, figures: [RunFigure]) -> Set<String> {
        Set(figures.compactMap(\.group)).union(groups(r).filter { $0.value > 0 }.keys)
    }

    /// A decoding error in one line: where in the document, and what was wrong.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return FileAccess.reason(error) }
        let context: DecodingError.Context
        switch error {
        case .keyNotFound(let key, let c): return "missing \((c.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): context = c
        @unknown default: return "cannot decode"
        }
        let place = context.codingPath.map(\.stringValue).joined(separator: ".")
        let reason = context.underlyingError.map { ($0 as NSError).localizedDescription } ?? context.debugDescription
        return (place.isEmpty ? "" : "\(place): ") + (reason.split(separator: "\n").first.map(String.init) ?? reason)
    }

    /// Every comparable figure of a run, unchecked (``checkedFigures(_:path:)`` checks them).
    static func figures(_ r: RunResults) -> [RunFigure] {
        var figures: [RunFigure] = []
        let t = r.throughput
        func stepsPerSecond(_ result: ThroughputResult) -> [Double]? {
            result.samplesNanosecondsPerFrame.map { $0.map { Double(result.springStepsPerFrame) / ($0 * 1e-9) } }
        }
        func ratio(_ a: ThroughputResult, _ b: ThroughputResult) -> (Double, [Double]?) {
            let samples: [Double]? = if let sa = stepsPerSecond(a), let sb = stepsPerSecond(b), sa.count == sb.count { Bootstrap.pairedRatios(sa, sb) } else { nil }
            return (samples.flatMap(Bootstrap.median) ?? a.springStepsPerSecond.p50 / b.springStepsPerSecond.p50, samples)
        }
        for result in t {
            let name = "throughput/\(result.group)/\(result.kernel)/\(springCountLabel(result.springs))/\(slug(result.variantLabel))/\(result.threadsRequested)thr"
            let samples = stepsPerSecond(result)
            figures.append(RunFigure(name: name, value: samples.flatMap(Bootstrap.median) ?? result.springStepsPerSecond.p50, samples: samples,
                                  higherIsBetter: true, kind: .throughput, noise: result.noise ?? [], group: meterGroup(result)))
        }
        for springs in Set(t.map(\.springs)).sorted() {
            let size = springCountLabel(springs)
            // Without the simd row, its ratios are missing; the other ratios of the size still count.
            let simd = ResultsSummary.find(t, .simd, springs)
            for other in [ThroughputKernel.cDisplacement, .cAbsolute, .rk4, .objectPerSpring] {
                if let simd, let o = ResultsSummary.find(t, other, springs) {
                    let (value, samples) = ratio(simd, o)
                    figures.append(RunFigure(name: "ratio/simd-vs-\(other.rawValue)/\(size)", value: value, samples: samples, higherIsBetter: true, kind: .ratio,
                                             noise: simd.noise ?? [], group: meterGroup(simd)))
                }
            }
            if let fixed = ResultsSummary.find(t, .fixed, springs), let c = ResultsSummary.find(t, .cFixed, springs) {
                let (value, samples) = ratio(fixed, c)
                figures.append(RunFigure(name: "ratio/fixed-vs-c-fixed/\(size)", value: value, samples: samples, higherIsBetter: true, kind: .ratio,
                                         noise: fixed.noise ?? [], group: meterGroup(fixed)))
            }
            if let simd, let probe = ResultsSummary.find(t, .probeBandwidth, springs) {
                let (value, samples) = ratio(simd, probe)
                figures.append(RunFigure(name: "ratio/simd-vs-probe-bandwidth/\(size)", value: value, samples: samples, higherIsBetter: true, kind: .ratio,
                                         noise: simd.noise ?? [], group: meterGroup(simd)))
            }
            for group in ["threads", "pause", "settle", "configurations", "skip-at-rest", "frame-clock"] {
                for kernel in ["simd", "fixed"] {
                    guard let plain = t.first(where: {
                        $0.group == group && $0.springs == springs && $0.kernel == kernel && $0.isPlain && $0.threadsRequested == "1" && ($0.frameClock ?? "steady") == "steady"
                    }) else { continue }
                    for variant in t where variant.group == group && variant.springs == springs && variant.kernel == kernel
                        && !(variant.isPlain && variant.threadsRequested == "1" && (variant.frameClock ?? "steady") == "steady") {
                        let (value, samples) = ratio(variant, plain)
                        figures.append(RunFigure(
                            name: "ratio/\(group)/\(kernel == "simd" ? "" : kernel + "/")\(slug(variant.variantLabel))/\(variant.threadsRequested)thr/\(size)",
                            value: value, samples: samples, higherIsBetter: true, kind: variant.threads > 1 ? .threadedRatio : .ratio,
                            noise: variant.noise ?? [], group: meterGroup(variant)))
                    }
                }
            }
        }
        for s in r.settle {
            func exact(_ figure: String, _ value: Double, higherIsBetter: Bool = false, _ domain: RunFigure.Domain) {
                figures.append(RunFigure(name: "settle/\(s.detector)/\(figure)", value: value, higherIsBetter: higherIsBetter, kind: .exact, domain: domain, group: "settle"))
            }
            exact("early", Double(s.early), .count)
            exact("never-rested", Double(s.neverRested), .count)
            exact("within-one-frame", s.withinOneFrame, higherIsBetter: true, .share)
            exact("latency-p99-frames", s.latencyFrames.p99, .finite)  // negative when early
        }
        for row in r.seedScenario.rows where row.detector == "ours" {
            if let frame = row.restFrame {
                figures.append(RunFigure(name: "seed-scenario/ours/rest-frame", value: Double(frame), higherIsBetter: false, kind: .exact, domain: .count, group: "seed-scenario"))
            }
        }
        let i = r.interactions
        let noise = i.noise ?? []
        func blocks(_ key: String) -> [Double]? { i.samples(key) }
        figures += [
            RunFigure(name: "interactions/frame-ns-p50", value: i.frameNsP50, samples: blocks("frame"), higherIsBetter: false, kind: .time, noise: noise, group: "interactions"),
            RunFigure(name: "interactions/kernel-step-ns-p50", value: i.kernelStepNsP50, samples: blocks("step"), higherIsBetter: false, kind: .time, noise: noise, group: "interactions"),
            RunFigure(name: "interactions/overhead-ns-per-moving-interaction", value: i.overheadNsPerMovingInteraction,
                      samples: blocks("overhead"), higherIsBetter: false, kind: .time, noise: noise, group: "interactions"),
            RunFigure(name: "interactions/input-ns-per-gesture-event", value: i.inputNsPerGestureEvent, samples: blocks("input"),
                      higherIsBetter: false, kind: .time, noise: noise, group: "interactions"),
            RunFigure(name: "interactions/allocations-per-frame", value: i.allocationsPerFrame, higherIsBetter: false, kind: .exact, domain: .nonNegative,
                      group: "interactions"),
        ]
        return figures
    }

    /// A variant label as a name part: `50%-paused+settle-churn`.
    static func slug(_ label: String) -> String {
        label.replacingOccurrences(of: ", ", with: "+").replacingOccurrences(of: " ", with: "-")
    }

    /// The noise meter's name for a throughput result's group.
    static func meterGroup(_ result: ThroughputResult) -> String {
        "throughput \(springCountLabel(result.springs)) \(result.group)"
    }

    /// How far the two runs' memory-bandwidth loops (medians) may differ, as a factor above 1:
    /// within a run the loop reads ±15 % on a loaded machine.
    static let bandwidthTolerance = 0.25

    /// Why two runs' timed figures cannot be judged against each other (nil: they can): the
    /// machine's load differed, by the noise meter's readings over the whole runs or over the
    /// figure's group (other processes' CPU by more than a tenth of the machine's cores, steal by
    /// more than 2 points; over the whole runs, the memory-bandwidth loops by more than
    /// ``bandwidthTolerance``). A neighbour on the other core of a 2-vCPU VM moved interleaved
    /// single-thread ratios by up to 36 %: comparable conditions first, then intervals.
    static func loadDiffers(_ baseline: RunResults, _ current: RunResults, group: String?) -> String? {
        guard let b = baseline.machine.noise, let c = current.machine.noise else { return nil }
        let cores = 0.1 * Double(max(1, baseline.machine.processors))
        if abs(b.otherProcessesCoresMedian - c.otherProcessesCoresMedian) > cores {
            return String(format: "the machine's load differed (other processes %.2f and %.2f cores, medians)", b.otherProcessesCoresMedian, c.otherProcessesCoresMedian)
        }
        if abs(b.stealShareMedian - c.stealShareMedian) > 0.02 {
            return String(format: "the machine's load differed (steal %.1f and %.1f %%, medians)", 100 * b.stealShareMedian, 100 * c.stealShareMedian)
        }
        // Neighbours that load the memory system slow every figure (C loops, probes and ratios
        // too) while the CPU shares agree: two loaded runs of the same code, the memory-bandwidth
        // loops at 49.7 and 8.4 GB/s (medians), moved 43 figures by 0.45-0.92x, all one way.
        let bandwidth = c.bandwidthGigabytesPerSecond.p50 / b.bandwidthGigabytesPerSecond.p50
        if ChangeDetection.differs(bandwidth, threshold: bandwidthTolerance) {
            return String(format: "the machine's load differed (memory-bandwidth loops %.1f and %.1f GB/s, medians)",
                          b.bandwidthGigabytesPerSecond.p50, c.bandwidthGigabytesPerSecond.p50)
        }
        guard let group, let rb = b.readings.first(where: { $0.group == group }), let rc = c.readings.first(where: { $0.group == group }) else { return nil }
        if abs(rb.otherProcessesCores - rc.otherProcessesCores) > cores {
            return String(format: "the machine's load differed over its group (other processes %.2f and %.2f cores)", rb.otherProcessesCores, rc.otherProcessesCores)
        }
        if abs(rb.stealShare - rc.stealShare) > 0.02 {
            return String(format: "the machine's load differed over its group (steal %.1f and %.1f %%)", 100 * rb.stealShare, 100 * rc.stealShare)
        }
        return nil
    }

    /// Why the two runs' absolute figures cannot be judged against each other (nil: they can):
    /// their compute calibration loops (the machine's speed) disagree by more than a factor of 1 + `threshold`.
    static func speedDiffers(_ baseline: RunResults, _ current: RunResults, threshold: Double) -> String? {
        guard let b = baseline.machine.noise, let c = current.machine.noise else { return nil }
        let compute = c.computeStepsPerSecond.p50 / b.computeStepsPerSecond.p50
        return ChangeDetection.differs(compute, threshold: threshold) ? String(format: "the compute calibration loops differ (%.2fx)", compute) : nil
    }

    /// Every figure of either run, judged (see the command's help), under the two runs' conditions:
    /// their noise meters, load and calibration loops.
    static func compare(
        baseline: RunResults, current: RunResults, figures: (baseline: [RunFigure], current: [RunFigure]), threshold: Double, confidence: Double = 0.95
    ) -> [FigureComparison] {
        RunComparison.compare(
            baseline: figures.baseline, current: figures.current, measured: measuredGroups(current, figures: figures.current), threshold: threshold,
            confidence: confidence, noisy: (baseline.machine.noise?.isNoisy ?? false) || (current.machine.noise?.isNoisy ?? false),
            loadNote: { loadDiffers(baseline, current, group: $0) }, speedNote: speedDiffers(baseline, current, threshold: threshold))
    }

    /// Exit status 1 when the current run regressed (a figure, a dropped figure or a missing
    /// group), 3 when too few figures were judged to tell, 0 otherwise (2, through `BenchMain`, on
    /// bad input).
    func run() throws -> Int32 {
        let baseline = try Self.load(baselinePath)
        let baselineFigures = try Self.checkedFigures(baseline, path: baselinePath)
        let current: RunResults
        if let currentPath {
            current = try Self.load(currentPath)
        } else {
            let progress = Progress()
            current = try DefaultRun.measure(
                quick: baseline.quick, full: baseline.full ?? false, settings: DefaultRun.Settings(budget: baseline.quick ? 1 : 2, repeats: nil, confidence: confidence),
                progress: progress).0
            progress.finish()
        }
        let currentFigures = try Self.checkedFigures(current, path: currentPath ?? "the current run")
        if baseline.machine.slug != current.machine.slug && !acrossMachines {
            throw BenchError.input("the runs are of different machines (baseline \(baseline.machine.slug), current \(current.machine.slug)); --across-machines compares them anyway")
        }
        var notes: [String] = []
        if baseline.schema != current.schema { notes.append("the runs are of different versions (schema \(baseline.schema) and \(current.schema)): timed figures without repeats are not judged") }
        if baseline.machine.swiftVersion != current.machine.swiftVersion { notes.append("the runs were built by different compilers (Swift \(baseline.machine.swiftVersion) and \(current.machine.swiftVersion))") }
        let missing = Self.missingGroups(baseline: baseline, current: current)
        if !missing.isEmpty {
            Self.say("missing or empty in the current run, present in the baseline: \(missing.joined(separator: ", "))")
            return 1
        }
        let comparisons = Self.compare(baseline: baseline, current: current, figures: (baselineFigures, currentFigures), threshold: threshold, confidence: confidence)
        let summary = ComparisonSummary(comparisons)
        if let output { try writeFile(try jsonText(comparisons), to: "\(output)/compare.json") }
        for note in notes { Self.say(note) }
        switch format {
        case .table:
            var table = TextTable(header: ["figure", "kind", "baseline", "current", "current/baseline [interval]", "verdict"])
            for c in comparisons {
                let change = c.ratio.map { r in
                    String(format: "%.3f", r) + ((c.low != nil && c.low != c.high) ? String(format: " [%.3f, %.3f]", c.low!, c.high!) : "")
                } ?? "-"
                table.rows.append([
                    c.figure, c.kind.rawValue, c.baseline.map(Self.number) ?? "-", c.current.map(Self.number) ?? "-", change,
                    c.verdict == .regression || c.verdict == .dropped ? c.verdict.rawValue.uppercased() : c.verdict.rawValue,
                ])
            }
            print("baseline: \(baseline.machine.headline), \(baseline.machine.date)\ncurrent:  \(current.machine.headline), \(current.machine.date)")
            print("a regression: the \(String(format: "%g", confidence * 100)) % interval of current/baseline wholly worse than 1 by more than a factor of "
                + "\(String(format: "%g", 1 + threshold))\n")
            print(table.render())
            print("\n" + summary.line)
        case .json: print(try jsonText(comparisons), terminator: "")
        case .csv:
            print(CSVText.text(header: ["figure", "kind", "baseline", "current", "ratio", "low", "high", "threshold", "verdict"], rows: comparisons.map { c in
                [c.figure, c.kind.rawValue, c.baseline.map { "\($0)" } ?? "", c.current.map { "\($0)" } ?? "", c.ratio.map { "\($0)" } ?? "",
                 c.low.map { "\($0)" } ?? "", c.high.map { "\($0)" } ?? "", "\(c.threshold)", c.verdict.rawValue]
            }), terminator: "")
        }
        let regressions = comparisons.filter { $0.verdict == .regression }, dropped = comparisons.filter { $0.verdict == .dropped }
        if !regressions.isEmpty { Self.say("\(regressions.count) figure(s) regressed: \(Self.names(regressions))") }
        if !dropped.isEmpty { Self.say("\(dropped.count) figure(s) of the baseline missing from their group in the current run: \(Self.names(dropped))") }
        if !regressions.isEmpty || !dropped.isEmpty { return 1 }
        if summary.tooFewJudged {
            Self.say("\(summary.judged) of \(summary.compared) figures in both runs judged, fewer than "
                + "\(String(format: "%g", ComparisonSummary.minimumJudgedShare * 100)) %: no verdict (\(summary.notes.joined(separator: "; ")))")
            return 3
        }
        return 0
    }

    /// A line on stderr, after the command's name.
    static func say(_ line: String) {
        FileHandle.standardError.write(Data("spring-bench compare: \(line)\n".utf8))
    }

    /// The first five figures' names, for a line on stderr.
    static func names(_ comparisons: [FigureComparison]) -> String {
        comparisons.prefix(5).map(\.figure).joined(separator: ", ") + (comparisons.count > 5 ? ", ..." : "")
    }

    /// A figure for the table: engineering notation from 1000 up.
    static func number(_ value: Double) -> String {
        abs(value) >= 1000 ? engineering(value) : String(format: "%.4g", value)
    }
}
