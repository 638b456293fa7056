/// The machine's ceilings for advancing springs, measured in the same run as the kernels: the
/// bandwidth probe (GB/s for the kernel's in-place traffic, per size: L1, L2, L3 or DRAM) and the
/// compute probe (spring-steps/s with nothing in memory). The roofline of a kernel at a size is
/// the lower of the compute ceiling and the bandwidth ceiling over the kernel's bytes per step.
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
            let bandwidthCeiling = r.bytesPerSpringStep > 0
                ? probe.gigabytesPerSecond * 1e9 / Double(r.bytesPerSpringStep) : Double.infinity
            let ceiling = min(probe.computeSpringStepsPerSecond, bandwidthCeiling)
            func share(_ p: Percentiles, over value: Double) -> Percentiles {
                Percentiles(p0: p.p0 / value, p50: p.p50 / value, p90: p.p90 / value, p100: p.p100 / value)
            }
            results[i].roofline = RooflineShare(
                springStepsPerSecond: ceiling,
                bound: probe.computeSpringStepsPerSecond <= bandwidthCeiling ? "compute" : "bandwidth",
                probeGigabytesPerSecond: probe.gigabytesPerSecond,
                probeComputeSpringStepsPerSecond: probe.computeSpringStepsPerSecond,
                fraction: share(r.springStepsPerSecond, over: ceiling),
                bandwidthFraction: share(r.gigabytesPerSecond, over: probe.gigabytesPerSecond))
        }
    }
}
