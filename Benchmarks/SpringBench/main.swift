import Foundation

/// spring-bench: the benchmark of SpringKernel. See `spring-bench --help`.
enum BenchMain {
    static let usage = """
        spring-bench [command] [options]

        commands:
          (none)       the main job: throughput, skip-at-rest, threads and settle; writes results/
          throughput   spring-steps per second of the kernels at chosen sizes
          settle       rest frames of the kernel against the exact ones (or --cases FILE.csv)

        spring-bench <command> --help for a command's options.
        """

    static func main() -> Int32 {
        do {
            var arguments = try CommandLineArguments(Array(CommandLine.arguments.dropFirst()))
            let help = arguments.flag("help")
            switch arguments.command {
            case nil:
                if help { print(usage + "\n" + DefaultRun.help); return 0 }
                try DefaultRun(&arguments).run()
            case "throughput":
                if help { print(ThroughputCommand.help); return 0 }
                try ThroughputCommand(&arguments).run()
            case "settle":
                if help { print(SettleCommand.help); return 0 }
                try SettleCommand(&arguments).run()
            case let other?:
                throw BenchError.usage("unknown command \(other)\n\n\(usage)")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("spring-bench: \(error)\n".utf8))
            return error is BenchError ? 2 : 1
        }
    }
}

exit(BenchMain.main())
