/// What the machine's probes say about advancing springs, measured in the same run as the kernels:
/// each figure's share of the bandwidth probe (GB/s of an in-place read and write of the kernel's
/// bytes, with no arithmetic, per size: L1, L2, L3 or DRAM) over its bytes per step.
///
/// The probe is a reference, not a bound, and is named for what it is (the JSON keeps the field
/// name `roofline` for `compare`'s baselines). It used to be called the roofline, the lower of it
/// and the compute probe (the step's arithmetic in registers); but both are one compiler's loop:
/// on Zen 3 the kernel ran at 1.37x of the compute probe in L1, and on the AVX-512 VMs (CPUID:
/// AMD family 25, model 17, a Zen 4) at up to 1.4x of the
/// bandwidth probe in L2 (even a 64-byte-vector version of it), so neither bounds the kernel.
/// A true ceiling would need the core's clock, which these VMs do not expose.
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
