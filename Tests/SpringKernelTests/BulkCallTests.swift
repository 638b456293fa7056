import Testing
@_spi(KernelInternals) @testable import SpringKernel
import _SpringOracles

/// The bulk forms of add, remove, configure and resume: equal to one call per spring, bit for
/// bit, refused whole, and never early under a new dt every frame.
@Suite("Bulk calls: add, remove, configure and resume")
struct BulkCallTests {
    /// Frame durations of a game's measured clock: 1/60 s ± 15 %.
    static func jittered(_ generator: inout SeededGenerator) -> Double {
        1.0 / 60 * (1 + Double.random(in: -0.15...0.15, using: &generator))
    }

    /// The handles' indices and generations (banks differ in their tag).
    static func names(_ handles: [SpringHandle]) -> [UInt64] {
        handles.map { UInt64($0.index) << 32 | UInt64($0.generation) }
    }

    /// Each spring's raw lanes, whether it rests, and its pause depth, in list order.
    static func lanes<Lanes>(_ bank: SpringBank<Lanes>, _ springs: [SpringHandle]) -> [[UInt32]] {
        springs.map { spring in
            let index = Int(spring.index)
            let lanes = bank.core.lanePatterns(ofRecord: index)
            return [lanes.displacement, lanes.velocity, lanes.target, bank.core.isAwake(record: index) ? 1 : 0, UInt32(bank.core.pauseDepth(record: index))]
        }
    }

    /// The list positions of `rested`, in order.
    static func positions(_ rested: [SpringHandle], in springs: [SpringHandle]) -> [Int] {
        rested.compactMap { springs.firstIndex(of: $0) }.sorted()
    }

    func addAndRemoveMatch<Lanes: SpringLaneArithmetic>(_: Lanes.Type, value: (Double) -> Lanes.Value) throws {
        let single = SpringBank<Lanes>(), batch = SpringBank<Lanes>()
        let configurations = [SpringConfiguration.default, try SpringConfiguration(tension: 120, friction: 6)]
        var springs: ([SpringHandle], [SpringHandle]) = ([], [])
        var masks: (PauseMaskID?, PauseMaskID?) = (nil, nil)
        var generator = SeededGenerator(seed: 5)
        for frame in 0..<40 {
            let count = Int.random(in: 0...12, using: &generator)
            let values = (0..<count).map { _ in value(Double.random(in: -80...80, using: &generator).rounded()) }
            // Some start on their target at rest: they are added resting, in both forms.
            let targets = values.enumerated().map { $0.offset % 4 == 0 ? $0.element : value(Double($0.offset * 3)) }
            let velocities = (0..<count).map { i in value(Double(i % 3) - 1) }
            let users = (0..<count).map { UInt64(frame * 100 + $0) }
            let configuration = configurations[frame % 2]
            let leaving = springs.0.indices.filter { _ in Int.random(in: 0..<3, using: &generator) == 0 }
            for i in leaving { try single.remove(springs.0[i]) }
            try batch.remove(leaving.map { springs.1[$0] })
            for i in leaving.reversed() {
                springs.0.remove(at: i)
                springs.1.remove(at: i)
            }
            for i in 0..<count {
                springs.0.append(try single.add(
                    value: values[i], target: targets[i], velocity: frame % 3 == 0 ? nil : velocities[i],
                    configuration: configuration, tolerance: value(0.5), userValue: users[i]))
            }
            springs.1 += try batch.add(
                values: values, targets: targets, velocities: frame % 3 == 0 ? nil : velocities, userValues: users,
                configuration: configuration, tolerance: value(0.5))
            if frame == 10 || frame == 25 {
                // Paused springs among the removed and the kept: a batch compacted at once keeps
                // its regions whole.
                let held = Array(springs.0.indices.prefix(springs.0.count / 2))
                masks.0 = try single.makePauseMask(held.map { springs.0[$0] })
                masks.1 = try batch.makePauseMask(held.map { springs.1[$0] })
                try single.pause(masks.0!)
                try batch.pause(masks.1!)
            }
            if frame == 18 || frame == 33 {
                try single.resume(masks.0!)
                try batch.resume(masks.1!)
            }
            let dt = Self.jittered(&generator)
            try single.step(dt: dt)
            try batch.step(dt: dt)
            // A bulk add may give the springs other records than one call each would (it reuses
            // the records a bulk removal freed in list order): compared spring by spring.
            #expect(Self.lanes(single, springs.0) == Self.lanes(batch, springs.1), "frame \(frame)")
            #expect(Self.positions(single.restedInLastStep, in: springs.0) == Self.positions(batch.restedInLastStep, in: springs.1), "frame \(frame)")
            #expect(try springs.1.map { try batch.userValue(of: $0) } == springs.0.map { try single.userValue(of: $0) })
            try batch._checkInvariants()
        }
    }

    @Test("adding and removing from buffers equals one call per spring, bit for bit, rests included, in both formats")
    func addAndRemoveMatchSingleCalls() throws {
        try addAndRemoveMatch(Float32Lanes.self) { Float($0) }
        try addAndRemoveMatch(Q16Lanes.self) { Q16($0)! }
    }

    func configureMatch<Lanes: SpringLaneArithmetic>(_: Lanes.Type, value: (Double) -> Lanes.Value) throws {
        let single = SpringBank<Lanes>(), batch = SpringBank<Lanes>()
        let configurations = [
            SpringConfiguration.default, try SpringConfiguration(tension: 120, friction: 6), try SpringConfiguration(tension: 900, friction: 70),
        ]
        var springs: ([SpringHandle], [SpringHandle]) = ([], [])
        for i in 0..<48 {
            // Two tolerances: in Q16.16 two lane scales, so a call fills two batches.
            let tolerance = value(i % 2 == 0 ? 0.5 : 0.01)
            let start = value(Double(i * 5 % 90) - 45), target = value(i % 5 == 0 ? Double(i * 5 % 90) - 45 : 10)
            springs.0.append(try single.add(value: start, target: target, configuration: configurations[i % 3], tolerance: tolerance))
            springs.1.append(try batch.add(value: start, target: target, configuration: configurations[i % 3], tolerance: tolerance))
        }
        // Some paused: they keep their pause through the move.
        let masks = (try single.makePauseMask(springs.0[0..<6]), try batch.makePauseMask(springs.1[0..<6]))
        try single.pause(masks.0)
        try batch.pause(masks.1)
        var generator = SeededGenerator(seed: 9)
        for frame in 0..<30 {
            let listed = (0..<48).filter { _ in Bool.random(using: &generator) } + [3, 3]  // one listed twice
            let configuration = configurations[frame % 3]
            for i in listed { try single.setConfiguration(of: springs.0[i], to: configuration) }
            try batch.setConfiguration(of: listed.map { springs.1[$0] }, to: configuration)
            #expect(single.stateHash() == batch.stateHash(), "frame \(frame)")
            if frame == 20 {
                try single.resume(masks.0)
                try batch.resume(masks.1)
            }
            let dt = Self.jittered(&generator)
            try single.step(dt: dt)
            try batch.step(dt: dt)
            #expect(single.stateHash() == batch.stateHash(), "frame \(frame)")
            #expect(Self.names(single.restedInLastStep) == Self.names(batch.restedInLastStep), "frame \(frame)")
            try batch._checkInvariants()
        }
    }

    @Test("configuring from a buffer equals one call per spring, bit for bit, in both formats")
    func configureMatchesSingleCalls() throws {
        try configureMatch(Float32Lanes.self) { Float($0) }
        try configureMatch(Q16Lanes.self) { Q16($0)! }
    }

    func resumeMatch<Lanes: SpringLaneArithmetic>(_: Lanes.Type, value: (Double) -> Lanes.Value) throws {
        let closure = SpringBank<Lanes>(), buffers = SpringBank<Lanes>()
        var springs: ([SpringHandle], [SpringHandle]) = ([], [])
        for i in 0..<24 {
            springs.0.append(try closure.add(value: value(Double(i * 4)), target: value(i % 6 == 0 ? Double(i * 4) : 50), tolerance: value(0.5)))
            springs.1.append(try buffers.add(value: value(Double(i * 4)), target: value(i % 6 == 0 ? Double(i * 4) : 50), tolerance: value(0.5)))
        }
        // Mask a holds 0..<16; mask b holds 12..<20, so 12..<16 stay held when a resumes.
        let a = (try closure.makePauseMask(springs.0[0..<16]), try buffers.makePauseMask(springs.1[0..<16]))
        let b = (try closure.makePauseMask(springs.0[12..<20]), try buffers.makePauseMask(springs.1[12..<20]))
        var generator = SeededGenerator(seed: 3)
        for frame in 0..<12 {
            try closure.pause(a.0)
            try buffers.pause(a.1)
            if frame % 3 == 0 {
                try closure.pause(b.0)
                try buffers.pause(b.1)
            }
            for _ in 0..<3 {
                try closure.step(dt: 1.0 / 60)
                try buffers.step(dt: 1.0 / 60)
            }
            // Listed: freed members, members still held by b, a spring not in a, one listed twice
            // (its last state counts), in no particular order.
            var listed = [5, 1, 13, 21, 7, 5].shuffled(using: &generator)
            listed.removeAll { $0 == 7 && frame % 2 == 0 }
            let values = listed.indices.map { value(Double($0 * 10 + frame)) }
            let velocities = listed.indices.map { value(Double($0) - 2) }
            try closure.resume(a.0) { spring in
                guard let i = springs.0.firstIndex(of: spring), let last = listed.lastIndex(of: i) else { return nil }
                return (values[last], velocities[last])
            }
            try buffers.resume(a.1, restarting: listed.map { springs.1[$0] }, values: values, velocities: velocities)
            #expect(closure.stateHash() == buffers.stateHash(), "frame \(frame)")
            if frame % 3 == 2 {
                try closure.resume(b.0)
                try buffers.resume(b.1)
            }
            let dt = Self.jittered(&generator)
            try closure.step(dt: dt)
            try buffers.step(dt: dt)
            #expect(closure.stateHash() == buffers.stateHash(), "frame \(frame)")
            #expect(Self.names(closure.restedInLastStep) == Self.names(buffers.restedInLastStep), "frame \(frame)")
            try buffers._checkInvariants()
        }
    }

    @Test("resuming with restart states from buffers equals the closure form, bit for bit, in both formats")
    func resumeMatchesClosure() throws {
        try resumeMatch(Float32Lanes.self) { Float($0) }
        try resumeMatch(Q16Lanes.self) { Q16($0)! }
    }

    func retargetDuplicatesMatch<Lanes: SpringLaneArithmetic>(_: Lanes.Type, value: (Double) -> Lanes.Value) throws {
        let single = SpringBank<Lanes>(), batch = SpringBank<Lanes>()
        var springs: ([SpringHandle], [SpringHandle]) = ([], [])
        for i in 0..<12 {
            springs.0.append(try single.add(value: value(Double(i) * 7.25), target: value(3), velocity: value(1.5), tolerance: value(0.5)))
            springs.1.append(try batch.add(value: value(Double(i) * 7.25), target: value(3), velocity: value(1.5), tolerance: value(0.5)))
        }
        var generator = SeededGenerator(seed: 17)
        for frame in 0..<20 {
            // Springs listed two or three times: each retarget starts where the one before left it.
            let listed = (0..<18).map { _ in Int.random(in: 0..<12, using: &generator) }
            let targets = listed.map { _ in value(Double.random(in: -40...40, using: &generator) * 1.37) }
            for (i, target) in zip(listed, targets) { try single.retarget(springs.0[i], to: target) }
            try batch.retarget(listed.map { springs.1[$0] }, to: targets)
            #expect(Self.lanes(single, springs.0) == Self.lanes(batch, springs.1), "frame \(frame)")
            try single.step(dt: 1.0 / 60)
            try batch.step(dt: 1.0 / 60)
            try batch._checkInvariants()
        }
    }

    @Test("a spring listed several times in a batch retarget ends where one call per element leaves it, bit for bit")
    func retargetDuplicatesMatchSingleCalls() throws {
        try retargetDuplicatesMatch(Float32Lanes.self) { Float($0) }
        try retargetDuplicatesMatch(Q16Lanes.self) { Q16($0)! }
    }

    @Test("a refused element refuses the whole batch: nothing added, removed, moved or resumed")
    func refusedWhole() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try bank.add(values: [0, 1, 2, 3], targets: [10, 10, 10, 10], tolerance: 0.5)
        let mask = try bank.makePauseMask(springs)
        try bank.pause(mask)
        let gone = try bank.add(value: 0, target: 1, tolerance: 0.5)
        try bank.remove(gone)
        let before = bank.stateHash()
        func unchanged() throws {
            #expect(bank.stateHash() == before && bank.count == 4)
            try bank._checkInvariants()
        }
        #expect(throws: SpringKernelError.nonFinite(.value)) { _ = try bank.add(values: [1, .nan], targets: [0, 0], tolerance: 0.5) }
        #expect(throws: SpringKernelError.countMismatch(expected: 2, given: 1)) { _ = try bank.add(values: [1, 2], targets: [0], tolerance: 0.5) }
        #expect(throws: SpringKernelError.countMismatch(expected: 2, given: 3)) {
            _ = try bank.add(values: [1, 2], targets: [0, 0], velocities: [1, 2, 3], tolerance: 0.5)
        }
        #expect(throws: SpringKernelError.nonPositiveTolerance) { _ = try bank.add(values: [1], targets: [0], tolerance: 0) }
        try unchanged()
        #expect(throws: SpringKernelError.staleHandle(gone)) { try bank.remove([springs[0], gone]) }
        #expect(throws: SpringKernelError.staleHandle(springs[1])) { try bank.remove([springs[1], springs[2], springs[1]]) }
        let foreign = try SpringBank<Float32Lanes>().add(value: 0, target: 1, tolerance: 0.5)
        #expect(throws: SpringKernelError.foreignHandle) { try bank.remove([springs[3], foreign]) }
        try unchanged()
        let other = try SpringConfiguration(tension: 200, friction: 5)
        #expect(throws: SpringKernelError.staleHandle(gone)) { try bank.setConfiguration(of: [springs[0], gone], to: other) }
        try unchanged()
        #expect(throws: SpringKernelError.nonFinite(.velocity)) {
            try bank.resume(mask, restarting: [springs[0], springs[1]], values: [1, 2], velocities: [0, .infinity])
        }
        #expect(throws: SpringKernelError.countMismatch(expected: 2, given: 1)) {
            try bank.resume(mask, restarting: [springs[0], springs[1]], values: [1, 2], velocities: [0])
        }
        #expect(throws: SpringKernelError.staleHandle(gone)) { try bank.resume(mask, restarting: [gone], values: [1], velocities: [0]) }
        try unchanged()
        #expect(try bank.isPausing(mask))

        // Q16.16: a motion the new configuration's lane scale cannot hold refuses the whole list,
        // and the batch the call made for it goes again.
        // A soft spring swings a fast one far: the smallest speed it cannot hold, found on a probe bank.
        let soft = try SpringConfiguration(tension: 1, friction: 0.1)
        let probe = FixedSpringBank()
        let speed = try #require(stride(from: 100.0, through: 30_000, by: 100).first { speed in
            guard let spring = try? probe.add(value: .zero, target: .zero, velocity: Q16(speed)!, tolerance: Q16(0.5)!) else { return false }
            return (try? probe.setConfiguration(of: spring, to: soft)) == nil
        })
        let fixed = FixedSpringBank()
        let near = try fixed.add(value: .zero, target: Q16(1.0)!, tolerance: Q16(0.5)!)
        let far = try fixed.add(value: .zero, target: .zero, velocity: Q16(speed)!, tolerance: Q16(0.5)!)
        let fixedBefore = fixed.stateHash()
        #expect(throws: SpringKernelError.self) { try fixed.setConfiguration(of: [near, far], to: soft) }
        #expect(fixed.stateHash() == fixedBefore)
        #expect(fixed.core.batches.compactMap { $0 }.count == 1)
        try fixed._checkInvariants()
    }

    @Test("springs removed and added every frame keep the schedule entries their records had; reconfigured ones stay within the compaction bound; all rest on time")
    func scheduleMemoryUnderChurn() throws {
        let bank = SpringBank<Float32Lanes>()
        // Lightly damped (the tension 120, friction 2): their first check is seconds away,
        // so each keeps one entry (a spring whose check comes within a frame is predicted exactly
        // and queued again each frame, within the compaction bound).
        let light = try SpringConfiguration(tension: 120, friction: 2)
        let configurations = [light, try SpringConfiguration(tension: 200, friction: 3)]
        let values = (0..<64).map { Float($0) }, targets = [Float](repeating: 100, count: 64)
        var springs = try bank.add(values: values, targets: targets, configuration: light, tolerance: 0.5)
        var generator = SeededGenerator(seed: 21)
        for frame in 0..<300 {
            // An effect restarted every frame: each new spring takes over its record's entry.
            try bank.remove(springs)
            springs = try bank.add(values: values, targets: targets, configuration: light, tolerance: 0.5)
            try bank.step(dt: Self.jittered(&generator))
            #expect(bank.core.schedule.count <= bank.core.records.count, "frame \(frame): \(bank.core.schedule.count) entries")
        }
        for frame in 0..<300 {
            try bank.setConfiguration(of: springs, to: configurations[frame % 2])
            try bank.step(dt: Self.jittered(&generator))
            #expect(bank.core.schedule.count <= 2 * bank.core.records.count + 64, "frame \(frame): \(bank.core.schedule.count) entries")
        }
        try bank._checkInvariants()
        let restTimes = try springs.map { try bank.restTime(of: $0) }
        let start = bank.time
        while bank.awakeCount > 0 { try bank.step(dt: 1.0 / 60) }
        #expect(bank.time >= start + restTimes.max()! && bank.time < start + restTimes.max()! + 1.0 / 60 + 1e-9)
    }

    @Test("springs added, restarted, reconfigured and resumed in batches under a new dt every frame never rest while the Float64 trajectory of the same frames would leave the band")
    func neverEarlyUnderBulkEvents() throws {
        let configurations = try [
            SpringConfiguration.default, SpringConfiguration(tension: 120, friction: 4), SpringConfiguration(tension: 400, friction: 60),
            SpringConfiguration(tension: 100, friction: 80),
        ]
        for seed in UInt64(1)...8 {
            var generator = SeededGenerator(seed: seed)
            let bank = SpringBank<Float32Lanes>()
            struct Model { var configuration: SpringConfiguration; var d: Double; var v: Double; var target: Double; var paused = false }
            var models: [SpringHandle: Model] = [:]
            func addMany(_ count: Int) throws {
                let values = (0..<count).map { _ in Float(Double.random(in: -200...200, using: &generator).rounded()) }
                let targets = (0..<count).map { _ in Float(Double.random(in: -50...50, using: &generator).rounded()) }
                let velocities = (0..<count).map { _ in Float(Double.random(in: -300...300, using: &generator).rounded()) }
                let configuration = configurations.randomElement(using: &generator)!
                let added = try bank.add(values: values, targets: targets, velocities: velocities, configuration: configuration, tolerance: 0.5)
                for (i, spring) in added.enumerated() {
                    models[spring] = Model(
                        configuration: configuration, d: Double(values[i]) - Double(targets[i]), v: Double(velocities[i]), target: Double(targets[i]))
                }
            }
            try addMany(24)
            let mask = try bank.makePauseMask(Array(models.keys).sorted { $0.index < $1.index }.prefix(8))
            for frame in 0..<900 {
                switch Int.random(in: 0..<12, using: &generator) {
                case 0:
                    let leaving = models.keys.filter { _ in Int.random(in: 0..<4, using: &generator) == 0 }
                    try bank.remove(leaving)
                    for spring in leaving { models[spring] = nil }
                    try addMany(leaving.count)
                case 1:
                    let moved = models.keys.filter { _ in Bool.random(using: &generator) }
                    let configuration = configurations.randomElement(using: &generator)!
                    try bank.setConfiguration(of: moved, to: configuration)
                    for spring in moved { models[spring]!.configuration = configuration }
                case 2 where !(try bank.isPausing(mask)):
                    try bank.pause(mask)
                    for spring in try bank.springs(in: mask) { models[spring]!.paused = true }
                case 3 where try bank.isPausing(mask):
                    let members = try bank.springs(in: mask)
                    let listed = members.filter { _ in Bool.random(using: &generator) }
                    let values = listed.map { _ in Float(Double.random(in: -100...100, using: &generator).rounded()) }
                    let velocities = listed.map { _ in Float(Double.random(in: -100...100, using: &generator).rounded()) }
                    try bank.resume(mask, restarting: listed, values: values, velocities: velocities)
                    for spring in members { models[spring]!.paused = false }
                    for (i, spring) in listed.enumerated() {
                        models[spring]!.d = Double(values[i]) - models[spring]!.target
                        models[spring]!.v = Double(velocities[i])
                    }
                default: break
                }
                let dt = Double.random(in: 0.004...0.04, using: &generator) * (Int.random(in: 0..<50, using: &generator) == 0 ? 12 : 1)
                try bank.step(dt: dt)
                for (spring, model) in models where !model.paused {
                    let next = ExactSpring(model.configuration).propagator(over: dt).apply(displacement: model.d, velocity: model.v)
                    models[spring]!.d = next.displacement
                    models[spring]!.v = next.velocity
                }
                for spring in bank.restedInLastStep {
                    let model = models[spring]!
                    let amplitude = (model.d * model.d + model.configuration.mass / model.configuration.tension * model.v * model.v).squareRoot()
                    let remaining = ReferenceRest.restTime(
                        displacement: model.d, velocity: model.v, tolerance: 0.5 + 1e-5 * amplitude + 1e-5,
                        configuration: model.configuration)
                    #expect(remaining == 0, "seed \(seed) frame \(frame): \(spring) rested with \(remaining) s of motion outside its band left")
                    models[spring]!.d = 0
                    models[spring]!.v = 0
                }
            }
            try bank._checkInvariants()
        }
    }
}
