import Foundation
import Testing
import _SpringOracles
@testable @_spi(KernelInternals) import SpringKernel

/// Springs whose targets move every frame and then stop (a drag, an attachment that follows a
/// moving element): their rest is decided by the watch while they are retargeted, then by the
/// rest schedule (`SpringBankCore+Watch.swift`). Judged against the exact motion from each
/// spring's last retarget (the independent oracle, `ExactRest`), as the settle corpora judge a
/// spring from its start: never early, at most a frame late.
@Suite("Rest after a drag (the watch)")
struct DragRestTests {
    enum Door: String, CaseIterable { case storage, handles, calls }
    enum Clock: String, CaseIterable { case steady, jittered, fixed }

    /// Springs of the settle corpus's spread (tension, damping ratio and mass log-uniform), each
    /// dragged along its own path for its own number of frames, then left to settle.
    @Test("after a drag, every spring rests on the frame its exact motion from its last retarget says, or one later", arguments: Door.allCases, Clock.allCases)
    func restAfterDrag(door: Door, clock: Clock) throws {
        try check(Float32Lanes.self, door: door, clock: clock, value: { Float($0) }, double: { Double($0) })
        try check(Q16Lanes.self, door: door, clock: clock, value: { Q16($0)! }, double: { $0.doubleValue })
    }

    /// The same drag over springs first given new states: each then holds a schedule entry (a
    /// lower bound, or under a fixed clock its exact rest) that the drag's watch makes useless.
    /// Their entries go all at once, in one compaction, once a sixty-fourth of them have popped
    /// (`settleDueSprings`), where each used to wait for its own pop; the rests stay exact.
    @Test("springs given new states, then dragged: their schedule entries go at once, and the rests stay exact",
          arguments: [Door.storage, .handles], [Clock.steady, .fixed])
    func restAfterDragFromNewStates(door: Door, clock: Clock) throws {
        try check(Float32Lanes.self, door: door, clock: clock, givenStates: true, value: { Float($0) }, double: { Double($0) })
        try check(Q16Lanes.self, door: door, clock: clock, givenStates: true, value: { Q16($0)! }, double: { $0.doubleValue })
    }

    private func check<Lanes: SpringLaneArithmetic>(
        _: Lanes.Type, door: Door, clock: Clock, givenStates: Bool = false, value: (Double) -> Lanes.Value, double: (Lanes.Value) -> Double
    ) throws {
        var generator = SeededGenerator(seed: 330 + UInt64(Door.allCases.firstIndex(of: door)! * 3 + Clock.allCases.firstIndex(of: clock)!))
        let count = 240, frames = 700, dt = 1.0 / 60
        let bank = SpringBank<Lanes>(threading: .single)
        if clock == .fixed { try bank.setFrameClock(.fixed(frameDuration: dt)) }
        var configurations: [SpringConfiguration] = [], exact: [ExactSpring] = []
        for _ in 0..<12 {
            // Damping ratios from 0.2: a lighter spring may take longer than the test to settle.
            let zeta = generator.logUniform(0.2, 30), tension = generator.logUniform(10, 5000), mass = generator.logUniform(0.25, 4)
            let friction = zeta * 2 * (tension * mass).squareRoot()
            configurations.append(try SpringConfiguration(tension: tension, friction: friction, mass: mass))
            exact.append(ExactSpring(tension: tension, friction: friction, mass: mass))
        }
        var handles: [SpringHandle] = [], anchors: [Double] = [], amplitudes: [Double] = [], phases: [Double] = []
        var lastFrame: [Int] = [], kind: [Int] = []
        for i in 0..<count {
            anchors.append((generator.unit() * 400 - 200).rounded())
            // From a crawl (some rest and wake during the drag) to a fling.
            amplitudes.append(generator.logUniform(0.3, 300))
            phases.append(generator.unit() * 2 * .pi)
            lastFrame.append(20 + Int(generator.next() % 200))
            kind.append(i % configurations.count)
            handles.append(try bank.add(
                value: value(anchors[i]), target: value(anchors[i]), configuration: configurations[kind[i]], tolerance: value(0.5),
                userValue: UInt64(i)))
        }
        if givenStates {
            // 1 to 1000 from their targets, at a standstill: a lower bound each, due over the next
            // frames (sooner the nearer and the stiffer the spring).
            for i in 0..<count {
                let offset = generator.logUniform(1, 1000) * (generator.next() % 2 == 0 ? 1 : -1)
                try bank.setState(of: handles[i], value: value(anchors[i] + offset), velocity: value(0))
            }
            // Each queued (a lower bound), or to be predicted at the next step (a fixed clock).
            let scheduled = bank.core.schedule.count + bank.core.pending.count
            #expect(scheduled >= count, "\(Lanes.formatName) \(door) \(clock): \(scheduled) entries and predictions")
        }
        func goal(_ i: Int, frame: Int) -> Double {
            // Always a new value while dragged: the path drifts as it swings.
            let angle: Double = 2 * Double.pi * Double(frame) / 60 + phases[i]
            let swing: Double = sin(angle) + 0.01 * Double(frame)
            return anchors[i] + amplitudes[i] * swing
        }
        var durations: [Double] = []
        var jitter = SeededGenerator(seed: 17)
        // (state after its last retarget, the step it came before, whether it was at rest then) of
        // each spring, once stopped.
        var stopped: [(displacement: Double, velocity: Double, step: Int, atRest: Bool)?] = Array(repeating: nil, count: count)
        var restStep: [Int?] = Array(repeating: nil, count: count)
        for frame in 0..<frames {
            let moving = (0..<count).filter { frame <= lastFrame[$0] }
            // Where the springs retargeted for the last time are before it (a resting one's state
            // then, against its new target, is what decides whether it stays at rest).
            var valueBefore: [Int: Double] = [:]
            for i in moving where frame == lastFrame[i] { valueBefore[i] = double(try bank.value(of: handles[i])) }
            switch door {
            case .storage:
                let layout = bank.storageLayout(of: .all)
                var ids = [UInt64](repeating: 0, count: layout.count), targets = [Lanes.Value](repeating: value(0), count: layout.count)
                try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: layout, into: $0) }
                try targets.withUnsafeMutableBufferPointer { try bank.targets(in: layout, into: $0) }
                for j in ids.indices where frame <= lastFrame[Int(ids[j])] { targets[j] = value(goal(Int(ids[j]), frame: frame)) }
                try targets.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
            case .handles:
                try bank.retarget(moving.map { handles[$0] }, to: moving.map { value(goal($0, frame: frame)) })
            case .calls:
                for i in moving { try bank.retarget(handles[i], to: value(goal(i, frame: frame))) }
            }
            for i in moving where frame == lastFrame[i] {
                // The motion its rest is judged on: the lanes its last retarget left.
                let atRest = try bank.isAtRest(handles[i])
                // At rest: judged on its value before the retarget, against its new target, at rest.
                stopped[i] = atRest
                    ? (valueBefore[i]! - double(try bank.target(of: handles[i])), 0, frame, true)
                    : (double(try bank.displacement(of: handles[i])), double(try bank.velocity(of: handles[i])), frame, false)
                restStep[i] = nil
            }
            let duration = clock == .jittered ? dt * (1 + (jitter.unit() * 2 - 1) * 0.4) : dt
            durations.append(duration)
            try bank.step(dt: duration)
            for spring in bank.restedInLastStep {
                let i = Int(try bank.userValue(of: spring))
                if stopped[i] != nil, restStep[i] == nil { restStep[i] = frame }
            }
            if frame % 97 == 0 { try bank._checkInvariants() }
            // Every spring is dragged for its first 20 frames: by the 12th, a sixty-fourth of
            // their entries have popped, and the rest have gone with them.
            if givenStates, frame == 12 {
                try bank._checkInvariants()
                #expect(bank.core.schedule.count <= count / 8, "\(Lanes.formatName) \(door) \(clock): \(bank.core.schedule.count) entries left")
            }
        }
        try bank._checkInvariants()
        var judged = 0, early = 0, late = 0, atRestCount = 0
        for i in 0..<count {
            guard let stop = stopped[i] else { continue }
            let spring = exact[kind[i]]
            // The first step k (counted from the one after the last retarget, k = 1) that rests it.
            let expected: Int?
            if clock == .fixed {
                expected = ExactRest.restFrame(
                    displacement: stop.displacement, velocity: stop.velocity, spring: spring, band: 0.5, clock: .steady(frameDuration: dt),
                    limit: frames).map { max($0, 1) }
            } else if let restTime = ExactRest.restTime(displacement: stop.displacement, velocity: stop.velocity, spring: spring, band: 0.5) {
                var elapsed = 0.0, k = 0
                while stop.step + k < durations.count, k == 0 || elapsed < restTime {
                    elapsed += durations[stop.step + k]
                    k += 1
                }
                expected = elapsed >= restTime ? k : nil
            } else {
                expected = nil
            }
            // Judged where the truth falls inside the run, a frame short of its end.
            guard let expected, stop.step + expected < frames - 1 else { continue }
            judged += 1
            // At rest after its last retarget (at rest before it, its new target within its
            // tolerance): it rested at the retarget itself, step 0, which is right only where its
            // exact motion from there never leaves the band (a rest time of 0: expected 1).
            if stop.atRest {
                atRestCount += 1
                let exactRest = ExactRest.restTime(displacement: stop.displacement, velocity: stop.velocity, spring: spring, band: 0.5)
                if exactRest != 0 || restStep[i] != nil { early += 1 }
                continue
            }
            let reported = restStep[i].map { $0 - stop.step + 1 }
            if let reported, reported < expected { early += 1 }
            if reported.map({ $0 > expected + 1 }) ?? true { late += 1 }
        }
        print("rest after a drag, \(Lanes.formatName), \(door), \(clock) clock: \(judged) springs judged (\(atRestCount) kept at rest by their last retarget), \(early) early, \(late) more than a frame late")
        #expect(judged >= count / 2, "\(Lanes.formatName) \(door) \(clock): only \(judged) springs judged")
        #expect(early == 0, "\(Lanes.formatName) \(door) \(clock): \(early) of \(judged) rested early")
        #expect(late == 0, "\(Lanes.formatName) \(door) \(clock): \(late) of \(judged) rested more than a frame late")
    }

    /// The step finds the watch's candidates as it goes (`StepWatch`), on every path it takes: the
    /// inlined first batch, the other batches, the scalar loop and a frame split across threads
    /// must rest the same springs on the same frames and leave the same bits.
    @Test("the watch rests the same springs on the same frames on every step path and thread split")
    func watchOnEveryStepPath() throws {
        try compareStepPaths(Float32Lanes.self, value: { Float($0) })
        try compareStepPaths(Q16Lanes.self, value: { Q16($0)! })
    }

    private func compareStepPaths<Lanes: SpringLaneArithmetic>(_: Lanes.Type, value: (Double) -> Lanes.Value) throws {
        func run(threading: StepThreading, path: StepPath) throws -> (rests: [[UInt64]], hash: UInt64) {
            var generator = SeededGenerator(seed: 4242)
            let bank = SpringBank<Lanes>(threading: threading)
            var configurations: [SpringConfiguration] = []
            for _ in 0..<2 {
                let zeta = generator.logUniform(0.3, 3), tension = generator.logUniform(50, 2000)
                configurations.append(try SpringConfiguration(tension: tension, friction: zeta * 2 * tension.squareRoot()))
            }
            // 2,200 springs in two batches: more than one block of the watch (64 bundles) each.
            let count = 2200
            var handles: [SpringHandle] = [], anchors: [Double] = [], amplitudes: [Double] = []
            for i in 0..<count {
                anchors.append((generator.unit() * 400 - 200).rounded())
                amplitudes.append(generator.logUniform(0.3, 200))
                handles.append(try bank.add(
                    value: value(anchors[i]), target: value(anchors[i]), configuration: configurations[i % configurations.count],
                    tolerance: value(0.5), userValue: UInt64(i)))
            }
            var rests: [[UInt64]] = []
            for frame in 0..<150 {
                // Dragged for 30 to 90 frames each, then left to settle.
                let moving = (0..<count).filter { frame < 30 + $0 % 60 }
                let goals = moving.map { value(anchors[$0] + amplitudes[$0] * sin(2 * Double.pi * Double(frame) / 50 + Double($0))) }
                try bank.retarget(moving.map { handles[$0] }, to: goals)
                try bank.step(dt: 1.0 / 60, path: path)
                rests.append(try bank.restedInLastStep.map { try bank.userValue(of: $0) }.sorted())
            }
            try bank._checkInvariants()
            return (rests, bank.stateHash())
        }
        let reference = try run(threading: .single, path: .simd)
        #expect(reference.rests.joined().count > 500, "\(Lanes.formatName): the drag rested too few springs to judge")
        for (threading, path) in [(StepThreading.single, StepPath.scalar), (.fixed(3), .simd), (.fixed(3), .scalar)] {
            let other = try run(threading: threading, path: path)
            let differs = other.rests.indices.first { other.rests[$0] != reference.rests[$0] }
            #expect(differs == nil, "\(Lanes.formatName) \(threading) \(path): other rests than one thread's SIMD step from frame \(differs ?? 0)")
            #expect(other.hash == reference.hash, "\(Lanes.formatName) \(threading) \(path): other bits than one thread's SIMD step")
        }
    }
}
