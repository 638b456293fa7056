/// The machine's ceiling for advancing springs, measured in the same run as the kernels.
///
/// The roofline is the bandwidth probe (GB/s for the kernel's in-place traffic, per size: L1, L2,
/// L3 or DRAM) over the kernel's bytes per step: a loop that only reads and writes a step's bytes
/// in place, with no arithmetic, bounds any kernel that moves those bytes. The compute probe (the
/// step's arithmetic on springs held in registers, a C loop) is reported beside it as a reference,
/// not as a ceiling: it is one compiler's schedule of one loop, and at 1K-4K springs on Zen 3 the
/// kernel's own step ran 1.37x faster than it (so a roofline taking the lower of the two lay below
/// the measured kernel).
enum Roofline {
    /// The probes of one size.
    struct Probes {
        var gigabytesPerSecond: Double
        var computeSpringStepsPerSecond: Double
    }

    /// The probes measured at each size (the first of each, p50).
    static func probes(in results: [ThroughputResult]) -> [Int: Probes] {
        var bandwidth: [Int: Double] = [:], compute: [Int: Double] = [:]
        for r in results {
            if r.kernel == ThroughputKernel.probeBandwidth.rawValue, bandwidth[r.springs] == nil {
                bandwidth[r.springs] = r.gigabytesPerSecond.p50
            }
            if r.kernel == ThroughputKernel.probeCompute.rawValue, compute[r.springs] == nil {
                compute[r.springs] = r.springStepsPerSecond.p50
            }
        }
        var probes: [Int: Probes] = [:]
        for (springs, gigabytes) in bandwidth {
            if let steps = compute[springs] { probes[springs] = Probes(gigabytesPerSecond: gigabytes, computeSpringStepsPerSecond: steps) }
        }
        return probes
    }

    /// Fills in every result's share of the roofline at its size, where the run measured both probes.
    static func annotate(_ results: inout [ThroughputResult]) {
        let probes = probes(in: results)
        for i in results.indices {
            guard let probe = probes[results[i].springs] else { continue }
            let r = results[i]
            // A kernel that moves no bytes (the compute probe itself) is measured against itself.
            let moves = r.bytesPerSpringStep > 0
            let ceiling = moves ? probe.gigabytesPerSecond * 1e9 / Double(r.bytesPerSpringStep) : probe.computeSpringStepsPerSecond
            func share(_ p: Percentiles, over value: Double) -> Percentiles {
                Percentiles(p0: p.p0 / value, p50: p.p50 / value, p90: p.p90 / value, p100: p.p100 / value)
            }
            results[i].roofline = RooflineShare(
                springStepsPerSecond: ceiling,
                bound: moves ? "bandwidth" : "compute",
                probeGigabytesPerSecond: probe.gigabytesPerSecond,
                probeComputeSpringStepsPerSecond: probe.computeSpringStepsPerSecond,
                fraction: share(r.springStepsPerSecond, over: ceiling),
                bandwidthFraction: share(r.gigabytesPerSecond, over: probe.gigabytesPerSecond))
        }
    }
}
