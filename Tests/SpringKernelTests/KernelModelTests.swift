import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

/// Which random sequences the model tests run, from the environment:
///
/// - `SPRING_MODEL_SEED=n`: only seed n, with a trace of its operations printed on failure.
/// - `SPRING_MODEL_SEEDS=n`: seeds 1...n for each format (default 128).
/// - `SPRING_MODEL_OPERATIONS=n`: operations per sequence (default 100).
///
/// A failure names its seed and the command that runs it alone:
/// `SPRING_MODEL_SEED=37 swift test --filter KernelModelTests`.
enum ModelSeeds {
    static let environment = ProcessInfo.processInfo.environment
    static let single: UInt64? = environment["SPRING_MODEL_SEED"].flatMap { UInt64($0) }
    static let count: UInt64 = environment["SPRING_MODEL_SEEDS"].flatMap { UInt64($0) } ?? 128
    static let operations: Int = environment["SPRING_MODEL_OPERATIONS"].flatMap { Int($0) } ?? 100
    /// The seeds split into parts that run in parallel.
    static let parts = 8

    static func seeds(part: Int) -> [UInt64] {
        if let single { return part == 0 ? [single] : [] }
        return (1...count).filter { Int($0 % UInt64(parts)) == part }
    }

    /// Runs the part's seeds; a failing seed is run again with a trace, and reported.
    static func run<Reference: ReferenceArithmetic>(_: Reference.Type, part: Int) throws -> KernelModelRun<Reference>.Tally {
        var total = KernelModelRun<Reference>.Tally()
        for seed in seeds(part: part) {
            let run = try KernelModelRun<Reference>(seed: seed, operations: operations)
            do {
                try run.run()
                total.add(run.tally)
            } catch {
                let traced = try KernelModelRun<Reference>(seed: seed, operations: operations, keepsLog: true)
                var trace = ""
                do { try traced.run() } catch { trace = traced.log.suffix(25).joined(separator: "\n  ") }
                if single != nil { print("Trace of seed \(seed):\n  " + traced.log.joined(separator: "\n  ")) }
                Issue.record("""
                    \(Reference.formatName) seed \(seed), operation \(run.tally.operations) of \(operations): \(error)
                    Reproduce: SPRING_MODEL_SEED=\(seed) swift test --filter KernelModelTests
                    Last calls:
                      \(trace)
                    """)
            }
        }
        return total
    }
}

@Suite("Kernel against a reference model (randomized)")
struct KernelModelTests {
    @Test("float32 banks agree with a Float64 model through random sequences of every public call", arguments: 0..<ModelSeeds.parts)
    func float32(part: Int) throws {
        let start = ContinuousClock.now
        let tally = try ModelSeeds.run(Float64Reference.self, part: part)
        report("float32", part, tally, ContinuousClock.now - start)
    }

    @Test("Q16.16 banks follow their format's own arithmetic bit for bit through random sequences", arguments: 0..<ModelSeeds.parts)
    func fixedPoint(part: Int) throws {
        let start = ContinuousClock.now
        let tally = try ModelSeeds.run(Q16Reference.self, part: part)
        report("q16.16", part, tally, ContinuousClock.now - start)
    }

    func report<Reference>(_ format: String, _ part: Int, _ tally: KernelModelRun<Reference>.Tally, _ time: Duration) {
        let sequences = ModelSeeds.seeds(part: part).count
        print("model \(format) part \(part): \(sequences) sequences, \(tally.operations) operations, \(tally.steps) steps, \(tally.restEvents) rest events, \(tally.refusals) refusals, \(tally.saturations) saturations in \(time)")
    }

    @Test("the model can fail: a bank that drifts from it by a ten-thousandth is caught")
    func modelCanFail() throws {
        let run = try KernelModelRun<Float64Reference>(seed: 1, operations: 5)
        while run.springs.values.filter(\.awake).isEmpty { try run.add() }
        for _ in 0..<3 { try run.step(dt: 1.0 / 60, path: .simd) }
        let spring = run.springs.values.first(where: \.awake)!.handle
        run.springs[spring]!.state.d *= 1 + 1e-4
        #expect(throws: ModelMismatch.self) { try run.checkAll() }

        let fixed = try KernelModelRun<Q16Reference>(seed: 1, operations: 5)
        while fixed.springs.values.filter(\.awake).isEmpty { try fixed.add() }
        let other = fixed.springs.values.first(where: \.awake)!.handle
        // One step of the API's resolution (a lane finer than it would hide a single LSB).
        fixed.springs[other]!.state.v &+= Int32(1) << max(0, fixed.springs[other]!.state.scale.velocityShift)
        #expect(throws: ModelMismatch.self) { try fixed.checkAll() }
    }
}
