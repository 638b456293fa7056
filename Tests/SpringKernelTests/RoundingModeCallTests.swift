import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

/// The calls outside the step give a Q16.16 bank the same bits, and accept or refuse the same
/// inputs, in every rounding mode and with flush-to-zero and denormals-are-zero: configurations
/// made, springs added (at the admission bound too), retargeted, configured and given new
/// tolerances, one at a time and in batches, then stepped.
@Suite("Rounding modes outside the step")
struct RoundingModeCallTests {
    /// What one run of the calls saw: each acceptance or refusal, then the bank's hash.
    static func run() -> [String] {
        var seen: [String] = []
        func note<T>(_ name: String, _ body: () throws -> T) -> T? {
            do {
                let result = try body()
                seen.append("\(name): ok")
                return result
            } catch {
                seen.append("\(name): \(error)")
                return nil
            }
        }
        // Configurations: ω of a tension just above 4 (√ rounds to 2 or up), the slowest edge
        // (ω₀² = 10⁻⁴⁰ exactly in nearest), the peers' parameters.
        let justAboveFour = note("tension 4⁺") { try SpringConfiguration(tension: Double(4).nextUp, friction: 0.5) }
        let four = note("tension 4") { try SpringConfiguration(tension: 4, friction: 0) }
        _ = note("slowest edge") { try SpringConfiguration(tension: 1e-34, friction: 0, mass: 1e6) }
        let swiftUI = note("duration 0.7, bounce 0.3") { try SpringConfiguration(duration: 0.7, bounce: 0.3) }
        let motion = note("visual duration 0.45, bounce 0.2") { try SpringConfiguration(visualDuration: 0.45, bounce: 0.2) }
        let bank = SpringBank<Q16Lanes>(threading: .single)
        // The admission bound: a value at Int32.max pulled toward 2³¹ − 1 − 2²⁹ with 8 raw units
        // a second, at tension 4.
        _ = note("add at the admission bound") {
            try bank.add(
                value: Q16(raw: .max), target: Q16(raw: Int32.max - (1 << 29)), velocity: Q16(raw: 8),
                configuration: four ?? .default, tolerance: Q16(0.5)!)
        }
        let a = note("add 4⁺") {
            try bank.add(value: Q16(raw: 100 << 16), target: Q16(raw: 0), configuration: justAboveFour ?? .default, tolerance: Q16(0.5)!)
        }
        let many = note("add a batch") {
            try bank.add(
                values: (0..<40).map { Q16(raw: Int32($0) * 91_237 - 1_800_000) }, targets: (0..<40).map { Q16(raw: Int32($0) << 14) },
                velocities: (0..<40).map { Q16(raw: Int32($0 % 7 - 3) << 17) }, configuration: swiftUI ?? .default,
                tolerance: Q16(raw: 1 << 8 + 3))
        } ?? []
        for _ in 0..<7 { _ = note("step") { try bank.step(dt: 1.0 / 60) } }
        if let a { _ = note("retarget") { try bank.retarget(a, to: Q16(raw: 3_333_333)) } }
        _ = note("retarget a batch") { try bank.retarget(many, to: many.indices.map { Q16(raw: Int32($0) * 77_777) }) }
        _ = note("configure a batch") { try bank.setConfiguration(of: Array(many.prefix(20)), to: justAboveFour ?? .default) }
        if let a { _ = note("configure") { try bank.setConfiguration(of: a, to: motion ?? .default) } }
        _ = note("tolerance of a batch") { try bank.setTolerance(of: Array(many.suffix(20)), to: Q16(raw: 77)) }
        if let a { _ = note("tolerance") { try bank.setTolerance(of: a, to: Q16(raw: 5_000)) } }
        for (i, spring) in many.enumerated() { _ = note("impulse") { try bank.addVelocity(Q16(raw: Int32(i) * 1_001), to: spring) } }
        for frame in 0..<300 { _ = note("step") { try bank.step(dt: frame % 3 == 2 ? 1.0 / 144 : 1.0 / 60) } }
        seen.append("rest time: \((a.flatMap { try? bank.restTime(of: $0) } ?? -1).bitPattern)")
        seen.append("settling: \(SpringConfiguration.default.settlingDuration(distance: 100, tolerance: 0.5).bitPattern)")
        seen.append("hash: \(String(bank.stateHash(), radix: 16))")
        return seen
    }

    /// `body` with `environment` set around it; the caller's environment is restored after.
    static func run(in environment: (inout fenv_t) -> Void, _ body: () -> [String] = run) -> [String] {
        var saved = fenv_t()
        fegetenv(&saved)
        var set = saved
        environment(&set)
        fesetenv(&set)
        let mode = fegetround()
        let seen = body()
        #expect(fegetround() == mode, "a call left another rounding mode")
        var after = fenv_t()
        fegetenv(&after)
        #if arch(x86_64)
        #expect(after.__mxcsr & 0xE040 == set.__mxcsr & 0xE040, "a call left another MXCSR mode")
        #endif
        fesetenv(&saved)
        return seen
    }

    @Test("a subnormal damping rate (friction 3e-307 at mass 10⁶) rests alike with flush-to-zero and denormals-are-zero (found by the fuzzer)")
    func subnormalDamping() {
        func run() -> [String] {
            let bank = SpringBank<Q16Lanes>(threading: .single)
            var seen: [String] = []
            do {
                let configuration = try SpringConfiguration(tension: 1, friction: 3.1482613686645696e-307, mass: 1e6)
                let spring = try bank.add(value: Q16(raw: 0), target: Q16(raw: 0), velocity: Q16(raw: -1 << 16), configuration: configuration, tolerance: Q16(raw: 1 << 15))
                for _ in 0..<2 { try bank.step(dt: 1e307) }
                seen.append("rest time \(try bank.restTime(of: spring)), at rest \(try bank.isAtRest(spring))")
            } catch {
                seen.append("\(error)")
            }
            seen.append(String(bank.stateHash(), radix: 16))
            return seen
        }
        let nearest = run()
        #if arch(x86_64)
        for bits: UInt32 in [0x8040, 0x8000, 0x0040, 0xC040] {
            let flushed = Self.run(in: { $0.__mxcsr = ($0.__mxcsr & ~0x6000) | bits }, run)
            #expect(flushed == nearest, "MXCSR bits \(String(bits, radix: 16))")
        }
        #endif
    }

    /// The inputs of ``drag(_:single:)``, made in round-to-nearest (the test's own arithmetic
    /// follows the thread's mode): 48 springs' values and anchors, each frame's goals, and the
    /// storage-order states. Most goals move a moving spring a little (the calls that read no
    /// rounding mode); every 7th frame a third jump thousands of points (past the integer check:
    /// checked exactly, some refused); a quarter of the springs start at rest, held on their
    /// targets for 40 frames; storage-order states leave predictions pending before the
    /// retargets of every 17th frame.
    struct DragPlan {
        var values: [Q16] = [], anchors: [Q16] = [], goals: [[Q16]] = []
        var states: (values: [Q16], velocities: [Q16]) = ([], [])
        let configurations = [SpringConfiguration.default, try! SpringConfiguration(tension: 900, friction: 8)]

        init() {
            var generator = SeededGenerator(seed: 11)
            for i in 0..<48 {
                let value = Double.random(in: -300...300, using: &generator).rounded()
                values.append(Q16(value)!)
                anchors.append(i % 4 == 0 ? values[i] : Q16(raw: 0))
            }
            for frame in 0..<90 {
                goals.append((0..<48).map { i in
                    if i % 4 == 0 && frame < 40 { return anchors[i] }
                    if frame % 7 == 3 && i % 3 == 1 { return Q16(Double.random(in: -20_000...20_000, using: &generator).rounded())! }
                    return Q16(anchors[i].doubleValue + 60 * sin(Double(frame + i) / 9))!
                })
            }
            states = ((0..<48).map { Q16(Double($0 % 11 * 9 - 40))! }, (0..<48).map { Q16(Double($0 % 5 * 30 - 60))! })
        }
    }

    /// `plan`'s drag of Q16.16 springs by one retarget call a spring (`single`), or by the bulk
    /// form with one element a call: each frame's refusals, the due times its calls left, and
    /// after its step the state hash and the rests.
    static func drag(_ plan: DragPlan, single: Bool) -> [String] {
        var seen: [String] = []
        do {
            let bank = SpringBank<Q16Lanes>()
            var springs: [SpringHandle] = []
            for i in 0..<48 {
                springs.append(try bank.add(
                    value: plan.values[i], target: plan.anchors[i], configuration: plan.configurations[i % 3 == 0 ? 1 : 0],
                    tolerance: i % 5 == 0 ? Q16(raw: 3_277) : Q16(raw: 1 << 15)))
            }
            for frame in 0..<90 {
                if frame % 17 == 5 {
                    let layout = bank.storageLayout(of: .all)
                    try plan.states.values.withUnsafeBufferPointer { values throws(SpringKernelError) in
                        try plan.states.velocities.withUnsafeBufferPointer { velocities throws(SpringKernelError) in
                            try bank.setState(
                                in: layout, values: UnsafeBufferPointer(rebasing: values.prefix(layout.count)),
                                velocities: UnsafeBufferPointer(rebasing: velocities.prefix(layout.count)))
                        }
                    }
                }
                for (i, spring) in springs.enumerated() {
                    do {
                        if single {
                            try bank.retarget(spring, to: plan.goals[frame][i])
                        } else {
                            try bank.retarget([spring], to: [plan.goals[frame][i]])
                        }
                    } catch {
                        seen.append("frame \(frame), spring \(i): \(error)")
                    }
                }
                // What the calls predicted (a spring woken at once, or one checked exactly).
                let dues = springs.reduce(UInt64(0)) { $0 &* 31 &+ bank.core.records[Int($1.index)].due.bitPattern }
                seen.append("frame \(frame): dues \(String(dues, radix: 16))")
                try bank.step(dt: 1.0 / 60)
                let rested = bank.restedInLastStep.compactMap { springs.firstIndex(of: $0) }
                seen.append("frame \(frame): \(String(bank.stateHash(), radix: 16)), rested \(rested)")
            }
            try bank._checkInvariants()
        } catch {
            seen.append("\(error)")
        }
        return seen
    }

    @Test("one Q16.16 retarget call a spring, in any rounding mode, gives the bits, rests and refusals of the bulk form in round-to-nearest")
    func singleRetargetsMatchBulkForm() {
        let plan = DragPlan()
        let bulk = Self.drag(plan, single: false)
        // The drag reaches what the test is for: refused retargets, and rests.
        #expect(bulk.contains { $0.contains("spring") })
        #expect(bulk.contains { !$0.hasSuffix("rested []") && $0.contains("rested") })
        for (name, environment) in [("nearest", { _ in })] + Self.otherEnvironments {
            let seen = Self.run(in: environment) { Self.drag(plan, single: true) }
            #expect(seen.count == bulk.count, "\(name)")
            for (got, expected) in zip(seen, bulk) where got != expected {
                Issue.record("\(name): \(got), by the bulk form \(expected)")
                break
            }
        }
    }

    /// Every environment but round-to-nearest without FTZ or DAZ, as a name and what sets it.
    static var otherEnvironments: [(String, (inout fenv_t) -> Void)] {
        var environments: [(String, (inout fenv_t) -> Void)] = [
            // fesetround sets the live environment: read back into the one set around the run.
            ("upward", { fesetround(FE_UPWARD); fegetenv(&$0) }),
            ("downward", { fesetround(FE_DOWNWARD); fegetenv(&$0) }),
            ("toward zero", { fesetround(FE_TOWARDZERO); fegetenv(&$0) }),
        ]
        #if arch(x86_64)
        // MXCSR alone, as _MM_SET_ROUNDING_MODE does, with flush-to-zero and denormals-are-zero;
        // and each MXCSR mode with FTZ and DAZ.
        for (name, bits) in [("up", 0x4000), ("down", 0x2000), ("toward zero", 0x6000), ("nearest", 0)] as [(String, UInt32)] {
            environments.append(("SSE \(name), FTZ, DAZ", { $0.__mxcsr = ($0.__mxcsr & ~0x6000) | bits | 0x8040 }))
        }
        #endif
        return environments
    }

    @Test("adds, retargets, configurations, tolerances and steps give the same bits and refusals in every rounding mode")
    func everyMode() {
        let nearest = Self.run { _ in }
        for (name, environment) in Self.otherEnvironments {
            let seen = Self.run(in: environment)
            #expect(seen.count == nearest.count, "\(name)")
            for (got, expected) in zip(seen, nearest) where got != expected {
                Issue.record("\(name): \(got), in nearest \(expected)")
            }
        }
    }
}
