import Foundation
@_spi(KernelInternals) import SpringKernel

/// `spring-bench throughput`: spring-steps per second of the kernels, the peers' algorithms and
/// the machine's probes, at chosen sizes.
struct ThroughputCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench throughput [--springs N[,N...]] [--kernel K[,K...]] [--threads T[,T...]]
                                [--paused F[,F...]] [--settle off|churn[,...]] [--configurations C[,C...]]
                                [--moving F] [--frame-clock steady|jitter|vrr|hitch[,...]] [--repeats R] [--quick]
                                [--format table|json|csv] [--output DIR]

          Spring-steps per second, GB/s and share of the bandwidth probe, each as p0/p50/p90/p100
          over repeats after an untimed warm-up. Cases of one size are measured together with their
          repeats interleaved (the machine drifts by ±15 % between runs; ratios within a group do not).
          Spring-steps count every spring in the bank (moving, paused or at rest), so two figures'
          ratio is their frame-cost ratio.

          With no kernel or variant option: the standard sweep (see the groups below).
          --springs        sizes, with K/M suffixes (default 1K,4K,16K,64K,256K,1M,4M,16M; --quick: 1K,16K)
          --kernel         any of:
        \(ThroughputKernel.allCases.map { "                     \($0.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)) \($0.helpLine)" }.joined(separator: "\n"))
          --threads        threads for a bank's step: counts and `auto` (default 1)
          --paused         fractions of springs held by a pause mask (default 0)
          --settle         off: undamped springs that never rest; churn: default springs that rest and are
                           restarted on their rest frame (default off). The kernel has no per-step settle
                           check to switch off: rest is predicted once per trajectory; churn measures
                           what predicting, scheduling, snapping and restarting really cost.
          --configurations distinct configurations the springs are spread over (default 1)
          --moving         fraction of springs moving, scattered at random; the rest are at rest (default 1)
          --frame-clock    the bank kernels' frame durations, nominal 60 Hz (default steady): jitter (1/60 s
                           ± 15 % every frame, a measured frame time), vrr (stretches at 120/80/60/48 Hz),
                           hitch (one frame in 50 lasts 0.05-0.6 s); a new dt costs what a steady one does
          The probes are measured at every size in any case: every figure is reported against them.

          Standard groups per size: kernels (all of the above; scalar and object-per-spring to 256K),
          threads (1, 2), pause (0, 50, 100 %; to 4M), settle (off, churn; to 1M), configurations (1, 64),
          frame-clock (float and fixed, steady and jitter, 16K to 1M), and at 1M skip-at-rest (100 %, 1 % moving). Larger sizes of a group: ask for them with options.
        """

    /// Bank sizes to measure, one group (or set of groups) each.
    var sizes: [Int]
    /// Nil: the standard sweep.
    var custom: CustomSweep?
    var quick: Bool
    var timer: FrameTimer
    var format: OutputFormat
    var output: String?

    /// A cross product of kernels and bank variants.
    struct CustomSweep {
        var kernels: [ThroughputKernel]
        var threads: [Int?]
        var paused: [Double]
        var settle: [SettleWorkload]
        var configurations: [Int]
        var moving: Double
        var clocks: [SettleClock] = [.steady]

        /// One group per size: the bank kernels in every variant, the others once, and the probes.
        func cases(springs: Int) -> [ThroughputCase] {
            var cases: [ThroughputCase] = []
            for kernel in kernels {
                guard kernel.isBank else {
                    cases.append(ThroughputCase(kernel: kernel, springs: springs, moving: 1, group: "custom"))
                    continue
                }
                for t in threads {
                    for p in paused {
                        for s in settle {
                            for c in configurations {
                                for clock in clocks {
                                    cases.append(ThroughputCase(
                                        kernel: kernel, springs: springs, threads: t, moving: moving, paused: p, settle: s,
                                        configurations: c, frameClock: clock, group: "custom"))
                                }
                            }
                        }
                    }
                }
            }
            for probe in [ThroughputKernel.probeBandwidth, .probeCompute] where !kernels.contains(probe) {
                cases.append(ThroughputCase(kernel: probe, springs: springs, group: "custom"))
            }
            return cases
        }
    }

    /// Reads the options: any kernel or variant option selects a custom sweep.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        quick = arguments.flag("quick")
        sizes = try arguments.sizes("springs", bytesEach: 256) ?? (quick ? ThroughputSuite.quickSizes : ThroughputSuite.sizes)
        let kernelNames = arguments.list("kernel")
        let threadNames = arguments.list("threads")
        let paused = try arguments.doubles("paused", in: 0...1)
        let settleNames = arguments.list("settle")
        let configurations = try arguments.doubles("configurations", in: 1...65_536)
        let moving = try arguments.double("moving", in: 0...1)
        let clockNames = arguments.list("frame-clock")
        if kernelNames != nil || threadNames != nil || paused != nil || settleNames != nil || configurations != nil || moving != nil
            || clockNames != nil {
            var sweep = CustomSweep(kernels: [], threads: [], paused: paused ?? [0], settle: [], configurations: [], moving: moving ?? 1)
            if let clockNames {
                sweep.clocks = []
                for name in clockNames {
                    guard let clock = SettleClock(rawValue: name) else { throw .usage("--frame-clock takes steady, jitter, vrr and hitch") }
                    sweep.clocks.append(clock)
                }
            }
            for name in kernelNames ?? ["simd"] {
                guard let kernel = ThroughputKernel(rawValue: name) else { throw .usage("unknown kernel \(name)") }
                sweep.kernels.append(kernel)
            }
            for item in threadNames ?? ["1"] {
                if item == "auto" { sweep.threads.append(nil); continue }
                guard let count = Int(item), (1...StepThreading.maximumThreads).contains(count) else { throw .usage("--threads takes counts in 1...\(StepThreading.maximumThreads) and auto") }
                sweep.threads.append(count)
            }
            guard sweep.paused.allSatisfy({ $0 >= 0 && $0 <= 1 }) else { throw .usage("--paused fractions must be in [0, 1]") }
            for name in settleNames ?? ["off"] {
                guard let settle = SettleWorkload(rawValue: name) else { throw .usage("--settle takes off and churn") }
                sweep.settle.append(settle)
            }
            for value in configurations ?? [1] {
                guard value >= 1, value == value.rounded(), value <= 65_536 else { throw .usage("--configurations takes counts from 1 to 65536") }
                sweep.configurations.append(Int(value))
            }
            guard sweep.moving > 0 && sweep.moving <= 1 else { throw .usage("--moving must be in (0, 1]") }
            custom = sweep
        }
        timer = FrameTimer(repeats: try arguments.int("repeats", in: 1...1000) ?? (quick ? 3 : 7), secondsPerRepeat: quick ? 0.01 : 0.05)
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
    }

    /// Measures and prints (and writes) the results.
    func run() throws {
        let machine = MachineInfo.current()
        let bench = ThroughputBench(timer: timer, isa: machine.isa)
        var results: [ThroughputResult]
        if let custom {
            results = []
            for (n, springs) in sizes.enumerated() {
                let cases = custom.cases(springs: springs)
                bench.progress.note("[\(n + 1)/\(sizes.count)] throughput \(springCountLabel(springs)): \(cases.map(\.label).joined(separator: ", "))")
                results += try bench.run(cases)
            }
            Roofline.annotate(&results)
        } else {
            results = try ThroughputSuite.run(sizes: sizes, quick: quick, bench: bench)
        }
        bench.progress.finish()
        if let output {
            try writeFile(try jsonText(results), to: "\(output)/throughput.json")
            try writeFile(Self.csv(results), to: "\(output)/throughput.csv")
            if let plot = ResultsPlots.throughput(results, machine: machine) { try writeFile(plot, to: "\(output)/throughput.svg") }
        }
        switch format {
        case .table: print(machine.headline + "\n" + Self.table(results).render())
        case .json: print(try jsonText(results), terminator: "")
        case .csv: print(Self.csv(results), terminator: "")
        }
    }

    /// The results as a text table (p50s, engineering notation).
    static func table(_ results: [ThroughputResult]) -> TextTable {
        var table = TextTable(header: [
            "kernel", "springs", "group", "variant", "thr", "steps/s p50", "p0", "p90", "p100", "GB/s p50", "bw probe", "share p50",
            "ns/frame p50",
        ], leftAligned: [0, 2, 3])
        for r in results {
            let s = r.springStepsPerSecond
            table.rows.append([
                r.kernel, springCountLabel(r.springs), r.group, r.variantLabel, "\(r.threads)",
                engineering(s.p50), engineering(s.p0), engineering(s.p90), engineering(s.p100),
                String(format: "%.1f", r.gigabytesPerSecond.p50),
                r.roofline.map { "\(engineering($0.springStepsPerSecond)) \($0.bound == "compute" ? "C" : "B")" } ?? "-",
                r.roofline.map { String(format: "%.1f%%", $0.fraction.p50 * 100) } ?? "-",
                String(format: "%.0f", r.nanosecondsPerFrame.p50),
            ])
        }
        return table
    }

    /// Every figure with full precision, one row per result.
    static func csv(_ results: [ThroughputResult]) -> String {
        let header = [
            "kernel", "springs", "group", "threads", "threads_requested", "moving", "paused", "settle", "configurations",
            "isa", "bytes_per_spring_step", "spring_steps_per_frame", "frames_per_repeat", "repeats",
            "spring_steps_per_second_p0", "spring_steps_per_second_p50", "spring_steps_per_second_p90", "spring_steps_per_second_p100",
            "gigabytes_per_second_p50", "nanoseconds_per_frame_p50",
            "roofline_spring_steps_per_second", "roofline_bound", "roofline_fraction_p0", "roofline_fraction_p50",
            "roofline_fraction_p90", "roofline_fraction_p100", "bandwidth_fraction_p50",
        ]
        return CSVText.text(header: header, rows: results.map { r in
            let s = r.springStepsPerSecond
            var fields: [String] = [
                r.kernel, "\(r.springs)", r.group, "\(r.threads)", r.threadsRequested, "\(r.moving)", "\(r.paused)", r.settle,
                "\(r.configurations)", r.isa, "\(r.bytesPerSpringStep)", "\(r.springStepsPerFrame)", "\(r.framesPerRepeat)",
                "\(r.repeats)", "\(s.p0)", "\(s.p50)", "\(s.p90)", "\(s.p100)", "\(r.gigabytesPerSecond.p50)",
                "\(r.nanosecondsPerFrame.p50)",
            ]
            if let roof = r.roofline {
                fields += [
                    "\(roof.springStepsPerSecond)", roof.bound, "\(roof.fraction.p0)", "\(roof.fraction.p50)", "\(roof.fraction.p90)",
                    "\(roof.fraction.p100)", "\(roof.bandwidthFraction.p50)",
                ]
            } else {
                fields += Array(repeating: "", count: 7)
            }
            return fields
        })
    }
}

extension ThroughputKernel {
    /// One line for `--help`.
    var helpLine: String {
        switch self {
        case .simd: "the bank's step (SIMD path)"
        case .scalar: "the bank's bit-identical scalar step"
        case .simdLoop: "the kernel's SIMD loop alone over plain lanes"
        case .cDisplacement: "C (clang -O3 -march=native): the same step and layout, 16 B a step (contracted to FMA)"
        case .cAbsolute: "C: the ANCHORS loop on absolute positions and targets, 20 B a step"
        case .fixed: "the fixed-point (Q16.16) bank's step"
        case .fixedScalar: "the fixed-point bank's bit-identical scalar step"
        case .cFixed: "C: the fixed-point arithmetic (binary32 increments rounded to nearest even, added to Int32 lanes, the bound's report)"
        case .rk4: "peers' integrator at its best: RK4, 1 ms substeps, SIMD16 over SoA lanes"
        case .objectPerSpring: "peers' layout: a class instance per spring, RK4 1 ms, 64 ms clamp (Rebound)"
        case .probeBandwidth: "reference: in-place read and write of 16 B a spring (C; not a bound)"
        case .probeCompute: "reference: the step's arithmetic on springs held in registers (C; not a bound)"
        }
    }
}

extension ThroughputResult {
    /// What differs from the plain case, for tables ("2 thr", "50% paused", "settle churn").
    var variantLabel: String {
        var parts: [String] = []
        if paused > 0 { parts.append("\(String(format: "%g", paused * 100))% paused") }
        if settle != SettleWorkload.off.rawValue { parts.append("settle \(settle)") }
        if configurations != 1 { parts.append("\(configurations) configs") }
        if moving < 1 { parts.append("\(String(format: "%g", moving * 100))% moving") }
        if let frameClock, frameClock != SettleClock.steady.rawValue { parts.append("\(frameClock) clock") }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }
}

/// Reads `--format`, defaulting to a table.
func outputFormat(_ arguments: inout CommandLineArguments) throws(BenchError) -> OutputFormat {
    let name = arguments.string("format") ?? "table"
    guard let format = OutputFormat(rawValue: name) else { throw .usage("--format must be table, json or csv") }
    return format
}
