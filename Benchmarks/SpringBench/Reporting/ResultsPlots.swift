import Foundation

/// The results' plots, from measured figures: throughput against springs with the probes, and
/// the settle latency of each detector.
enum ResultsPlots {
    /// Throughput (p50) of the bank, C, and the peers' algorithms against springs, log-log, with the
    /// bandwidth probe over the step's 16 bytes and the compute probe (C loops in memory and in
    /// registers: references, not bounds).
    static func throughput(_ results: [ThroughputResult], machine: MachineInfo) -> String? {
        let sizes = Set(results.map(\.springs)).sorted()
        guard sizes.count >= 2 else { return nil }
        func line(_ kernel: ThroughputKernel, group: String = "kernels", threads: Int = 1) -> [(x: Double, y: Double)] {
            sizes.compactMap { springs in
                results.first { $0.kernel == kernel.rawValue && $0.springs == springs && $0.group == group && $0.threadsRequested == "\(threads)" && $0.isPlain }
                    .map { (Double(springs), $0.springStepsPerSecond.p50) }
            }
        }
        let probes = Roofline.probes(in: results)
        let probed = sizes.compactMap { springs in probes[springs].map { (springs, $0) } }
        let bandwidth = probed.map { (x: Double($0.0), y: $0.1.gigabytesPerSecond * 1e9 / 16) }
        let compute = probed.map { (x: Double($0.0), y: $0.1.computeSpringStepsPerSecond) }
        let series: [SVGPlot.Series] = [
            SVGPlot.Series(name: "bandwidth probe / 16 B (C; not a bound)", color: "#bbbbbb", width: 9, points: bandwidth),
            SVGPlot.Series(name: "compute probe (C in registers; not a bound)", color: "#777777", dash: "6 4", width: 1.5, points: compute),
            SVGPlot.Series(name: "object-per-spring", color: "#d62728", points: line(.objectPerSpring)),
            SVGPlot.Series(name: "rk4-1ms (SIMD16)", color: "#9467bd", points: line(.rk4)),
            SVGPlot.Series(name: "scalar (bank step)", color: "#8c564b", points: line(.scalar)),
            SVGPlot.Series(name: "C, absolute (20 B)", color: "#e0b050", points: line(.cAbsolute)),
            SVGPlot.Series(name: "simd, 2 threads", color: "#17becf", points: line(.simd, group: "threads", threads: 2)),
            SVGPlot.Series(name: "C, same loop (16 B)", color: "#ff7f0e", points: line(.cDisplacement)),
            SVGPlot.Series(name: "simd (bank step)", color: "#1f77b4", width: 2.5, points: line(.simd)),
        ]
        let values = series.flatMap { $0.points.map(\.y) }.filter { $0 > 0 }
        guard let low = values.min(), let high = values.max() else { return nil }
        return SVGPlot.logLog(
            title: "Spring-steps per second, one frame of N springs (\(machine.cpuModel), \(machine.isa))",
            xLabel: "springs (N)", yLabel: "spring-steps per second (p50)", series: series,
            xTicks: sizes.map { (Double($0), springCountLabel($0)) },
            yRange: (pow(10, floor(log10(low))), pow(10, ceil(log10(high)))), yTickLabel: { engineering($0).replacingOccurrences(of: ".00", with: "") })
    }

    /// The latency bins of the settle histogram, in frames (D - R).
    static let latencyBins: [(label: String, range: ClosedRange<Int>)] = [
        ("≤ −16", Int.min...(-16)), ("−15…−4", -15...(-4)), ("−3…−1", -3...(-1)), ("0", 0...0), ("1", 1...1), ("2", 2...2),
        ("3–4", 3...4), ("5–8", 5...8), ("9–16", 9...16), ("17–32", 17...32), ("33–64", 33...64), ("65–256", 65...256),
        ("> 256", 257...Int.max),
    ]

    /// One histogram per detector of D - R over the corpus (early rests in red, R and R + 1 in
    /// green), plus the share never reported at rest.
    static func settleLatency(_ report: SettleReport) -> String {
        let labels = latencyBins.map(\.label) + ["never"]
        let colors = latencyBins.map { $0.range.upperBound < 0 ? "#d62728" : ($0.range.lowerBound >= 0 && $0.range.upperBound <= 1 ? "#2ca02c" : "#1f77b4") } + ["#999999"]
        let panels = report.detectors.map { detector -> SVGPlot.Histogram in
            var counts = [Int](repeating: 0, count: labels.count)
            var total = 0
            for i in report.cases.indices {
                guard let r = report.exact[i] else { continue }
                total += 1
                guard let d = detector.frames[i] else {
                    counts[labels.count - 1] += 1
                    continue
                }
                if let bin = latencyBins.firstIndex(where: { $0.range.contains(d - r) }) { counts[bin] += 1 }
            }
            return SVGPlot.Histogram(
                title: detector.name, fractions: counts.map { total > 0 ? Double($0) / Double(total) : 0 }, colors: colors)
        }
        return SVGPlot.histogramStack(
            title: "Settle latency per detector: reported rest frame D against the exact rest frame R",
            subtitle: "\(report.cases.count) seeded cases, damping ratio 0.01–30, 30–240 Hz; red: early (reported before R), green: R or R + 1",
            binLabels: labels, xLabel: "D − R (frames)", panels: panels)
    }
}
