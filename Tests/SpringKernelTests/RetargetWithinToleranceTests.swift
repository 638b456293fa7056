@_spi(KernelInternals) @testable import SpringKernel
import Testing
import _SpringKernelShims

/// A resting spring given a target within its tolerance of where it is stays at rest (issue 33's
/// hold: a finger held on the glass nudges every target by less than the tolerance each frame).
@Suite("A retarget within the tolerance of a resting spring")
struct RetargetWithinToleranceTests {
    @Test("keeps it at rest, snapped onto the new target, with no event and no layout change, by every door; beyond the tolerance it wakes")
    func staysAtRest() throws {
        try check(Float32Lanes.self, value: { Float($0) })
        try check(Q16Lanes.self, value: { Q16($0)! })
    }

    private func check<Lanes: SpringLaneArithmetic>(_: Lanes.Type, value: (Double) -> Lanes.Value) throws where Lanes.Value: Equatable {
        let bank = SpringBank<Lanes>(threading: .single)
        let springs = try (0..<6).map { i in
            try bank.add(value: value(Double(10 * i)), target: value(Double(10 * i)), tolerance: value(0.5), userValue: UInt64(i))
        }
        try bank.step(dt: 1.0 / 60)
        #expect(try springs.allSatisfy { try bank.isAtRest($0) })
        // Nudged by 0.25 (within 0.5): one call, in bulk by handle, and in storage order.
        let version = bank.layoutVersion
        try bank.retarget(springs[0], to: value(0.25))
        try bank.retarget([springs[1], springs[2]], to: [value(10.25), value(19.75)])
        let layout = bank.storageLayout(of: .all)
        var ids = [UInt64](repeating: 0, count: layout.count), targets = [Lanes.Value](repeating: value(0), count: layout.count)
        try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: layout, into: $0) }
        try targets.withUnsafeMutableBufferPointer { try bank.targets(in: layout, into: $0) }
        for j in ids.indices where ids[j] == 3 { targets[j] = value(30.25) }
        try targets.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
        let nudged = [0.25, 10.25, 19.75, 30.25]
        for (i, goal) in nudged.enumerated() {
            #expect(try bank.isAtRest(springs[i]), "\(Lanes.formatName) spring \(i)")
            #expect(try bank.value(of: springs[i]) == value(goal) && bank.velocity(of: springs[i]) == value(0), "\(Lanes.formatName) spring \(i)")
        }
        #expect(bank.layoutVersion == version)
        try bank.step(dt: 1.0 / 60)
        #expect(bank.restedInLastStep.isEmpty)
        // Beyond the tolerance (0.75 from where it rests): it wakes, moves, and rests later with an event.
        try bank.retarget(springs[4], to: value(40.75))
        #expect(try !bank.isAtRest(springs[4]))
        var rested: [SpringHandle] = []
        for _ in 0..<120 {
            try bank.step(dt: 1.0 / 60)
            rested += bank.restedInLastStep
        }
        #expect(rested == [springs[4]])
        #expect(try bank.value(of: springs[4]) == value(40.75))
        // A nudge that keeps a spring at rest never drifts it from its target: a hundred of 0.25
        // each, and it sits on the last one, still at rest.
        for k in 1...100 { try bank.retarget(springs[5], to: value(50 + 0.25 * Double(k))) }
        #expect(try bank.isAtRest(springs[5]) && bank.value(of: springs[5]) == value(75))
        try bank._checkInvariants()
    }

    @Test("a resting spring listed twice in one bulk call, first far and then back within its tolerance, is decided once the call is accepted: at rest on its last target, exactly")
    func listedTwiceInOneBulkCall() throws {
        let bank = SpringBank<Float32Lanes>(threading: .single)
        let spring = try bank.add(value: 10, target: 10, tolerance: 0.5)
        let other = try bank.add(value: 20, target: 20, tolerance: 0.5)
        try bank.step(dt: 1.0 / 60)
        #expect(try bank.isAtRest(spring) && bank.isAtRest(other))
        try bank.retarget([spring, other, spring], to: [110, 20.25, 10.25])
        // Its second element sees the displacement its first left (the spring is woken, or kept,
        // only once the call is accepted): back within its tolerance of where it rests, it stays.
        #expect(try bank.isAtRest(spring) && bank.value(of: spring) == 10.25 && bank.velocity(of: spring) == 0)
        #expect(try bank.isAtRest(other) && bank.value(of: other) == 20.25)
        try bank._checkInvariants()
        try bank.step(dt: 1.0 / 60)
        #expect(bank.restedInLastStep.isEmpty)
        #expect(try bank.value(of: spring) == 10.25)
    }

    @Test("at the tolerance's edge, the streamed retarget (every vector variant, whole bundles and the partial one, tolerances mixed in a batch) keeps at rest exactly the springs the one-spring retarget keeps, to the bit")
    func streamedEdgeAgreesWithOneSpring() throws {
        let levels: [Int32] = [0, 1, 2]
        for level in levels {
            sk_limit_vector_level(level)
            defer { sk_limit_vector_level(-1) }
            try edge(Float32Lanes.self, level: level, value: { Float($0) }, double: { Double($0) }, unit: { Double(Float($0).ulp) })
            try edge(Q16Lanes.self, level: level, value: { Q16($0)! }, double: { $0.doubleValue }, unit: { _ in 0x1p-16 })
        }
    }

    /// 45 resting springs (with 20 moving ones, four whole bundles and a partial one), tolerances
    /// 0.5 and 0.75 in turn, each retargeted by an amount about its tolerance (a unit of the
    /// format either side of it, of its batch's least tolerance, between the two, and well within
    /// or beyond), both signs: in storage order on one bank, one call a spring on its twin.
    private func edge<Lanes: SpringLaneArithmetic>(
        _: Lanes.Type, level: Int32, value: (Double) -> Lanes.Value, double: (Lanes.Value) -> Double, unit: (Double) -> Double
    ) throws where Lanes.Value: Equatable {
        let streamed = SpringBank<Lanes>(threading: .single), oneByOne = SpringBank<Lanes>(threading: .single)
        var springs: [SpringHandle] = [], twins: [SpringHandle] = [], goals: [Lanes.Value] = []
        for i in 0..<45 {
            let tolerance = i % 2 == 0 ? 0.5 : 0.75
            let base = Double(i % 3)
            springs.append(try streamed.add(value: value(base), target: value(base), tolerance: value(tolerance), userValue: UInt64(i)))
            twins.append(try oneByOne.add(value: value(base), target: value(base), tolerance: value(tolerance), userValue: UInt64(i)))
            let u = unit(tolerance)
            let amounts = [tolerance - u, tolerance, tolerance + u, 0.5 - unit(0.5), 0.5, 0.5 + unit(0.5), 0.25, 1.5, 0.625, tolerance * (1 - 1e-9)]
            let amount = amounts[(i / 2) % amounts.count]
            goals.append(value(base + (i % 4 < 2 ? amount : -amount)))
        }
        let resting = springs.count
        // And springs in motion in the same batches (slots before the resting ones), each given a
        // target a tenth from where it is: a new displacement within the band that must not keep
        // it where it was.
        for i in 45..<65 {
            let base = Double(i % 3)
            springs.append(try streamed.add(value: value(base), target: value(base), velocity: value(200), tolerance: value(0.5), userValue: UInt64(i)))
            twins.append(try oneByOne.add(value: value(base), target: value(base), velocity: value(200), tolerance: value(0.5), userValue: UInt64(i)))
        }
        for bank in [streamed, oneByOne] { try bank.step(dt: 1.0 / 60) }
        #expect(try springs[..<resting].allSatisfy { try streamed.isAtRest($0) } && twins[..<resting].allSatisfy { try oneByOne.isAtRest($0) })
        for spring in springs[resting...] {
            #expect(try !streamed.isAtRest(spring))
            goals.append(value(double(try streamed.value(of: spring)) + 0.1))
        }
        let layout = streamed.storageLayout(of: .all)
        var ids = [UInt64](repeating: 0, count: layout.count)
        try ids.withUnsafeMutableBufferPointer { try streamed.userValues(in: layout, into: $0) }
        let inLayout = ids.map { goals[Int($0)] }
        try inLayout.withUnsafeBufferPointer { try streamed.retarget(in: layout, to: $0) }
        for (i, twin) in twins.enumerated() { try oneByOne.retarget(twin, to: goals[i]) }
        for (i, (spring, twin)) in zip(springs, twins).enumerated() {
            let label = "\(Lanes.formatName), vector level \(level), spring \(i)"
            #expect(try streamed.isAtRest(spring) == oneByOne.isAtRest(twin), "\(label)")
            #expect(try streamed.value(of: spring) == oneByOne.value(of: twin), "\(label)")
            #expect(try streamed.velocity(of: spring) == oneByOne.velocity(of: twin), "\(label)")
        }
        // Both kinds happen: some kept at rest, some woken.
        let kept = try springs[..<resting].filter { try streamed.isAtRest($0) }.count
        #expect(kept > 0 && kept < resting, "\(Lanes.formatName): \(kept) kept")
        #expect(streamed.stateHash() == oneByOne.stateHash(), "\(Lanes.formatName), vector level \(level)")
        for _ in 0..<90 {
            try streamed.step(dt: 1.0 / 60)
            try oneByOne.step(dt: 1.0 / 60)
            #expect(Set(streamed.restedInLastStep.map(\.index)) == Set(oneByOne.restedInLastStep.map(\.index)))
        }
        #expect(streamed.stateHash() == oneByOne.stateHash(), "\(Lanes.formatName), vector level \(level)")
        try streamed._checkInvariants()
    }
}
