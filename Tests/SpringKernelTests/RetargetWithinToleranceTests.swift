@_spi(KernelInternals) @testable import SpringKernel
import Testing

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
}
