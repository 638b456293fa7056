import Testing
@_spi(KernelInternals) @testable import SpringKernel

@Suite("Settle detection")
struct SettleTests {
    @Test("the default spring 0→100 at 60 Hz rests on frame 24, exactly on target, once")
    func defaultSpring() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 100, tolerance: 0.5)
        var restFrames: [Int] = []
        for _ in 0..<60 {
            try bank.step(dt: 1.0 / 60)
            if bank.restedInLastStep.contains(spring) { restFrames.append(bank.frame) }
        }
        #expect(restFrames == [24])
        #expect(try bank.value(of: spring) == 100)
        #expect(try bank.velocity(of: spring).bitPattern == 0)
        #expect(try bank.isAtRest(spring))
        #expect(bank.awakeCount == 0)
    }

    @Test("with a declared fixed timestep, rest frames D satisfy R <= D <= R + 1 against the Float64 reference")
    func corpus() throws {
        var generator = SeededGenerator(seed: 0xC0FFEE)
        // One bank per frame rate, many springs each, stepped together as an engine would.
        var cases: [Double: [(SettleCase, Int)]] = [:]
        for _ in 0..<600 {
            let c = SettleCase.random(using: &generator, maximumFrames: 5_000)
            cases[c.hz, default: []].append((c, c.referenceRestFrame()!))
        }
        var outside: [String] = []
        var checked = 0
        for (hz, group) in cases {
            let bank = SpringBank<Float32Lanes>()
            try bank.setFrameClock(.fixed(frameDuration: 1 / hz))
            var handles: [SpringHandle] = []
            for (c, _) in group {
                handles.append(try bank.add(value: c.from, target: c.to, velocity: c.velocity, configuration: c.configuration, tolerance: c.tolerance))
            }
            var rested: [SpringHandle: Int] = [:]
            while bank.awakeCount > 0 && bank.frame < 6_000 {
                try bank.step(dt: 1 / hz)
                for spring in bank.restedInLastStep {
                    #expect(rested[spring] == nil, "rest reported twice")
                    rested[spring] = bank.frame
                }
            }
            for (i, (c, reference)) in group.enumerated() {
                checked += 1
                let reported = rested[handles[i]] ?? -1
                // A spring whose whole motion is already inside its band rests on the first step.
                let expected = max(reference, 1)
                if reported < reference || reported > expected + 1 { outside.append("\(c): R=\(reference) D=\(reported)") }
                #expect(try bank.value(of: handles[i]) == c.to)
            }
            try bank._checkInvariants()
        }
        #expect(checked == 600)
        #expect(outside.isEmpty, "\(outside.count) outside [R, R+1]: \(outside.prefix(3))")
    }

    @Test("rest events list each spring once, in the step it rests, and a restarted spring rests again")
    func restEventsCompleteAndNotRepeated() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try (0..<40).map { try bank.add(value: Float($0), target: 50, tolerance: 0.5) }
        var events: [SpringHandle] = []
        while bank.awakeCount > 0 { try bank.step(dt: 1.0 / 60); events += bank.restedInLastStep }
        #expect(Set(events) == Set(springs.filter { try! bank.value(of: $0) == 50 }))
        #expect(events.count == 40)
        try bank.retarget(springs[3], to: -20)
        var again: [SpringHandle] = []
        for _ in 0..<100 { try bank.step(dt: 1.0 / 60); again += bank.restedInLastStep }
        #expect(again == [springs[3]])
    }

    @Test("the kernel answers when a moving spring will rest, in seconds, and keeps its word")
    func restTimeKept() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 300, velocity: -2000, tolerance: 0.5)
        let restTime = try bank.restTime(of: spring)
        let oracle = ReferenceRest.restTime(displacement: -300, velocity: -2000, tolerance: 0.5, configuration: .default)
        #expect(abs(restTime - oracle) < 1e-6)
        var clock = 0.0
        while try !bank.isAtRest(spring) {
            try bank.step(dt: 1.0 / 60)
            clock += 1.0 / 60
        }
        // The first frame that reaches the rest time.
        #expect(clock >= restTime && clock - 1.0 / 60 < restTime)
        #expect(try bank.restTime(of: spring) == 0)
    }

    @Test("a change of frame duration is stepped exactly, and never rests early")
    func changingFrameDuration() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 100, tolerance: 0.5)
        for _ in 0..<10 { try bank.step(dt: 1.0 / 60) }
        let d = Double(try bank.value(of: spring)) - 100, v = Double(try bank.velocity(of: spring))
        let reference = ReferenceRest.restFrame(displacement: d, velocity: v, tolerance: 0.5, configuration: .default, dt: 1.0 / 120)!
        let continuous = ReferenceRest.restTime(displacement: d, velocity: v, tolerance: 0.5, configuration: .default)
        var steps = 0
        while try !bank.isAtRest(spring) { try bank.step(dt: 1.0 / 120); steps += 1 }
        #expect(steps >= reference && steps <= max(Int((continuous * 120).rounded(.up)), reference + 1))
    }
}

/// Rest events of many springs at once are listed in handle order, as of a few (the radix path).
@Suite("Settle: many rests in one step")
struct ManyRestsTests {
    @Test("hundreds or thousands of springs resting in one step are listed once each, in handle order, in banks needing one and two radix passes")
    func manyRestsInHandleOrder() throws {
        for springs in [1_000, 5_000] {
            let bank = SpringBank<Float32Lanes>()
            var random = SeededGenerator(seed: UInt64(springs))
            var handles: [SpringHandle] = []
            for i in 0..<springs {
                // Every third starts far away (still moving when the rest settle); the others start
                // just outside the band, and all of those rest within a few frames of each other.
                let start: Float = i % 3 == 0 ? 400 : 0.6 + Float.random(in: 0..<0.01, using: &random)
                handles.append(try bank.add(value: start, target: 0, configuration: .default, tolerance: 0.5))
            }
            // Removing and adding again shuffles which record each spring has.
            for i in stride(from: 1, to: springs, by: 7) { try bank.remove(handles[i]) }
            for i in stride(from: 1, to: springs, by: 7) {
                handles[i] = try bank.add(value: 0.6, target: 0, configuration: .default, tolerance: 0.5)
            }
            var rested: [SpringHandle] = [], largest = 0
            for _ in 0..<600 {
                try bank.step(dt: 1.0 / 60)
                let step = bank.restedInLastStep
                #expect(zip(step, step.dropFirst()).allSatisfy { $0.index < $1.index }, "\(springs) springs")
                largest = max(largest, step.count)
                rested += step
            }
            #expect(largest >= 256, "the radix path ran (\(largest) in one step)")
            #expect(Set(rested.map(\.index)).count == rested.count && rested.count == springs)
            #expect(Set(rested) == Set(handles))
        }
    }
}
