import Foundation

/// One comparable number of a run: what `spring-bench compare` judges.
public struct RunFigure: Sendable {
    /// How a figure is judged (see `spring-bench compare --help`).
    public enum Kind: String, Codable, Sendable {
        /// Spring-steps/s or ns: moves with the machine.
        case throughput, time
        /// Within one run, one thread: judged whatever the noise.
        case ratio
        /// Within one run, with a step on more than one thread.
        case threadedRatio = "threaded-ratio"
        /// A count or a share over a corpus: no spread; any worsening regresses.
        case exact
    }

    /// The values a figure can take. A run with a figure outside its domain is not a run
    /// spring-bench wrote, and `compare` refuses it instead of judging it.
    public enum Domain: Sendable {
        /// Above 0 and finite: a time, a rate, a ratio of two.
        case positive
        /// A whole number, 0 or more: cases, a frame number.
        case count
        /// 0 to 1: a fraction of cases.
        case share
        /// 0 or more, finite: allocations per frame.
        case nonNegative
        /// Any finite number: a latency in frames (negative when a detector is early).
        case finite

        /// Whether `value` is one this domain holds.
        public func contains(_ value: Double) -> Bool {
            guard value.isFinite else { return false }
            switch self {
            case .positive: return value > 0
            case .count: return value >= 0 && value == value.rounded()
            case .share: return (0...1).contains(value)
            case .nonNegative: return value >= 0
            case .finite: return true
            }
        }

        /// The domain in words, for a message.
        public var words: String {
            switch self {
            case .positive: "above 0 and finite"
            case .count: "a whole number, 0 or more"
            case .share: "a share, 0 to 1"
            case .nonNegative: "0 or more, finite"
            case .finite: "finite"
            }
        }
    }

    /// A stable path-like name, `throughput/kernels/simd/16M/-/1thr`.
    public var name: String
    /// The median of `samples`, or the figure itself when it has none.
    public var value: Double
    /// The figure's value per repeat (or per pair of repeats, for a ratio); nil: a point.
    public var samples: [Double]?
    /// Whether a larger value is an improvement.
    public var higherIsBetter: Bool
    public var kind: Kind
    /// The values the figure and its samples can take.
    public var domain: Domain
    /// The noise meter's reasons for the figure's group (empty: quiet).
    public var noise: [String]
    /// The group it was measured in: the noise meter's name for a timed figure's group
    /// (`throughput 16K kernels`), its command's part for an exact one (`settle`).
    public var group: String?

    public init(
        name: String, value: Double, samples: [Double]? = nil, higherIsBetter: Bool, kind: Kind, domain: Domain = .positive,
        noise: [String] = [], group: String? = nil
    ) {
        self.name = name
        self.value = value
        self.samples = samples
        self.higherIsBetter = higherIsBetter
        self.kind = kind
        self.domain = domain
        self.noise = noise
        self.group = group
    }

    /// Why the figure is impossible (nil: it is not): its value or a repeat outside its domain.
    public var impossibility: String? {
        if !domain.contains(value) { return "\(name) is \(String(format: "%g", value)), an impossible figure (\(domain.words))" }
        if let bad = samples?.first(where: { !domain.contains($0) }) {
            return "\(name) has a repeat of \(String(format: "%g", bad)), an impossible figure (\(domain.words))"
        }
        return nil
    }
}

/// What `compare` calls a figure of either run.
public enum ComparisonVerdict: String, Codable, Sendable {
    /// Judged: the change is within the noise or the threshold, better, or a regression.
    case ok, better, regression
    /// Measured in both runs, but not comparable: the note says why.
    case notJudged = "not judged"
    /// In one run only: a figure the baseline lacks, or one of a group the current run did not
    /// measure (a size a `--quick` run leaves out).
    case missing
    /// A figure of the baseline missing from its group in the current run, which measured that
    /// group: a benchmark that drops a row fails, as a regression does.
    case dropped
}

/// One figure in both runs.
public struct FigureComparison: Codable, Sendable {
    public var figure: String
    public var kind: RunFigure.Kind
    public var baseline: Double?
    public var current: Double?
    /// current / baseline, and its interval.
    public var ratio: Double?
    public var low: Double?
    public var high: Double?
    public var threshold: Double
    public var verdict: ComparisonVerdict
    /// Why a figure was not judged.
    public var note: String?
}

/// The counts of a comparison, and the line that ends `compare`'s table.
public struct ComparisonSummary: Hashable, Sendable {
    /// Figures in both runs.
    public var compared = 0
    /// Of those, the ones judged (ok, better or regression).
    public var judged = 0
    public var regressed = 0
    public var better = 0
    public var notJudged = 0
    public var dropped = 0
    /// In one run only.
    public var missing = 0
    /// Why figures were not judged, each reason once, sorted.
    public var notes: [String] = []

    /// At least this share of the figures in both runs must be judged for a comparison to pass:
    /// a run where most figures could not be judged (the machine's load differed) says nothing
    /// about the code, and must not read as a pass.
    public static let minimumJudgedShare = 0.5

    /// Counts `comparisons`.
    public init(_ comparisons: [FigureComparison]) {
        for c in comparisons {
            switch c.verdict {
            case .ok: judged += 1
            case .better: judged += 1; better += 1
            case .regression: judged += 1; regressed += 1
            case .notJudged: notJudged += 1
            case .dropped: dropped += 1
            case .missing: missing += 1
            }
        }
        compared = judged + notJudged
        notes = Set(comparisons.compactMap { $0.verdict == .notJudged ? $0.note : nil }).sorted()
    }

    /// Fewer than ``minimumJudgedShare`` of the figures in both runs were judged, or none was.
    public var tooFewJudged: Bool { judged == 0 || Double(judged) < Self.minimumJudgedShare * Double(compared) }

    /// The last line of the table: how many figures, how many judged, and each verdict's count.
    public var line: String {
        "\(compared + dropped + missing) figures, \(judged) of \(compared) in both runs judged: \(regressed) regressed, \(better) better, "
            + "\(notJudged) not judged (\(notes.joined(separator: "; "))), \(dropped) dropped from a group the current run measured, "
            + "\(missing) in one run only"
    }
}

/// How `compare` judges the figures of two runs: the checks that refuse a run, and the verdicts.
public enum RunComparison {
    /// Why a run's figures cannot be compared (nil: they can): a figure named twice (duplicate
    /// rows, of which one would be judged and the other ignored), an impossible figure (outside its
    /// ``RunFigure/Domain``), or, when `repeatsRecorded` (a run of schema 2 on), a timed figure
    /// without repeats.
    public static func problem(in figures: [RunFigure], repeatsRecorded: Bool) -> String? {
        var seen = Set<String>()
        for figure in figures where !seen.insert(figure.name).inserted {
            return "duplicate rows: the figure \(figure.name) appears more than once"
        }
        for figure in figures {
            if let impossibility = figure.impossibility { return impossibility }
            if repeatsRecorded && figure.kind != .exact && (figure.samples ?? []).isEmpty {
                return "\(figure.name) has no repeats, which a run of schema 2 records for every timed figure"
            }
        }
        return nil
    }

    /// Every figure of either run, judged (see `spring-bench compare --help`). `measured` holds
    /// the groups the current run measured (a baseline figure missing from one of them is
    /// ``ComparisonVerdict/dropped``); `noisy`: either run was measured on a loaded machine
    /// (``ChangeDetection/judge(_:threshold:noisy:falseDiscoveryRate:)``); `loadNote(group)` says
    /// why the runs' timed figures of a group are not comparable (nil: they are), `speedNote` why
    /// their absolute figures are not. Both runs' figures must have passed ``problem(in:repeatsRecorded:)``.
    public static func compare(
        baseline: [RunFigure], current: [RunFigure], measured: Set<String>, threshold: Double, confidence: Double = 0.95, noisy: Bool,
        loadNote: (String?) -> String? = { _ in nil }, speedNote: String? = nil
    ) -> [FigureComparison] {
        let before = Dictionary(uniqueKeysWithValues: baseline.map { ($0.name, $0) })
        let after = Dictionary(uniqueKeysWithValues: current.map { ($0.name, $0) })
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
        let judgements = Dictionary(uniqueKeysWithValues: zip(judged, ChangeDetection.judge(
            judged.map { (intervals[$0]!, before[$0]!.higherIsBetter) }, threshold: threshold, noisy: noisy)))
        return names.map { name in
            guard let b = before[name], let a = after[name] else {
                let figure = (before[name] ?? after[name])!
                let dropped = before[name] != nil && figure.group.map(measured.contains) == true
                return FigureComparison(figure: name, kind: figure.kind, baseline: before[name]?.value, current: after[name]?.value,
                                        threshold: threshold, verdict: dropped ? .dropped : .missing)
            }
            var comparison = FigureComparison(figure: name, kind: b.kind, baseline: b.value, current: a.value, threshold: threshold, verdict: .ok)
            if b.kind == .exact {
                // Any worsening, however small.
                let worse = b.higherIsBetter ? b.value - a.value : a.value - b.value
                let allowed = 1e-12 * max(1, abs(b.value))
                comparison.ratio = b.value != 0 ? a.value / b.value : nil
                comparison.verdict = worse > allowed ? .regression : (-worse > allowed ? .better : .ok)
                return comparison
            }
            guard let interval = intervals[name], let judgement = judgements[name] else {
                // A timed figure without its repeats (a run written before schema 2) has no spread:
                // its change cannot be told from noise.
                comparison.ratio = a.value / b.value
                comparison.verdict = .notJudged
                comparison.note = "no repeats in \((a.samples ?? []).isEmpty ? "the current run" : "the baseline") (a run written before schema 2)"
                return comparison
            }
            comparison.ratio = interval.estimate
            comparison.low = interval.low
            comparison.high = interval.high
            comparison.verdict = switch judgement.verdict {
            case .ok: .ok
            case .better: .better
            case .regression: .regression
            }
            guard judgement.verdict != .ok else { return comparison }
            // Not judged unless measured in comparable conditions, and told from the pair's noise.
            var note = loadNote(a.group ?? b.group)
            switch b.kind {
            case .throughput, .time: note = note ?? speedNote
            case .threadedRatio:
                if note == nil && (!a.noise.isEmpty || !b.noise.isEmpty) { note = "a step on two threads, measured on a loaded machine" }
            case .ratio, .exact: break
            }
            if note == nil && judgement.withheld {
                note = "within the noise of a loaded pair (as many changes as large the other way)"
            }
            if let note {
                comparison.verdict = .notJudged
                comparison.note = note
            }
            return comparison
        }
    }
}
