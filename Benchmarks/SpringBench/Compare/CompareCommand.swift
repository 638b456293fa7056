import Foundation

/// `spring-bench compare`: each figure of a run against a baseline run, with relative thresholds.
struct CompareCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench compare BASELINE.json [CURRENT.json] [--throughput-threshold F] [--ratio-threshold F]
                             [--time-threshold F] [--format table|json|csv] [--output DIR]

          Reads two results.json files written by the default run (results/<machine>-<isa>/results.json);
          without CURRENT.json, measures a fresh run first (quick if the baseline was). Compares every
          figure both runs have and exits 1 if any regressed beyond its threshold (2 on a usage error):
            throughput   every p50 spring-steps/s                      worse by more than F (default 0.25)
            ratio        ratios taken within one run: simd vs C, vs     worse by more than F (default 0.10)
                         rk4-1ms and object-per-spring, share of the
                         bandwidth probe, variants vs the plain bank
            time         interactions: frame and kernel-step ns, ns    worse by more than F (default 0.25)
                         above the step per moving interaction
            exact        settle (early rests, never-rested, share      any worsening
                         within [R, R + 1], latency p99 per detector),
                         the seed scenario's rest frames, heap
                         allocations per frame
          --output DIR writes DIR/compare.json.
          Absolute throughput drifts by ±15 % between runs on a shared machine: compare runs made in the
          same conditions, and trust the ratio figures first.
        """

    /// The baseline results.json.
    var baselinePath: String
    /// The results.json to judge; nil: measure a fresh run.
    var currentPath: String?
    /// The relative worsening allowed per kind of figure (0 for exact figures).
    var thresholds: [Figure.Kind: Double]
    var format: OutputFormat
    var output: String?

    /// Reads the command's operands and options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        let operands = arguments.operands()
        guard let baseline = operands.first else { throw .usage("compare needs BASELINE.json\n\n\(Self.help)") }
        guard operands.count <= 2 else { throw .usage("compare takes BASELINE.json and at most one CURRENT.json") }
        baselinePath = baseline
        currentPath = operands.count == 2 ? operands[1] : nil
        thresholds = [
            .throughput: try arguments.double("throughput-threshold", in: 0...1e6) ?? 0.25,
            .ratio: try arguments.double("ratio-threshold", in: 0...1e6) ?? 0.10,
            .time: try arguments.double("time-threshold", in: 0...1e6) ?? 0.25,
            .exact: 0,
        ]
        guard thresholds.values.allSatisfy({ $0 >= 0 }) else { throw .usage("thresholds must not be negative") }
        format = try outputFormat(&arguments)
        _ = arguments.flag("quick")
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
    }

    /// One comparable number of a run.
    struct Figure {
        /// How a figure is judged (see the command's help).
        enum Kind: String, Codable { case throughput, ratio, time, exact }
        /// A stable path-like name, `throughput/kernels/simd/16M/-/1thr`.
        var name: String
        var value: Double
        /// Whether a larger value is an improvement.
        var higherIsBetter: Bool
        var kind: Kind
    }

    /// One figure in both runs.
    struct Comparison: Codable {
        var figure: String
        var kind: Figure.Kind
        var baseline: Double?
        var current: Double?
        /// current / baseline.
        var ratio: Double?
        var threshold: Double
        /// "ok", "better", "regression", or "missing" (in one run only).
        var verdict: String
    }

    /// Decodes a results.json (snake_case keys).
    static func load(_ path: String) throws(BenchError) -> RunResults {
        let data = try FileAccess.readData(path)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do { return try decoder.decode(RunResults.self, from: data) } catch {
            throw .input("\(path) is not a spring-bench results.json (schema 1): \(Self.describe(error))")
        }
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

    /// Every comparable figure of a run.
    static func figures(_ r: RunResults) -> [Figure] {
        var figures: [Figure] = []
        let t = r.throughput
        for result in t {
            let name = "throughput/\(result.group)/\(result.kernel)/\(springCountLabel(result.springs))/\(slug(result.variantLabel))/\(result.threadsRequested)thr"
            figures.append(Figure(name: name, value: result.springStepsPerSecond.p50, higherIsBetter: true, kind: .throughput))
        }
        for springs in Set(t.map(\.springs)).sorted() {
            let size = springCountLabel(springs)
            guard let simd = ResultsSummary.find(t, .simd, springs) else { continue }
            for other in [ThroughputKernel.cDisplacement, .cAbsolute, .rk4, .objectPerSpring] {
                if let o = ResultsSummary.find(t, other, springs) {
                    figures.append(Figure(name: "ratio/simd-vs-\(other.rawValue)/\(size)", value: simd.springStepsPerSecond.p50 / o.springStepsPerSecond.p50, higherIsBetter: true, kind: .ratio))
                }
            }
            if let roof = simd.roofline {
                figures.append(Figure(name: "ratio/simd-share-of-roofline/\(size)", value: roof.fraction.p50, higherIsBetter: true, kind: .ratio))
            }
            for group in ["threads", "pause", "settle", "configurations", "skip-at-rest"] {
                guard let plain = t.first(where: { $0.group == group && $0.springs == springs && $0.isPlain && $0.threadsRequested == "1" }) else { continue }
                for variant in t where variant.group == group && variant.springs == springs && !(variant.isPlain && variant.threadsRequested == "1") {
                    figures.append(Figure(
                        name: "ratio/\(group)/\(slug(variant.variantLabel))/\(variant.threadsRequested)thr/\(size)",
                        value: variant.springStepsPerSecond.p50 / plain.springStepsPerSecond.p50, higherIsBetter: true, kind: .ratio))
                }
            }
        }
        for s in r.settle {
            figures.append(Figure(name: "settle/\(s.detector)/early", value: Double(s.early), higherIsBetter: false, kind: .exact))
            figures.append(Figure(name: "settle/\(s.detector)/never-rested", value: Double(s.neverRested), higherIsBetter: false, kind: .exact))
            figures.append(Figure(name: "settle/\(s.detector)/within-one-frame", value: s.withinOneFrame, higherIsBetter: true, kind: .exact))
            figures.append(Figure(name: "settle/\(s.detector)/latency-p99-frames", value: s.latencyFrames.p99, higherIsBetter: false, kind: .exact))
        }
        for row in r.seedScenario.rows where row.detector == "ours" {
            if let frame = row.restFrame { figures.append(Figure(name: "seed-scenario/ours/rest-frame", value: Double(frame), higherIsBetter: false, kind: .exact)) }
        }
        let i = r.interactions
        figures += [
            Figure(name: "interactions/frame-ns-p50", value: i.frameNsP50, higherIsBetter: false, kind: .time),
            Figure(name: "interactions/kernel-step-ns-p50", value: i.kernelStepNsP50, higherIsBetter: false, kind: .time),
            Figure(name: "interactions/overhead-ns-per-moving-interaction", value: i.overheadNsPerMovingInteraction, higherIsBetter: false, kind: .time),
            Figure(name: "interactions/input-ns-per-gesture-event", value: i.inputNsPerGestureEvent, higherIsBetter: false, kind: .time),
            Figure(name: "interactions/allocations-per-frame", value: i.allocationsPerFrame, higherIsBetter: false, kind: .exact),
        ]
        return figures
    }

    /// A variant label as a name part: `50%-paused+settle-churn`.
    static func slug(_ label: String) -> String {
        label.replacingOccurrences(of: ", ", with: "+").replacingOccurrences(of: " ", with: "-")
    }

    /// Every figure of either run, judged: a regression is a worsening beyond the figure's threshold.
    static func compare(baseline: RunResults, current: RunResults, thresholds: [Figure.Kind: Double]) -> [Comparison] {
        let before = Dictionary(figures(baseline).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(figures(current).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var comparisons: [Comparison] = []
        for name in Set(before.keys).union(after.keys).sorted() {
            let b = before[name], a = after[name]
            let kind = (b ?? a)!.kind
            let threshold = thresholds[kind] ?? 0
            guard let b, let a else {
                comparisons.append(Comparison(figure: name, kind: kind, baseline: b?.value, current: a?.value, ratio: nil, threshold: threshold, verdict: "missing"))
                continue
            }
            // Worse by a fraction of the baseline (relative), or at all (exact).
            let worse = b.higherIsBetter ? b.value - a.value : a.value - b.value
            let allowed = kind == .exact ? 1e-12 * max(1, abs(b.value)) : threshold * abs(b.value)
            let verdict = worse > allowed ? "regression" : (-worse > allowed ? "better" : "ok")
            comparisons.append(Comparison(
                figure: name, kind: kind, baseline: b.value, current: a.value, ratio: b.value != 0 ? a.value / b.value : nil,
                threshold: threshold, verdict: verdict))
        }
        return comparisons
    }

    /// Exits non-zero (through `BenchMain`) when a figure regressed.
    func run() throws -> Int32 {
        let baseline = try Self.load(baselinePath)
        let current: RunResults
        if let currentPath {
            current = try Self.load(currentPath)
        } else {
            let progress = Progress()
            current = try DefaultRun.measure(quick: baseline.quick, progress: progress).0
            progress.finish()
        }
        // A run that lacks a whole kind of figure the baseline has (no throughput at all) compares
        // nothing of that kind: that is a failure, not a pass.
        let currentKinds = Set(Self.figures(current).map(\.kind))
        let absent = Set(Self.figures(baseline).map(\.kind)).subtracting(currentKinds).map(\.rawValue).sorted()
        if !absent.isEmpty {
            throw BenchError.failed("the current run has no \(absent.joined(separator: " or ")) figures; the baseline has them")
        }
        let comparisons = Self.compare(baseline: baseline, current: current, thresholds: thresholds)
        let regressions = comparisons.filter { $0.verdict == "regression" }
        if let output { try writeFile(try jsonText(comparisons), to: "\(output)/compare.json") }
        switch format {
        case .table:
            var table = TextTable(header: ["figure", "kind", "baseline", "current", "current/baseline", "limit", "verdict"])
            for c in comparisons {
                table.rows.append([
                    c.figure, c.kind.rawValue, c.baseline.map(Self.number) ?? "-", c.current.map(Self.number) ?? "-",
                    c.ratio.map { String(format: "%.3f", $0) } ?? "-", c.kind == .exact ? "exact" : String(format: "%.0f %%", c.threshold * 100),
                    c.verdict == "regression" ? "REGRESSION" : c.verdict,
                ])
            }
            print("baseline: \(baseline.machine.headline), \(baseline.machine.date)\ncurrent:  \(current.machine.headline), \(current.machine.date)\n")
            print(table.render())
            print("\n\(comparisons.count) figures: \(regressions.count) regressed, \(comparisons.filter { $0.verdict == "better" }.count) better, "
                + "\(comparisons.filter { $0.verdict == "missing" }.count) in one run only")
        case .json: print(try jsonText(comparisons), terminator: "")
        case .csv:
            print("figure,kind,baseline,current,ratio,threshold,verdict")
            for c in comparisons {
                print("\(c.figure),\(c.kind.rawValue),\(c.baseline.map { "\($0)" } ?? ""),\(c.current.map { "\($0)" } ?? ""),\(c.ratio.map { "\($0)" } ?? ""),\(c.threshold),\(c.verdict)")
            }
        }
        if !regressions.isEmpty {
            FileHandle.standardError.write(Data("spring-bench compare: \(regressions.count) figure(s) regressed: \(regressions.prefix(5).map(\.figure).joined(separator: ", "))\(regressions.count > 5 ? ", ..." : "")\n".utf8))
        }
        return regressions.isEmpty ? 0 : 1
    }

    /// A figure for the table: engineering notation from 1000 up.
    static func number(_ value: Double) -> String {
        abs(value) >= 1000 ? engineering(value) : String(format: "%.4g", value)
    }
}
