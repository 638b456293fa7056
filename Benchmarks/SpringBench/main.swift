import Foundation

/// spring-bench: the benchmark of SpringKernel and MotionInteractions. See `spring-bench --help`.
enum BenchMain {
    static let usage = """
        spring-bench [command] [options]

        commands:
        \(BenchCommands.listing)

        Every command takes --help, --format table|json|csv, --output DIR and --quick.
        Progress goes to stderr; stdout holds only the output.
        """

    static func main() -> Int32 {
        _ = processStarted
        do {
            var arguments = CommandLineArguments(Array(CommandLine.arguments.dropFirst()))
            let help = arguments.flag("help")
            let command: any BenchCommand.Type
            switch arguments.command {
            case nil:
                if help { print(usage + "\n" + DefaultRun.help); return 0 }
                command = BenchCommands.defaultRun
            case "help":
                print(usage)
                return 0
            case let name?:
                guard let named = BenchCommands.command(named: name) else {
                    throw BenchError.usage("unknown command \(printable(name)) (spring-bench --help lists the commands)")
                }
                command = named
            }
            if help { print(command.help); return 0 }
            return try command.run(&arguments)
        } catch {
            FileHandle.standardError.write(Data("spring-bench: \(error)\n".utf8))
            return error is BenchError ? 2 : 1
        }
    }
}

exit(BenchMain.main())
