import Testing
@_spi(KernelInternals) @testable import SpringKernel

@Suite("Storage, handles and growth")
struct StorageTests {
    /// A plain model of what each spring's target and rest state should be.
    struct ModelSpring { var target: Float; var removed = false }

    @Test("random adds, removals, retargets and rests keep every spring and handle", arguments: [1, 2, 3] as [UInt64])
    func compactionKeepsEverySpring(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let bank = SpringBank<Float32Lanes>()
        let configurations = try [SpringConfiguration.default, SpringConfiguration(tension: 200, friction: 40), SpringConfiguration(tension: 700, friction: 12)]
        var model: [SpringHandle: ModelSpring] = [:]
        var removed: [SpringHandle] = []
        for round in 0..<60 {
            for _ in 0..<Int.random(in: 0...30, using: &generator) {
                let target = Float(Int.random(in: -500...500, using: &generator))
                let handle = try bank.add(
                    value: Float(Int.random(in: -500...500, using: &generator)), target: target,
                    velocity: Float.random(in: -100...100, using: &generator),
                    configuration: configurations.randomElement(using: &generator)!, tolerance: 0.5)
                #expect(model[handle] == nil)
                model[handle] = ModelSpring(target: target)
            }
            for handle in model.keys.shuffled(using: &generator).prefix(5) {
                if Bool.random(using: &generator) {
                    try bank.remove(handle)
                    model[handle] = nil
                    removed.append(handle)
                } else {
                    let target = Float(Int.random(in: -500...500, using: &generator))
                    try bank.retarget(handle, to: target)
                    model[handle]!.target = target
                }
            }
            for _ in 0..<Int.random(in: 1...20, using: &generator) { try bank.step(dt: 1.0 / 60) }
            try bank._checkInvariants()
            #expect(bank.count == model.count, "round \(round)")
            for (handle, spring) in model {
                #expect(try bank.target(of: handle) == spring.target)
                if try bank.isAtRest(handle) { #expect(try bank.value(of: handle) == spring.target) }
            }
            for handle in removed { #expect(!bank.contains(handle)) }
        }
        // Everything eventually rests exactly on its target.
        for _ in 0..<400 where bank.awakeCount > 0 { try bank.step(dt: 1.0 / 60) }
        for (handle, spring) in model { #expect(try bank.value(of: handle) == spring.target) }
    }

    @Test("a bank reserved for its springs makes their lanes and schedule once: adding them moves no lane buffer (at most 65,536 reserved)")
    func reservedBankAllocatesOnce() throws {
        let bank = try SpringBank<Float32Lanes>(threading: .single, capacity: 1000)
        #expect(bank.core.schedule.entries.capacity >= 1000)
        _ = try bank.add(value: 0, target: 1, tolerance: 0.5)
        let first = try #require(bank.core.batches.first ?? nil)
        let bases = [first.displacements.base, first.velocities.base, first.targets.base]
        #expect(first.capacity >= 1000)
        for i in 1..<1000 { _ = try bank.add(value: Float(i), target: 1, tolerance: 0.5) }
        let last = try #require(bank.core.batches.first ?? nil)
        #expect([last.displacements.base, last.velocities.base, last.targets.base] == bases)
        #expect(bank.core.batches.count == 1)
        // A second configuration grows its own lanes from one bundle, as in any bank.
        _ = try bank.add(value: 0, target: 1, configuration: try SpringConfiguration(tension: 900, friction: 10), tolerance: 0.5)
        let second = try #require(bank.core.batches.last ?? nil)
        #expect(second.capacity == BundleIndexing.laneCount)
        // A reservation beyond 65,536 springs reserves their records only, and that many lanes.
        let large = try SpringBank<Q16Lanes>(threading: .single, capacity: 1 << 20)
        _ = try large.add(value: Q16(raw: 1 << 16), target: Q16(raw: 0), tolerance: Q16(raw: 1 << 15))
        #expect(try #require(large.core.batches.first ?? nil).capacity == 1 << 16)
    }

    @Test("growth past capacity keeps every spring's lanes bit for bit")
    func growthKeepsLanes() throws {
        let bank = try SpringBank<Float32Lanes>(capacity: 4)
        var springs: [SpringHandle] = []
        var expected: [[UInt32]] = []
        for i in 0..<300 {
            springs.append(try bank.add(value: Float(i) * 1.5, target: -Float(i), velocity: Float(i % 11), tolerance: 0.01))
            expected.append(try bits(bank, [springs[i]]))
        }
        for (i, spring) in springs.enumerated() { #expect(try bits(bank, [spring]) == expected[i]) }
        try bank._checkInvariants()
    }

    @Test("256 configurations live at once, each in its own batch")
    func manyConfigurations() throws {
        let bank = SpringBank<Float32Lanes>()
        var springs: [SpringHandle] = []
        for i in 0..<256 {
            let configuration = try SpringConfiguration(tension: 100 + Double(i), friction: 10 + Double(i % 17))
            springs.append(try bank.add(value: 0, target: 50, configuration: configuration, tolerance: 0.5))
        }
        try bank.step(dt: 1.0 / 60)
        for (i, spring) in springs.enumerated() {
            let configuration = try bank.configuration(of: spring)
            #expect(configuration.tension == 100 + Double(i))
            let exact = 50 + SpringMotion(configuration).displacement(after: 1.0 / 60, from: -50, velocity: 0)
            #expect(abs(Double(try bank.value(of: spring)) - exact) < 1e-4)
        }
        try bank._checkInvariants()
    }

    @Test("a spring keeps its state, masks and pause depth when its configuration changes")
    func reconfigure() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 3, target: 40, velocity: 7, tolerance: 0.5)
        let mask = try bank.makePauseMask([spring])
        try bank.pause(mask)
        let before = try bits(bank, [spring])
        try bank.setConfiguration(of: spring, to: try SpringConfiguration(tension: 1000, friction: 5))
        #expect(try bits(bank, [spring]) == before)
        #expect(try bank.pauseDepth(of: spring) == 1)
        try bank.resume(mask)
        try bank.step(dt: 1.0 / 60)
        let exact = 40 + SpringMotion(try SpringConfiguration(tension: 1000, friction: 5)).displacement(after: 1.0 / 60, from: -37, velocity: 7)
        #expect(abs(Double(try bank.value(of: spring)) - exact) < 1e-4)
    }

    @Test("an impulse wakes a spring at rest; retargeting keeps velocity")
    func impulseAndRetarget() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 10, target: 10, tolerance: 0.5)
        #expect(try bank.isAtRest(spring))
        try bank.addVelocity(300, to: spring)
        #expect(try !bank.isAtRest(spring))
        try bank.step(dt: 1.0 / 60)
        let velocity = try bank.velocity(of: spring)
        let value = try bank.value(of: spring)
        try bank.retarget(spring, to: -50)
        #expect(try bank.velocity(of: spring) == velocity)
        // The value is re-expressed against the new target: one rounding of the new displacement.
        let rounding = try bank.displacement(of: spring).ulp
        #expect(abs(try bank.value(of: spring) - value) <= rounding)
    }
}
