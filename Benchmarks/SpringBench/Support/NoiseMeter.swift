import CSpringReference
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
    /// arithmetic in registers (the compute probe, a few milliseconds).
    var computeStepsPerSecond: Double
    /// The memory-bandwidth calibration loop after the group: GB/s of an in-place read and write of
    /// 64 MB (the bandwidth probe over 8M springs), past the last-level cache.
    var bandwidthGigabytesPerSecond: Double
    /// Why the group counts as noisy (empty: quiet).
    var reasons: [String]

    var isNoisy: Bool { !reasons.isEmpty }
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
    /// The calibration loops: slowest, median and fastest readings.
    var computeStepsPerSecond: Percentiles
    var bandwidthGigabytesPerSecond: Percentiles
    /// What the calibration readings were judged against: this run's fastest reading, or the
    /// committed run of this machine if it was faster (`reference` says which).
    var computeReference: Double
    var bandwidthReference: Double
    var reference: String
    /// The thresholds a group is marked noisy at.
    var thresholds: NoiseMeter.Thresholds
    /// Every reading, in order.
    var readings: [NoiseReading]

    /// Whether the run as a whole was noisy: any group marked.
    var isNoisy: Bool { noisyGroups > 0 }
}

/// Samples the machine's load between measurement groups: steal time of the process's cores,
/// other processes' CPU time, and two short calibration loops (compute and memory bandwidth).
/// Steal alone is not enough: neighbours that load the memory system leave steal at 0 while the
/// bandwidth loop slows down by half.
final class NoiseMeter {
    /// When a group counts as noisy.
    struct Thresholds: Codable, Hashable {
        /// Steal over this share of the cores' time.
        var stealShare = 0.02
        /// Other processes using more than this many cores.
        var otherProcessesCores = 0.25
        /// A calibration loop slower than this share of its reference.
        var computeShare = 0.90
        var bandwidthShare = 0.85
    }

    let thresholds = Thresholds()
    private(set) var readings: [NoiseReading] = []
    /// The quiet references from a committed run of this machine, if one was found.
    private let committedCompute: Double?
    private let committedBandwidth: Double?
    private var last: (stat: CPUTimes, own: Double)
    private let cores: [Int]
    private let bandwidthA: UnsafeMutablePointer<Float>
    private let bandwidthB: UnsafeMutablePointer<Float>
    private let computeState: UnsafeMutablePointer<Float>
    private static let bandwidthSprings = 1 << 23  // two 32 MB buffers, read and written: 128 MB moved

    /// A meter; `committed` is the noise summary of a committed run of this machine (its
    /// calibration readings are the quiet reference when faster than this run's).
    init(committed: NoiseSummary? = nil) {
        cores = Self.affinityCores()
        committedCompute = committed?.computeStepsPerSecond.p50
        committedBandwidth = committed?.bandwidthGigabytesPerSecond.p50
        // 64-byte aligned, as the probes assume (ReferenceLanes' buffers are).
        func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
            UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Float>.stride, alignment: 64).bindMemory(to: Float.self, capacity: count)
        }
        bandwidthA = buffer(Self.bandwidthSprings)
        bandwidthB = buffer(Self.bandwidthSprings)
        bandwidthA.initialize(repeating: 1, count: Self.bandwidthSprings)
        bandwidthB.initialize(repeating: 0.5, count: Self.bandwidthSprings)
        computeState = buffer(2 * Int(SPRING_PROBE_COMPUTE_SPRINGS))
        for i in 0..<2 * Int(SPRING_PROBE_COMPUTE_SPRINGS) { computeState[i] = Float(i % 17) - 8 }
        last = (Self.cpuTimes(cores), Self.ownCPUSeconds())
    }

    deinit {
        bandwidthA.deallocate()
        bandwidthB.deallocate()
        computeState.deallocate()
    }

    /// Reads the meter after `group`: the interval since the last reading, then the calibration
    /// loops. Returns the reading (also kept for the summary).
    @discardableResult
    func read(after group: String) -> NoiseReading {
        let stat = Self.cpuTimes(cores), own = Self.ownCPUSeconds()
        let total = Double(stat.total - last.stat.total), steal = Double(stat.steal - last.stat.steal)
        let busySeconds = Double(stat.busy - last.stat.busy) / Self.ticksPerSecond
        let wall = Double(stat.total - last.stat.total) / Self.ticksPerSecond / Double(max(cores.count, 1))
        let others = wall > 0 ? max(0, busySeconds - (own - last.own)) / wall : 0
        let compute = Self.calibrateCompute(computeState)
        let bandwidth = Self.calibrateBandwidth(bandwidthA, bandwidthB, springs: Self.bandwidthSprings)
        var reasons: [String] = []
        let stealShare = total > 0 ? steal / total : 0
        if stealShare > thresholds.stealShare { reasons.append(String(format: "steal %.1f %%", stealShare * 100)) }
        if others > thresholds.otherProcessesCores { reasons.append(String(format: "other processes %.2f cores", others)) }
        let computeReference = max(readings.map(\.computeStepsPerSecond).max() ?? 0, compute, committedCompute ?? 0)
        let bandwidthReference = max(readings.map(\.bandwidthGigabytesPerSecond).max() ?? 0, bandwidth, committedBandwidth ?? 0)
        if compute < thresholds.computeShare * computeReference {
            reasons.append(String(format: "compute loop at %.0f %%", compute / computeReference * 100))
        }
        if bandwidth < thresholds.bandwidthShare * bandwidthReference {
            reasons.append(String(format: "bandwidth loop at %.0f %% (%.1f GB/s)", bandwidth / bandwidthReference * 100, bandwidth))
        }
        let reading = NoiseReading(
            group: group, stealShare: stealShare, otherProcessesCores: others, computeStepsPerSecond: compute,
            bandwidthGigabytesPerSecond: bandwidth, reasons: reasons)
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
        let usesCommitted = (committedCompute ?? 0) > (compute.max() ?? 0) || (committedBandwidth ?? 0) > (bandwidth.max() ?? 0)
        return NoiseSummary(
            groups: readings.count, noisyGroups: readings.filter(\.isNoisy).count,
            stealShareMax: steal.last ?? 0, stealShareMedian: steal[steal.count / 2],
            otherProcessesCoresMedian: others[others.count / 2], otherProcessesCoresMax: others.last ?? 0,
            computeStepsPerSecond: Percentiles(compute), bandwidthGigabytesPerSecond: Percentiles(bandwidth),
            computeReference: max(compute.max() ?? 0, committedCompute ?? 0), bandwidthReference: max(bandwidth.max() ?? 0, committedBandwidth ?? 0),
            reference: usesCommitted ? "the committed run of this machine" : "this run's fastest reading",
            thresholds: thresholds, readings: readings)
    }

    /// Marks readings taken before a faster reference was seen: a reading is judged against the
    /// fastest of the whole run, not only of the groups before it.
    func rejudged() -> [NoiseReading] {
        guard let summary = summary() else { return [] }
        return readings.map { reading in
            var r = reading
            r.reasons = r.reasons.filter { !$0.hasPrefix("compute loop") && !$0.hasPrefix("bandwidth loop") }
            if r.computeStepsPerSecond < thresholds.computeShare * summary.computeReference {
                r.reasons.append(String(format: "compute loop at %.0f %%", r.computeStepsPerSecond / summary.computeReference * 100))
            }
            if r.bandwidthGigabytesPerSecond < thresholds.bandwidthShare * summary.bandwidthReference {
                r.reasons.append(String(format: "bandwidth loop at %.0f %% (%.1f GB/s)", r.bandwidthGigabytesPerSecond / summary.bandwidthReference * 100, r.bandwidthGigabytesPerSecond))
            }
            return r
        }
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

    /// The compute probe for about 2 ms, best of 3: spring-steps per second.
    private static func calibrateCompute(_ state: UnsafeMutablePointer<Float>) -> Double {
        let steps = 4096
        let best = TimingClock.wall.best(of: 3) { spring_probe_compute(state, steps, 0.99, 0.016, -0.5, 0.98) }
        return Double(steps) * Double(SPRING_PROBE_COMPUTE_SPRINGS) / best
    }

    /// The bandwidth probe over 64 MB, best of 3: GB/s.
    private static func calibrateBandwidth(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, springs: Int) -> Double {
        let best = TimingClock.wall.best(of: 3) { spring_probe_bandwidth(a, b, springs) }
        return Double(springs) * 16 / best / 1e9
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
