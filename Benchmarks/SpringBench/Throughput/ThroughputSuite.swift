import Foundation

/// The standard throughput sweep (the default run, and `throughput` with no kernel or variant
/// options): for each size, groups of cases measured together with their repeats interleaved, so
/// every ratio the summary reports is taken between figures of one group.
///
/// - `kernels`: the bank's step, its bare loop and scalar twin, the C loops, the peers' algorithms
///   and the two probes.
/// - `threads`: 1 and 2 threads, and `StepThreading.automatic` (which must never be slower than 1). `pause` (to 4M): 0, 50 and 100 % of the springs held by a pause
///   mask. `settle` (to 1M): no settling against springs that rest and restart (``SettleWorkload``).
///   `configurations`: 1 and 64. `skip-at-rest` (one size): all moving against 1 %.
///   Each holds the plain bank case, its reference.
enum ThroughputSuite {
    /// 1K to 16M, powers of 4 (`throughput`'s default, and the main job's with `--full`).
    static let sizes = (0...7).map { 1 << (10 + 2 * $0) }
    /// The main job's: 1K to 1M (L1 to the last-level cache), which keeps it under 1.5 GB; 4M and
    /// 16M (DRAM, 4.6 GB at peak) come with `--full`.
    static let defaultSizes = (0...5).map { 1 << (10 + 2 * $0) }
    /// `--quick`: 1K (L1) and 16K (L2).
    static let quickSizes = [1 << 10, 1 << 14]
    /// Above this, a frame of object springs takes tenths of a second and its setup seconds.
    static let objectPerSpringLimit = 1 << 18
    /// Above this, the scalar step (20x slower) adds seconds without telling more.
    static let scalarLimit = 1 << 18
    /// Above this, pausing half the springs spends tens of seconds in mask bookkeeping (one call
    /// per member when the mask is made), which a default run cannot afford.
    static let pauseLimit = 1 << 22
    /// Above this, a frame of churn is hundreds of thousands of restarts (about 1 µs each), and the
    /// bank's warm-up alone takes minutes.
    static let churnLimit = 1 << 20

    /// The groups of one size.
    static func groups(springs: Int, quick: Bool) -> [[ThroughputCase]] {
        func simd(_ group: String) -> ThroughputCase { ThroughputCase(kernel: .simd, springs: springs, group: group) }
        var kernels: [ThroughputKernel] = [.simd, .simdLoop, .cDisplacement, .cAbsolute, .fixed, .cFixed, .rk4]
        if springs <= scalarLimit { kernels += [.scalar, .fixedScalar] }
        if springs <= objectPerSpringLimit { kernels.append(.objectPerSpring) }
        kernels += [.probeBandwidth, .probeCompute]
        var groups: [[ThroughputCase]] = [
            kernels.map { ThroughputCase(kernel: $0, springs: springs, group: "kernels") },
            [simd("threads"), with(simd("threads")) { $0.threads = 2 }, with(simd("threads")) { $0.threads = nil }],
        ]
        if springs <= pauseLimit {
            groups.append([simd("pause"), with(simd("pause")) { $0.paused = 0.5 }, with(simd("pause")) { $0.paused = 1 }])
        }
        if springs <= churnLimit { groups.append([simd("settle"), with(simd("settle")) { $0.settle = .churn }]) }
        groups.append([simd("configurations"), with(simd("configurations")) { $0.configurations = 64 }])
        if springs >= 1 << 14 && springs <= 1 << 20 {
            // A measured frame time every frame against a steady one, float and fixed point.
            let steady = [ThroughputCase(kernel: .simd, springs: springs, group: "frame-clock"), ThroughputCase(kernel: .fixed, springs: springs, group: "frame-clock")]
            groups.append(steady + steady.map { with($0) { $0.frameClock = .jitter } })
        }
        if springs == (quick ? 1 << 14 : 1 << 20) {
            groups.append([simd("skip-at-rest"), with(simd("skip-at-rest")) { $0.moving = 0.01 }])
        }
        return groups
    }

    /// Runs every group of every size, one size at a time (its plain bank kept across its groups,
    /// everything else freed after each group), and fills in the shares of the bandwidth probe.
    static func run(sizes: [Int], quick: Bool, bench: ThroughputBench) throws -> [ThroughputResult] {
        var results: [ThroughputResult] = []
        for (n, springs) in sizes.enumerated() {
            let cache = WorkloadCache()
            let plainKey = ThroughputCase(kernel: .simd, springs: springs).bankKey
            for group in groups(springs: springs, quick: quick) {
                bench.progress.note("[\(n + 1)/\(sizes.count)] throughput \(springCountLabel(springs)) \(group[0].group): \(group.map(\.label).joined(separator: ", "))")
                results += try bench.run(group, cache: cache)
                cache.keepOnlyBanks([plainKey])
            }
        }
        Roofline.annotate(&results)
        return results
    }
}

/// A copy of `value` changed by `change`.
func with<Value>(_ value: Value, _ change: (inout Value) -> Void) -> Value {
    var copy = value
    change(&copy)
    return copy
}

extension ThroughputCase {
    /// A short name for progress lines: the kernel and what differs from the plain case.
    var label: String {
        var parts = [kernel.rawValue]
        if kernel.isBank {
            if threads != 1 { parts.append("\(threads.map(String.init) ?? "auto") threads") }
            if paused > 0 { parts.append("\(Int(paused * 100))% paused") }
            if settle != .off { parts.append("settle \(settle.rawValue)") }
            if configurations != 1 { parts.append("\(configurations) configs") }
            if moving < 1 { parts.append("\(String(format: "%g", moving * 100))% moving") }
            if frameClock != .steady { parts.append("\(frameClock.rawValue) clock") }
        }
        return parts.joined(separator: " ")
    }
}
