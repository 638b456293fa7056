/// A command of spring-bench: the name that selects it, its line in `spring-bench --help`, its
/// own `--help`, and how it runs. Each command is a struct in its own folder that reads its
/// options in `init(_:)` (refusing bad ones before anything runs) and measures in `run()`; its
/// conformance below is all `main.swift` needs of it.
protocol BenchCommand: SendableMetatype {
    /// The first argument that selects the command (`throughput`).
    static var name: String { get }
    /// What the command does, for `spring-bench --help` (line breaks kept, continuation lines
    /// indented under the first).
    static var summary: String { get }
    /// The command's own `--help`.
    static var help: String { get }
    /// Reads the command's options from `arguments`, runs it, and returns the exit status.
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32
}

/// The table `main.swift` dispatches through and `spring-bench --help` lists.
enum BenchCommands {
    /// What runs when no command is given: the main job.
    static let defaultRun: any BenchCommand.Type = DefaultRun.self

    /// Every named command, in the order `--help` lists them.
    static let all: [any BenchCommand.Type] = [
        ThroughputCommand.self,
        SettleCommand.self,
        SeedScenarioCommand.self,
        EventsCommand.self,
        DragCommand.self,
        InteractionsCommand.self,
        DeterminismCommand.self,
        FootprintCommand.self,
        FidelityCommand.self,
        ProfileCommand.self,
        CompareCommand.self,
        CScenariosCommand.self,
        CBoundaryCommand.self,
        SoakCommand.self,
    ]

    /// The command called `name`, if there is one.
    static func command(named name: String) -> (any BenchCommand.Type)? {
        all.first { $0.name == name }
    }

    /// The `commands:` block of `spring-bench --help`: the default run, then each command.
    static var listing: String {
        let width = 15
        return ([defaultRun] + all).map { command in
            let lines = command.summary.split(separator: "\n", omittingEmptySubsequences: false)
            let name = command.name.padding(toLength: width, withPad: " ", startingAt: 0)
            return (["  \(name)\(lines[0])"] + lines.dropFirst().map { "  " + String(repeating: " ", count: width) + $0 })
                .joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

// The conformances, one per command: its name, its summary, and how its run gives an exit status
// (commands that cannot fail a check exit 0).

extension DefaultRun: BenchCommand {
    /// Listed as "(none)": the default run has no name, it is what runs without a command.
    static let name = "(none)"
    static let summary = """
        the main job (about 4 minutes, under 1.5 GB; --full adds 4M and 16M springs):
        every command below, each judged figure with a 95 % interval and a verdict, the noise
        meter's readings first; writes results/local/<machine>-<isa>/ (untracked;
        --output results refreshes the committed runs)
        """
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension ThroughputCommand: BenchCommand {
    static let name = "throughput"
    static let summary = "spring-steps per second of the kernels, the peers' algorithms and the probes"
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension SettleCommand: BenchCommand {
    static let name = "settle"
    static let summary = "rest frames of each detector against the exact ones (or --cases FILE.csv)"
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension SeedScenarioCommand: BenchCommand {
    static let name = "seed-scenario"
    static let summary = "the \"Detecting Pauses\" chapter's snapping view, detector by detector"
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension EventsCommand: BenchCommand {
    static let name = "events"
    static let summary = """
        what an event (retarget, impulse, set-state, start, resume, configure) costs, the step's
        share included, one call per spring or in bulk, at 1-100 % of the springs per frame
        """
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension DragCommand: BenchCommand {
    static let name = "drag"
    static let summary = """
        springs whose targets move every frame (in storage order, by handle, a share of them, one
        call each) against the plain step of as many moving springs
        """
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension InteractionsCommand: BenchCommand {
    static let name = "interactions"
    static let summary = "the interaction layer's cost per frame above the kernel step, and its allocations"
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension FootprintCommand: BenchCommand {
    static let name = "footprint"
    static let summary = "the heap of an empty bank and of a spring (grown, reserved), both formats"
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension DeterminismCommand: BenchCommand {
    static let name = "determinism"
    static let summary = "a fixed scene's rest frame and state hash (--kernel fixed|float, --validate-hash HEX)"
    /// Exits 1 when `--validate-hash` is not the hash.
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run() }
}

extension FidelityCommand: BenchCommand {
    static let name = "fidelity"
    static let summary = "the fixed-point bank against the exact trajectory: largest deviation, rest frames"
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension ProfileCommand: BenchCommand {
    static let name = "profile"
    static let summary = "one kernel in a steady loop, for perf or callgrind"
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension CompareCommand: BenchCommand {
    static let name = "compare"
    static let summary = "each figure of a results.json against a baseline, by intervals; exits 1 on a regression"
    /// Exits 1 on a regression.
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run() }
}

extension CScenariosCommand: BenchCommand {
    static let name = "c-scenarios"
    static let summary = "the C clients' scenarios (DragToOpen, a 100K-spring frame loop) through the Swift API"
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension CBoundaryCommand: BenchCommand {
    static let name = "c-boundary"
    static let summary = """
        the C interface's cost: a 1M-spring frame stepped from C against Swift, bulk reads
        and writes against memcpy
        """
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run(); return 0 }
}

extension SoakCommand: BenchCommand {
    static let name = "soak"
    static let summary = """
        a long mixed workload checked for drift from a Float64 model, NaN, lost springs and
        memory growth; exits 1 if a check fails
        """
    /// Exits 1 if a check fails.
    static func run(_ arguments: inout CommandLineArguments) throws -> Int32 { try Self(&arguments).run() }
}
