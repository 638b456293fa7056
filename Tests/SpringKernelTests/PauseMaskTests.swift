import Testing
@_spi(KernelInternals) @testable import SpringKernel
import _SpringOracles

@Suite("Pause masks")
struct PauseMaskTests {
    @Test("paused lanes stay bit-identical through any number of steps while the rest move")
    func pausedLanesFrozen() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try (0..<50).map { try bank.add(value: Float($0) * 3, target: -40, velocity: 100, tolerance: 0.01) }
        let held = springs.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        let mask = try bank.makePauseMask(held)
        for _ in 0..<5 { try bank.step(dt: 1.0 / 60) }
        try bank.pause(mask)
        let frozen = try bits(bank, held)
        let freeBefore = try bits(bank, springs.filter { !held.contains($0) })
        for frame in 0..<400 {
            try bank.step(dt: frame % 7 == 0 ? 0.5 : 1.0 / 60)
            #expect(try bits(bank, held) == frozen)
        }
        #expect(try bits(bank, springs.filter { !held.contains($0) }) != freeBefore)
        #expect(try held.allSatisfy { try bank.isPaused($0) && !bank.isAtRest($0) })
        try bank._checkInvariants()
    }

    @Test("a spring paused by several masks stays paused until every mask lets go")
    func multiSource() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 100, tolerance: 0.5)
        let drag = try bank.makePauseMask([spring]), rotate = try bank.makePauseMask([spring]), scale = try bank.makePauseMask([spring])
        try bank.pause(drag); try bank.pause(rotate); try bank.pause(scale)
        #expect(try bank.pauseDepth(of: spring) == 3)
        try bank.pause(drag)  // pausing a pausing mask does nothing
        #expect(try bank.pauseDepth(of: spring) == 3)
        var restarts = 0
        try bank.resume(drag) { _ in restarts += 1; return (50, 0) }
        try bank.resume(scale) { _ in restarts += 1; return (50, 0) }
        #expect(restarts == 0)
        #expect(try bank.isPaused(spring))
        let frozen = try bank.value(of: spring)
        try bank.step(dt: 1.0 / 60)
        #expect(try bank.value(of: spring) == frozen)
        try bank.resume(rotate) { _ in restarts += 1; return (50, 0) }
        #expect(restarts == 1)
        #expect(try !bank.isPaused(spring))
        #expect(try bank.value(of: spring) == 50)
    }

    @Test("resume sets value and velocity as given, and the spring heads for its latest target")
    func resumeResetsState() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 0, tolerance: 0.5)
        let gesture = try bank.makePauseMask([spring])
        try bank.pause(gesture)
        try bank.retarget(spring, to: 200)  // DragToOpen: the destination changes while paused
        try bank.step(dt: 1.0 / 60)
        #expect(try bank.isPaused(spring))
        try bank.resume(gesture) { _ in (120, 900) }
        #expect(try bank.value(of: spring) == 120)
        #expect(try bank.velocity(of: spring) == 900)
        let expected = try bank.predictRest(of: spring, dt: 1.0 / 60).frames
        let start = bank.frame
        while try !bank.isAtRest(spring) { try bank.step(dt: 1.0 / 60) }
        #expect(bank.frame - start == max(expected, 1))
        #expect(try bank.value(of: spring) == 200)
    }

    @Test("a resting spring paused and resumed without a new state stays at rest; with one it moves")
    func pauseAtRest() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 5, target: 5, tolerance: 0.5)
        let mask = try bank.makePauseMask([spring])
        try bank.pause(mask)
        try bank.resume(mask)
        #expect(try bank.isAtRest(spring))
        try bank.pause(mask)
        try bank.resume(mask) { _ in (5, 0) }
        #expect(try bank.isAtRest(spring))
        try bank.pause(mask)
        try bank.resume(mask) { _ in (8, 0) }
        #expect(try !bank.isAtRest(spring))
    }

    @Test("pausing a large mask pauses every member and resuming frees them all", arguments: [1, 15, 16, 17, 1000])
    func largeMasks(size: Int) throws {
        let bank = SpringBank<Float32Lanes>()
        let configurations = [SpringConfiguration.default, try SpringConfiguration(tension: 90, friction: 4)]
        let springs = try (0..<size).map { i in
            try bank.add(value: Float(i), target: 1000, configuration: configurations[i % 2], tolerance: 0.1)
        }
        let mask = try bank.makePauseMask(springs)
        try bank.pause(mask)
        #expect(try springs.allSatisfy { try bank.isPaused($0) })
        try bank.step(dt: 1.0 / 60)
        try bank.resume(mask)
        #expect(try springs.allSatisfy { try !bank.isPaused($0) })
        #expect(try Set(bank.springs(in: mask)) == Set(springs))
        try bank._checkInvariants()
    }

    @Test("masks follow their springs through compaction, reconfiguration and removal")
    func masksFollowSprings() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try (0..<40).map { try bank.add(value: Float($0), target: 20, tolerance: 0.5) }
        let mask = try bank.makePauseMask(springs.filter { $0.index % 2 == 1 })
        for _ in 0..<120 { try bank.step(dt: 1.0 / 60) }  // everything rests: slots are swapped around
        try bank.setConfiguration(of: springs[3], to: try SpringConfiguration(tension: 500, friction: 10))
        try bank.remove(springs[5])
        try bank.pause(mask)
        for spring in springs where spring != springs[5] {
            #expect(try bank.isPaused(spring) == (spring.index % 2 == 1))
        }
        #expect(try bank.springs(in: mask).count == 19)
        try bank._checkInvariants()
        try bank.removePauseMask(mask)
        #expect(try springs.filter { $0 != springs[5] }.allSatisfy { try !bank.isPaused($0) })
        try bank._checkInvariants()
    }

    @Test("small masks (members kept in the mask's record) and large ones keep their members through inserts, removals, pauses and growth past the record and back")
    func smallMaskMembership() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try (0..<8).map { try bank.add(value: Float($0) * 10, target: 100, tolerance: 0.5) }
        let masks = try (0..<3).map { _ in try bank.makePauseMask() }
        var model = [Set<SpringHandle>](repeating: [], count: masks.count)
        var pausing = [Bool](repeating: false, count: masks.count)
        var generator = SplitMix64(seed: 37)
        var largest = 0
        // Each mask wanders around a size drawn every 40 operations, mostly within the record's
        // room (two members), so members are removed from every position of small and large masks.
        var sizes = [Int](repeating: 2, count: masks.count)
        for round in 0..<3000 {
            if round % 40 == 0 { sizes = masks.map { _ in [0, 1, 2, 2, 2, 3, 6].randomElement(using: &generator)! } }
            let m = Int.random(in: 0..<masks.count, using: &generator)
            let spring = springs[Int.random(in: 0..<springs.count, using: &generator)]
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<7 where model[m].count < sizes[m] || (model[m].count == sizes[m] && model[m].contains(spring)):
                try bank.insert(spring, into: masks[m])
                model[m].insert(spring)
            case 0..<7:
                if model[m].contains(spring) {
                    try bank.remove(spring, from: masks[m])
                    model[m].remove(spring)
                } else {
                    #expect(throws: SpringKernelError.notInMask(spring, masks[m])) { try bank.remove(spring, from: masks[m]) }
                }
            case 7, 8:
                if pausing[m] { try bank.resume(masks[m]) } else { try bank.pause(masks[m]) }
                pausing[m].toggle()
            default:
                try bank.step(dt: 1.0 / 60)
            }
            for (i, mask) in masks.enumerated() {
                #expect(Set(try bank.springs(in: mask)) == model[i])
                largest = max(largest, model[i].count)
            }
            for spring in springs {
                let holds = masks.indices.count { pausing[$0] && model[$0].contains(spring) }
                #expect(try bank.pauseDepth(of: spring) == holds)
            }
            try bank._checkInvariants()
        }
        // The walk reached sizes past the record's room (two), and back.
        #expect(largest >= 6)
        for mask in masks { try bank.removePauseMask(mask) }
        #expect(try springs.allSatisfy { try bank.pauseDepth(of: $0) == 0 })
        try bank._checkInvariants()
    }

    @Test("a spring taken out of a pausing mask moves on from where it was")
    func removeFromPausingMask() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 100, tolerance: 0.5)
        let mask = try bank.makePauseMask([spring])
        try bank.step(dt: 1.0 / 60)
        try bank.pause(mask)
        let frozen = try bank.value(of: spring)
        try bank.remove(spring, from: mask)
        #expect(try !bank.isPaused(spring))
        #expect(try bank.value(of: spring) == frozen)
        try bank.step(dt: 1.0 / 60)
        #expect(try bank.value(of: spring) != frozen)
    }

    @Test("pause depth is bounded: one hold too many is refused and changes nothing")
    func depthOverflow() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 10, tolerance: 0.5)
        let other = try bank.add(value: 0, target: 10, tolerance: 0.5)
        let masks = try (0..<SpringBank<Float32Lanes>.maximumPauseDepth).map { _ in try bank.makePauseMask([spring]) }
        for mask in masks { try bank.pause(mask) }
        let extra = try bank.makePauseMask([other, spring])
        #expect(throws: SpringKernelError.pauseDepthExceeded(spring)) { try bank.pause(extra) }
        #expect(try !bank.isPaused(other))
        #expect(try bank.pauseDepth(of: spring) == SpringBank<Float32Lanes>.maximumPauseDepth)
        try bank._checkInvariants()
    }
}

@Suite("Pauses and rest")
struct PauseRestTests {
    /// Springs paused and resumed (as they were) at random, for random stretches, under a new `dt`
    /// every frame or a declared fixed one: judged against a Float64 model that advances a spring only on the frames it
    /// moved, none is ever snapped while its motion would still leave its band. A resume moves the
    /// spring's schedule on rather than predicting again, so this is the test of that shortcut.
    @Test("springs paused and resumed at random never rest early against the Float64 motion of the frames they moved",
          arguments: [false, true])
    func neverEarlyAcrossPauses(fixedClock: Bool) throws {
        for seed in UInt64(1)...16 {
            var generator = SeededGenerator(seed: seed)
            let bank = SpringBank<Float32Lanes>()
            if fixedClock { try bank.setFrameClock(.fixed(frameDuration: 1.0 / 60)) }
            var models: [SpringHandle: (configuration: SpringConfiguration, d: Double, v: Double, tolerance: Double)] = [:]
            var handles: [SpringHandle] = []
            for _ in 0..<16 {
                let c = SettleCase.random(using: &generator, maximumFrames: 1_000)
                let handle = try bank.add(value: c.from, target: c.to, velocity: c.velocity, configuration: c.configuration, tolerance: c.tolerance)
                models[handle] = (c.configuration, Double(c.from) - Double(c.to), Double(c.velocity), Double(c.tolerance))
                handles.append(handle)
            }
            let masks = [try bank.makePauseMask(handles.filter { $0.index % 2 == 0 }),
                         try bank.makePauseMask(handles.filter { $0.index % 3 == 0 })]
            var frames = 0
            while bank.awakeCount > 0 && frames < 3_000 {
                for mask in masks where Int.random(in: 0..<12, using: &generator) == 0 {
                    if try bank.isPausing(mask) { try bank.resume(mask) } else { try bank.pause(mask) }
                }
                let dt = fixedClock ? 1.0 / 60 : Double.random(in: 0.004...0.04, using: &generator)
                try bank.step(dt: dt)
                try bank._checkInvariants()
                frames += 1
                for (handle, model) in models where try !bank.isPaused(handle) {
                    let next = ExactSpring(model.configuration).propagator(over: dt).apply(displacement: model.d, velocity: model.v)
                    models[handle]!.d = next.displacement
                    models[handle]!.v = next.velocity
                }
                for spring in bank.restedInLastStep {
                    let model = models[spring]!
                    let ratio = model.configuration.mass / model.configuration.tension
                    let amplitude = (model.d * model.d + ratio * model.v * model.v).squareRoot()
                    let band = model.tolerance + 1e-5 * amplitude + 1e-7
                    if fixedClock {
                        // The declared clock's rule: no later frame of 1/60 s ends outside the band (R ≤ 1).
                        let rest = ReferenceRest.restFrame(
                            displacement: model.d, velocity: model.v, tolerance: band, configuration: model.configuration, dt: 1.0 / 60,
                            limit: 100_000)
                        #expect(rest.map { $0 <= 1 } ?? true, "seed \(seed): \(spring) snapped at frame \(frames), but frame \((rest ?? 1) - 1) after it is outside its band")
                    } else {
                        let remaining = ReferenceRest.restTime(
                            displacement: model.d, velocity: model.v, tolerance: band, configuration: model.configuration)
                        #expect(remaining == 0, "seed \(seed): \(spring) snapped at frame \(frames) with \(remaining) s of motion outside its band left")
                    }
                    models[spring] = nil
                }
            }
            for mask in masks { try bank.resume(mask) }
        }
    }

    @Test("a step advances only the moving springs: paused ones keep their lanes, and the rest move as in a bank without them")
    func pausedLeaveTheStep() throws {
        let configuration = try SpringConfiguration(tension: 120, friction: 2)
        let withPaused = SpringBank<Float32Lanes>(), alone = SpringBank<Float32Lanes>()
        var moving: [(SpringHandle, SpringHandle)] = [], held: [SpringHandle] = []
        for i in 0..<37 {
            let value = Float(i) * 3 - 50
            let a = try withPaused.add(value: value, target: 0, velocity: Float(i), configuration: configuration, tolerance: 0.01)
            if i % 3 == 1 {
                held.append(a)
            } else {
                moving.append((a, try alone.add(value: value, target: 0, velocity: Float(i), configuration: configuration, tolerance: 0.01)))
            }
        }
        let mask = try withPaused.makePauseMask(held)
        try withPaused.pause(mask)
        let before = held.map { withPaused.state(of: $0)! }
        for _ in 0..<30 {
            try withPaused.step(dt: 1.0 / 60)
            try alone.step(dt: 1.0 / 60)
        }
        for (spring, state) in zip(held, before) {
            let now = withPaused.state(of: spring)!
            #expect(now.value.bitPattern == state.value.bitPattern && now.velocity.bitPattern == state.velocity.bitPattern)
        }
        for (a, b) in moving {
            #expect(withPaused.state(of: a)!.value.bitPattern == alone.state(of: b)!.value.bitPattern)
        }
        try withPaused._checkInvariants()
    }
}
