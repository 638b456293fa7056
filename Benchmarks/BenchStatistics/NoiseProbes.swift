/// One reading of the noise meter's three calibration probes, taken between measurement groups.
public struct ProbeReadings: Codable, Hashable, Sendable {
    /// The compute probe: spring-steps per second of the exact step's arithmetic in registers
    /// (higher is faster).
    public var computeStepsPerSecond: Double
    /// The bandwidth probe: GB/s of an in-place read and write past the last-level cache (higher
    /// is faster).
    public var bandwidthGigabytesPerSecond: Double
    /// The cache-latency probe: nanoseconds per dependent load of a pointer chase over a buffer
    /// larger than L2 (lower is faster); nil in a run written before the probe existed.
    public var latencyNanoseconds: Double?

    /// A reading from its three probes.
    public init(computeStepsPerSecond: Double, bandwidthGigabytesPerSecond: Double, latencyNanoseconds: Double?) {
        self.computeStepsPerSecond = computeStepsPerSecond
        self.bandwidthGigabytesPerSecond = bandwidthGigabytesPerSecond
        self.latencyNanoseconds = latencyNanoseconds
    }
}

/// The probes, by name.
public enum Probe: String, Codable, Hashable, Sendable, CaseIterable {
    /// The compute probe (spring-steps per second).
    case compute
    /// The memory-bandwidth probe (GB/s).
    case bandwidth
    /// The cache-latency probe (nanoseconds per dependent load).
    case latency
}

/// How many times slower than a baseline each probe read: 1 when as fast or faster.
public struct ProbeSlowdown: Codable, Hashable, Sendable {
    /// Baseline steps/s over the reading's.
    public var compute: Double
    /// Baseline GB/s over the reading's.
    public var bandwidth: Double
    /// The reading's nanoseconds per load over the baseline's (1 when either lacks the probe).
    public var latency: Double

    /// A slowdown from its three factors, each clamped to at least 1.
    public init(compute: Double, bandwidth: Double, latency: Double) {
        self.compute = max(1, compute)
        self.bandwidth = max(1, bandwidth)
        self.latency = max(1, latency)
    }

    /// `reading` against `baseline`, probe by probe: a factor of time, so that a reading half as
    /// fast is a slowdown of 2 whichever way its probe counts (steps/s and GB/s up, ns down). A
    /// probe faster than its baseline reads 1: a fast moment does not make a figure faster.
    public init(_ reading: ProbeReadings, against baseline: ProbeReadings) {
        let latency = reading.latencyNanoseconds.flatMap { r in baseline.latencyNanoseconds.map { r / $0 } } ?? 1
        self.init(
            compute: baseline.computeStepsPerSecond / reading.computeStepsPerSecond,
            bandwidth: baseline.bandwidthGigabytesPerSecond / reading.bandwidthGigabytesPerSecond, latency: latency)
    }

    /// The largest of the three factors.
    public var worst: Double { Swift.max(compute, bandwidth, latency) }

    /// One probe's factor.
    public subscript(probe: Probe) -> Double {
        switch probe {
        case .compute: compute
        case .bandwidth: bandwidth
        case .latency: latency
        }
    }

    /// Probe by probe, the lesser of this slowdown and `other`: what two readings agree on.
    public func agreed(with other: ProbeSlowdown) -> ProbeSlowdown {
        ProbeSlowdown(compute: min(compute, other.compute), bandwidth: min(bandwidth, other.bandwidth), latency: min(latency, other.latency))
    }
}

/// How slow a probe may read, as a share of its quiet baseline's speed, before it marks a group
/// noisy: the compute probe below 90 % (a slowdown above 1.11x), bandwidth and latency below 85 %
/// (above 1.18x; both move by ±10 % between readings of a quiet machine).
public struct ProbeShares: Codable, Hashable, Sendable {
    /// The compute probe's share.
    public var compute: Double
    /// The bandwidth probe's share.
    public var bandwidth: Double
    /// The cache-latency probe's share (baseline ns over the reading's).
    public var latency: Double

    /// Shares from their values (the defaults are the meter's).
    public init(compute: Double = 0.90, bandwidth: Double = 0.85, latency: Double = 0.85) {
        self.compute = compute
        self.bandwidth = bandwidth
        self.latency = latency
    }

    /// A probe's share.
    public subscript(probe: Probe) -> Double {
        switch probe {
        case .compute: compute
        case .bandwidth: bandwidth
        case .latency: latency
        }
    }
}

/// What the probes say about one measurement group.
public struct ProbeJudgement: Hashable, Sendable {
    /// The group's slowdown: the worst probe on either side of the group (the reading before it
    /// and the one after), at least 1. What a miss in a noisy group is judged against
    /// (``Target/verdict(_:noisy:slowdown:)``).
    public var slowdown: Double
    /// Probe by probe, the slowdown both readings around the group show.
    public var agreed: ProbeSlowdown
    /// The probes that mark the group noisy: those whose agreed slowdown is beyond their share.
    public var slowProbes: [Probe]
}

/// The noise meter's rule for its probes.
///
/// **Baseline.** A run's quiet baseline is, probe by probe, the median of its readings so far
/// (the group's own included), or a committed quiet run's median of this machine when that is
/// faster. The median, not the fastest reading: one fast moment (a bandwidth probe that read
/// 82 GB/s where it reads 70) made every other group of a quiet run look slow.
///
/// **Noisy.** A probe marks a group noisy when the readings on *both* sides of the group (the one
/// before it started and the one after it ended) are slower than its share of the baseline
/// (``ProbeShares``). One reading alone marks nothing: a compute probe that read 15.9 M steps/s
/// once against 7.0 G leaves its group quiet, while a slowdown that lasts across a group (a
/// neighbour that holds the shared last-level cache) is seen on both sides of it.
///
/// **Slowdown.** A group's slowdown is the worst factor of the three probes on either side of it
/// (``ProbeJudgement/slowdown``): how much slower the machine ran than its quiet baseline, at most,
/// around that group.
public enum NoiseProbes {
    /// The quiet baseline of `readings`: probe by probe, their median, or `committed`'s when it is
    /// faster (the latency probe when both have it).
    public static func baseline(_ readings: [ProbeReadings], committed: ProbeReadings?) -> ProbeReadings {
        let compute = Bootstrap.median(readings.map(\.computeStepsPerSecond)) ?? 0
        let bandwidth = Bootstrap.median(readings.map(\.bandwidthGigabytesPerSecond)) ?? 0
        let latency = Bootstrap.median(readings.compactMap(\.latencyNanoseconds))
        return ProbeReadings(
            computeStepsPerSecond: max(compute, committed?.computeStepsPerSecond ?? 0),
            bandwidthGigabytesPerSecond: max(bandwidth, committed?.bandwidthGigabytesPerSecond ?? 0),
            latencyNanoseconds: latency.map { min($0, committed?.latencyNanoseconds ?? .infinity) })
    }

    /// Judges the group that ended at the last of `readings` (the one before it, if any, is the
    /// reading taken when the group began), against the baseline of `readings`.
    public static func judgeLatest(_ readings: [ProbeReadings], committed: ProbeReadings?, shares: ProbeShares = ProbeShares()) -> ProbeJudgement {
        precondition(!readings.isEmpty, "no reading to judge")
        let baseline = baseline(readings, committed: committed)
        let after = ProbeSlowdown(readings[readings.count - 1], against: baseline)
        guard readings.count > 1 else { return ProbeJudgement(slowdown: after.worst, agreed: after, slowProbes: []) }
        let before = ProbeSlowdown(readings[readings.count - 2], against: baseline)
        let agreed = before.agreed(with: after)
        return ProbeJudgement(
            slowdown: max(before.worst, after.worst), agreed: agreed, slowProbes: Probe.allCases.filter { agreed[$0] > 1 / shares[$0] })
    }

    /// The slowdown that other processes and steal on this process's cores can cause over a
    /// group, whatever the probes read: `1 + otherProcessesCores` (a neighbour that holds a whole
    /// core may share ours, as a hyperthread sibling or through the hypervisor, and halve our
    /// time), or `1 / (1 - stealShare)`, whichever is larger; 1 for an idle machine.
    ///
    /// The probes alone underestimate a neighbour: each is the best of three runs of tens of
    /// microseconds, which a neighbour that shares the core only part of the time lets through
    /// at full speed. Under a busy loop on the other vCPU of a 2-vCPU AMD EPYC, groups whose other
    /// processes took a whole core read probe slowdowns from 1.0x to 4.7x (five `--quick` runs),
    /// while a float32 step vs C ratio has read 0.65x under load against 1.2x quiet, a factor of
    /// 1.85.
    public static func neighbourSlowdown(otherProcessesCores: Double, stealShare: Double) -> Double {
        let others = otherProcessesCores.isFinite ? max(0, otherProcessesCores) : 0
        let steal = stealShare.isFinite ? min(max(0, stealShare), 0.99) : 0
        return max(1 + others, 1 / (1 - steal))
    }

    /// Every group of a run judged as the meter judges it, reading by reading: group i (ended by
    /// reading i) against the baseline of readings 0...i.
    public static func judgeRun(_ readings: [ProbeReadings], committed: ProbeReadings?, shares: ProbeShares = ProbeShares()) -> [ProbeJudgement] {
        readings.indices.map { judgeLatest(Array(readings[...$0]), committed: committed, shares: shares) }
    }
}

extension Target {
    /// The verdict on `interval` measured in a group the noise meter marked `noisy`, whose probes
    /// read `slowdown` times slower than the run's quiet baseline (nil: not measured).
    ///
    /// A quiet group's figure is judged by ``verdict(_:)``, and so is a met figure of a noisy one.
    /// A noisy group's miss is **not met** only when it misses by more than the slowdown can
    /// explain: a machine `s` times slower inflates a time by at most `s` and deflates a speed, or
    /// a ratio of two contenders each slowed by at most `s`, by at most `s`. So a figure that must
    /// be at most the bound is not met when `low > bound × slowdown`, one that must be at least
    /// the bound when `high < bound / slowdown` (for positive figures); otherwise, or without a
    /// slowdown, it is inconclusive. Example: 79.4 ns [72.4, 81.9] against at most 50 ns in a
    /// group whose probes read 1.10x slow is not met (72.4 > 55); at 1.5x it is inconclusive.
    public func verdict(_ interval: Interval, noisy: Bool, slowdown: Double?) -> Verdict {
        let verdict = verdict(interval)
        guard noisy, verdict == .notMet else { return verdict }
        guard let slowdown, slowdown.isFinite else { return .inconclusive }
        let s = max(1, slowdown)
        let beyond = side == .atMost ? interval.low > bound * s : interval.high < bound / s
        return beyond ? .notMet : .inconclusive
    }
}
