import BenchStatistics
import Foundation
@_spi(KernelInternals) import SpringKernel
import Testing

/// Draws from known distributions, fixed seeds.
struct Draws {
    var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    mutating func unit() -> Double { generator.unit() }

    /// A standard normal number (Box–Muller).
    mutating func normal() -> Double {
        let u = max(unit(), 0x1p-53), v = unit()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    /// `count` paired repeats of two contenders whose true time ratio is `ratio`: each pair shares
    /// a machine speed drawn from ±20 % (the drift that pairing cancels), and each time has its
    /// own log-normal noise of `noise` (σ of the log).
    mutating func pairs(count: Int, ratio: Double, noise: Double) -> (a: [Double], b: [Double]) {
        var a: [Double] = [], b: [Double] = []
        for _ in 0..<count {
            let machine = 1 + 0.4 * (unit() - 0.5)
            a.append(ratio * machine * exp(noise * normal()))
            b.append(machine * exp(noise * normal()))
        }
        return (a, b)
    }
}

@Suite("Bootstrap intervals and verdicts")
struct BootstrapTests {
    @Test("The median and paired ratios")
    func medianAndRatios() {
        #expect(Bootstrap.median([3, 1, 2]) == 2)
        #expect(Bootstrap.median([4, 1, 3, 2]) == 2.5)
        #expect(Bootstrap.median([]) == nil)
        #expect(Bootstrap.pairedRatios([2, 9], [1, 3]) == [2, 3])
    }

    @Test("The same samples give the same interval (fixed seed)")
    func deterministic() throws {
        var draws = Draws(seed: 1)
        let samples = (0..<15).map { _ in draws.normal() }
        let first = try #require(Bootstrap.medianInterval(samples))
        let second = try #require(Bootstrap.medianInterval(samples))
        #expect(first == second)
        #expect(first.low <= first.estimate && first.estimate <= first.high)
    }

    /// The 95 % interval of the median of paired ratios covers the true ratio in about 95 % of
    /// experiments: 300 experiments of 15 pairs, a true ratio of 1.25, 5 % noise, 20 % drift.
    @Test("A 95 % interval covers the true paired ratio about 95 % of the time")
    func coverage() throws {
        var draws = Draws(seed: 2026)
        var covered = 0
        let experiments = 300
        for experiment in 0..<experiments {
            let (a, b) = draws.pairs(count: 15, ratio: 1.25, noise: 0.05)
            let interval = try #require(Bootstrap.medianInterval(Bootstrap.pairedRatios(a, b), resamples: 1000, seed: UInt64(experiment)))
            if interval.low <= 1.25 && 1.25 <= interval.high { covered += 1 }
        }
        let share = Double(covered) / Double(experiments)
        // A percentile interval of a median of 15 covers at 92-98 %; 300 experiments add ±2.5 %.
        #expect(share >= 0.90 && share <= 0.995, "covered \(share)")
    }

    /// Pairing cancels the drift between repeats: the interval of paired ratios is far narrower
    /// than one of the two medians' ratio resampled apart, on the same data.
    @Test("Pairing cancels drift")
    func pairingCancelsDrift() throws {
        var draws = Draws(seed: 7)
        let (a, b) = draws.pairs(count: 20, ratio: 1.1, noise: 0.01)
        let paired = try #require(Bootstrap.medianInterval(Bootstrap.pairedRatios(a, b)))
        let apart = try #require(Bootstrap.ratioOfMediansInterval(a, b))
        #expect(paired.relativeHalfWidth < 0.02)
        #expect(apart.relativeHalfWidth > 2 * paired.relativeHalfWidth)
        #expect(paired.low <= 1.1 && 1.1 <= paired.high)
    }

    @Test("Verdicts: met, not met and inconclusive against a target")
    func verdicts() throws {
        var draws = Draws(seed: 11)
        func interval(_ ratio: Double) throws -> Interval {
            let (a, b) = draws.pairs(count: 25, ratio: ratio, noise: 0.03)
            return try #require(Bootstrap.medianInterval(Bootstrap.pairedRatios(a, b)))
        }
        let atLeast = Target(.atLeast, 1.0)
        #expect(atLeast.verdict(try interval(1.2)) == .met)
        #expect(atLeast.verdict(try interval(0.8)) == .notMet)
        #expect(atLeast.verdict(try interval(1.0)) == .inconclusive)
        let atMost = Target(.atMost, 1.1)
        #expect(atMost.verdict(try interval(1.0)) == .met)
        #expect(atMost.verdict(try interval(1.3)) == .notMet)
        #expect(atMost.verdict(try interval(1.1)) == .inconclusive)
        // Bounds exactly on the target meet it (>= and <= are inclusive).
        #expect(atLeast.verdict(Interval(estimate: 1.1, low: 1.0, high: 1.2, confidence: 0.95)) == .met)
        #expect(atLeast.verdict(Interval(estimate: 1.0, low: 0.99, high: 1.2, confidence: 0.95)) == .inconclusive)
    }

    /// Two runs measured apart: a true 1.3x slowdown is found beyond a 5 % threshold; two runs of
    /// the same distribution are not.
    @Test("The ratio of two runs' medians finds a 1.3x slowdown and not noise")
    func ratioOfRuns() throws {
        var draws = Draws(seed: 3)
        let baseline = (0..<10).map { _ in exp(0.04 * draws.normal()) }
        let slower = (0..<10).map { _ in 1.3 * exp(0.04 * draws.normal()) }
        let same = (0..<10).map { _ in exp(0.04 * draws.normal()) }
        let slowdown = try #require(Bootstrap.ratioOfMediansInterval(slower, baseline))
        #expect(slowdown.low > 1.05)
        let unchanged = try #require(Bootstrap.ratioOfMediansInterval(same, baseline))
        #expect(unchanged.low < 1.05 && unchanged.high > 1 / 1.05)
    }

    @Test("Adaptive repeats stop at ±3 % or when the budget is spent")
    func stoppingRule() throws {
        let rule = StoppingRule(precision: 0.03, minimumRepeats: 5, maximumRepeats: 50, budgetSeconds: 10)
        let wide = Interval(estimate: 1, low: 0.9, high: 1.1, confidence: 0.95)
        let narrow = Interval(estimate: 1, low: 0.98, high: 1.02, confidence: 0.95)
        #expect(rule.shouldContinue(widest: narrow, repeats: 3, elapsed: 1, secondsPerRound: 0.1))   // too few yet
        #expect(rule.shouldContinue(widest: wide, repeats: 5, elapsed: 1, secondsPerRound: 0.1))
        #expect(!rule.shouldContinue(widest: narrow, repeats: 5, elapsed: 1, secondsPerRound: 0.1))
        #expect(!rule.shouldContinue(widest: wide, repeats: 5, elapsed: 9.95, secondsPerRound: 0.1))  // budget
        #expect(!rule.shouldContinue(widest: wide, repeats: 50, elapsed: 1, secondsPerRound: 0.1))   // cap
        // Noisy samples that narrow with repeats: a simulated group stops once within ±3 %.
        var draws = Draws(seed: 5)
        var ratios: [Double] = []
        var interval: Interval?
        while rule.shouldContinue(widest: interval, repeats: ratios.count, elapsed: 0, secondsPerRound: 0.1) {
            let (a, b) = draws.pairs(count: 1, ratio: 1.5, noise: 0.05)
            ratios.append(a[0] / b[0])
            interval = Bootstrap.medianInterval(ratios)
        }
        let final = try #require(interval)
        #expect(final.relativeHalfWidth <= 0.03)
        #expect(ratios.count > 5 && ratios.count < 50)
    }
}
