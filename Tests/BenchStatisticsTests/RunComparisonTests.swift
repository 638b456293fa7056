import BenchStatistics
import Foundation
import Testing

/// `compare`'s checks and verdicts over two runs' figures (issue 34, rows 8 to 13).
@Suite("Comparing two runs' figures")
struct RunComparisonTests {
    /// A throughput figure of group `throughput 16K kernels` with `repeats` samples around `speed`.
    static func throughput(_ name: String, speed: Double = 1e9, repeats: Int = 9, group: String = "throughput 16K kernels") -> RunFigure {
        let samples = (0..<repeats).map { speed * (1 + 0.001 * Double($0 % 3 - 1)) }
        return RunFigure(name: name, value: speed, samples: samples, higherIsBetter: true, kind: .throughput, group: group)
    }

    /// A settle count.
    static func early(_ value: Double) -> RunFigure {
        RunFigure(name: "settle/ours/early", value: value, higherIsBetter: false, kind: .exact, domain: .count, group: "settle")
    }

    static func compare(_ baseline: [RunFigure], _ current: [RunFigure], threshold: Double = 0.05, loadNote: @escaping (String?) -> String? = { _ in nil })
        -> [FigureComparison] {
        let measured = Set(current.compactMap(\.group))
        return RunComparison.compare(baseline: baseline, current: current, measured: measured, threshold: threshold, noisy: false, loadNote: loadNote)
    }

    @Test("Row 8: a baseline figure missing from a group the current run measured is dropped, and counted")
    func droppedFigure() {
        let baseline = [Self.throughput("a"), Self.throughput("b"), Self.throughput("c", group: "throughput 4M kernels")]
        let current = [Self.throughput("a")]
        let verdicts = Dictionary(uniqueKeysWithValues: Self.compare(baseline, current).map { ($0.figure, $0.verdict) })
        #expect(verdicts == ["a": .ok, "b": .dropped, "c": .missing])
        let summary = ComparisonSummary(Self.compare(baseline, current))
        #expect(summary.dropped == 1 && summary.missing == 1 && summary.compared == 1)
        // A figure new in the current run is in one run only.
        #expect(Self.compare(current, baseline).allSatisfy { $0.figure == "a" ? $0.verdict == .ok : $0.verdict == .missing })
    }

    @Test("Row 9: duplicate rows are refused, naming the figure")
    func duplicates() {
        let figures = [Self.throughput("a"), Self.throughput("b"), Self.throughput("a", speed: 0.8e9)]
        #expect(RunComparison.problem(in: figures, repeatsRecorded: true) == "duplicate rows: the figure a appears more than once")
        #expect(RunComparison.problem(in: Array(figures.prefix(2)), repeatsRecorded: true) == nil)
    }

    @Test("Row 10: a timed figure without repeats is refused in a run that records them")
    func noRepeats() {
        var empty = Self.throughput("a")
        empty.samples = []
        var missing = Self.throughput("a")
        missing.samples = nil
        for figure in [empty, missing] {
            #expect(RunComparison.problem(in: [figure], repeatsRecorded: true) == "a has no repeats, which a run of schema 2 records for every timed figure")
            #expect(RunComparison.problem(in: [figure], repeatsRecorded: false) == nil)
        }
        // An exact figure has none to record.
        #expect(RunComparison.problem(in: [Self.early(0)], repeatsRecorded: true) == nil)
        // A run of schema 1 against one of schema 2: not judged, the note naming the run without them.
        let comparison = Self.compare([missing], [Self.throughput("a")])
        #expect(comparison.map(\.verdict) == [.notJudged] && comparison[0].note == "no repeats in the baseline (a run written before schema 2)")
        #expect(Self.compare([Self.throughput("a")], [empty])[0].note == "no repeats in the current run (a run written before schema 2)")
    }

    @Test("Row 11: impossible figures are refused, naming the figure and what it can be")
    func impossibleFigures() {
        var infinite = Self.throughput("throughput/a")
        infinite.samples![3] = .infinity  // 0 ns a frame
        var negative = Self.throughput("throughput/a", speed: -1e9)  // negative ns
        negative.value = 1e9
        let share = RunFigure(name: "settle/ours/within-one-frame", value: 7.5, higherIsBetter: true, kind: .exact, domain: .share, group: "settle")
        #expect(RunComparison.problem(in: [infinite], repeatsRecorded: true) == "throughput/a has a repeat of inf, an impossible figure (above 0 and finite)")
        #expect(RunComparison.problem(in: [negative], repeatsRecorded: true)?.hasPrefix("throughput/a has a repeat of -") == true)
        #expect(RunComparison.problem(in: [Self.early(-3)], repeatsRecorded: true) == "settle/ours/early is -3, an impossible figure (a whole number, 0 or more)")
        #expect(RunComparison.problem(in: [Self.early(2.5)], repeatsRecorded: true) != nil)
        #expect(RunComparison.problem(in: [share], repeatsRecorded: true) == "settle/ours/within-one-frame is 7.5, an impossible figure (a share, 0 to 1)")
        #expect(RunComparison.problem(in: [Self.early(3), Self.throughput("b")], repeatsRecorded: true) == nil)
        for (domain, good, bad) in [(RunFigure.Domain.positive, 1e-300, 0.0), (.count, 0, 0.5), (.share, 1, 1.0000001), (.nonNegative, 0, -1e-300), (.finite, -5, .nan)] {
            #expect(domain.contains(good) && !domain.contains(bad) && !domain.contains(.infinity))
        }
    }

    @Test("Row 12: at --threshold 0.9, a figure 10x slower regresses")
    func largeThreshold() {
        let comparison = Self.compare([Self.throughput("a")], [Self.throughput("a", speed: 1e8)], threshold: 0.9)
        #expect(comparison.map(\.verdict) == [.regression])
    }

    @Test("Row 13: most figures not judged is too few judged; the summary says how many were")
    func tooFewJudged() {
        let baseline = (0..<10).map { Self.throughput("t\($0)") } + (0..<9).map { Self.throughput("r\($0)", group: "throughput 16K threads") }
        // Every "t" figure 20 % slower, in a group whose load differed: not judged.
        let current = (0..<10).map { Self.throughput("t\($0)", speed: 0.8e9) } + (0..<9).map { Self.throughput("r\($0)", group: "throughput 16K threads") }
        let note: (String?) -> String? = { $0 == "throughput 16K kernels" ? "the machine's load differed" : nil }
        let summary = ComparisonSummary(Self.compare(baseline, current, loadNote: note))
        #expect(summary.compared == 19 && summary.judged == 9 && summary.notJudged == 10 && summary.regressed == 0)
        #expect(summary.tooFewJudged)
        #expect(summary.line == "19 figures, 9 of 19 in both runs judged: 0 regressed, 0 better, 10 not judged (the machine's load differed), "
            + "0 dropped from a group the current run measured, 0 in one run only")
        // Half judged is enough.
        let balanced = ComparisonSummary(Self.compare(baseline + [Self.throughput("r9", group: "throughput 16K threads")],
                                                      current + [Self.throughput("r9", group: "throughput 16K threads")], loadNote: note))
        #expect(balanced.compared == 20 && balanced.judged == 10 && !balanced.tooFewJudged)
        // Nothing in both runs: nothing judged, which is no pass either.
        #expect(ComparisonSummary(Self.compare([Self.throughput("a")], [Self.throughput("b", group: "throughput 1K kernels")])).tooFewJudged)
    }
}
