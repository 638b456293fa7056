import Foundation
@_spi(KernelInternals) import SpringKernel

/// `spring-bench profile`: one kernel in a steady loop, for `perf record` or callgrind.
struct ProfileCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench profile --kernel K [--springs N] [--seconds S | --frames F] [--threads T]
                             [--format table|json|csv] [--output DIR]

          Runs one throughput kernel (any of: \(ThroughputKernel.allCases.map(\.rawValue).joined(separator: ", ")))
          on N springs (default 1M) frame after frame for S seconds (default 10), or exactly F frames
          (for instruction counts under callgrind), after 3 untimed frames, then prints what it did.
          Every kernel's entry point is kept out of line (KernelEntry in the sources; the bank's own
          SpringBank.step for simd/scalar, with the lane loop inlined into it), so perf charges the
          kernel's samples to the kernel. See the README's "Profiling with perf".
        """

    var kernel: ThroughputKernel
    var springs: Int
    var seconds: Double
    var frames: Int?
    var threads: Int?
    var format: OutputFormat
    var output: String?

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        guard let name = arguments.string("kernel") else { throw .usage("profile needs --kernel\n\n\(Self.help)") }
        guard let kernel = ThroughputKernel(rawValue: name) else { throw .usage("unknown kernel \(name)") }
        self.kernel = kernel
        let sizes = try arguments.sizes("springs", bytesEach: 256) ?? [1 << 20]
        guard sizes.count == 1 else { throw .usage("--springs takes one size") }
        springs = sizes[0]
        seconds = try arguments.double("seconds", in: 1e-3...1e6) ?? 10
        frames = try arguments.int("frames", in: 1...1_000_000_000)
        guard seconds > 0, frames.map({ $0 > 0 }) ?? true else { throw .usage("--seconds and --frames must be positive") }
        let threadName = arguments.string("threads") ?? "1"
        if threadName == "auto" {
            threads = nil
        } else {
            guard let count = Int(threadName), (1...StepThreading.maximumThreads).contains(count) else { throw .usage("--threads takes a count in 1...\(StepThreading.maximumThreads) or auto") }
            threads = count
        }
        _ = arguments.flag("quick")
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
    }

    /// What the loop did.
    struct Report: Codable {
        var kernel: String
        var springs: Int
        var threads: String
        var frames: Int
        var seconds: Double
        var springStepsPerSecond: Double
        var nanosecondsPerFrame: Double
    }

    /// Builds the kernel's frame, runs it, and prints what it did.
    func run() throws {
        let machine = MachineInfo.current()
        let progress = Progress()
        let bench = ThroughputBench(timer: FrameTimer(repeats: 1, secondsPerRepeat: 0.1), isa: machine.isa, progress: progress)
        let (contender, stepsPerFrame) = try bench.contender(
            ThroughputCase(kernel: kernel, springs: springs, threads: threads, group: "profile"), cache: WorkloadCache())
        progress.note("profile: \(kernel.rawValue) on \(springCountLabel(springs)) springs, " + (frames.map { "\($0) frames" } ?? "\(seconds) s"))
        let (done, elapsed) = try FrameTimer.run(contender, frames: frames, seconds: seconds)
        progress.finish()
        let report = Report(
            kernel: kernel.rawValue, springs: springs, threads: threads.map(String.init) ?? "auto", frames: done, seconds: elapsed,
            springStepsPerSecond: Double(done * stepsPerFrame) / elapsed, nanosecondsPerFrame: elapsed / Double(done) * 1e9)
        if let output { try writeFile(try jsonText(report), to: "\(output)/profile.json") }
        switch format {
        case .table:
            print("\(report.kernel) on \(springCountLabel(springs)) springs: \(done) frames in \(String(format: "%.2f", elapsed)) s, "
                + "\(engineering(report.springStepsPerSecond)) spring-steps/s, \(String(format: "%.0f", report.nanosecondsPerFrame)) ns a frame")
        case .json: print(try jsonText(report), terminator: "")
        case .csv:
            print(CSVText.text(
                header: ["kernel", "springs", "threads", "frames", "seconds", "spring_steps_per_second", "nanoseconds_per_frame"],
                rows: [[report.kernel, "\(springs)", "\(report.threads)", "\(done)", "\(elapsed)", "\(report.springStepsPerSecond)", "\(report.nanosecondsPerFrame)"]]),
                terminator: "")
        }
    }
}
