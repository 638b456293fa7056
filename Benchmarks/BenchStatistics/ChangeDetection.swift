import Foundation

/// What `compare` calls a figure's change between two runs.
public enum ChangeVerdict: String, Codable, Sendable {
    /// The whole interval of current/baseline is worse than 1 by more than a factor of 1 + the threshold.
    case regression
    /// The whole interval is better than 1 by more than a factor of 1 + the threshold.
    case better
    /// Neither: the change is within the noise, or smaller than the threshold.
    case ok
}

/// One figure's judged change, and whether the pair's own noise withheld it.
public struct ChangeJudgement: Hashable, Sendable {
    /// What the interval says.
    public var verdict: ChangeVerdict
    /// The interval called a regression or an improvement, but the pair of runs shows changes as
    /// large in the other direction as often (``ChangeDetection/judge(_:threshold:noisy:falseDiscoveryRate:)``):
    /// the change cannot be told from the noise, and is not judged.
    public var withheld: Bool
}

/// How `compare` tells a change from noise.
///
/// A figure's change is current/baseline with a bootstrap interval over both runs' repeats
/// (``Bootstrap/ratioOfMediansInterval(_:_:confidence:resamples:seed:)``). That interval holds the
/// noise *within* each run; it cannot hold what moves a whole run, and on a loaded machine a whole
/// run moves: measured on a 2-vCPU VM whose other processes held 1.5–1.8 of the 2 cores, two runs
/// of the same code differed by up to 1.37x on single figures, with intervals of ±1 %, in both
/// directions (15 figures "regressed" and 10 "improved"). One run cannot estimate that spread
/// (Kalibera and Jones, *Rigorous Benchmarking in Reasonable Time*, 2013: the variance between
/// executions needs several executions).
///
/// Across the figures of a pair it can be bounded. With nothing changed, the two runs are
/// exchangeable: swapping them turns every regression into an improvement of the same size, so
/// the improvements a pair shows estimate how many of its regressions are noise. On a noisy pair,
/// a regression stands only beyond the knockoff+ threshold at a false discovery rate q (Barber and
/// Candès, *Controlling the false discovery rate via knockoffs*, Ann. Statist. 43(5), 2015): the
/// least t at which (1 + improvements of at least t) / (regressions of at least t) ≤ q. A genuine
/// slowdown of the code moves many figures one way and is called; a loaded pair whose figures
/// scatter both ways calls nothing. The same holds, mirrored, for improvements.
public enum ChangeDetection {
    /// The false discovery rate of a noisy pair's regressions.
    public static let defaultFalseDiscoveryRate = 0.1

    /// The thresholds `compare --threshold` takes. A change counts when it is beyond a factor of
    /// 1 + threshold either way, so every one of them detects a slowdown (by more than 11x at 10).
    public static let thresholds: ClosedRange<Double> = 0...10

    /// What `interval` (current/baseline) says against a factor of 1 + `threshold`, the same
    /// either way in ratio terms: a lower-is-better figure regresses when the whole interval is
    /// above 1 + threshold (new/old), a higher-is-better one when it is below 1 / (1 + threshold)
    /// (old/new above 1 + threshold); improvements mirror them.
    public static func verdict(_ interval: Interval, higherIsBetter: Bool, threshold: Double) -> ChangeVerdict {
        let above = interval.low > 1 + threshold, below = interval.high < 1 / (1 + threshold)
        let worse = higherIsBetter ? below : above
        let better = higherIsBetter ? above : below
        return worse ? .regression : (better ? .better : .ok)
    }

    /// Whether `ratio` is beyond a factor of 1 + `threshold` either way.
    public static func differs(_ ratio: Double, threshold: Double) -> Bool {
        abs(log(ratio)) > log1p(threshold)
    }

    /// The change as a signed score: |log(current/baseline)|, positive for a regression, negative
    /// for an improvement, 0 for a change within the threshold or the noise.
    public static func score(_ interval: Interval, higherIsBetter: Bool, threshold: Double) -> Double {
        let size = abs(log(interval.estimate))
        switch verdict(interval, higherIsBetter: higherIsBetter, threshold: threshold) {
        case .regression: return size
        case .better: return -size
        case .ok: return 0
        }
    }

    /// The knockoff+ threshold of `scores` at `falseDiscoveryRate`: the least t among the positive
    /// scores with (1 + #{score ≤ −t}) / #{score ≥ t} ≤ q; infinity when there is none (no positive
    /// score can be told from the negative ones).
    public static func mirrorThreshold(_ scores: [Double], falseDiscoveryRate q: Double) -> Double {
        let candidates = Set(scores.filter { $0 > 0 }).sorted()
        for t in candidates {
            let mirrored = scores.count(where: { $0 <= -t }), called = scores.count(where: { $0 >= t })
            if Double(1 + mirrored) / Double(called) <= q { return t }
        }
        return .infinity
    }

    /// Judges every figure of a pair: each by its interval against a factor of 1 + `threshold`
    /// either way (``verdict(_:higherIsBetter:threshold:)``); on a `noisy` pair (either run measured
    /// on a loaded machine), a regression also needs a score beyond the pair's
    /// ``mirrorThreshold(_:falseDiscoveryRate:)``, and an improvement beyond the mirrored one, or it
    /// is withheld.
    public static func judge(
        _ figures: [(interval: Interval, higherIsBetter: Bool)], threshold: Double, noisy: Bool,
        falseDiscoveryRate: Double = defaultFalseDiscoveryRate
    ) -> [ChangeJudgement] {
        let scores = figures.map { score($0.interval, higherIsBetter: $0.higherIsBetter, threshold: threshold) }
        let worse = noisy ? mirrorThreshold(scores, falseDiscoveryRate: falseDiscoveryRate) : 0
        let better = noisy ? mirrorThreshold(scores.map { -$0 }, falseDiscoveryRate: falseDiscoveryRate) : 0
        return zip(figures, scores).map { figure, score in
            let verdict = verdict(figure.interval, higherIsBetter: figure.higherIsBetter, threshold: threshold)
            let withheld = switch verdict {
            case .regression: score < worse
            case .better: -score < better
            case .ok: false
            }
            return ChangeJudgement(verdict: verdict, withheld: withheld)
        }
    }
}
