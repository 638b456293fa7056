@_spi(KernelInternals) import SpringKernel

/// The statistics behind spring-bench's verdicts, apart from any measurement so that they can be
/// tested against known distributions: percentile-bootstrap confidence intervals of a median
/// (Efron and Tibshirani, *An Introduction to the Bootstrap*, ch. 13; Criterion.rs uses the same
/// resampling for its intervals), a verdict against a target, and the stopping rule of adaptive
/// repeats.
///
/// A judged ratio is the median of **paired** ratios: the repeats of a group are interleaved
/// (repeat 1 of every contender, then repeat 2...), so contender A's repeat i and B's repeat i ran
/// under the same conditions, and their ratio cancels the machine's drift between repeats. The
/// bootstrap resamples those pairs, with replacement, from a fixed seed: the same samples give the
/// same interval on every run.
public enum Bootstrap {
    /// Resamples per interval: enough that the percentiles of a 95 % interval move by well under
    /// the ±3 % precision the benchmark stops at.
    public static let defaultResamples = 2000
    /// The bootstrap's fixed seed.
    public static let defaultSeed: UInt64 = 0x5EED_B007

    /// The median of `samples` (the mean of the middle two for an even count); nil when empty.
    public static func median(_ samples: [Double]) -> Double? {
        guard !samples.isEmpty else { return nil }
        var sorted = samples
        sorted.sort()
        return medianOfSorted(sorted)
    }

    static func medianOfSorted(_ sorted: [Double]) -> Double {
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    /// The ratios of paired samples, `numerators[i] / denominators[i]` (the shorter count).
    public static func pairedRatios(_ numerators: [Double], _ denominators: [Double]) -> [Double] {
        zip(numerators, denominators).map { $0 / $1 }
    }

    /// A `confidence` interval of the median of `samples` (percentile bootstrap). One sample gives
    /// an interval of zero width at it; none gives nil.
    public static func medianInterval(
        _ samples: [Double], confidence: Double = 0.95, resamples: Int = defaultResamples, seed: UInt64 = defaultSeed
    ) -> Interval? {
        guard let estimate = median(samples) else { return nil }
        var generator = SplitMix64(seed: seed)
        var replicate = [Double](repeating: 0, count: samples.count)
        var medians: [Double] = []
        medians.reserveCapacity(resamples)
        for _ in 0..<resamples {
            for i in replicate.indices { replicate[i] = samples[generator.index(below: samples.count)] }
            replicate.sort()
            medians.append(medianOfSorted(replicate))
        }
        return Interval(estimate: estimate, replicates: &medians, confidence: confidence)
    }

    /// A `confidence` interval of median(`numerators`) / median(`denominators`) for two samples
    /// measured apart (two runs, as `compare` has them): each is resampled on its own.
    public static func ratioOfMediansInterval(
        _ numerators: [Double], _ denominators: [Double], confidence: Double = 0.95, resamples: Int = defaultResamples,
        seed: UInt64 = defaultSeed
    ) -> Interval? {
        guard let top = median(numerators), let bottom = median(denominators) else { return nil }
        var generator = SplitMix64(seed: seed)
        var a = [Double](repeating: 0, count: numerators.count), b = [Double](repeating: 0, count: denominators.count)
        var ratios: [Double] = []
        ratios.reserveCapacity(resamples)
        for _ in 0..<resamples {
            for i in a.indices { a[i] = numerators[generator.index(below: numerators.count)] }
            for i in b.indices { b[i] = denominators[generator.index(below: denominators.count)] }
            a.sort()
            b.sort()
            ratios.append(medianOfSorted(a) / medianOfSorted(b))
        }
        return Interval(estimate: top / bottom, replicates: &ratios, confidence: confidence)
    }
}

/// A point estimate and its confidence interval.
public struct Interval: Codable, Hashable, Sendable {
    /// The figure itself (the median of the samples, or the ratio of two medians).
    public var estimate: Double
    public var low: Double
    public var high: Double
    /// The confidence level, 0.95 for a 95 % interval.
    public var confidence: Double

    /// An interval from its bounds.
    public init(estimate: Double, low: Double, high: Double, confidence: Double) {
        self.estimate = estimate
        self.low = low
        self.high = high
        self.confidence = confidence
    }

    /// The interval of bootstrap `replicates` (sorted in place) at `confidence`: their
    /// (1 − c)/2 and (1 + c)/2 quantiles, nearest rank, widened to hold the estimate.
    init(estimate: Double, replicates: inout [Double], confidence: Double) {
        replicates.sort()
        let n = replicates.count
        func quantile(_ q: Double) -> Double { replicates[min(n - 1, max(0, Int((q * Double(n - 1)).rounded())))] }
        self.init(
            estimate: estimate, low: min(estimate, quantile((1 - confidence) / 2)), high: max(estimate, quantile((1 + confidence) / 2)),
            confidence: confidence)
    }

    /// Half the interval's width over the estimate: 0.03 for ±3 %.
    public var relativeHalfWidth: Double {
        estimate == 0 ? .infinity : (high - low) / 2 / abs(estimate)
    }

    /// The interval of a quantity that is this one's reciprocal (frames per second from seconds
    /// per frame): bounds swap.
    public var reciprocal: Interval {
        Interval(estimate: 1 / estimate, low: 1 / high, high: 1 / low, confidence: confidence)
    }

    /// The interval scaled by a positive factor.
    public func scaled(by factor: Double) -> Interval {
        Interval(estimate: estimate * factor, low: low * factor, high: high * factor, confidence: confidence)
    }
}

/// What a judged figure must be: at least or at most a bound.
public struct Target: Codable, Hashable, Sendable {
    /// Which side of the bound meets the target.
    public enum Side: String, Codable, Sendable {
        /// The figure must be at least the bound (a speed-up).
        case atLeast = ">="
        /// The figure must be at most the bound (a cost).
        case atMost = "<="
    }

    public var side: Side
    public var bound: Double

    /// A target from its side and bound.
    public init(_ side: Side, _ bound: Double) {
        self.side = side
        self.bound = bound
    }

    /// Whether a single value meets the target.
    public func isMet(by value: Double) -> Bool {
        side == .atLeast ? value >= bound : value <= bound
    }

    /// **met** when the whole interval is on the target's side of the bound, **not met** when
    /// the whole interval is on the other side, **inconclusive** when it straddles the bound.
    public func verdict(_ interval: Interval) -> Verdict {
        if isMet(by: interval.low) && isMet(by: interval.high) { return .met }
        if !isMet(by: interval.low) && !isMet(by: interval.high) { return .notMet }
        return .inconclusive
    }
}

/// A judged figure's verdict.
public enum Verdict: String, Codable, Sendable {
    case met
    case notMet = "not met"
    /// The interval straddles the target (or, measured in a group the noise meter marked noisy,
    /// it misses by no more than the group's slowdown can explain:
    /// ``Target/verdict(_:noisy:slowdown:)``): neither met nor missed.
    case inconclusive
}

/// When adaptive repeats stop: once the judged interval is within ±`precision`, or the budget is
/// spent, and never before `minimumRepeats`.
public struct StoppingRule: Codable, Hashable, Sendable {
    /// The relative half-width at which a group stops: 0.03 for ±3 %.
    public var precision: Double
    public var minimumRepeats: Int
    public var maximumRepeats: Int
    /// Seconds a group may spend on its repeats.
    public var budgetSeconds: Double

    /// A rule from its limits.
    public init(precision: Double = 0.03, minimumRepeats: Int = 5, maximumRepeats: Int = 200, budgetSeconds: Double) {
        self.precision = precision
        self.minimumRepeats = minimumRepeats
        self.maximumRepeats = maximumRepeats
        self.budgetSeconds = budgetSeconds
    }

    /// Whether to take another round of repeats, given the widest judged interval so far (nil:
    /// none yet), the rounds taken, the seconds spent and the seconds a round takes.
    public func shouldContinue(widest: Interval?, repeats: Int, elapsed: Double, secondsPerRound: Double) -> Bool {
        if repeats < minimumRepeats { return true }
        if repeats >= maximumRepeats { return false }
        if elapsed + secondsPerRound > budgetSeconds { return false }
        guard let widest else { return false }
        return widest.relativeHalfWidth > precision
    }
}

extension SplitMix64 {
    /// A uniform index in 0..<count (Lemire's multiply-shift; the bias is below 2⁻⁵⁰ for the
    /// counts used here): the bootstrap's resampling.
    public mutating func index(below count: Int) -> Int {
        Int(next().multipliedFullWidth(by: UInt64(count)).high)
    }
}
