import Foundation

/// `spring-bench` with no command: the README's main job. Measures the kernel against C at every
/// size, the skip-at-rest and thread figures, and settle detection on the built-in corpus; prints
/// a summary and writes everything to `results/<machine>-<isa>/`.
struct DefaultRun {
    static let help = """
        spring-bench [--quick] [--output DIR]

          The main job (a few minutes): throughput of the SIMD kernel, its scalar twin and the C
          reference loops from 1K to 16M springs, skip-at-rest (1% of 1M moving), 1 vs 2 threads,
          and settle detection on a 20,000-case corpus. Writes results/<machine>-<isa>/.
        """

    var quick: Bool
    var outputRoot: String

    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        quick = arguments.flag("quick")
        outputRoot = arguments.string("output") ?? "results"
        try arguments.rejectUnread()
    }

    func run() throws {
        let machine = MachineInfo.current()
        let progress = Progress()
        let timer = FrameTimer(repeats: quick ? 3 : 7, secondsPerRepeat: quick ? 0.01 : 0.05)
        let bench = ThroughputBench(timer: timer, isa: machine.isa)
        let sizes = quick ? [1 << 10, 1 << 14] : [1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 24]
        // Each group is measured together, repeats interleaved, so its ratios share conditions.
        var groups: [[ThroughputCase]] = []
        for size in sizes {
            var group = [ThroughputKernel.simd, .simdLoop, .cDisplacement, .cAbsolute].map { ThroughputCase(kernel: $0, springs: size, threads: 1) }
            if size <= 1 << 18 { group.append(ThroughputCase(kernel: .scalar, springs: size, threads: 1)) }
            if size >= 1 << 22 {
                group.append(ThroughputCase(kernel: .simd, springs: size, threads: 2))
                group.append(ThroughputCase(kernel: .simd, springs: size, threads: nil))
            }
            groups.append(group)
        }
        let skipSize = quick ? 1 << 16 : 1_000_000
        groups.append([
            ThroughputCase(kernel: .simd, springs: skipSize, threads: 1, moving: 1),
            ThroughputCase(kernel: .simd, springs: skipSize, threads: 1, moving: 0.01),
        ])

        var results: [ThroughputResult] = []
        for (n, group) in groups.enumerated() {
            progress.note("[\(n + 1)/\(groups.count)] throughput \(springCountLabel(group[0].springs)): \(group.map(\.kernel.rawValue).joined(separator: ", "))")
            results += try bench.run(group)
        }
        let settle = try SettleCommand.corpusReport(count: quick ? 500 : 20_000, seed: 2026, progress: progress)
        progress.finish()

        let folder = "\(outputRoot)/\(machine.slug)"
        let summary = Self.summary(machine: machine, results: results, settle: settle)
        try writeFile(try jsonText(machine), to: "\(folder)/machine.json")
        try writeFile(try jsonText(results), to: "\(folder)/throughput.json")
        try writeFile(ThroughputCommand.table(results).csv(), to: "\(folder)/throughput.csv")
        try settle.write(to: folder)
        try writeFile(summary, to: "\(folder)/README.md")
        print(summary)
        FileHandle.standardError.write(Data("results written to \(folder)/\n".utf8))
    }

    /// The figures the kernel issue asks for, as Markdown.
    static func summary(machine: MachineInfo, results: [ThroughputResult], settle: SettleReport) -> String {
        /// The run of a kernel at a size; `threads` "auto" is the bank's automatic choice.
        func result(_ kernel: ThroughputKernel, _ springs: Int, threads: String = "1", moving: Double = 1) -> ThroughputResult? {
            results.first { $0.kernel == kernel.rawValue && $0.springs == springs && $0.threadsRequested == threads && $0.moving == moving }
        }
        var lines = [
            "# spring-bench results", "",
            "- Machine: \(machine.cpuModel), \(machine.processors) cores",
            "- spring-bench (and the inlined kernel step) built for **\(machine.isa)**; C reference loops built for \(machine.referenceIsa) (clang -O3 -march=native)",
            "- Swift \(machine.swiftVersion); measured \(machine.date)",
            "- Figures are p50 over repeats after an untimed warm-up; ratios are taken within this one run.", "",
            "## Throughput: the SIMD kernel against C", "",
            "`simd` is the bank's whole step (plan, loop, rest schedule); `simd-loop` is the kernel's loop alone on the same lanes; `C 16 B` is clang -O3 -march=native on the same arithmetic and layout; `C 20 B` is the ANCHORS loop on absolute positions.", "",
            "| springs | simd steps/s | simd / C 16 B | simd-loop / C 16 B | C 16 B | C 20 B | simd / C 20 B | scalar | simd GB/s |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for springs in Set(results.map(\.springs)).sorted() {
            guard let simd = result(.simd, springs), let c16 = result(.cDisplacement, springs), let c20 = result(.cAbsolute, springs) else { continue }
            let scalar = result(.scalar, springs).map { engineering($0.springStepsPerSecond.p50) } ?? "-"
            let s = simd.springStepsPerSecond.p50, c = c16.springStepsPerSecond.p50
            let loop = result(.simdLoop, springs).map { String(format: "%.2fx", $0.springStepsPerSecond.p50 / c) } ?? "-"
            lines.append("| \(springCountLabel(springs)) | \(engineering(s)) | \(String(format: "%.2fx", s / c)) | \(loop) | \(engineering(c)) | \(engineering(c20.springStepsPerSecond.p50)) | \(String(format: "%.2fx", s / c20.springStepsPerSecond.p50)) | \(scalar) | \(String(format: "%.1f", simd.gigabytesPerSecond.p50)) |")
        }
        lines += ["", "## Threads", "", "| springs | 1 thread | 2 threads | ratio | automatic | ratio |", "|---|---|---|---|---|---|"]
        for springs in Set(results.map(\.springs)).sorted() {
            guard let one = result(.simd, springs), let two = result(.simd, springs, threads: "2"),
                let auto = result(.simd, springs, threads: "auto")
            else { continue }
            let base = one.springStepsPerSecond.p50
            lines.append("| \(springCountLabel(springs)) | \(engineering(base)) | \(engineering(two.springStepsPerSecond.p50)) | \(String(format: "%.2fx", two.springStepsPerSecond.p50 / base)) | \(engineering(auto.springStepsPerSecond.p50)) (\(auto.threads) thr) | \(String(format: "%.2fx", auto.springStepsPerSecond.p50 / base)) |")
        }
        if let few = results.first(where: { $0.kernel == "simd" && $0.moving < 1 }),
            let all = result(.simd, few.springs, threads: few.threadsRequested) {
            lines += [
                "", "## Skip at rest", "",
                "\(springCountLabel(all.springs)) springs, \(String(format: "%g", few.moving * 100)) % moving at random: a frame costs \(String(format: "%.0f", few.nanosecondsPerFrame.p50)) ns against \(String(format: "%.0f", all.nanosecondsPerFrame.p50)) ns with all moving: **\(String(format: "%.2f", few.nanosecondsPerFrame.p50 / all.nanosecondsPerFrame.p50 * 100)) %** of the cost.",
            ]
        }
        lines += ["", "## Settle detection against the exact rest frame R (\(settle.cases.count) cases)", "", "```", settle.table().render(), "```", ""]
        return lines.joined(separator: "\n")
    }
}
