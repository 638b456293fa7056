import BenchStatistics
import Foundation
import Testing

/// Two runs of many figures, drawn with fixed seeds: each figure's repeats carry a little noise
/// within the run, and each run moves each figure as a whole (what a loaded machine does between
/// two executions, which no interval within a run holds).
struct RunPairs {
    var draws: Draws

    init(seed: UInt64) { draws = Draws(seed: seed) }

    /// The current/baseline intervals of `figures` figures (higher is better): each run moves each
    /// figure by a log-normal factor of σ `betweenRuns`, each repeat by σ `withinRun`; the figures
    /// in `slowed` are `slowdown` times slower in the current run.
    mutating func intervals(
        figures: Int, repeats: Int = 15, withinRun: Double, betweenRuns: Double, slowed: Range<Int> = 0..<0, slowdown: Double = 1
    ) -> [(interval: Interval, higherIsBetter: Bool)] {
        (0..<figures).map { figure in
            func run(_ speed: Double) -> [Double] {
                let shift = exp(betweenRuns * draws.normal())
                return (0..<repeats).map { _ in speed * shift * exp(withinRun * draws.normal()) }
            }
            let baseline = run(1), current = run(slowed.contains(figure) ? 1 / slowdown : 1)
            return (Bootstrap.ratioOfMediansInterval(current, baseline, resamples: 500)!, true)
        }
    }
}

@Suite("Telling a change from a pair's noise")
struct ChangeDetectionTests {
    @Test("The interval against a factor of 1 + the threshold, and the signed score")
    func verdicts() {
        let worse = Interval(estimate: 0.8, low: 0.78, high: 0.82, confidence: 0.95)
        #expect(ChangeDetection.verdict(worse, higherIsBetter: true, threshold: 0.05) == .regression)
        #expect(ChangeDetection.verdict(worse, higherIsBetter: false, threshold: 0.05) == .better)
        #expect(ChangeDetection.verdict(worse, higherIsBetter: true, threshold: 0.25) == .ok)
        let straddles = Interval(estimate: 0.9, low: 0.7, high: 1.1, confidence: 0.95)
        #expect(ChangeDetection.verdict(straddles, higherIsBetter: true, threshold: 0.05) == .ok)
        #expect(abs(ChangeDetection.score(worse, higherIsBetter: true, threshold: 0.05) - log(1.25)) < 1e-12)
        #expect(ChangeDetection.score(worse, higherIsBetter: false, threshold: 0.05) < 0)
        #expect(ChangeDetection.score(straddles, higherIsBetter: true, threshold: 0.05) == 0)
    }

    /// Issue 34: the higher-is-better rule was 1 − F, never reached for F ≥ 1, so at
    /// `--threshold 0.9` every throughput figure 10x slower was ok. The rule is a factor of 1 + F
    /// either way: every threshold `compare` takes detects a slowdown beyond it, both ways.
    @Test("Every threshold detects a slowdown beyond a factor of 1 + F, either way")
    func symmetricThreshold() {
        let tenTimesSlower = Interval(estimate: 0.1, low: 0.09, high: 0.11, confidence: 0.95)
        #expect(ChangeDetection.verdict(tenTimesSlower, higherIsBetter: true, threshold: 0.9) == .regression)
        #expect(ChangeDetection.verdict(tenTimesSlower.reciprocal, higherIsBetter: false, threshold: 0.9) == .regression)
        for threshold in [0, 0.05, 0.5, 0.9, 1, 2.5, ChangeDetection.thresholds.upperBound] {
            let factor = (1 + threshold) * 1.01
            let slower = Interval(estimate: 1 / factor, low: 1 / factor, high: 1 / factor, confidence: 0.95)
            let faster = slower.reciprocal
            #expect(ChangeDetection.verdict(slower, higherIsBetter: true, threshold: threshold) == .regression, "threshold \(threshold)")
            #expect(ChangeDetection.verdict(faster, higherIsBetter: false, threshold: threshold) == .regression, "threshold \(threshold)")
            #expect(ChangeDetection.verdict(faster, higherIsBetter: true, threshold: threshold) == .better, "threshold \(threshold)")
            #expect(ChangeDetection.verdict(slower, higherIsBetter: false, threshold: threshold) == .better, "threshold \(threshold)")
            // Within the factor, either way: ok.
            if threshold > 0 {
                let within = Interval(estimate: 1, low: 1 / (1 + threshold) + 1e-9, high: 1 + threshold - 1e-9, confidence: 0.95)
                #expect(ChangeDetection.verdict(within, higherIsBetter: true, threshold: threshold) == .ok, "threshold \(threshold)")
                #expect(ChangeDetection.verdict(within, higherIsBetter: false, threshold: threshold) == .ok, "threshold \(threshold)")
            }
            #expect(ChangeDetection.differs(factor, threshold: threshold) && ChangeDetection.differs(1 / factor, threshold: threshold))
        }
    }

    @Test("The knockoff+ threshold: (1 + mirrored) / called at most q")
    func mirrorThreshold() {
        // 12 regressions, nothing the other way: 1/12 ≤ 0.1 at the smallest.
        #expect(ChangeDetection.mirrorThreshold([Double](repeating: 0.25, count: 12) + [0, 0], falseDiscoveryRate: 0.1) == 0.25)
        // 5 regressions cannot reach 0.1 (1/5): nothing is called.
        #expect(ChangeDetection.mirrorThreshold([Double](repeating: 0.25, count: 5), falseDiscoveryRate: 0.1) == .infinity)
        // 20 at 0.3 and 2 at 0.1, one improvement of 0.2: at 0.1, (1 + 1)/22 ≤ 0.1.
        let scores = [Double](repeating: 0.3, count: 20) + [0.1, 0.1, -0.2]
        #expect(ChangeDetection.mirrorThreshold(scores, falseDiscoveryRate: 0.1) == 0.1)
        // Improvements as many and as large as the regressions: nothing stands out.
        let symmetric = (1...15).map { Double($0) / 50 } + (1...15).map { -Double($0) / 50 }
        #expect(ChangeDetection.mirrorThreshold(symmetric, falseDiscoveryRate: 0.1) == .infinity)
    }

    /// What `compare` saw on a loaded VM: two runs of the same code, each figure moved by the run
    /// as a whole (σ 15 %), 1 % noise within a run. The intervals alone call many regressions;
    /// told from the pair's noise, none.
    @Test("A loaded pair of the same code calls no regression")
    func loadedPairOfTheSameCode() {
        var pairs = RunPairs(seed: 26)
        let figures = pairs.intervals(figures: 80, withinRun: 0.01, betweenRuns: 0.15)
        let byIntervals = ChangeDetection.judge(figures, threshold: 0.05, noisy: false)
        #expect(byIntervals.count { $0.verdict == .regression && !$0.withheld } >= 10)
        let judged = ChangeDetection.judge(figures, threshold: 0.05, noisy: true)
        #expect(judged.count { $0.verdict == .regression && !$0.withheld } == 0)
        #expect(judged.count { $0.verdict == .better && !$0.withheld } == 0)
    }

    /// A genuine 1.3x slowdown of our code (50 of 80 figures; the C loops and peers keep their
    /// speed) on a loaded pair (σ 5 % between runs): the slowed figures are called, and at most a
    /// tenth of the calls (the false discovery rate) are figures that did not slow.
    @Test("A 1.3x slowdown is called on a loaded pair")
    func slowdownOnALoadedPair() {
        var pairs = RunPairs(seed: 13)
        let figures = pairs.intervals(figures: 80, withinRun: 0.01, betweenRuns: 0.05, slowed: 0..<50, slowdown: 1.3)
        let judged = ChangeDetection.judge(figures, threshold: 0.05, noisy: true)
        let called = judged.indices.filter { judged[$0].verdict == .regression && !judged[$0].withheld }
        #expect(called.count { $0 < 50 } >= 45)
        #expect(called.count { $0 >= 50 } * 10 <= called.count)
    }

    @Test("A quiet pair judges each figure by its interval alone")
    func quietPair() {
        var pairs = RunPairs(seed: 7)
        let figures = pairs.intervals(figures: 20, withinRun: 0.01, betweenRuns: 0, slowed: 0..<1, slowdown: 1.3)
        let judged = ChangeDetection.judge(figures, threshold: 0.05, noisy: false)
        #expect(judged[0].verdict == .regression && !judged[0].withheld)
        #expect(judged.dropFirst().allSatisfy { $0.verdict == .ok })
    }
}
