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
          without CURRENT.json, measures a fresh run first (quick if the baseline was). Exit status: 0 when
          nothing regressed, 1 on a regression or when a group of figures the baseline has is missing or
          empty in the current run, 2 on bad input (a file that is not a results.json of a schema this
          spring-bench reads, runs of different machines without --across-machines, an option out of range).

          Each figure is the median of its repeats (spring-steps/s; a ratio within one run, round by round:
          simd vs C, vs rk4-1ms and object-per-spring, variants vs the plain bank). Its change is
          current/baseline with a C (default 0.95) bootstrap interval over both runs' repeats, and is
            a regression   when the whole interval is worse than 1 by more than F (default 0.05)
            better         when the whole interval is better than 1 by more than F
            ok             otherwise (the change is within the noise, or smaller than F)
          Timed figures of runs written before intervals (schema 1) have no spread: "not judged".
          Exact figures (settle: early rests, never-rested, share within [R, R + 1], latency p99; the seed
          scenario's rest frame; heap allocations per frame) regress on any worsening.
          A change is judged only between comparable conditions: when the noise meter's readings of the
          two runs (and of the figure's group) agree, other processes' CPU within a tenth of the cores and
          steal within 2 points, the memory-bandwidth loops' medians within 25 %; otherwise it is "not
          judged" (a neighbour on the other core moved interleaved ratios by up to 36 %). Absolute figures (spring-steps/s, ns) also need the compute
          calibration loops to agree within F; ratios of a step on two threads, a quiet group.
          When either run was noisy (the noise meter marked a group), the intervals do not hold what moves
          a whole run (two loaded runs of the same code differed by up to 1.37x on single figures, both
          ways): a change is then told from the pair's noise by the changes the other way (knockoff+,
          false discovery rate 0.1). A loaded pair calls a regression only when at least 10 figures
          regress and few improve as much; the rest is "not judged".
          --output DIR writes DIR/compare.json.
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
        threshold = try arguments.double("threshold", in: 0...10) ?? 0.05
        confidence = try arguments.double("confidence", in: 0.5...0.999) ?? 0.95
        acrossMachines = arguments.flag("across-machines")
        format = try outputFormat(&arguments)
        _ = arguments.flag("quick")
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
    }

    /// One comparable number of a run.
    struct Figure {
        /// How a figure is judged (see the command's help).
        enum Kind: String, Codable {
            /// Spring-steps/s or ns: moves with the machine.
            case throughput, time
            /// Within one run, one thread: judged whatever the noise.
            case ratio
            /// Within one run, with a step on more than one thread.
            case threadedRatio = "threaded-ratio"
            case exact
        }
        /// A stable path-like name, `throughput/kernels/simd/16M/-/1thr`.
        var name: String
        /// The median of `samples`, or the figure itself when it has none.
        var value: Double
        /// The figure's value per repeat (or per pair of repeats, for a ratio); nil: a point.
        var samples: [Double]?
        /// Whether a larger value is an improvement.
        var higherIsBetter: Bool
        var kind: Kind
        /// The noise meter's reasons for the figure's group (empty: quiet).
        var noise: [String] = []
        /// The noise meter's name for the group it was measured in (`throughput 16K kernels`).
        var group: String? = nil
    }

    /// One figure in both runs.
    struct Comparison: Codable {
        var figure: String
        var kind: Figure.Kind
        var baseline: Double?
        var current: Double?
        /// current / baseline, and its interval.
        var ratio: Double?
        var low: Double?
        var high: Double?
        var threshold: Double
        /// "ok", "better", "regression", "not judged" (noise), or "missing" (in one run only).
        var verdict: String
        /// Why a figure was not judged.
        var note: String?
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
            figures.append(Figure(name: name, value: samples.flatMap(Bootstrap.median) ?? result.springStepsPerSecond.p50, samples: samples,
                                  higherIsBetter: true, kind: .throughput, noise: result.noise ?? [], group: meterGroup(result)))
        }
        for springs in Set(t.map(\.springs)).sorted() {
            let size = springCountLabel(springs)
            guard let simd = ResultsSummary.find(t, .simd, springs) else { continue }
            for other in [ThroughputKernel.cDisplacement, .cAbsolute, .rk4, .objectPerSpring] {
                if let o = ResultsSummary.find(t, other, springs) {
                    let (value, samples) = ratio(simd, o)
                    figures.append(Figure(name: "ratio/simd-vs-\(other.rawValue)/\(size)", value: value, samples: samples, higherIsBetter: true, kind: .ratio,
                                          noise: simd.noise ?? [], group: meterGroup(simd)))
                }
            }
            if let fixed = ResultsSummary.find(t, .fixed, springs), let c = ResultsSummary.find(t, .cFixed, springs) {
                let (value, samples) = ratio(fixed, c)
                figures.append(Figure(name: "ratio/fixed-vs-c-fixed/\(size)", value: value, samples: samples, higherIsBetter: true, kind: .ratio,
                                      noise: fixed.noise ?? [], group: meterGroup(fixed)))
            }
            if let probe = ResultsSummary.find(t, .probeBandwidth, springs) {
                let (value, samples) = ratio(simd, probe)
                figures.append(Figure(name: "ratio/simd-vs-probe-bandwidth/\(size)", value: value, samples: samples, higherIsBetter: true, kind: .ratio,
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
                        figures.append(Figure(
                            name: "ratio/\(group)/\(kernel == "simd" ? "" : kernel + "/")\(slug(variant.variantLabel))/\(variant.threadsRequested)thr/\(size)",
                            value: value, samples: samples, higherIsBetter: true, kind: variant.threads > 1 ? .threadedRatio : .ratio,
                            noise: variant.noise ?? [], group: meterGroup(variant)))
                    }
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
        let noise = i.noise ?? []
        func blocks(_ key: String) -> [Double]? { i.samples(key) }
        figures += [
            Figure(name: "interactions/frame-ns-p50", value: i.frameNsP50, samples: blocks("frame"), higherIsBetter: false, kind: .time, noise: noise, group: "interactions"),
            Figure(name: "interactions/kernel-step-ns-p50", value: i.kernelStepNsP50, samples: blocks("step"), higherIsBetter: false, kind: .time, noise: noise, group: "interactions"),
            Figure(name: "interactions/overhead-ns-per-moving-interaction", value: i.overheadNsPerMovingInteraction,
                   samples: blocks("overhead"), higherIsBetter: false, kind: .time, noise: noise, group: "interactions"),
            Figure(name: "interactions/input-ns-per-gesture-event", value: i.inputNsPerGestureEvent, samples: blocks("input"),
                   higherIsBetter: false, kind: .time, noise: noise, group: "interactions"),
            Figure(name: "interactions/allocations-per-frame", value: i.allocationsPerFrame, higherIsBetter: false, kind: .exact),
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
        if abs(b.stealShareMedian - c.stealShareMedian) > 0.02 { return "steal differed" }
        // Neighbours that load the memory system slow every figure (C loops, probes and ratios
        // too) while the CPU shares agree: two loaded runs of the same code, the memory-bandwidth
        // loops at 49.7 and 8.4 GB/s (medians), moved 43 figures by 0.45-0.92x, all one way.
        let bandwidth = c.bandwidthGigabytesPerSecond.p50 / b.bandwidthGigabytesPerSecond.p50
        if abs(log(bandwidth)) > log(1 + bandwidthTolerance) {
            return String(format: "the machine's load differed (memory-bandwidth loops %.1f and %.1f GB/s, medians)",
                          b.bandwidthGigabytesPerSecond.p50, c.bandwidthGigabytesPerSecond.p50)
        }
        guard let group, let rb = b.readings.first(where: { $0.group == group }), let rc = c.readings.first(where: { $0.group == group }) else { return nil }
        if abs(rb.otherProcessesCores - rc.otherProcessesCores) > cores {
            return String(format: "the machine's load differed over its group (other processes %.2f and %.2f cores)", rb.otherProcessesCores, rc.otherProcessesCores)
        }
        if abs(rb.stealShare - rc.stealShare) > 0.02 { return "steal differed over its group" }
        return nil
    }

    /// Why the two runs' absolute figures cannot be judged against each other (nil: they can):
    /// their compute calibration loops (the machine's speed) disagree by more than `threshold`.
    static func speedDiffers(_ baseline: RunResults, _ current: RunResults, threshold: Double) -> String? {
        guard let b = baseline.machine.noise, let c = current.machine.noise else { return nil }
        let compute = c.computeStepsPerSecond.p50 / b.computeStepsPerSecond.p50
        return abs(compute - 1) > threshold ? String(format: "the compute calibration loops differ (%.2fx)", compute) : nil
    }

    /// Every figure of either run, judged (see the command's help).
    static func compare(baseline: RunResults, current: RunResults, threshold: Double, confidence: Double = 0.95) -> [Comparison] {
        let before = Dictionary(figures(baseline).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(figures(current).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let speedNote = speedDiffers(baseline, current, threshold: threshold)
        let names = Set(before.keys).union(after.keys).sorted()
        // Every timed figure's interval first: on a noisy pair, each change is judged against the
        // changes of the whole pair (ChangeDetection.judge).
        var intervals: [String: Interval] = [:]
        for name in names {
            guard let b = before[name], let a = after[name], b.kind != .exact, let sa = a.samples, let sb = b.samples, !sa.isEmpty, !sb.isEmpty,
                  let interval = Bootstrap.ratioOfMediansInterval(sa, sb, confidence: confidence) else { continue }
            intervals[name] = interval
        }
        let judged = intervals.keys.sorted()
        let noisy = (baseline.machine.noise?.isNoisy ?? false) || (current.machine.noise?.isNoisy ?? false)
        let judgements = Dictionary(uniqueKeysWithValues: zip(judged, ChangeDetection.judge(
            judged.map { (intervals[$0]!, before[$0]!.higherIsBetter) }, threshold: threshold, noisy: noisy)))
        var comparisons: [Comparison] = []
        for name in names {
            let b = before[name], a = after[name]
            let kind = (b ?? a)!.kind
            guard let b, let a else {
                comparisons.append(Comparison(figure: name, kind: kind, baseline: b?.value, current: a?.value, threshold: threshold, verdict: "missing"))
                continue
            }
            var comparison = Comparison(figure: name, kind: kind, baseline: b.value, current: a.value, threshold: threshold, verdict: "ok")
            if kind == .exact {
                // Any worsening, however small.
                let worse = b.higherIsBetter ? b.value - a.value : a.value - b.value
                let allowed = 1e-12 * max(1, abs(b.value))
                comparison.ratio = b.value != 0 ? a.value / b.value : nil
                comparison.verdict = worse > allowed ? "regression" : (-worse > allowed ? "better" : "ok")
                comparisons.append(comparison)
                continue
            }
            guard let interval = intervals[name], let judgement = judgements[name] else {
                // A timed figure without its repeats (a run written before schema 2) has no spread:
                // its change cannot be told from noise.
                comparison.ratio = a.value / b.value
                comparison.verdict = "not judged"
                comparison.note = "no repeats in \(a.samples == nil ? "the current run" : "the baseline") (a run written before schema 2)"
                comparisons.append(comparison)
                continue
            }
            comparison.ratio = interval.estimate
            comparison.low = interval.low
            comparison.high = interval.high
            comparison.verdict = judgement.verdict.rawValue
            if comparison.verdict != "ok" {
                // Not judged unless measured in comparable conditions, and told from the pair's noise.
                var note = loadDiffers(baseline, current, group: a.group ?? b.group)
                switch kind {
                case .throughput, .time: note = note ?? speedNote
                case .threadedRatio:
                    if note == nil && (!a.noise.isEmpty || !b.noise.isEmpty) { note = "a step on two threads, measured on a loaded machine" }
                case .ratio, .exact: break
                }
                if note == nil && judgement.withheld {
                    note = "within the noise of a loaded pair (as many changes as large the other way)"
                }
                if let note {
                    comparison.verdict = "not judged"
                    comparison.note = note
                }
            }
            comparisons.append(comparison)
        }
        return comparisons
    }

    /// Exits 1 on a regression or a missing group, 0 otherwise (2, through `BenchMain`, on bad input).
    func run() throws -> Int32 {
        let baseline = try Self.load(baselinePath)
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
        if baseline.machine.slug != current.machine.slug && !acrossMachines {
            throw BenchError.input("the runs are of different machines (baseline \(baseline.machine.slug), current \(current.machine.slug)); --across-machines compares them anyway")
        }
        var notes: [String] = []
        if baseline.schema != current.schema { notes.append("the runs are of different versions (schema \(baseline.schema) and \(current.schema)): timed figures without repeats are not judged") }
        if baseline.machine.swiftVersion != current.machine.swiftVersion { notes.append("the runs were built by different compilers (Swift \(baseline.machine.swiftVersion) and \(current.machine.swiftVersion))") }
        let missing = Self.missingGroups(baseline: baseline, current: current)
        if !missing.isEmpty {
            FileHandle.standardError.write(Data("spring-bench compare: missing or empty in the current run, present in the baseline: \(missing.joined(separator: ", "))\n".utf8))
            return 1
        }
        let comparisons = Self.compare(baseline: baseline, current: current, threshold: threshold, confidence: confidence)
        let regressions = comparisons.filter { $0.verdict == "regression" }
        if let output { try writeFile(try jsonText(comparisons), to: "\(output)/compare.json") }
        for note in notes { FileHandle.standardError.write(Data("spring-bench compare: \(note)\n".utf8)) }
        switch format {
        case .table:
            var table = TextTable(header: ["figure", "kind", "baseline", "current", "current/baseline [interval]", "verdict"])
            for c in comparisons {
                let change = c.ratio.map { r in
                    String(format: "%.3f", r) + ((c.low != nil && c.low != c.high) ? String(format: " [%.3f, %.3f]", c.low!, c.high!) : "")
                } ?? "-"
                table.rows.append([
                    c.figure, c.kind.rawValue, c.baseline.map(Self.number) ?? "-", c.current.map(Self.number) ?? "-", change,
                    c.verdict == "regression" ? "REGRESSION" : c.verdict,
                ])
            }
            print("baseline: \(baseline.machine.headline), \(baseline.machine.date)\ncurrent:  \(current.machine.headline), \(current.machine.date)")
            print("a regression: the \(String(format: "%g", confidence * 100)) % interval of current/baseline wholly worse than 1 by more than \(String(format: "%g", threshold * 100)) %\n")
            print(table.render())
            let notJudged = comparisons.filter { $0.verdict == "not judged" }
            print("\n\(comparisons.count) figures: \(regressions.count) regressed, \(comparisons.filter { $0.verdict == "better" }.count) better, "
                + "\(notJudged.count) not judged (\(Set(notJudged.compactMap(\.note)).sorted().joined(separator: "; "))), "
                + "\(comparisons.filter { $0.verdict == "missing" }.count) in one run only")
        case .json: print(try jsonText(comparisons), terminator: "")
        case .csv:
            print(CSVText.text(header: ["figure", "kind", "baseline", "current", "ratio", "low", "high", "threshold", "verdict"], rows: comparisons.map { c in
                [c.figure, c.kind.rawValue, c.baseline.map { "\($0)" } ?? "", c.current.map { "\($0)" } ?? "", c.ratio.map { "\($0)" } ?? "",
                 c.low.map { "\($0)" } ?? "", c.high.map { "\($0)" } ?? "", "\(c.threshold)", c.verdict]
            }), terminator: "")
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
