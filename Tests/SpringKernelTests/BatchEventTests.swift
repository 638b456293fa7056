import Testing
@testable import SpringKernel

@Suite("Batch events")
struct BatchEventTests {
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
