import Foundation

/// spring-bench: the benchmark of SpringKernel and MotionInteractions. See `spring-bench --help`.
enum BenchMain {
    static let usage = """
        spring-bench [command] [options]

        commands:
          (none)         the main job (a few minutes): every command below at full size; prints a summary
                         and writes results/local/<machine>-<isa>/ (untracked; --output results
                         refreshes the committed runs)
          throughput     spring-steps per second of the kernels, the peers' algorithms and the probes
          settle         rest frames of each detector against the exact ones (or --cases FILE.csv)
          seed-scenario  the "Detecting Pauses" chapter's snapping view, detector by detector
          events         what an event (retarget, impulse, set-state, start, resume, configure) costs, the step's
                         share included, one call per spring or batched, at 1-100 % of the springs per frame
          interactions   the interaction layer's cost per frame above the kernel step, and its allocations
          determinism    a fixed scene's rest frame and state hash (--kernel fixed|float, --validate-hash HEX)
          fidelity       the fixed-point bank against the exact trajectory: largest deviation, rest frames
          profile        one kernel in a steady loop, for perf or callgrind
          compare        each figure of a results.json against a baseline; exits 1 on a regression
          c-scenarios    the C clients' scenarios (DragToOpen, a 100K-spring frame loop) through the Swift API
          c-boundary     the C interface's cost: a 1M-spring frame stepped from C against Swift, bulk reads
                         and writes against memcpy
          soak           a long mixed workload checked for drift from a Float64 model, NaN, lost springs and
                         memory growth; exits 1 if a check fails

        Every command takes --help, --format table|json|csv, --output DIR and --quick.
        Progress goes to stderr; stdout holds only the output.
        """

    static func main() -> Int32 {
        do {
            var arguments = CommandLineArguments(Array(CommandLine.arguments.dropFirst()))
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
            case "seed-scenario":
                if help { print(SeedScenarioCommand.help); return 0 }
                try SeedScenarioCommand(&arguments).run()
            case "events":
                if help { print(EventsCommand.help); return 0 }
                try EventsCommand(&arguments).run()
            case "interactions":
                if help { print(InteractionsCommand.help); return 0 }
                try InteractionsCommand(&arguments).run()
            case "determinism":
                if help { print(DeterminismCommand.help); return 0 }
                return try DeterminismCommand(&arguments).run()
            case "fidelity":
                if help { print(FidelityCommand.help); return 0 }
                try FidelityCommand(&arguments).run()
            case "profile":
                if help { print(ProfileCommand.help); return 0 }
                try ProfileCommand(&arguments).run()
            case "compare":
                if help { print(CompareCommand.help); return 0 }
                return try CompareCommand(&arguments).run()
            case "soak":
                if help { print(SoakCommand.help); return 0 }
                return try SoakCommand(&arguments).run()
            case "c-scenarios":
                if help { print(CScenariosCommand.help); return 0 }
                try CScenariosCommand(&arguments).run()
            case "c-boundary":
                if help { print(CBoundaryCommand.help); return 0 }
                try CBoundaryCommand(&arguments).run()
            case "help":
                print(usage)
            case let other?:
                throw BenchError.usage("unknown command \(printable(other))\n\n\(usage)")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("spring-bench: \(error)\n".utf8))
            return error is BenchError ? 2 : 1
        }
    }
}

exit(BenchMain.main())
