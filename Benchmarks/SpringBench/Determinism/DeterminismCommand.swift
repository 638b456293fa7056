import Foundation
@_spi(KernelInternals) import SpringKernel

/// `spring-bench determinism`: runs the kernel's ``DeterminismScene`` and prints its state hash.
struct DeterminismCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench determinism --kernel fixed|float [--threads T] [--path simd|scalar] [--validate-hash HEX]
                                 [--format table|json|csv]

          Runs DeterminismScene (600 springs in four configurations through pauses and resumes of two
          overlapping masks, retargets, impulses, removals, additions, reconfigurations and a changing
          frame duration, until everything rests) in a bank of the kernel's lane format, and prints the
          frame it came to rest on and its state hash; in the table format the hash, as 16 hex digits, is
          the last line (JSON and CSV hold it as a field).
          With --validate-hash, exits 1 unless the hash is HEX. The tests pin the hash of each kernel.
        """

    var kernel: SettleKernel
    var threads: Int
    var path: StepPath
    var expected: String?
    var format: OutputFormat

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        guard let name = arguments.string("kernel"), let kernel = SettleKernel(rawValue: name) else {
            throw .usage("determinism needs --kernel fixed or --kernel float")
        }
        self.kernel = kernel
        threads = try arguments.int("threads", in: 1...StepThreading.maximumThreads) ?? 1
        guard threads >= 1 else { throw .usage("--threads must be at least 1") }
        guard let path = StepPath(rawValue: arguments.string("path") ?? "simd") else { throw .usage("--path must be simd or scalar") }
        self.path = path
        expected = arguments.string("validate-hash")?.lowercased()
        if let expected, expected.count != 16 || UInt64(expected, radix: 16) == nil {
            throw .usage("--validate-hash takes 16 hexadecimal digits")
        }
        format = try outputFormat(&arguments)
        try arguments.rejectUnread()
    }

    /// One run's outcome, for `--format json`.
    struct Report: Codable {
        var kernel: String
        var threads: Int
        var path: String
        var isa: String
        var restFrame: Int
        var hash: String
        var expectedHash: String?
        var matches: Bool?
    }

    /// Runs the scene in a bank of `kernel`'s format.
    static func report(kernel: SettleKernel, threads: Int, path: StepPath, isa: String, expected: String? = nil) throws -> Report {
        let threading: StepThreading = threads == 1 ? .single : .fixed(threads)
        let result = kernel == .fixed
            ? try DeterminismScene.run(Q16Lanes.self, threading: threading, path: path)
            : try DeterminismScene.run(Float32Lanes.self, threading: threading, path: path)
        return Report(
            kernel: kernel.rawValue, threads: threads, path: path.rawValue, isa: isa, restFrame: result.restFrame,
            hash: result.hashHex, expectedHash: expected, matches: expected.map { $0 == result.hashHex })
    }

    /// Runs the scene; returns the exit status (1 when the hash does not validate).
    func run() throws -> Int32 {
        let report = try Self.report(kernel: kernel, threads: threads, path: path, isa: MachineInfo.current().isa, expected: expected)
        let result = (restFrame: report.restFrame, hashHex: report.hash)
        switch format {
        case .table:
            print("\(kernel.rawValue) kernel, \(path.rawValue) path, \(threads) thread(s), built for \(report.isa): at rest on frame \(result.restFrame)")
            if let expected { print(expected == result.hashHex ? "hash matches \(expected)" : "HASH MISMATCH: expected \(expected)") }
            // The table's last line is the hash alone, for scripts (JSON and CSV carry it as a field).
            print(result.hashHex)
        case .json:
            print(try jsonText(report), terminator: "")
        case .csv:
            print(CSVText.text(
                header: ["kernel", "threads", "path", "isa", "rest_frame", "hash"],
                rows: [[kernel.rawValue, "\(threads)", path.rawValue, report.isa, "\(result.restFrame)", result.hashHex]]), terminator: "")
        }
        return report.matches == false ? 1 : 0
    }
}
