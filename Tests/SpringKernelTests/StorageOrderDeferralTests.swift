import Testing
@_spi(KernelInternals) @testable import SpringKernel

/// Storage-order writes leave the changed springs' rest predictions to the next step (or the next
/// mutation): checked against a Float64 model of the frames actually taken, so that a spring is
/// never snapped on a due time from a state it no longer has, and for the memory it holds.
@Suite("Storage order: changes predicted at the next step")
struct StorageOrderDeferralTests {
    /// The model of `spring` restarted from the bank's lanes (what a change left in them).
    static func restarted(_ model: ExactSpringModel, _ bank: FloatSpringBank, _ spring: SpringHandle) throws -> ExactSpringModel {
        let lanes = bank.core.lanePatterns(ofRecord: try bank.core.recordIndex(spring))
        var model = model
        model.d = Double(Float(bitPattern: lanes.displacement))
        model.v = Double(Float(bitPattern: lanes.velocity))
        return model
    }

    @Test("springs changed by storage-order writes, then stepped with a new dt every frame, never rest early against the Float64 model")
    func neverEarlyAfterWrites() throws {
        for seed in UInt64(1)...16 {
            var generator = SeededGenerator(seed: seed)
            let bank = FloatSpringBank()
            var models: [SpringHandle: ExactSpringModel] = [:]
            for _ in 0..<48 {
                // Most start close to rest: due soon, so a write that gave them a long motion and
                // was not predicted again would show as an early rest.
                var c = SettleCase.random(using: &generator, maximumFrames: 2_000)
                if Bool.random(using: &generator) { c.from = c.to + c.tolerance * Float.random(in: -1.5...1.5, using: &generator) }
                let handle = try bank.add(value: c.from, target: c.to, velocity: c.velocity, configuration: c.configuration, tolerance: c.tolerance)
                models[handle] = try Self.restarted(ExactSpringModel(configuration: c.configuration, d: 0, v: 0, tolerance: Double(c.tolerance)), bank, handle)
            }
            var frames = 0
            while bank.awakeCount > 0 && frames < 2_500 {
                if frames < 400, Int.random(in: 0..<6, using: &generator) == 0 {
                    try write(bank, &models, &generator)
                    try bank._checkInvariants()
                }
                let dt = Double.random(in: 0.002...0.05, using: &generator) * (Int.random(in: 0..<40, using: &generator) == 0 ? 10 : 1)
                try bank.step(dt: dt)
                frames += 1
                for handle in models.keys { models[handle]!.advance(by: dt) }
                for spring in bank.restedInLastStep {
                    let remaining = models[spring]!.motionLeftOutsideBand
                    #expect(remaining == 0, "seed \(seed): \(spring) snapped at frame \(frames) with \(remaining) s of motion outside its band left")
                    models[spring]!.d = 0
                    models[spring]!.v = 0
                }
            }
        }
    }

    /// One frame's writes: a retarget of some of the moving springs (runs and single slots) or a
    /// new state for all of them, sometimes followed, before the step, by a call that moves slots
    /// (a spring at rest woken by handle, one removed) or by reads.
    private func write(_ bank: FloatSpringBank, _ models: inout [SpringHandle: ExactSpringModel], _ generator: inout SeededGenerator) throws {
        let layout = bank.storageLayout(of: .moving)
        var springs = [SpringHandle](repeating: SpringHandle(index: 0, generation: 0, bankTag: 0), count: layout.count)
        try springs.withUnsafeMutableBufferPointer { try bank.springs(in: layout, into: $0) }
        var targets = [Float](repeating: 0, count: layout.count)
        try targets.withUnsafeMutableBufferPointer { try bank.targets(in: layout, into: $0) }
        if Bool.random(using: &generator) {
            for i in targets.indices where Int.random(in: 0..<3, using: &generator) == 0 {
                targets[i] += Float.random(in: -40...40, using: &generator)
            }
            try targets.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
        } else {
            let values = targets.map { $0 + Float.random(in: -30...30, using: &generator) }
            let velocities = targets.map { _ in Float.random(in: -50...50, using: &generator) }
            try values.withUnsafeBufferPointer { values in
                try velocities.withUnsafeBufferPointer { try bank.setState(in: layout, values: values, velocities: $0) }
            }
        }
        for spring in springs { models[spring] = try Self.restarted(models[spring]!, bank, spring) }
        // Reads between the write and the step see the written state.
        var values = [Float](repeating: 0, count: layout.count)
        try values.withUnsafeMutableBufferPointer { try bank.values(in: layout, into: $0) }
        for (i, spring) in springs.enumerated() { #expect(try bank.value(of: spring) == values[i]) }
        if let spring = springs.randomElement(using: &generator) {
            let model = models[spring]!
            let expected = SettlePredictor.restTime(
                displacement: model.d, velocity: model.v, tolerance: model.tolerance, motion: SpringMotion(model.configuration))
            #expect(try bank.restTime(of: spring) == expected)
        }
        // A call that moves slots before the step: it must predict the written springs first.
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            if let resting = try models.keys.first(where: { try bank.isAtRest($0) }) {
                try bank.setState(of: resting, value: try bank.target(of: resting) + 20, velocity: 0)
                models[resting] = try Self.restarted(models[resting]!, bank, resting)
            }
        case 1:
            if models.count > 8, let spring = springs.randomElement(using: &generator) {
                try bank.remove(spring)
                models[spring] = nil
            }
        default: break
        }
    }

    @Test("writes every frame hold no more schedule memory than one write, and leave nothing to predict after each step")
    func writesEveryFrameHoldNoMoreMemory() throws {
        let bank = FloatSpringBank()
        let count = 300
        for i in 0..<count { _ = try bank.add(value: 0, target: Float(i), tolerance: 0.5) }
        var generator = SeededGenerator(seed: 14)
        var peak = (schedule: 0, runs: 0)
        for frame in 0..<2_000 {
            let layout = bank.storageLayout(of: .moving)
            // An attachment following a dragged target: a little further every frame, a few
            // springs left alone (runs broken), written twice some frames.
            var targets = [Float](repeating: 0, count: layout.count)
            try targets.withUnsafeMutableBufferPointer { try bank.targets(in: layout, into: $0) }
            for i in targets.indices where i % 7 != frame % 7 { targets[i] += Bool.random(using: &generator) ? 0.5 : -0.4 }
            for _ in 0..<(frame % 5 == 0 ? 3 : 1) { try targets.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) } }
            peak.runs = max(peak.runs, bank.core.changedRuns.count)
            try bank.step(dt: 1.0 / 60 * (1 + Double.random(in: -0.15...0.15, using: &generator)))
            #expect(bank.core.changedRuns.isEmpty)
            peak.schedule = max(peak.schedule, bank.core.schedule.count)
        }
        #expect(peak.schedule <= 2 * count + 64, "schedule held \(peak.schedule) entries for \(count) springs")
        #expect(peak.runs <= count + 64)
        #expect(bank.core.changedRuns.capacity <= 2 * (count + 64))
        // Without steps, retargets note nothing to predict: they mark the moving springs for the
        // watch, one bit a spring however many writes (the first wakes those at rest, which
        // predicts them and moves the layout on).
        for round in 0..<100 {
            let layout = bank.storageLayout(of: .all)
            var targets = [Float](repeating: 0, count: layout.count)
            try targets.withUnsafeMutableBufferPointer { try bank.targets(in: layout, into: $0) }
            for i in targets.indices { targets[i] += round % 2 == 0 ? 1 : -1 }
            try targets.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
        }
        #expect(bank.core.changedRuns.isEmpty)
        for case let batch? in bank.core.batches {
            #expect((0..<batch.movingCount).allSatisfy { batch.retargetedLanes[$0] })
        }
        try bank._checkInvariants()
    }

    @Test("a storage-order write's rest times and rest events are those of the same changes made by handle")
    func sameAsByHandle() throws {
        for clock in [FrameClock.variable, .fixed(frameDuration: 1.0 / 60)] {
            let byLayout = FloatSpringBank(), byHandle = FloatSpringBank()
            try byLayout.setFrameClock(clock)
            try byHandle.setFrameClock(clock)
            var springs: [SpringHandle] = [], twins: [UInt32: SpringHandle] = [:]
            for i in 0..<100 {
                let configuration = try SpringConfiguration(tension: 100 + Double(i % 7) * 50, friction: 5 + Double(i % 3) * 8)
                springs.append(try byLayout.add(value: Float(i % 13), target: 0, configuration: configuration, tolerance: 0.25))
                let twin = try byHandle.add(value: Float(i % 13), target: 0, configuration: configuration, tolerance: 0.25)
                twins[springs[i].index] = twin
            }
            var rested: ([SpringHandle], [SpringHandle]) = ([], [])
            for frame in 0..<600 {
                if frame % 9 == 0 {
                    let layout = byLayout.storageLayout(of: .moving)
                    var order = [SpringHandle](repeating: springs[0], count: layout.count)
                    try order.withUnsafeMutableBufferPointer { try byLayout.springs(in: layout, into: $0) }
                    let targets = order.map { Float($0.index % 5) * (frame % 2 == 0 ? 3 : -2) }
                    try targets.withUnsafeBufferPointer { try byLayout.retarget(in: layout, to: $0) }
                    try byHandle.retarget(order.map { twins[$0.index]! }, to: targets)
                    for spring in order { #expect(try byLayout.restTime(of: spring) == byHandle.restTime(of: twins[spring.index]!)) }
                }
                try byLayout.step(dt: 1.0 / 60)
                try byHandle.step(dt: 1.0 / 60)
                rested.0 += byLayout.restedInLastStep.map { twins[$0.index]! }
                rested.1 += byHandle.restedInLastStep
            }
            #expect(rested.0 == rested.1 && !rested.0.isEmpty, "\(clock)")
        }
    }
}
