import Foundation
import Testing

/// Which random scripts the interaction model test runs, from the environment:
///
/// - `MOTION_MODEL_SEED=n`: only seed n, with a trace of its calls printed on failure.
/// - `MOTION_MODEL_SEEDS=n`: seeds 1...n (default 256).
/// - `MOTION_MODEL_OPERATIONS=n`: calls per script (default 100).
///
/// A failure names its seed and the command that runs it alone:
/// `MOTION_MODEL_SEED=37 swift test --filter InteractionModelTests`.
enum ScriptSeeds {
    static let environment = ProcessInfo.processInfo.environment
    static let single: UInt64? = environment["MOTION_MODEL_SEED"].flatMap { UInt64($0) }
    static let count: UInt64 = environment["MOTION_MODEL_SEEDS"].flatMap { UInt64($0) } ?? 256
    static let operations: Int = environment["MOTION_MODEL_OPERATIONS"].flatMap { Int($0) } ?? 100
    static let parts = 4

    static func seeds(part: Int) -> [UInt64] {
        if let single { return part == 0 ? [single] : [] }
        return (1...count).filter { Int($0 % UInt64(parts)) == part }
    }
}

@Suite("Interaction layer against its contract (randomized)")
struct InteractionModelTests {
    @Test("random scripts of gestures, retargets, pauses, cancellations and interaction changes keep every stream's promises", arguments: 0..<ScriptSeeds.parts)
    func scripts(part: Int) throws {
        let start = ContinuousClock.now
        var operations = 0, frames = 0, values = 0, rests = 0, gestures = 0, actions = 0, refusals = 0
        for seed in ScriptSeeds.seeds(part: part) {
            let run = InteractionModelRun(seed: seed, operations: ScriptSeeds.operations)
            do {
                try run.run()
                operations += run.tally.operations
                frames += run.tally.frames
                values += run.tally.values
                rests += run.tally.rests
                gestures += run.tally.gestureEvents
                actions += run.tally.callbackActions
                refusals += run.tally.refusals
            } catch {
                let traced = InteractionModelRun(seed: seed, operations: ScriptSeeds.operations, keepsLog: true)
                do { try traced.run() } catch {}
                if ScriptSeeds.single != nil { print("Trace of seed \(seed):\n  " + traced.log.joined(separator: "\n  ")) }
                Issue.record("""
                    seed \(seed), call \(run.tally.operations) of \(ScriptSeeds.operations): \(error)
                    Reproduce: MOTION_MODEL_SEED=\(seed) swift test --filter InteractionModelTests
                    Last calls:
                      \(traced.log.suffix(20).joined(separator: "\n  "))
                    """)
            }
        }
        print("interaction scripts part \(part): \(ScriptSeeds.seeds(part: part).count) scripts, \(operations) calls, \(frames) frames, \(values) values, \(rests) kernel rest events, \(gestures) gesture events, \(actions) actions from callbacks, \(refusals) refusals in \(ContinuousClock.now - start)")
    }

    @Test("the checks can fail: a value after cancellation and a repeated state are caught")
    func checksCanFail() throws {
        let run = InteractionModelRun(seed: 5, operations: 0)
        let moving = run.addStream(Float.self)
        run.streams[0].setDestination(SIMD4(1000, 0, 0, 0))
        try run.frame(dt: 1.0 / 60)
        try run.verify(afterFrame: true)
        moving.isCancelled = true  // the script believes it cancelled, but did not
        try run.frame(dt: 1.0 / 60)
        #expect(throws: ScriptViolation.self) { try run.verify() }

        let other = InteractionModelRun(seed: 6, operations: 0)
        let probe = other.addStream(CGPoint.self)
        probe.setDestination(SIMD4(500, 500, 0, 0))
        probe.states.append(.atRest)  // as if .atRest had come: the next .active is fine, a value is not
        try other.frame(dt: 1.0 / 60)
        #expect(throws: ScriptViolation.self) { try other.verify() }
    }
}
