import Testing
@_spi(KernelInternals) @testable import SpringKernel

@Suite("Bulk events")
struct BulkEventTests {
    @Test("retargeting from buffers equals one call per spring, bit for bit, in both formats")
    func retargetMatchesSingleCalls() throws {
        let single = SpringBank<Float32Lanes>(), batch = SpringBank<Float32Lanes>()
        var handles: ([SpringHandle], [SpringHandle]) = ([], [])
        for i in 0..<40 {
            handles.0.append(try single.add(value: Float(i), target: 0, velocity: Float(i % 3), tolerance: 0.5))
            handles.1.append(try batch.add(value: Float(i), target: 0, velocity: Float(i % 3), tolerance: 0.5))
        }
        for frame in 0..<30 {
            let targets = (0..<40).map { Float(($0 * 7 + frame * 13) % 50) - 25 }
            for (spring, target) in zip(handles.0, targets) { try single.retarget(spring, to: target) }
            try batch.retarget(handles.1, to: targets)
            try single.step(dt: 1.0 / 60)
            try batch.step(dt: 1.0 / 60)
            #expect(single.stateHash() == batch.stateHash())
        }
        let fixed = FixedSpringBank()
        let q = try (0..<8).map { try fixed.add(value: Q16(Double($0))!, target: .zero, tolerance: Q16(0.5)!) }
        try fixed.retarget(q, to: q.map { _ in Q16(3.0)! })
        #expect(try q.allSatisfy { try fixed.target(of: $0) == Q16(3.0)! })
    }

    @Test("retargeting from buffers equals one call per spring over interleaved batches, paused, resting and repeated springs, in both formats")
    func retargetRunsMatchSingleCalls() throws {
        try retargetRunsMatchSingleCalls(Float32Lanes.self, value: { Float($0) }, refused: .nan)
        try retargetRunsMatchSingleCalls(Q16Lanes.self, value: { Q16($0)! }, refused: Q16(raw: .max))
    }

    @Test("a bulk retarget whose springs alternate among many configurations goes batch by batch and equals one call per spring, bit for bit, in both formats")
    func retargetGroupedByBatchMatchesSingleCalls() throws {
        try retargetRunsMatchSingleCalls(Float32Lanes.self, value: { Float($0) }, refused: .nan, springs: 640, configurations: 24)
        try retargetRunsMatchSingleCalls(Q16Lanes.self, value: { Q16($0)! }, refused: Q16(raw: .max), springs: 640, configurations: 24)
    }

    @Test("a bulk retarget taken batch by batch refuses the first listed element that fails, whichever batch it is in, and changes nothing")
    func retargetGroupedByBatchRefusesTheFirstListed() throws {
        let bank = SpringBank<Float32Lanes>()
        let configurations = try (0..<16).map { try SpringConfiguration(tension: 100 + 20 * Double($0), friction: 12) }
        let springs = try (0..<512).map { try bank.add(value: Float($0 % 50), target: 0, configuration: configurations[$0 % 16], tolerance: 0.5) }
        try bank.step(dt: 1.0 / 60)
        let goals = (0..<512).map { Float($0 % 7) }
        try bank.retarget(springs, to: goals)
        #expect(bank.core.retargetsGroupedByBatch == 1)
        let before = bank.stateHash()
        // Element 300 (configuration 12) is refused, and so is element 480 (configuration 0, taken
        // first batch by batch): the call refuses element 300's.
        var refused = goals
        refused[300] = .infinity
        refused[480] = 1e30
        #expect(throws: SpringKernelError.nonFinite(.target)) { try bank.retarget(springs, to: refused) }
        #expect(bank.stateHash() == before)
        refused[300] = 1
        #expect(throws: SpringKernelError.outOfRange(.target)) { try bank.retarget(springs, to: refused) }
        #expect(bank.stateHash() == before)
        // A removed spring listed after a refused goal: the goal's refusal; before it: the handle's.
        try bank.remove(springs[400])
        let afterRemoval = bank.stateHash()
        refused[300] = .infinity
        #expect(throws: SpringKernelError.nonFinite(.target)) { try bank.retarget(springs, to: refused) }
        refused[300] = 1
        refused[480] = 1
        #expect(throws: SpringKernelError.staleHandle(springs[400])) { try bank.retarget(springs, to: refused) }
        #expect(bank.stateHash() == afterRemoval)
        #expect(bank.core.retargetsGroupedByBatch == 1)
    }

    @Test("bulk retargets by handle of random lists over 1 to 40 configurations equal one call per spring, or refuse as the failing element's call does and change nothing, in both formats",
          arguments: [1, 3, 16, 40])
    func randomBulkRetargets(configurations: Int) throws {
        try randomBulkRetargets(Float32Lanes.self, configurations: configurations, value: { Float($0) }, refused: .infinity)
        try randomBulkRetargets(Q16Lanes.self, configurations: configurations, value: { Q16($0)! }, refused: Q16(raw: .max))
    }

    /// Twin banks of 300-1,000 springs, a tenth paused, some resting: each round lists 256 to
    /// 1,200 springs in a random order, moving ones possibly twice, with random goals, retargeted
    /// in one bulk call in one bank and one call per element in the other, then both stepped: the
    /// same state bits and rests. (A spring at rest or paused is listed once a round: a bulk call
    /// decides its wake once the call is accepted, from its last element, where one call each
    /// decides at each; `RetargetWithinToleranceTests` pins that policy.) A round in five lists
    /// one bad element (a removed spring, or a goal the format refuses): the bulk call throws what
    /// that element's own call throws and changes nothing.
    private func randomBulkRetargets<Lanes: SpringLaneArithmetic>(
        _: Lanes.Type, configurations count: Int, value: (Double) -> Lanes.Value, refused: Lanes.Value
    ) throws {
        var generator = SplitMix64(seed: UInt64(count) &* 7919)
        let configurations = try (0..<count).map { try SpringConfiguration(tension: 60 + 41 * Double($0), friction: 4 + Double($0 % 9)) }
        let springCount = Int.random(in: 300...1000, using: &generator)
        let bulk = SpringBank<Lanes>(), single = SpringBank<Lanes>()
        var handles: ([SpringHandle], [SpringHandle]) = ([], [])
        for i in 0..<springCount {
            let configuration = configurations[Int.random(in: 0..<count, using: &generator)]
            let start = value(Double(Int.random(in: -200...200, using: &generator)) / 4)
            let target = value(i % 7 == 0 ? 0 : Double(Int.random(in: -200...200, using: &generator)) / 4)
            handles.0.append(try bulk.add(value: start, target: target, configuration: configuration, tolerance: value(0.5)))
            handles.1.append(try single.add(value: start, target: target, configuration: configuration, tolerance: value(0.5)))
        }
        let pausedIDs = (0..<springCount).filter { $0 % 10 == 3 }
        let masks = (try bulk.makePauseMask(pausedIDs.map { handles.0[$0] }), try single.makePauseMask(pausedIDs.map { handles.1[$0] }))
        try bulk.pause(masks.0)
        try single.pause(masks.1)
        let removed = springCount - 1
        try bulk.remove(handles.0[removed])
        try single.remove(handles.1[removed])
        for round in 0..<24 {
            let length = Int.random(in: 256...1200, using: &generator)
            var listed: [Int] = []
            var once = Set<Int>(), draws = 0
            // (Bounded: when most springs rest, the list is what 20 draws an element found.)
            while listed.count < length, draws < 20 * length {
                draws += 1
                let i = Int.random(in: 0..<removed, using: &generator)
                if try bulk.isAtRest(handles.0[i]) || bulk.isPaused(handles.0[i]) {
                    guard once.insert(i).inserted else { continue }
                }
                listed.append(i)
            }
            var goals = listed.map { _ in value(Double(Int.random(in: -400...400, using: &generator)) / 8) }
            let bad = round % 5 == 4 ? Int.random(in: 0..<listed.count, using: &generator) : nil
            if let bad {
                if round % 2 == 0 { listed[bad] = removed } else { goals[bad] = refused }
            }
            if let bad {
                let before = bulk.stateHash()
                var expected = ""
                do throws(SpringKernelError) { try single.retarget(handles.1[listed[bad]], to: goals[bad]) } catch { expected = "\(error)" }
                #expect(!expected.isEmpty)
                var thrown = ""
                do throws(SpringKernelError) { try bulk.retarget(listed.map { handles.0[$0] }, to: goals) } catch { thrown = "\(error)" }
                #expect(thrown == expected, "round \(round)")
                #expect(bulk.stateHash() == before, "round \(round)")
            } else {
                try bulk.retarget(listed.map { handles.0[$0] }, to: goals)
                for (i, goal) in zip(listed, goals) { try single.retarget(handles.1[i], to: goal) }
                #expect(bulk.stateHash() == single.stateHash(), "round \(round)")
            }
            if round == 12 {
                try bulk.resume(masks.0)
                try single.resume(masks.1)
            }
            for _ in 0..<Int.random(in: 1...20, using: &generator) {
                try bulk.step(dt: 1.0 / 60)
                try single.step(dt: 1.0 / 60)
                #expect(bulk.restedInLastStep.map(\.index) == single.restedInLastStep.map(\.index))
            }
            #expect(bulk.stateHash() == single.stateHash(), "round \(round), stepped")
        }
        try bulk._checkInvariants()
        if count >= 3 { #expect(bulk.core.retargetsGroupedByBatch > 0) }
    }

    /// Two banks of the same springs in several configurations, listed in turn (so that a bulk
    /// call's runs of one batch are short), a quarter paused for a while, some resting, some listed
    /// twice, some given their own target: after each frame's retargets (one call per spring in
    /// one bank, one bulk call in the other) and step, the same state bits and the same rests.
    /// From 256 springs on, the bulk calls go batch by batch.
    private func retargetRunsMatchSingleCalls<Lanes: SpringLaneArithmetic>(
        _: Lanes.Type, value: (Double) -> Lanes.Value, refused: Lanes.Value, springs count: Int = 96, configurations configurationCount: Int = 2
    ) throws {
        let single = SpringBank<Lanes>(), batch = SpringBank<Lanes>()
        let configurations = try [SpringConfiguration.default] + (1..<configurationCount).map {
            try SpringConfiguration(tension: 120 + 37 * Double($0), friction: 14 + Double($0 % 5))
        }
        var handles: ([SpringHandle], [SpringHandle]) = ([], [])
        for i in 0..<count {
            let start = value(Double(i % 13) * 4 - 20), target = value(i % 5 == 0 ? Double(i % 13) * 4 - 20 : 0)
            handles.0.append(try single.add(value: start, target: target, configuration: configurations[i % configurationCount], tolerance: value(0.5)))
            handles.1.append(try batch.add(value: start, target: target, configuration: configurations[i % configurationCount], tolerance: value(0.5)))
        }
        let paused = (try single.makePauseMask(stride(from: 0, to: count, by: 4).map { handles.0[$0] }),
                      try batch.makePauseMask(stride(from: 0, to: count, by: 4).map { handles.1[$0] }))
        var generator = SplitMix64(seed: 3301)
        for frame in 0..<150 {
            if frame == 10 { try single.pause(paused.0); try batch.pause(paused.1) }
            if frame == 40 { try single.resume(paused.0); try batch.resume(paused.1) }
            // Frames 60-149 retarget nothing: the drag stops, and every spring rests.
            var listed: [Int] = []
            var goals: [Lanes.Value] = []
            if frame < 60 {
                for i in 0..<count where generator.next() % 4 != 0 {
                    listed.append(i)
                    let own = generator.next() % 8 == 0
                    goals.append(own ? try single.target(of: handles.0[i]) : value(Double(generator.next() % 200) / 4 - 25))
                    if generator.next() % 16 == 0 {
                        listed.append(i)
                        goals.append(value(Double(generator.next() % 200) / 4 - 25))
                    }
                }
            }
            for (i, goal) in zip(listed, goals) { try single.retarget(handles.0[i], to: goal) }
            try batch.retarget(listed.map { handles.1[$0] }, to: goals)
            #expect(single.stateHash() == batch.stateHash(), "frame \(frame), before the step")
            try single.step(dt: 1.0 / 60)
            try batch.step(dt: 1.0 / 60)
            #expect(single.stateHash() == batch.stateHash(), "frame \(frame)")
            #expect(single.restedInLastStep.map(\.index) == batch.restedInLastStep.map(\.index), "frame \(frame)")
        }
        #expect(single.awakeCount == 0 && batch.awakeCount == 0)
        #expect(batch.core.retargetsGroupedByBatch == (count >= 256 ? 60 : 0))
        // A refusal in the second batch's run, after springs of both were retargeted: nothing changed.
        let before = batch.stateHash()
        let goals = (0..<count).map { $0 == 71 ? refused : value(Double($0 % 9)) }
        #expect(throws: SpringKernelError.self) { try batch.retarget(handles.1, to: goals) }
        #expect(batch.stateHash() == before)
    }

    @Test("a refused element refuses the whole batch and changes nothing")
    func allOrNothing() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try (0..<4).map { try bank.add(value: Float($0), target: 10, tolerance: 0.5) }
        let hash = bank.stateHash()
        #expect(throws: SpringKernelError.countMismatch(expected: 4, given: 3)) { try bank.retarget(springs, to: [1, 2, 3]) }
        #expect(throws: SpringKernelError.nonFinite(.target)) { try bank.retarget(springs, to: [1, 2, .nan, 4]) }
        let removed = try bank.add(value: 0, target: 1, tolerance: 0.5)
        try bank.remove(removed)
        let afterRemoval = bank.stateHash()
        #expect(throws: SpringKernelError.staleHandle(removed)) { try bank.retarget(springs + [removed], to: [1, 2, 3, 4, 5]) }
        #expect(bank.stateHash() == afterRemoval)
        // The first element that would throw is the one that does, whichever check refuses it
        // (float32 goals are checked in one pass before the loop when all are accepted).
        #expect(throws: SpringKernelError.staleHandle(removed)) { try bank.retarget([springs[0], removed, springs[1]], to: [1, 2, .nan]) }
        #expect(throws: SpringKernelError.outOfRange(.target)) { try bank.retarget([springs[0], springs[1], removed], to: [1, 2e15, 3]) }
        #expect(throws: SpringKernelError.nonFinite(.target)) { try bank.retarget(springs, to: [1, 2, 3, -.infinity]) }
        #expect(bank.stateHash() == afterRemoval)
        _ = hash
        let fixed = FixedSpringBank()
        let far = try fixed.add(value: Q16(-15000.0)!, target: .zero, tolerance: Q16(0.5)!)
        let near = try fixed.add(value: .zero, target: Q16(1.0)!, tolerance: Q16(0.5)!)
        let before = fixed.stateHash()
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try fixed.retarget([near, far], to: [Q16(2.0)!, Q16(15000.0)!]) }
        #expect(fixed.stateHash() == before)
    }

    @Test("an impulse to a mask pushes every member, paused or not, and refuses an overflow whole")
    func maskImpulse() throws {
        let bank = FixedSpringBank()
        let a = try bank.add(value: .zero, target: .zero, tolerance: Q16(0.5)!)
        let b = try bank.add(value: .zero, target: .zero, velocity: Q16(32000.0)!, tolerance: Q16(0.5)!)
        let mask = try bank.makePauseMask([a, b])
        try bank.addVelocity(Q16(10.0)!, toEveryMemberOf: mask)
        #expect(try bank.velocity(of: a) == Q16(10.0)! && bank.velocity(of: b) == Q16(32010.0)!)
        #expect(try !bank.isAtRest(a))
        let before = bank.stateHash()
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try bank.addVelocity(Q16(1000.0)!, toEveryMemberOf: mask) }
        #expect(bank.stateHash() == before)
    }
}

@Suite("Bulk set-state and impulse")
struct BulkStateAndImpulseTests {
    @Test("set state and impulses from buffers equal one call per spring, bit for bit, in both formats")
    func matchSingleCalls() throws {
        let single = SpringBank<Float32Lanes>(), batch = SpringBank<Float32Lanes>()
        var handles: ([SpringHandle], [SpringHandle]) = ([], [])
        for i in 0..<40 {
            handles.0.append(try single.add(value: Float(i), target: 0, tolerance: 0.5))
            handles.1.append(try batch.add(value: Float(i), target: 0, tolerance: 0.5))
        }
        for frame in 0..<20 {
            let values = (0..<40).map { Float(($0 * 5 + frame * 3) % 60) - 30 }
            let velocities = (0..<40).map { Float(($0 + frame) % 7) - 3 }
            if frame % 2 == 0 {
                for i in 0..<40 { try single.setState(of: handles.0[i], value: values[i], velocity: velocities[i]) }
                try handles.1.withUnsafeBufferPointer { springs in
                    try values.withUnsafeBufferPointer { values in
                        try velocities.withUnsafeBufferPointer { try batch.setState(of: springs, values: values, velocities: $0) }
                    }
                }
            } else {
                for i in 0..<40 { try single.addVelocity(velocities[i], to: handles.0[i]) }
                try handles.1.withUnsafeBufferPointer { springs in
                    try velocities.withUnsafeBufferPointer { try batch.addVelocity($0, to: springs) }
                }
            }
            try single.step(dt: 1.0 / 60)
            try batch.step(dt: 1.0 / 60)
            #expect(single.stateHash() == batch.stateHash())
        }
    }

    /// The buffer forms, from arrays.
    func impulse(_ bank: FixedSpringBank, _ springs: [SpringHandle], _ deltas: [Q16]) throws(SpringKernelError) {
        try springs.withUnsafeBufferPointer { springs throws(SpringKernelError) in
            try deltas.withUnsafeBufferPointer { deltas throws(SpringKernelError) in try bank.addVelocity(deltas, to: springs) }
        }
    }

    func setState(_ bank: FixedSpringBank, _ springs: [SpringHandle], _ values: [Q16], _ velocities: [Q16]) throws(SpringKernelError) {
        try springs.withUnsafeBufferPointer { springs throws(SpringKernelError) in
            try values.withUnsafeBufferPointer { values throws(SpringKernelError) in
                try velocities.withUnsafeBufferPointer { velocities throws(SpringKernelError) in
                    try bank.setState(of: springs, values: values, velocities: velocities)
                }
            }
        }
    }

    @Test("a refused element refuses the whole batch; a spring listed twice gets both impulses, checked together")
    func allOrNothing() throws {
        let bank = FixedSpringBank()
        let a = try bank.add(value: .zero, target: .zero, tolerance: Q16(0.5)!)
        let b = try bank.add(value: .zero, target: .zero, velocity: Q16(20000.0)!, tolerance: Q16(0.5)!)
        let before = bank.stateHash()
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try impulse(bank, [b, b], [Q16(7000.0)!, Q16(7000.0)!]) }
        #expect(bank.stateHash() == before)
        #expect(throws: SpringKernelError.outOfRange(.displacement)) {
            try setState(bank, [a, b], [Q16(1.0)!, Q16(-20000.0)!], [.zero, .zero])
        }
        #expect(throws: SpringKernelError.countMismatch(expected: 2, given: 1)) { try setState(bank, [a, b], [Q16(1.0)!], [.zero, .zero]) }
        #expect(bank.stateHash() == before)
        try impulse(bank, [a, b], [Q16(1.0)!, Q16(2.0)!])
        #expect(try bank.velocity(of: a) == Q16(1.0)! && bank.velocity(of: b) == Q16(20002.0)!)
    }
}
