import Foundation

/// `spring-bench throughput`: spring-steps per second of the kernels at chosen sizes.
struct ThroughputCommand {
    static let help = """
        spring-bench throughput [--springs N[,N...]] [--kernel K[,K...]] [--threads T] [--moving F]
                                [--configurations C] [--repeats R] [--quick] [--format table|json|csv] [--output DIR]

          Spring-steps per second (p0/p50/p90/p100 over repeats, after an untimed warm-up).
          --springs        bank sizes, with K/M suffixes (default 1K,16K,256K,4M,16M; --quick: 1K,16K)
          --kernel         simd (default), scalar, c-displacement (C, same arithmetic and layout),
                           c-absolute (C, the ANCHORS loop on absolute positions, 20 bytes a step)
          --threads        threads for the bank's step: a list of counts and `auto` (default: auto),
                           each measured on the same bank, repeats interleaved
          --moving         fraction of springs moving, scattered at random (default 1); spring-steps
                           count every spring in the bank, so two runs' ratio is their frame-cost ratio
          --configurations distinct configurations the springs are spread over (default 1)
        """

    var sizes: [Int]
    var kernels: [ThroughputKernel]
    /// Thread settings to measure; nil is the bank's automatic choice.
    var threads: [Int?]
    var moving: Double
    var configurations: Int
    var timer: FrameTimer
    var format: OutputFormat
    var output: String?

    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        let quick = arguments.flag("quick")
        sizes = try arguments.sizes("springs") ?? (quick ? [1 << 10, 1 << 14] : [1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 24])
        kernels = []
        for name in (arguments.string("kernel") ?? "simd").split(separator: ",") {
            guard let kernel = ThroughputKernel(rawValue: String(name)) else { throw .usage("unknown kernel \(name)") }
            kernels.append(kernel)
        }
        threads = []
        for item in (arguments.string("threads") ?? "auto").split(separator: ",") {
            if item == "auto" { threads.append(nil); continue }
            guard let count = Int(item), count >= 1 else { throw .usage("--threads takes counts of at least 1 and auto") }
            threads.append(count)
        }
        moving = try arguments.double("moving") ?? 1
        guard moving > 0 && moving <= 1 else { throw .usage("--moving must be in (0, 1]") }
        configurations = try arguments.int("configurations") ?? 1
        guard configurations >= 1 else { throw .usage("--configurations must be at least 1") }
        timer = FrameTimer(repeats: try arguments.int("repeats") ?? (quick ? 3 : 7), secondsPerRepeat: quick ? 0.01 : 0.05)
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
    }

    func run() throws {
        let machine = MachineInfo.current()
        let bench = ThroughputBench(timer: timer, isa: machine.isa)
        let progress = Progress()
        var results: [ThroughputResult] = []
        for size in sizes {
            progress.note("throughput \(springCountLabel(size)): \(kernels.map(\.rawValue).joined(separator: ", "))")
            results += try bench.run(kernels.flatMap { kernel in
                // Thread settings apply to the bank's kernels; the loop and C run on one thread.
                (kernel == .simd || kernel == .scalar ? threads : [1]).map {
                    ThroughputCase(kernel: kernel, springs: size, threads: $0, moving: moving, configurations: configurations)
                }
            })
        }
        progress.finish()
        let table = Self.table(results)
        if let output {
            try writeFile(try jsonText(results), to: "\(output)/throughput.json")
            try writeFile(table.csv(), to: "\(output)/throughput.csv")
        }
        switch format {
        case .table: print(machine.headline + "\n" + table.render())
        case .json: print(try jsonText(results), terminator: "")
        case .csv: print(table.csv(), terminator: "")
        }
    }

    static func table(_ results: [ThroughputResult]) -> TextTable {
        var table = TextTable(header: [
            "kernel", "springs", "threads", "moving", "configs", "steps/s p50", "p0", "p90", "p100", "GB/s p50", "ns/frame p50",
        ])
        for r in results {
            let s = r.springStepsPerSecond
            table.rows.append([
                r.kernel, springCountLabel(r.springs), "\(r.threads)", String(format: "%g", r.moving), "\(r.configurations)",
                engineering(s.p50), engineering(s.p0), engineering(s.p90), engineering(s.p100),
                String(format: "%.1f", r.gigabytesPerSecond.p50), String(format: "%.0f", r.nanosecondsPerFrame.p50),
            ])
        }
        return table
    }
}

/// Reads `--format`, defaulting to a table.
func outputFormat(_ arguments: inout CommandLineArguments) throws(BenchError) -> OutputFormat {
    let name = arguments.string("format") ?? "table"
    guard let format = OutputFormat(rawValue: name) else { throw .usage("--format must be table, json or csv") }
    return format
}
