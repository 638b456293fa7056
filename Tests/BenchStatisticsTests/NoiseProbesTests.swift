import BenchStatistics
import Foundation
@_spi(KernelInternals) import SpringKernel
import Testing

/// The noise meter's probes: which groups they mark noisy, the slowdown they measure, and the
/// verdict a noisy group's figure gets (issue 35).
@Suite("The noise meter's probes, slowdowns and noisy verdicts")
struct NoiseProbesTests {
    /// `count` readings of a quiet machine: the compute probe near 7.0 G steps/s (±1 %), the
    /// bandwidth probe near 30 GB/s (±5 %), the cache-latency probe near 12 ns (±2 %).
    static func quiet(count: Int, seed: UInt64 = 35) -> [ProbeReadings] {
        var generator = SplitMix64(seed: seed)
        func jitter(_ spread: Double) -> Double { 1 + spread * (2 * generator.unit() - 1) }
        return (0..<count).map { _ in
            ProbeReadings(computeStepsPerSecond: 7.0e9 * jitter(0.01), bandwidthGigabytesPerSecond: 30 * jitter(0.05),
                          latencyNanoseconds: 12 * jitter(0.02))
        }
    }

    @Test("One outlier reading marks no group noisy (the compute loop once at 15.9 M against 7.0 G steps/s)")
    func oneOutlierMarksNoGroup() {
        var readings = Self.quiet(count: 40)
        readings[17].computeStepsPerSecond = 15.9e6
        let judged = NoiseProbes.judgeRun(readings, committed: nil)
        #expect(judged.allSatisfy { $0.slowProbes.isEmpty }, "\(judged.enumerated().filter { !$0.element.slowProbes.isEmpty }.map(\.offset))")
        // A single fast outlier neither: it does not become the baseline every other reading is slow against.
        var fast = Self.quiet(count: 40)
        fast[5].bandwidthGigabytesPerSecond = 60
        fast[6].latencyNanoseconds = 6
        #expect(NoiseProbes.judgeRun(fast, committed: nil).allSatisfy { $0.slowProbes.isEmpty })
    }

    @Test("A slowdown seen on both sides of a group marks it noisy; the group's slowdown is its worst probe")
    func sustainedSlowdownMarksGroups() {
        var readings = Self.quiet(count: 30)
        for i in 20..<23 { readings[i].latencyNanoseconds = 12 * 1.5 }
        let judged = NoiseProbes.judgeRun(readings, committed: nil)
        // Groups 21 and 22 end at a slow reading and began at one; 20 began quiet, 23 ends quiet.
        #expect(judged.indices.filter { !judged[$0].slowProbes.isEmpty } == [21, 22])
        #expect(judged[21].slowProbes == [.latency])
        #expect(abs(judged[21].slowdown - 1.5) < 0.05)
        // Either side counts for the slowdown (the worse of the two readings), though only both mark the group.
        #expect(judged[20].slowdown > 1.4 && judged[23].slowdown > 1.4)
        #expect(judged[10].slowdown < 1.1)
        // A run slow throughout is judged against a committed quiet run's medians, when faster.
        let slow = Self.quiet(count: 20).map {
            ProbeReadings(computeStepsPerSecond: $0.computeStepsPerSecond, bandwidthGigabytesPerSecond: $0.bandwidthGigabytesPerSecond / 2,
                          latencyNanoseconds: $0.latencyNanoseconds)
        }
        let committed = ProbeReadings(computeStepsPerSecond: 7.0e9, bandwidthGigabytesPerSecond: 30, latencyNanoseconds: 12)
        #expect(NoiseProbes.judgeRun(slow, committed: nil).allSatisfy { $0.slowProbes.isEmpty })
        let against = NoiseProbes.judgeRun(slow, committed: committed)
        #expect(against.dropFirst().allSatisfy { $0.slowProbes == [.bandwidth] && $0.slowdown > 1.8 })
    }

    @Test("The slowdown: each probe against its baseline, at least 1, slower latency is larger")
    func slowdownDefinition() {
        let baseline = ProbeReadings(computeStepsPerSecond: 8e9, bandwidthGigabytesPerSecond: 40, latencyNanoseconds: 10)
        let reading = ProbeReadings(computeStepsPerSecond: 10e9, bandwidthGigabytesPerSecond: 32, latencyNanoseconds: 11)
        let slowdown = ProbeSlowdown(reading, against: baseline)
        #expect(slowdown.compute == 1)
        #expect(abs(slowdown.bandwidth - 1.25) < 1e-12)
        #expect(abs(slowdown.latency - 1.1) < 1e-12)
        #expect(slowdown.worst == slowdown.bandwidth)
        // A reading without the latency probe (a run before it existed) reads no latency slowdown.
        #expect(ProbeSlowdown(ProbeReadings(computeStepsPerSecond: 8e9, bandwidthGigabytesPerSecond: 40, latencyNanoseconds: nil), against: baseline).worst == 1)
    }

    @Test("A miss beyond the group's slowdown is not met in a noisy group (79.4 ns [72.4, 81.9] against 50, probes 10 % slow)")
    func missBeyondSlowdownIsNotMet() {
        let layer = Interval(estimate: 79.4, low: 72.4, high: 81.9, confidence: 0.95)
        #expect(Target(.atMost, 50).verdict(layer, noisy: true, slowdown: 1.10) == .notMet)
        let gesture = Interval(estimate: 665, low: 615, high: 729, confidence: 0.95)
        #expect(Target(.atMost, 400).verdict(gesture, noisy: true, slowdown: 1.12) == .notMet)
        // Higher is better: a ratio whose whole interval is below bound / slowdown.
        let ratio = Interval(estimate: 0.7, low: 0.65, high: 0.75, confidence: 0.95)
        #expect(Target(.atLeast, 1).verdict(ratio, noisy: true, slowdown: 1.3) == .notMet)
        // A quiet group's miss is not met whatever the probes read.
        #expect(Target(.atMost, 50).verdict(layer, noisy: false, slowdown: 3) == .notMet)
    }

    @Test("A miss within the group's slowdown stays inconclusive; a met figure stays met")
    func missWithinSlowdownIsInconclusive() {
        let layer = Interval(estimate: 79.4, low: 72.4, high: 81.9, confidence: 0.95)
        // 72.4 / 1.5 = 48.3: a machine 1.5x slow could have made a 48 ns figure read 72.4.
        #expect(Target(.atMost, 50).verdict(layer, noisy: true, slowdown: 1.5) == .inconclusive)
        let ratio = Interval(estimate: 0.7, low: 0.65, high: 0.75, confidence: 0.95)
        #expect(Target(.atLeast, 1).verdict(ratio, noisy: true, slowdown: 1.4) == .inconclusive)
        // No slowdown measured (a run before the probes were kept): inconclusive, as before.
        #expect(Target(.atMost, 50).verdict(layer, noisy: true, slowdown: nil) == .inconclusive)
        #expect(Target(.atMost, 50).verdict(Interval(estimate: 40, low: 38, high: 42, confidence: 0.95), noisy: true, slowdown: 2) == .met)
        #expect(Target(.atMost, 50).verdict(Interval(estimate: 50, low: 45, high: 60, confidence: 0.95), noisy: true, slowdown: 1) == .inconclusive)
    }

    @Test("A neighbour's cores and steal set a floor under the slowdown: a busy loop on the other vCPU explains a ratio at half")
    func neighbourSlowdownFloor() {
        #expect(NoiseProbes.neighbourSlowdown(otherProcessesCores: 0, stealShare: 0) == 1)
        #expect(NoiseProbes.neighbourSlowdown(otherProcessesCores: 1.0, stealShare: 0.01) == 2)
        #expect(abs(NoiseProbes.neighbourSlowdown(otherProcessesCores: 0.1, stealShare: 0.5) - 2) < 1e-12)
        // Nonsense readings (a counter that went backwards) do not lower it below 1 or make it infinite.
        #expect(NoiseProbes.neighbourSlowdown(otherProcessesCores: -3, stealShare: -1) == 1)
        #expect(NoiseProbes.neighbourSlowdown(otherProcessesCores: .nan, stealShare: 1).isFinite)
        // A float32 step vs C ratio that read 1.2x quiet read 0.65x under a busy loop on the other vCPU
        // (an interval around it here), with the probes at 1.07x: judged against the probes alone it is
        // not met, and issue 26's CI check failed on such a flip; with the neighbour's floor it is
        // inconclusive.
        let loaded = Interval(estimate: 0.65, low: 0.62, high: 0.70, confidence: 0.95)
        #expect(Target(.atLeast, 1).verdict(loaded, noisy: true, slowdown: 1.07) == .notMet)
        let floor = NoiseProbes.neighbourSlowdown(otherProcessesCores: 1.0, stealShare: 0)
        #expect(Target(.atLeast, 1).verdict(loaded, noisy: true, slowdown: max(1.07, floor)) == .inconclusive)
        // An idle machine keeps the probes' slowdown: the Xeon's 79.4 ns layer figure stays not met.
        let layer = Interval(estimate: 79.4, low: 72.4, high: 81.9, confidence: 0.95)
        let idle = NoiseProbes.neighbourSlowdown(otherProcessesCores: 0.0, stealShare: 0.016)
        #expect(Target(.atMost, 50).verdict(layer, noisy: true, slowdown: max(1.10, idle)) == .notMet)
    }
}
