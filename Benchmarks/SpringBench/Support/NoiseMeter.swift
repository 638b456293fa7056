import BenchStatistics
import CSpringReference
@_spi(KernelInternals) import SpringKernel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How loaded the machine was while one group was measured: read between groups.
struct NoiseReading: Codable, Hashable {
    /// The group it follows (`throughput 16K kernels`).
    var group: String
    /// Steal time of the process's cores over the group, as a share of their time (/proc/stat).
    var stealShare: Double
    /// CPU time other processes used over the group, in cores (the cores' busy time from
    /// /proc/stat less this process's own, from getrusage).
    var otherProcessesCores: Double
    /// The compute calibration loop after the group: spring-steps per second of the exact step's
    /// arithmetic in registers (the compute probe, tens of microseconds).
    var computeStepsPerSecond: Double
    /// The memory-bandwidth calibration loop after the group: GB/s of an in-place read and write of
    /// 64 MB (the bandwidth probe over 8M springs), past the last-level cache.
    var bandwidthGigabytesPerSecond: Double
    /// The cache-latency probe after the group: nanoseconds per dependent load of a pointer chase
    /// over a buffer larger than L2 (``NoiseMeter/latencyBufferBytes``), within the shared
    /// last-level cache (nil: a run written before the probe).
    var latencyNanoseconds: Double?
    /// The group's slowdown: the worst of the three probes, on the reading before the group or
    /// this one, against the run's quiet baseline (``NoiseProbes``), and at least what the other
    /// processes and steal over the group can cause (``NoiseProbes/neighbourSlowdown(otherProcessesCores:stealShare:)``);
    /// at least 1 (nil: a run written before it was kept). A noisy group's figure is not met only
    /// when it misses its target by more than this factor.
    var slowdown: Double?
    /// Why the group counts as noisy (empty: quiet).
    var reasons: [String]

    var isNoisy: Bool { !reasons.isEmpty }

    /// The three probes of this reading.
    var probes: ProbeReadings {
        ProbeReadings(computeStepsPerSecond: computeStepsPerSecond, bandwidthGigabytesPerSecond: bandwidthGigabytesPerSecond,
                      latencyNanoseconds: latencyNanoseconds)
    }
}

/// The noise meter's summary of a run (`machine.json`'s `noise`, the summary's first lines).
struct NoiseSummary: Codable {
    /// Groups read, and how many of them were noisy.
    var groups: Int
    var noisyGroups: Int
    /// The largest and median steal share.
    var stealShareMax: Double
    var stealShareMedian: Double
    /// Other processes' CPU, in cores: the median and largest over the groups.
    var otherProcessesCoresMedian: Double
    var otherProcessesCoresMax: Double
    /// The calibration loops: slowest, median and fastest readings (latency: nil in a run written
    /// before the probe; its p0 is the fastest reading, as a time).
    var computeStepsPerSecond: Percentiles
    var bandwidthGigabytesPerSecond: Percentiles
    var latencyNanoseconds: Percentiles?
    /// The run's quiet baseline the probes were judged against at the end of the run: each probe's
    /// median reading, or the committed run of this machine's median when faster (`reference`
    /// says which).
    var computeReference: Double
    var bandwidthReference: Double
    var latencyReference: Double?
    var reference: String
    /// The cache-latency probe's buffer, in bytes (nil: a run written before the probe).
    var latencyBufferBytes: Int?
    /// The groups' slowdowns (nil: a run written before they were kept).
    var slowdown: Percentiles?
    /// The thresholds a group is marked noisy at.
    var thresholds: NoiseMeter.Thresholds
    /// Every reading, in order.
    var readings: [NoiseReading]

    /// Whether the run as a whole was noisy: any group marked.
    var isNoisy: Bool { noisyGroups > 0 }

    /// The committed medians of the probes: the quiet reference of a later run of this machine.
    var medians: ProbeReadings {
        ProbeReadings(computeStepsPerSecond: computeStepsPerSecond.p50, bandwidthGigabytesPerSecond: bandwidthGigabytesPerSecond.p50,
                      latencyNanoseconds: latencyNanoseconds?.p50)
    }
}

/// Samples the machine's load between measurement groups: steal time of the process's cores,
/// other processes' CPU time, and three short calibration loops (compute, memory bandwidth and
/// cache latency). Steal alone is not enough: neighbours that load the memory system leave steal
/// at 0 while the bandwidth loop slows down by half, and a neighbour that takes the shared
/// last-level cache moved the interaction layer's figure by half between runs while both loops
/// read as before (issue 35): the latency probe chases pointers through that cache.
///
/// The probes are judged by ``NoiseProbes``: against the run's median reading (not its fastest),
/// a probe marks a group only when it read slow both before and after the group, and the group's
/// slowdown is the worst probe on either side.
final class NoiseMeter {
    /// When a group counts as noisy.
    struct Thresholds: Codable, Hashable {
        /// Steal over this share of the cores' time.
        var stealShare = 0.02
        /// Other processes using more than this many cores.
        var otherProcessesCores = 0.25
        /// A calibration loop slower than this share of its quiet baseline, before and after the group.
        var computeShare = 0.90
        var bandwidthShare = 0.85
        /// The latency probe: the baseline's nanoseconds a load over the reading's (nil: a run
        /// written before the probe).
        var latencyShare: Double? = 0.85

        /// The probes' shares.
        var probeShares: ProbeShares {
            ProbeShares(compute: computeShare, bandwidth: bandwidthShare, latency: latencyShare ?? ProbeShares().latency)
        }
    }

    let thresholds = Thresholds()
    private(set) var readings: [NoiseReading] = []
    /// The quiet reference from a committed run of this machine (its probes' medians), if one was found.
    private let committed: ProbeReadings?
    private var last: (stat: CPUTimes, own: Double)
    private let cores: [Int]
    private let bandwidthA: UnsafeMutablePointer<Float>
    private let bandwidthB: UnsafeMutablePointer<Float>
    private let computeState: UnsafeMutablePointer<Float>
    private static let bandwidthSprings = 1 << 23  // two 32 MB buffers, read and written: 128 MB moved
    /// The pointer chase: `latencyBufferBytes / 64` lines, each holding the address of the next.
    private let latencyLines: UnsafeMutableRawPointer
    /// The cache-latency probe's buffer, in bytes (``latencyBufferBytes(cacheSizes:)``).
    let latencyBufferBytes: Int

    /// A meter; `committed` is the noise summary of a committed run of this machine (its
    /// probes' medians are the quiet reference when faster than this run's).
    init(committed: NoiseSummary? = nil) {
        cores = Self.affinityCores()
        self.committed = committed?.medians
        // 64-byte aligned, as the probes assume (ReferenceLanes' buffers are).
        func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
            UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Float>.stride, alignment: 64).bindMemory(to: Float.self, capacity: count)
        }
        bandwidthA = buffer(Self.bandwidthSprings)
        bandwidthB = buffer(Self.bandwidthSprings)
        bandwidthA.initialize(repeating: 1, count: Self.bandwidthSprings)
        bandwidthB.initialize(repeating: 0.5, count: Self.bandwidthSprings)
        computeState = buffer(2 * Int(SPRING_PROBE_COMPUTE_SPRINGS))
        Self.seedCompute(computeState)
        latencyBufferBytes = Self.latencyBufferBytes(cacheSizes: Self.cacheSizes())
        latencyLines = Self.pointerChase(bytes: latencyBufferBytes)
        last = (Self.cpuTimes(cores), Self.ownCPUSeconds())
    }

    deinit {
        bandwidthA.deallocate()
        bandwidthB.deallocate()
        computeState.deallocate()
        latencyLines.deallocate()
    }

    /// Reads the meter after `group`: the interval since the last reading, then the calibration
    /// loops, judged with the readings before (``NoiseProbes/judgeLatest(_:committed:shares:)``).
    /// Returns the reading (also kept for the summary).
    @discardableResult
    func read(after group: String) -> NoiseReading {
        let stat = Self.cpuTimes(cores), own = Self.ownCPUSeconds()
        let total = Double(stat.total - last.stat.total), steal = Double(stat.steal - last.stat.steal)
        let busySeconds = Double(stat.busy - last.stat.busy) / Self.ticksPerSecond
        let wall = Double(stat.total - last.stat.total) / Self.ticksPerSecond / Double(max(cores.count, 1))
        let others = wall > 0 ? max(0, busySeconds - (own - last.own)) / wall : 0
        let probes = ProbeReadings(
            computeStepsPerSecond: Self.calibrateCompute(computeState),
            bandwidthGigabytesPerSecond: Self.calibrateBandwidth(bandwidthA, bandwidthB, springs: Self.bandwidthSprings),
            latencyNanoseconds: Self.calibrateLatency(latencyLines, lines: latencyBufferBytes / Self.lineBytes))
        var reasons: [String] = []
        let stealShare = total > 0 ? steal / total : 0
        if stealShare > thresholds.stealShare { reasons.append(String(format: "steal %.1f %%", stealShare * 100)) }
        if others > thresholds.otherProcessesCores { reasons.append(String(format: "other processes %.2f cores", others)) }
        let judgement = NoiseProbes.judgeLatest(readings.map(\.probes) + [probes], committed: committed, shares: thresholds.probeShares)
        for probe in judgement.slowProbes {
            let share = 100 / judgement.agreed[probe]
            switch probe {
            case .compute: reasons.append(String(format: "compute loop at %.0f %% before and after", share))
            case .bandwidth:
                reasons.append(String(format: "bandwidth loop at %.0f %% before and after (%.1f GB/s)", share, probes.bandwidthGigabytesPerSecond))
            case .latency:
                reasons.append(String(format: "cache latency at %.0f %% before and after (%.1f ns a load)", share, probes.latencyNanoseconds ?? 0))
            }
        }
        let reading = NoiseReading(
            group: group, stealShare: stealShare, otherProcessesCores: others, computeStepsPerSecond: probes.computeStepsPerSecond,
            bandwidthGigabytesPerSecond: probes.bandwidthGigabytesPerSecond, latencyNanoseconds: probes.latencyNanoseconds,
            slowdown: max(judgement.slowdown, NoiseProbes.neighbourSlowdown(otherProcessesCores: others, stealShare: stealShare)),
            reasons: reasons)
        readings.append(reading)
        // The calibration's own time is not the next group's.
        last = (Self.cpuTimes(cores), Self.ownCPUSeconds())
        return reading
    }

    /// The run's summary (nil before any reading).
    func summary() -> NoiseSummary? {
        guard !readings.isEmpty else { return nil }
        let steal = readings.map(\.stealShare).sorted(), others = readings.map(\.otherProcessesCores).sorted()
        let compute = readings.map(\.computeStepsPerSecond), bandwidth = readings.map(\.bandwidthGigabytesPerSecond)
        let latency = readings.compactMap(\.latencyNanoseconds), slowdowns = readings.compactMap(\.slowdown)
        let own = NoiseProbes.baseline(readings.map(\.probes), committed: nil)
        let baseline = NoiseProbes.baseline(readings.map(\.probes), committed: committed)
        return NoiseSummary(
            groups: readings.count, noisyGroups: readings.filter(\.isNoisy).count,
            stealShareMax: steal.last ?? 0, stealShareMedian: steal[steal.count / 2],
            otherProcessesCoresMedian: others[others.count / 2], otherProcessesCoresMax: others.last ?? 0,
            computeStepsPerSecond: Percentiles(compute), bandwidthGigabytesPerSecond: Percentiles(bandwidth),
            latencyNanoseconds: latency.isEmpty ? nil : Percentiles(latency),
            computeReference: baseline.computeStepsPerSecond, bandwidthReference: baseline.bandwidthGigabytesPerSecond,
            latencyReference: baseline.latencyNanoseconds,
            reference: baseline == own ? "this run's median reading" : "the committed run of this machine's median where faster",
            latencyBufferBytes: latencyBufferBytes, slowdown: slowdowns.isEmpty ? nil : Percentiles(slowdowns),
            thresholds: thresholds, readings: readings)
    }

    // MARK: the readings

    /// Jiffies of a set of cores from /proc/stat.
    struct CPUTimes {
        var total: UInt64 = 0
        var busy: UInt64 = 0
        var steal: UInt64 = 0
    }

    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The cores this process may run on (/proc/self/status's `Cpus_allowed_list`, like `0-1,4`;
    /// empty, meaning every core, when unknown).
    private static func affinityCores() -> [Int] {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return [] }
        var cores: [Int] = []
        for item in line.dropFirst("Cpus_allowed_list:".count).split(separator: ",") {
            let bounds = item.trimmingCharacters(in: .whitespaces).split(separator: "-").compactMap { Int($0) }
            if bounds.count == 1 { cores.append(bounds[0]) }
            else if bounds.count == 2, bounds[0] <= bounds[1], bounds[1] < 4096 { cores += Array(bounds[0]...bounds[1]) }
        }
        return cores
    }

    /// The sum of the `cpuN` lines of /proc/stat for `cores` (every core when empty).
    static func cpuTimes(_ cores: [Int]) -> CPUTimes {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return CPUTimes() }
        var times = CPUTimes()
        let wanted = Set(cores)
        for line in text.split(separator: "\n") where line.hasPrefix("cpu") && !line.hasPrefix("cpu ") {
            let fields = line.split(separator: " ")
            guard let core = Int(fields[0].dropFirst(3)), wanted.isEmpty || wanted.contains(core) else { continue }
            // user nice system idle iowait irq softirq steal (guest time is within user)
            let values = fields.dropFirst().prefix(8).map { UInt64($0) ?? 0 }
            guard values.count == 8 else { continue }
            times.total += values.reduce(0, +)
            times.busy += values[0] + values[1] + values[2] + values[5] + values[6]
            times.steal += values[7]
        }
        return times
    }

    /// This process's CPU seconds (user and system, every thread).
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
    }

    /// The compute probe's springs, as the meter starts them: displacements and velocities of
    /// -8 to 8.
    private static func seedCompute(_ state: UnsafeMutablePointer<Float>) {
        for i in 0..<2 * Int(SPRING_PROBE_COMPUTE_SPRINGS) { state[i] = Float(i % 17) - 8 }
    }

    /// The compute probe, 4096 steps of 128 springs (tens of microseconds), best of 3: spring-steps
    /// per second. Each call starts from the same springs: the probe's spring decays by 0.989 a
    /// step, so a state carried from call to call reached subnormal floats on its second call and
    /// stayed there (the lanes settle on a cycle of subnormals that never rounds to 0). Intel cores
    /// take a microcode assist per subnormal operation, about a hundred times the step; AMD's
    /// do not.
    private static func calibrateCompute(_ state: UnsafeMutablePointer<Float>) -> Double {
        let steps = 4096
        let best = TimingClock.wall.best(of: 3) {
            seedCompute(state)
            spring_probe_compute(state, steps, 0.99, 0.016, -0.5, 0.98)
        }
        return Double(steps) * Double(SPRING_PROBE_COMPUTE_SPRINGS) / best
    }

    /// The bandwidth probe over 64 MB, best of 3: GB/s.
    private static func calibrateBandwidth(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, springs: Int) -> Double {
        let best = TimingClock.wall.best(of: 3) { spring_probe_bandwidth(a, b, springs) }
        return Double(springs) * 16 / best / 1e9
    }

    /// The cache-latency probe, best of 3: nanoseconds per load of one lap of the chain (every
    /// line once). The first lap after the bandwidth probe, which sweeps 128 MB through the
    /// caches, reloads the buffer from memory; the best lap is the one that found it in cache.
    private static func calibrateLatency(_ lines: UnsafeMutableRawPointer, lines count: Int) -> Double {
        let start = UnsafePointer<UnsafeMutableRawPointer?>(OpaquePointer(lines))
        var end: UnsafePointer<UnsafeMutableRawPointer?>? = nil
        let best = TimingClock.wall.best(of: 3) { end = spring_probe_latency(start, count) }
        precondition(end == start, "the pointer chase is not one cycle of every line")
        return best / Double(count) * 1e9
    }

    static let lineBytes = 64

    /// The cache-latency probe's buffer for caches of `cacheSizes` (level: bytes; data and
    /// unified caches of core 0): four times L2, so that it is past L2 whatever its replacement
    /// policy, but no more than half the last level, so that a quiet machine keeps it there; 4 MB
    /// where the sizes are unknown. A buffer past the last level would time memory, which a
    /// neighbour that takes the cache leaves as it was.
    static func latencyBufferBytes(cacheSizes: [Int: Int]) -> Int {
        let l2 = cacheSizes[2] ?? (1 << 20)
        let last = cacheSizes.filter { $0.key > 2 }.max(by: { $0.key < $1.key })?.value
        var bytes = 4 * l2
        if let last, last >= 4 * l2 { bytes = min(bytes, max(2 * l2, last / 2)) }
        return max(bytes / lineBytes, 2) * lineBytes
    }

    /// Core 0's data and unified caches by level, in bytes (/sys/devices/system/cpu/cpu0/cache;
    /// empty where unknown).
    static func cacheSizes() -> [Int: Int] {
        var sizes: [Int: Int] = [:]
        let folder = "/sys/devices/system/cpu/cpu0/cache"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where entry.hasPrefix("index") {
            func field(_ name: String) -> String? {
                (try? String(contentsOfFile: "\(folder)/\(entry)/\(name)", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard let level = field("level").flatMap({ Int($0) }), field("type") != "Instruction", let text = field("size"),
                  let number = Int(text.filter(\.isNumber)) else { continue }
            let scale = text.hasSuffix("K") ? 1 << 10 : (text.hasSuffix("M") ? 1 << 20 : (text.hasSuffix("G") ? 1 << 30 : 1))
            sizes[level] = max(sizes[level] ?? 0, number * scale)
        }
        return sizes
    }

    /// A buffer of `bytes / 64` lines, each holding at its start the address of the next line of a
    /// random cyclic permutation of them all (Sattolo's algorithm, a fixed seed): one cycle through
    /// every line, in an order no prefetcher predicts. Small pages on Linux (no transparent huge
    /// pages), so that the probe's TLB misses are the same in every run and a committed run's
    /// median is a fair reference.
    static func pointerChase(bytes: Int) -> UnsafeMutableRawPointer {
        let count = bytes / lineBytes
        let lines = UnsafeMutableRawPointer.allocate(byteCount: count * lineBytes, alignment: 4096)
        #if os(Linux)
        _ = madvise(lines, count * lineBytes, MADV_NOHUGEPAGE)
        #endif
        var next = Array(0..<count)
        var generator = SplitMix64(seed: 0x1A7E_1C7)
        for i in stride(from: count - 1, to: 0, by: -1) { next.swapAt(i, Int(generator.next().multipliedFullWidth(by: UInt64(i)).high)) }
        for i in 0..<count {
            (lines + i * lineBytes).storeBytes(of: UnsafeRawPointer(lines + next[i] * lineBytes), as: UnsafeRawPointer.self)
        }
        return lines
    }
}

/// This process's peak resident set so far, in bytes (getrusage's ru_maxrss, KiB on Linux).
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss) * 1024
}

/// Memory the system can give without swapping (/proc/meminfo's MemAvailable), in bytes; nil
/// where unknown.
func availableMemoryBytes() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
        let fields = line.split(separator: " ")
        if fields.count >= 2, let kib = Int(fields[1]) { return kib * 1024 }
    }
    return nil
}
