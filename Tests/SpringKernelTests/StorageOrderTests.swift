import Testing
import _SpringKernelShims
@_spi(KernelInternals) @testable import SpringKernel

/// Reads and writes in storage order (`StorageLayout`), checked against the per-handle API: the
/// same values to the bit, the same state after a retarget, and every bad call refused with
/// nothing changed.
@Suite("Storage order: layouts, streamed reads and writes")
struct StorageOrderTests {
    /// A bank with springs in three configurations (Q16: several lane scales too), some moving, some
    /// paused mid-motion, some at rest; user value i + 1000 for the i-th spring added.
    static func mixedBank<Lanes: SpringLaneArithmetic>(
        _ bank: SpringBank<Lanes>, _ value: (Double) -> Lanes.Value, tolerances: [Double]
    ) throws -> [SpringHandle] {
        let configurations = [SpringConfiguration.default, try SpringConfiguration(tension: 1323, friction: 91),
                              try SpringConfiguration(tension: 200, friction: 5)]
        var springs: [SpringHandle] = []
        for i in 0..<90 {
            let start = i % 7 == 0 ? Double(i % 5) : Double(i % 23) * 1.5
            springs.append(try bank.add(
                value: value(start), target: value(Double(i % 5)), velocity: value(Double(i % 3)),
                configuration: configurations[i % 3], tolerance: value(tolerances[i % tolerances.count]), userValue: 1000 + UInt64(i)))
        }
        for _ in 0..<9 { try bank.step(dt: 1.0 / 60) }
        try bank.pause(try bank.makePauseMask(stride(from: 1, to: 90, by: 11).map { springs[$0] }))
        try bank.step(dt: 1.0 / 60)
        return springs
    }

    static func read<Lanes: SpringLaneArithmetic>(
        _ bank: SpringBank<Lanes>, _ layout: StorageLayout, filler: Lanes.Value
    ) throws -> (springs: [SpringHandle], ids: [UInt64], values: [Lanes.Value], velocities: [Lanes.Value], targets: [Lanes.Value]) {
        var springs = [SpringHandle](repeating: SpringHandle(index: 0, generation: 0, bankTag: 0), count: layout.count)
        var ids = [UInt64](repeating: 0, count: layout.count)
        var values = [Lanes.Value](repeating: filler, count: layout.count)
        var velocities = values, targets = values
        try springs.withUnsafeMutableBufferPointer { try bank.springs(in: layout, into: $0) }
        try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: layout, into: $0) }
        try values.withUnsafeMutableBufferPointer { try bank.values(in: layout, into: $0) }
        try velocities.withUnsafeMutableBufferPointer { try bank.velocities(in: layout, into: $0) }
        try targets.withUnsafeMutableBufferPointer { try bank.targets(in: layout, into: $0) }
        return (springs, ids, values, velocities, targets)
    }

    @Test("reads in storage order give the per-handle reads to the bit, for every spring and the moving ones, in both formats")
    func readsMatchPerHandleReads() throws {
        func check<Lanes: SpringLaneArithmetic>(
            _ bank: SpringBank<Lanes>, _ value: (Double) -> Lanes.Value, tolerances: [Double]
        ) throws where Lanes.Value: Equatable {
            let springs = try Self.mixedBank(bank, value, tolerances: tolerances)
            for region in [StorageRegion.all, .moving] {
                let layout = bank.storageLayout(of: region)
                let read = try Self.read(bank, layout, filler: value(-7))
                let expected = try springs.filter { try region == .all || (!bank.isAtRest($0) && !bank.isPaused($0)) }
                #expect(layout.count == expected.count && Set(read.springs) == Set(expected))
                for (i, spring) in read.springs.enumerated() {
                    #expect(read.ids[i] == (try bank.userValue(of: spring)))
                    #expect(read.values[i] == (try bank.value(of: spring)))
                    #expect(read.velocities[i] == (try bank.velocity(of: spring)))
                    #expect(read.targets[i] == (try bank.target(of: spring)))
                }
            }
            #expect(bank.storageLayout(of: .moving).count > 0 && bank.storageLayout(of: .moving).count < springs.count)
        }
        try check(SpringBank<Float32Lanes>(), { Float($0) }, tolerances: [0.5])
        // Tolerances of different size put one configuration's springs in batches of different
        // lane scales, whose displacement and velocity lanes are read back at the API's resolution.
        try check(FixedSpringBank(), { Q16($0)! }, tolerances: [0.5, 1.0 / 256, 0.001, 4])
    }

    @Test("a layout is refused once a spring changes slot or region, or by another bank; a refused call changes nothing")
    func staleAndBadCalls() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try Self.mixedBank(bank, { Float($0) }, tolerances: [0.5])
        let layout = bank.storageLayout()
        var out = [Float](repeating: -7, count: layout.count)
        var targets = try Self.read(bank, layout, filler: 0).targets
        let hash = bank.stateHash()
        // Wrong lengths.
        out.withUnsafeMutableBufferPointer { out -> Void in
            #expect(throws: SpringKernelError.countMismatch(expected: layout.count, given: layout.count - 1)) {
                try bank.values(in: layout, into: UnsafeMutableBufferPointer(rebasing: out.dropLast()))
            }
        }
        targets.withUnsafeBufferPointer { targets -> Void in
            #expect(throws: SpringKernelError.countMismatch(expected: layout.count, given: layout.count - 1)) {
                try bank.retarget(in: layout, to: UnsafeBufferPointer(rebasing: targets.dropLast()))
            }
        }
        // A NaN or out-of-range target anywhere refuses the whole write, the changed ones before it too.
        for bad in [Float.nan, .infinity, -2e15] {
            // In a bundle of sixteen and in a run's scalar tail (three runs of 30).
            for position in [5, layout.count - 3] {
                var written = targets.map { $0 + 1 }
                written[position] = bad
                #expect(throws: bad.isFinite ? SpringKernelError.outOfRange(.target) : .nonFinite(.target)) {
                    try written.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
                }
            }
        }
        // Every target written back as it is: nothing changes.
        try targets.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
        #expect(bank.stateHash() == hash && bank.layoutVersion == layout.version)
        // Another bank's layout, even at the same version and count.
        let other = SpringBank<Float32Lanes>()
        _ = try Self.mixedBank(other, { Float($0) }, tolerances: [0.5])
        let foreign = other.storageLayout()
        #expect(foreign.version == layout.version && foreign.count == layout.count)
        out.withUnsafeMutableBufferPointer { out -> Void in #expect(throws: SpringKernelError.staleLayout) { try bank.values(in: foreign, into: out) } }
        // A spring that starts to move (a retarget by handle) moves the version on.
        let resting = try #require(springs.first { try bank.isAtRest($0) })
        try bank.retarget(resting, to: 50)
        #expect(bank.layoutVersion != layout.version)
        let changed = bank.stateHash()
        out.withUnsafeMutableBufferPointer { out -> Void in
            #expect(throws: SpringKernelError.staleLayout) { try bank.values(in: layout, into: out) }
        }
        targets[0] += 1
        #expect(throws: SpringKernelError.staleLayout) { try targets.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) } }
        var ids = [UInt64](repeating: 9, count: layout.count)
        #expect(throws: SpringKernelError.staleLayout) { try ids.withUnsafeBufferPointer { try bank.setUserValues(in: layout, from: $0) } }
        #expect(bank.stateHash() == changed && out.allSatisfy { $0 == -7 })
        try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: bank.storageLayout(), into: $0) }
        #expect(Set(ids) == Set((0..<90).map { 1000 + UInt64($0) }))
        // Steps that bring springs to rest move it on too.
        let beforeSteps = bank.layoutVersion
        for _ in 0..<120 { try bank.step(dt: 1.0 / 60) }
        #expect(bank.layoutVersion != beforeSteps)
    }

    @Test("a retarget in storage order leaves the bank as retargeting the springs whose target changed, by handle, does")
    func retargetMatchesPerHandle() throws {
        func check<Lanes: SpringLaneArithmetic>(
            _ make: () -> SpringBank<Lanes>, _ value: (Double) -> Lanes.Value, tolerances: [Double]
        ) throws where Lanes.Value: Equatable {
            let streamed = make(), byHandle = make()
            let springs = try Self.mixedBank(streamed, value, tolerances: tolerances)
            _ = try Self.mixedBank(byHandle, value, tolerances: tolerances)
            #expect(streamed.stateHash() == byHandle.stateHash())
            for (round, region) in [StorageRegion.all, .moving, .all].enumerated() {
                let layout = streamed.storageLayout(of: region)
                let read = try Self.read(streamed, layout, filler: value(0))
                // Every third target moves (springs at rest among them for `.all`); the others are
                // written back as they are.
                var targets = read.targets
                var changed: [SpringHandle] = [], goals: [Lanes.Value] = []
                for i in stride(from: round, to: layout.count, by: 3) {
                    targets[i] = value(Double(i % 9) - 3.5)
                    if targets[i] != read.targets[i] { changed.append(read.springs[i]); goals.append(targets[i]) }
                }
                try targets.withUnsafeBufferPointer { try streamed.retarget(in: layout, to: $0) }
                let handles = changed.map { byHandle.spring(atIndex: $0.index)! }
                try byHandle.retarget(handles, to: goals)
                #expect(streamed.stateHash() == byHandle.stateHash(), "round \(round)")
                for _ in 0..<40 {
                    try streamed.step(dt: 1.0 / 60)
                    try byHandle.step(dt: 1.0 / 60)
                    #expect(streamed.restedInLastStep.map(\.index) == byHandle.restedInLastStep.map(\.index))
                }
                #expect(streamed.stateHash() == byHandle.stateHash(), "round \(round)")
            }
            #expect(springs.count == 90)
        }
        try check({ SpringBank<Float32Lanes>() }, { Float($0) }, tolerances: [0.5])
        try check({ FixedSpringBank() }, { Q16($0)! }, tolerances: [0.5, 1.0 / 256, 4])
    }

    @Test("a user value stays with its spring through rests, wakes, pauses, configuration changes and removals")
    func userValuesFollowTheirSprings() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try Self.mixedBank(bank, { Float($0) }, tolerances: [0.5])
        let stiff = try SpringConfiguration(tension: 900, friction: 40)
        for spring in springs.prefix(30) { try bank.setConfiguration(of: spring, to: stiff) }
        try bank.setTolerance(of: springs[40], to: 2)
        try bank.remove(springs[50])
        for _ in 0..<200 { try bank.step(dt: 1.0 / 60) }
        for (i, spring) in springs.enumerated() where i != 50 { #expect(try bank.userValue(of: spring) == 1000 + UInt64(i)) }
        let layout = bank.storageLayout()
        let ids = (0..<UInt64(layout.count)).map { $0 * 7 }
        try ids.withUnsafeBufferPointer { try bank.setUserValues(in: layout, from: $0) }
        let read = try Self.read(bank, layout, filler: 0)
        #expect(read.ids == ids)
        for (i, spring) in read.springs.enumerated() { #expect(try bank.userValue(of: spring) == ids[i]) }
    }

    @Test("Q16.16 lanes streamed sixteen at a time round and saturate as the one-spring reads do, at every shift and edge")
    func q16StreamsMatchTheScalarReads() throws {
        var generator = SplitMix64(seed: 14)
        let count = 64
        let lanes = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64)
        let targets = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64)
        let out = UnsafeMutableRawPointer.allocate(byteCount: count * 4 + 4, alignment: 64)
        defer { lanes.deallocate(); targets.deallocate(); out.deallocate() }
        for shift in 1...31 {
            let half = Int32(truncatingIfNeeded: Int64(1) << (shift - 1))
            let edges: [Int32] = [.min, .max, 0, 1, -1, half, -half, half &- 1, -half &+ 1, half &+ 1, -half &- 1, .min &+ 1, .max &- 1]
            let goals: [Int32] = [.max, .min, 0, .max &- 3, .min &+ 3]
            for i in 0..<count {
                let lane = i < edges.count ? edges[i] : Int32(truncatingIfNeeded: generator.next())
                let goal = i < goals.count ? goals[i] : Int32(truncatingIfNeeded: generator.next()) >> (i % 3 == 0 ? 0 : 12)
                lanes.storeBytes(of: lane, toByteOffset: i * 4, as: Int32.self)
                targets.storeBytes(of: goal, toByteOffset: i * 4, as: Int32.self)
            }
            // An output at an odd offset: the caller's arrays need no alignment.
            let at = out + 4
            #expect(Q16Lanes.streamValues(displacements: lanes, targets: targets, shift: shift, count: count, into: at) == count)
            for i in 0..<count {
                let api = Q16Lanes.apiPattern(lanes.load(fromByteOffset: i * 4, as: UInt32.self), storedShift: shift)
                let value = Q16Lanes.valuePattern(displacement: api, target: targets.load(fromByteOffset: i * 4, as: UInt32.self))
                #expect(at.load(fromByteOffset: i * 4, as: UInt32.self) == value, "shift \(shift), lane \(i)")
            }
            #expect(Q16Lanes.streamLanes(lanes, shift: shift, count: count, into: at) == count)
            for i in 0..<count {
                let api = Q16Lanes.apiPattern(lanes.load(fromByteOffset: i * 4, as: UInt32.self), storedShift: shift)
                #expect(at.load(fromByteOffset: i * 4, as: UInt32.self) == api, "shift \(shift), lane \(i)")
            }
        }
    }

    @Test("a Q16.16 batch of whole bundles at a fine lane scale reads back as the per-handle reads do")
    func q16BatchOfBundles() throws {
        let bank = FixedSpringBank()
        var springs: [SpringHandle] = []
        for i in 0..<53 {
            let start: Double = Double(i % 17) * 1.75 - 12, goal: Double = Double(i % 5), speed: Double = Double(i % 7) - 3
            springs.append(try bank.add(
                value: Q16Lanes.nearestValue(to: start), target: Q16Lanes.nearestValue(to: goal), velocity: Q16Lanes.nearestValue(to: speed),
                tolerance: Q16Lanes.nearestValue(to: 1.0 / 256), userValue: UInt64(i)))
        }
        for _ in 0..<5 { try bank.step(dt: 1.0 / 60) }
        let layout = bank.storageLayout(of: .moving)
        #expect(layout.count >= 32)
        let read = try Self.read(bank, layout, filler: Q16(raw: -7))
        for (i, spring) in read.springs.enumerated() {
            let value = try bank.value(of: spring), velocity = try bank.velocity(of: spring)
            #expect(read.values[i] == value && read.velocities[i] == velocity)
        }
        #expect(springs.count == 53)
    }

    @Test("float32 writes streamed sixteen at a time match the per-handle writes to the bit: any mix of changed lanes per bundle, ±0, whole bundles, regions cut mid-bundle, a new dt every frame")
    func streamedWritesMatchPerHandleWrites() throws {
        var random = SeededGenerator(seed: 0x5EED_0014)
        let configurations = [SpringConfiguration.default, try SpringConfiguration(tension: 120, friction: 2)]
        let streamed = SpringBank<Float32Lanes>(), byHandle = SpringBank<Float32Lanes>()
        for bank in [streamed, byHandle] {
            var same = SeededGenerator(seed: 7)
            for i in 0..<517 {
                // Some start at rest on targets that are ±0, so a write of the other zero changes them.
                let target: Float = i % 10 == 0 ? (i % 20 == 0 ? -0.0 : 0.0) : Float(Int.random(in: -50...50, using: &same))
                let value = i % 10 == 0 ? target : Float(Int.random(in: -100...100, using: &same))
                _ = try bank.add(value: value, target: target, configuration: configurations[i % 2], tolerance: 0.5, userValue: UInt64(i))
            }
            try bank.pause(try bank.makePauseMask((0..<517).filter { $0 % 37 == 5 }.map { bank.spring(atIndex: UInt32($0))! }))
        }
        for round in 0..<24 {
            let dt = Double.random(in: 1.0 / 144...1.0 / 30, using: &random)
            let region: StorageRegion = round % 3 == 2 ? .moving : .all
            let layout = streamed.storageLayout(of: region)
            let read = try Self.read(streamed, layout, filler: 0)
            // How much of the layout changes this round: none, a few lanes, most, or every lane.
            let fraction = [0.0, 0.05, 0.7, 1.0][round % 4]
            if round % 2 == 0 {
                var targets = read.targets
                for i in targets.indices where Double.random(in: 0..<1, using: &random) < fraction {
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: targets[i] = targets[i] == 0 ? (targets[i].sign == .minus ? 0.0 : -0.0) : -targets[i]  // ±0 flipped
                    case 1: targets[i] = read.values[i]  // onto where it is now
                    default: targets[i] = Float(Int.random(in: -80...80, using: &random)) + 0.25
                    }
                }
                try targets.withUnsafeBufferPointer { try streamed.retarget(in: layout, to: $0) }
                let changed = targets.indices.filter { targets[$0].bitPattern != read.targets[$0].bitPattern }
                try byHandle.retarget(
                    changed.map { byHandle.spring(atIndex: read.springs[$0].index)! }, to: changed.map { targets[$0] })
            } else {
                let chosen = read.springs.indices.filter { _ in Double.random(in: 0..<1, using: &random) < max(fraction, 0.5) }
                var values = read.values, velocities = read.velocities
                for i in chosen {
                    values[i] = i % 5 == 0 ? read.targets[i] : Float(Int.random(in: -60...60, using: &random)) * 0.5
                    velocities[i] = i % 5 == 0 ? (i % 10 == 0 ? -0.0 : 0) : Float(Int.random(in: -400...400, using: &random))
                }
                try values.withUnsafeBufferPointer { values in
                    try velocities.withUnsafeBufferPointer { try streamed.setState(in: layout, values: values, velocities: $0) }
                }
                for i in read.springs.indices {
                    try byHandle.setState(of: byHandle.spring(atIndex: read.springs[i].index)!, value: values[i], velocity: velocities[i])
                }
            }
            #expect(streamed.stateHash() == byHandle.stateHash(), "round \(round)")
            for _ in 0..<3 {
                let frame = dt * Double.random(in: 0.5...1.5, using: &random)
                try streamed.step(dt: frame)
                try byHandle.step(dt: frame)
                #expect(streamed.restedInLastStep.map(\.index) == byHandle.restedInLastStep.map(\.index), "round \(round)")
            }
            #expect(streamed.stateHash() == byHandle.stateHash(), "round \(round)")
        }
        #expect(streamed.storageLayout().count == 517)
    }

    @Test("every variant of the C streams this CPU runs (AVX-512, AVX2, the portable code: the only one off x86-64) reads and writes the same bits")
    func streamVariantsAgree() throws {
        /// Reads, a retarget of some lanes, a state set and steps, with the streams held to `level`.
        func run(level: Int32) throws -> [UInt64] {
            sk_limit_vector_level(level)
            defer { sk_limit_vector_level(-1) }
            var random = SeededGenerator(seed: 0x5EED_0015)
            let bank = SpringBank<Float32Lanes>(), fixed = FixedSpringBank()
            for i in 0..<1_003 {
                let value = Float(Int.random(in: -300...300, using: &random)) * 0.37, target = Float(i % 7)
                _ = try bank.add(value: value, target: target, configuration: .default, tolerance: 0.5, userValue: UInt64(i))
                _ = try fixed.add(value: Q16(Double(value))!, target: Q16(Double(target))!, configuration: .default, tolerance: Q16(1.0 / 256)!)
            }
            try bank.step(dt: 1.0 / 60)
            try fixed.step(dt: 1.0 / 60)
            var seen: [UInt64] = []
            let layout = bank.storageLayout(), fixedLayout = fixed.storageLayout()
            var values = [Float](repeating: 0, count: layout.count), fixedValues = [Q16](repeating: Q16(raw: 0), count: fixedLayout.count)
            try values.withUnsafeMutableBufferPointer { try bank.values(in: layout, into: $0) }
            try fixedValues.withUnsafeMutableBufferPointer { try fixed.values(in: fixedLayout, into: $0) }
            seen += values.map { UInt64($0.bitPattern) } + fixedValues.map { UInt64(UInt32(bitPattern: $0.raw)) }
            var targets = values.indices.map { Float($0 % 7) }
            for i in targets.indices where Int.random(in: 0..<3, using: &random) == 0 { targets[i] = Float(Int.random(in: -9...9, using: &random)) }
            try targets.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
            seen.append(bank.stateHash())
            let moving = bank.storageLayout(of: .moving)
            let velocities = (0..<moving.count).map { Float($0 % 11) - 5 }, states = (0..<moving.count).map { Float($0 % 13) * 0.5 }
            try states.withUnsafeBufferPointer { states in
                try velocities.withUnsafeBufferPointer { try bank.setState(in: moving, values: states, velocities: $0) }
            }
            seen.append(bank.stateHash())
            // Q16.16 too: every awake spring's state set, a quarter of them to a rounded velocity lane.
            let fixedMoving = fixed.storageLayout(of: .moving)
            let fixedStates = (0..<fixedMoving.count).map { Q16(raw: Int32($0 % 13) << 15) }
            let fixedVelocities = (0..<fixedMoving.count).map { Q16(raw: (Int32($0 % 11) - 5) << 14 + Int32($0 % 4)) }
            try fixedStates.withUnsafeBufferPointer { states in
                try fixedVelocities.withUnsafeBufferPointer { try fixed.setState(in: fixedMoving, values: states, velocities: $0) }
            }
            seen.append(fixed.stateHash())
            // And retargeted: a third of the targets moved.
            var fixedTargets = [Q16](repeating: Q16(raw: 0), count: fixedMoving.count)
            try fixedTargets.withUnsafeMutableBufferPointer { try fixed.targets(in: fixedMoving, into: $0) }
            for i in fixedTargets.indices where i % 3 == 1 { fixedTargets[i] = Q16(raw: fixedTargets[i].raw &+ (Int32(i % 9) - 4) << 15) }
            try fixedTargets.withUnsafeBufferPointer { try fixed.retarget(in: fixedMoving, to: $0) }
            seen.append(fixed.stateHash())
            // Steps that retarget every moving spring (sk_advance_retargeting_f32), some goals
            // unmoved, some near the band (the watch's candidates).
            for frame in 0..<12 {
                let moving = bank.storageLayout(of: .moving)
                var goals = [Float](repeating: 0, count: moving.count)
                try goals.withUnsafeMutableBufferPointer { try bank.targets(in: moving, into: $0) }
                for i in goals.indices where (i + frame) % 5 != 0 { goals[i] += Float((i + frame) % 9 - 4) * (frame < 6 ? 3 : 0.01) }
                try goals.withUnsafeBufferPointer { try bank.step(dt: 1.0 / 60, retargetingIn: moving, to: $0) }
                seen.append(bank.stateHash())
                seen += bank.restedInLastStep.map { UInt64($0.index) }
            }
            for _ in 0..<30 {
                try bank.step(dt: 1.0 / 60)
                try fixed.step(dt: 1.0 / 60)
            }
            seen.append(bank.stateHash())
            seen.append(fixed.stateHash())
            return seen
        }
        let baseline = try run(level: 0)
        #expect(baseline.count > 2_000)
        for level in stride(from: 1, through: sk_vector_level(), by: 1) {
            #expect(try run(level: level) == baseline, "variant \(level)")
        }
        // The state write stores around the cache from 2^18 lanes: that path too, on this bank.
        sk_set_streaming_store_lanes(16)
        defer { sk_set_streaming_store_lanes(-1) }
        for level in stride(from: 0, through: sk_vector_level(), by: 1) {
            #expect(try run(level: level) == baseline, "variant \(level), streaming stores")
        }
    }

    @Test("a state set in storage order leaves the bank as setting each spring's state by handle does, rest and paused springs included")
    func setStateMatchesPerHandle() throws {
        func check<Lanes: SpringLaneArithmetic>(
            _ make: () -> SpringBank<Lanes>, _ value: (Double) -> Lanes.Value, tolerances: [Double]
        ) throws where Lanes.Value: Equatable {
            let streamed = make(), byHandle = make()
            _ = try Self.mixedBank(streamed, value, tolerances: tolerances)
            _ = try Self.mixedBank(byHandle, value, tolerances: tolerances)
            for (round, region) in [StorageRegion.all, .moving].enumerated() {
                let layout = streamed.storageLayout(of: region)
                let read = try Self.read(streamed, layout, filler: value(0))
                // Every third spring is put at its target with no velocity (a rest state), the others moved.
                let values = read.targets.indices.map { $0 % 3 == round ? read.targets[$0] : value(Double($0 % 11) - 5) }
                let velocities = read.targets.indices.map { $0 % 3 == round ? value(0) : value(Double($0 % 4)) }
                try values.withUnsafeBufferPointer { values in
                    try velocities.withUnsafeBufferPointer { try streamed.setState(in: layout, values: values, velocities: $0) }
                }
                for (i, spring) in read.springs.enumerated() {
                    try byHandle.setState(of: byHandle.spring(atIndex: spring.index)!, value: values[i], velocity: velocities[i])
                }
                #expect(streamed.stateHash() == byHandle.stateHash(), "round \(round)")
                for _ in 0..<40 {
                    try streamed.step(dt: 1.0 / 60)
                    try byHandle.step(dt: 1.0 / 60)
                    #expect(streamed.restedInLastStep.map(\.index) == byHandle.restedInLastStep.map(\.index))
                }
                #expect(streamed.stateHash() == byHandle.stateHash(), "round \(round)")
            }
        }
        try check({ SpringBank<Float32Lanes>() }, { Float($0) }, tolerances: [0.5])
        try check({ FixedSpringBank() }, { Q16($0)! }, tolerances: [0.5, 1.0 / 256, 4])

        // A refused element (a NaN value, an infinite velocity, a value past the limit) refuses the
        // whole call, wherever it is: in the first, a middle or the last batch's run, among the
        // moving, paused or resting springs, in a whole bundle or the partial one.
        let bank = SpringBank<Float32Lanes>(), byHandle = SpringBank<Float32Lanes>()
        _ = try Self.mixedBank(bank, { Float($0) }, tolerances: [0.5])
        _ = try Self.mixedBank(byHandle, { Float($0) }, tolerances: [0.5])
        for region in [StorageRegion.all, .moving] {
            let layout = bank.storageLayout(of: region)
            let hash = bank.stateHash()
            for bad in [(value: Float.nan, velocity: Float(1), error: SpringKernelError.nonFinite(.value)),
                        (value: 1, velocity: .infinity, error: .nonFinite(.velocity)),
                        (value: 2e15, velocity: 1, error: .outOfRange(.value))] {
                for position in [0, 1, 17, layout.count / 2, layout.count - 2, layout.count - 1] {
                    var values = [Float](repeating: 2, count: layout.count), velocities = [Float](repeating: 1, count: layout.count)
                    values[position] = bad.value
                    velocities[position] = bad.velocity
                    #expect(throws: bad.error) {
                        try values.withUnsafeBufferPointer { values in
                            try velocities.withUnsafeBufferPointer { try bank.setState(in: layout, values: values, velocities: $0) }
                        }
                    }
                    #expect(bank.stateHash() == hash && bank.layoutVersion == layout.version, "position \(position)")
                }
            }
            try bank._checkInvariants()
            // The writes refused leave no trace in the accepted one that follows.
            let read = try Self.read(bank, layout, filler: 0)
            let values = read.values.indices.map { Float($0 % 9) - 4 }, velocities = read.values.indices.map { Float($0 % 5) }
            try values.withUnsafeBufferPointer { values in
                try velocities.withUnsafeBufferPointer { try bank.setState(in: layout, values: values, velocities: $0) }
            }
            for (i, spring) in read.springs.enumerated() {
                try byHandle.setState(of: byHandle.spring(atIndex: spring.index)!, value: values[i], velocity: velocities[i])
            }
            #expect(bank.stateHash() == byHandle.stateHash())
            try bank._checkInvariants()
            for _ in 0..<5 {
                try bank.step(dt: 1.0 / 60)
                try byHandle.step(dt: 1.0 / 60)
            }
            #expect(bank.stateHash() == byHandle.stateHash())
        }
    }

    /// Two equal Q16.16 banks for the tests of the streams' bounds: 110 springs in four batches
    /// (two of five configurations, ω from 0.3 to 1000 rad/s; two of six tolerances, 2⁻¹⁶ to 64:
    /// displacement shifts 0...14, velocity shifts of both signs), whole bundles and a partial one
    /// each, most still moving after one step; in some rounds every seventh target lies past the
    /// streams' 2³⁰ bound. With each spring's scale and ω, by handle index.
    static func q16BoundsBanks(round: Int) throws -> (FixedSpringBank, FixedSpringBank, [Int: (scale: LaneScale, omega: Double)]) {
        let configurations = [
            SpringConfiguration.default, try SpringConfiguration(tension: 1323, friction: 91),
            try SpringConfiguration(tension: 120, friction: 2), try SpringConfiguration(tension: 0.09, friction: 0.1),
            try SpringConfiguration(tension: 1e6, friction: 500),
        ]
        let tolerances: [Int32] = [1, 7, 256, 1 << 15, 1 << 18, 1 << 22]
        let banks = (FixedSpringBank(), FixedSpringBank())
        var scales: [Int: (scale: LaneScale, omega: Double)] = [:]
        for bank in [banks.0, banks.1] {
            var setup = SeededGenerator(seed: UInt64(round))
            for i in 0..<110 {
                let target = round % 8 == 3 && i % 7 == 3
                    ? Q16(raw: Int32.random(in: (1 << 30) + 1...(1 << 30) + (1 << 29), using: &setup) * (i % 2 == 0 ? 1 : -1))
                    : Q16(raw: Int32.random(in: -(1 << 24)...(1 << 24), using: &setup))
                let configuration = configurations[(i % 2 + round) % configurations.count]
                let tolerance = tolerances[(i / 55 + round) % tolerances.count]
                let scale = Q16Lanes.laneScale(tolerance: Double(tolerance) / Q16.scale, naturalFrequency: configuration.naturalFrequency)
                // Tens of tolerances away, so most are still moving after a step; in some rounds
                // every fifth one of the slowest configuration (ω = 0.3: its velocity stays small)
                // with a displacement lane of 2²⁸ to nearly 2³⁰ steps, near the bounds.
                let sign: Int32 = Bool.random(using: &setup) ? 1 : -1
                let away = round % 8 == 5 && i % 5 == 2 && configuration.naturalFrequency < 1
                    ? sign * (Int32.random(in: (1 << 28)...(1 << 30) - (1 << 22), using: &setup) >> Int32(scale.displacementShift))
                    : sign * Int32.random(in: 32...64, using: &setup) * Swift.min(tolerance, 1 << 18)
                _ = try bank.add(value: Q16(raw: target.raw &+ away), target: target, configuration: configuration, tolerance: Q16(raw: tolerance))
                scales[i] = (scale, configuration.naturalFrequency)
            }
            try bank.step(dt: 1.0 / 60)
        }
        return (banks.0, banks.1, scales)
    }

    /// A storage-order write judged against the same changes made one spring at a time: the same
    /// error (the first spring refused names it) and, refused, a bank left as it was; accepted, the
    /// same state, which stays the same over three steps with the same rests. Returns whether the
    /// write was accepted.
    static func expectSameOutcome(
        _ streamed: FixedSpringBank, _ streamedError: SpringKernelError?, _ byHandle: FixedSpringBank, _ handleError: SpringKernelError?,
        hashBefore: UInt64, round: Int
    ) throws -> Bool {
        #expect(streamedError == handleError, "round \(round)")
        guard streamedError == nil else {
            #expect(streamed.stateHash() == hashBefore, "round \(round)")
            return false
        }
        #expect(streamed.stateHash() == byHandle.stateHash(), "round \(round)")
        try streamed._checkInvariants()
        for _ in 0..<3 {
            try streamed.step(dt: 1.0 / 60)
            try byHandle.step(dt: 1.0 / 60)
            #expect(streamed.restedInLastStep.map(\.index) == byHandle.restedInLastStep.map(\.index))
        }
        #expect(streamed.stateHash() == byHandle.stateHash(), "round \(round)")
        return true
    }

    @Test("Q16.16 retargets in storage order equal one spring at a time to the bit and the error: within the stream's conservative bounds, one lane past them (the exact check refusing or accepting it), anywhere in Int32")
    func q16RetargetsAtTheirBounds() throws {
        var random = SeededGenerator(seed: 0x5EED_0017)
        /// The stream's documented bounds on |target − goal| (Q16Lanes.conservativeRetargetLimits), stated again: 2²⁹ >> ds.
        func differenceBound(_ scale: LaneScale) -> Int32 { Int32((1 << 29) >> scale.displacementShift) }
        var refusals = 0, acceptedPastBounds = 0, withinBounds = 0
        for round in 0..<80 {
            let kind = round % 4  // 0: anywhere in Int32; 1: within the bounds; 2, 3: one lane past them
            let (streamed, byHandle, scales) = try Self.q16BoundsBanks(round: round)
            let layout = streamed.storageLayout(of: round % 2 == 0 ? .all : .moving)
            let read = try Self.read(streamed, layout, filler: Q16(raw: 0))
            var goals = read.targets
            let odd = Int.random(in: 0..<goals.count, using: &random)
            for i in goals.indices where i % 3 != round % 3 || kind == 1 {
                let scale = scales[Int(read.springs[i].index)]!.scale
                let bound = differenceBound(scale), target = read.targets[i].raw, sign: Int32 = Bool.random(using: &random) ? 1 : -1
                // A tame move: within a sixteenth of the bound.
                goals[i] = Q16(raw: target &+ Int32.random(in: -(bound / 16)...(bound / 16), using: &random))
                switch kind {
                case 0 where Bool.random(using: &random): goals[i] = Q16(raw: Int32.random(in: Int32.min...Int32.max, using: &random))
                case 1: goals[i] = Q16(raw: target &+ sign * Int32.random(in: bound / 2...bound, using: &random))
                case 2 where i == odd:
                    // Far enough that the stored shift overflows: to 2³¹, or (ds ≥ 2) to where it
                    // wraps around to a small lane.
                    let ds = Int64(scale.displacementShift)
                    let far = ds >= 2 && Bool.random(using: &random) ? (Int64(1) << (32 - ds)) - Int64.random(in: 1...9, using: &random) : (Int64(1) << 31) >> ds
                    goals[i] = Q16(raw: Int32(clamping: Int64(target) + Int64(sign) * far))
                case 3 where i == odd: goals[i] = Q16(raw: target &- sign * (bound + 1))
                default: break
                }
            }
            if kind == 1 { withinBounds += 1 }
            let before = streamed.stateHash()
            var streamedError: SpringKernelError?
            do { try goals.withUnsafeBufferPointer { try streamed.retarget(in: layout, to: $0) } }
            catch { streamedError = error as? SpringKernelError }
            var handleError: SpringKernelError?
            for (i, spring) in read.springs.enumerated() where handleError == nil && goals[i] != read.targets[i] {
                do { try byHandle.retarget(byHandle.spring(atIndex: spring.index)!, to: goals[i]) }
                catch { handleError = error }
            }
            if try Self.expectSameOutcome(streamed, streamedError, byHandle, handleError, hashBefore: before, round: round) {
                if kind == 3 { acceptedPastBounds += 1 }
            } else {
                refusals += 1
            }
        }
        #expect(refusals > 10 && withinBounds > 5 && acceptedPastBounds > 5, "\(refusals) refused, \(acceptedPastBounds) accepted past the bounds")
    }

    @Test("Q16.16 state writes in storage order equal one spring at a time to the bit and the error: at the stream's conservative bounds, one lane past them (the exact check refusing or accepting it), anywhere in Int32, at every velocity scale")
    func q16StateWritesAtTheirBounds() throws {
        var random = SeededGenerator(seed: 0x5EED_0016)
        /// The stream's documented bounds (Q16Lanes.conservativeStateLimits), stated again here:
        /// |value − target| ≤ 2²⁹ >> ds; |velocity| with its lane within 2²⁹ and its energy
        /// coordinate v·2^ds/ω (plus a rounding step) within 2²⁹, less one.
        func bounds(_ scale: LaneScale, _ omega: Double) -> (displacement: Int32, velocity: Int32) {
            let ds = scale.displacementShift, vs = scale.velocityShift
            let energy = 0x1p29 * omega / Double(1 << ds) - (vs < 0 ? Double(1 << -vs) : 0) - 1
            let lane = vs >= 0 ? Double((1 << 29) >> vs) : 0x1p29
            return (Int32((1 << 29) >> ds), Int32(max(0, min(energy, lane)).rounded(.down)))
        }
        var refusals = 0, acceptedPastBounds = 0, atBounds = 0
        for round in 0..<80 {
            let kind = round % 4  // 0: anywhere in Int32; 1: at the bounds; 2, 3: one lane past them
            let (streamed, byHandle, scales) = try Self.q16BoundsBanks(round: round)
            let layout = streamed.storageLayout(of: round % 2 == 0 ? .all : .moving)
            let read = try Self.read(streamed, layout, filler: Q16(raw: 0))
            var values = read.values, velocities = read.velocities
            let odd = Int.random(in: 0..<values.count, using: &random)
            for i in values.indices {
                let (scale, omega) = scales[Int(read.springs[i].index)]!
                let limits = bounds(scale, omega)
                let target = read.targets[i].raw, sign: Int32 = Bool.random(using: &random) ? 1 : -1
                // A tame state: within the bounds, a sixteenth of the way to them.
                values[i] = Q16(raw: target &+ Int32.random(in: -(limits.displacement / 16)...(limits.displacement / 16), using: &random))
                velocities[i] = Q16(raw: Int32.random(in: -(limits.velocity / 16)...(limits.velocity / 16), using: &random))
                switch kind {
                case 0 where Bool.random(using: &random):
                    values[i] = Q16(raw: Int32.random(in: Int32.min...Int32.max, using: &random))
                    velocities[i] = Q16(raw: Int32.random(in: Int32.min...Int32.max, using: &random) >> Int32.random(in: 0...12, using: &random))
                case 1:
                    // At the bounds (or within them, so the velocity's rounding shows): the stream
                    // alone writes these.
                    if Bool.random(using: &random) { values[i] = Q16(raw: target &+ sign * limits.displacement) }
                    if Bool.random(using: &random) { velocities[i] = Q16(raw: -sign * limits.velocity) }
                case 2 where i == odd, 3 where i == odd:
                    // One lane past a bound: by a step (the exact check accepts it), or to where
                    // the stored lane or the motion no longer fits (it refuses).
                    let far = kind == 2
                    if Bool.random(using: &random) {
                        let step = far ? Int32(clamping: (Int64(1) << 31) >> Int64(scale.displacementShift)) : limits.displacement + 1
                        values[i] = Q16(raw: target &+ sign * step)
                    } else {
                        velocities[i] = Q16(raw: sign * (far ? Int32.max >> Int32(Swift.max(scale.velocityShift, 0)) : limits.velocity + 1))
                    }
                default: break
                }
            }
            if kind == 1, values.allSatisfy({ abs(Int64($0.raw)) <= 1 << 30 }) { atBounds += 1 }
            let before = streamed.stateHash()
            var streamedError: SpringKernelError?
            do {
                try values.withUnsafeBufferPointer { values in
                    try velocities.withUnsafeBufferPointer { try streamed.setState(in: layout, values: values, velocities: $0) }
                }
            } catch { streamedError = error as? SpringKernelError }
            // One at a time: the first spring refused names the error (the bank is then partly set).
            var handleError: SpringKernelError?
            for (i, spring) in read.springs.enumerated() where handleError == nil {
                do { try byHandle.setState(of: byHandle.spring(atIndex: spring.index)!, value: values[i], velocity: velocities[i]) }
                catch { handleError = error }
            }
            if try Self.expectSameOutcome(streamed, streamedError, byHandle, handleError, hashBefore: before, round: round) {
                if kind == 3 { acceptedPastBounds += 1 }
            } else {
                refusals += 1
            }
        }
        // Every kind of round occurred: refusals, states at the bounds, and states past them that
        // the exact check accepted.
        #expect(refusals > 10 && atBounds > 5 && acceptedPastBounds > 5, "\(refusals) refused, \(atBounds) at the bounds, \(acceptedPastBounds) accepted past them")
    }

    @Test("a float32 state set swaps in lanes it filled: slots left by removals stay clear, growth between writes, paused and resting slots kept")
    func setStateLaneSwapKeepsUnusedSlotsClear() throws {
        let streamed = SpringBank<Float32Lanes>(), byHandle = SpringBank<Float32Lanes>()
        var springs: [[SpringHandle]] = [[], []]
        for (b, bank) in [streamed, byHandle].enumerated() {
            springs[b] = try bank.add(
                values: (0..<100).map { Float($0 % 13) }, targets: (0..<100).map { Float($0 % 3) }, tolerance: 0.5)
            try bank.step(dt: 1.0 / 60)
            try bank.pause(try bank.makePauseMask(stride(from: 3, to: 100, by: 9).map { springs[b][$0] }))
        }
        /// Sets every spring of `region` in storage order in `streamed`, and by handle in `byHandle`.
        func write(_ region: StorageRegion, round: Int) throws {
            let layout = streamed.storageLayout(of: region)
            let read = try Self.read(streamed, layout, filler: 0)
            let values = read.values.indices.map { Float(($0 + round) % 17) - 8 }
            let velocities = read.values.indices.map { Float(($0 * round) % 7) }
            try values.withUnsafeBufferPointer { values in
                try velocities.withUnsafeBufferPointer { try streamed.setState(in: layout, values: values, velocities: $0) }
            }
            for (i, spring) in read.springs.enumerated() {
                try byHandle.setState(of: byHandle.spring(atIndex: spring.index)!, value: values[i], velocity: velocities[i])
            }
            #expect(streamed.stateHash() == byHandle.stateHash(), "round \(round)")
            try streamed._checkInvariants()
        }
        try write(.all, round: 1)
        try write(.moving, round: 2)
        // Fewer slots in use than the spare lanes were written for: those must read zero once taken.
        for (b, bank) in [streamed, byHandle].enumerated() { try bank.remove(Array(springs[b][40..<100])) }
        try write(.all, round: 3)
        try write(.all, round: 4)
        // The batch grows (its spare lanes are released), then writes again.
        for bank in [streamed, byHandle] {
            _ = try bank.add(values: (0..<300).map { Float($0 % 11) }, targets: (0..<300).map { _ in 1 }, tolerance: 0.5)
        }
        try write(.moving, round: 5)
        try write(.all, round: 6)
        for _ in 0..<60 {
            try streamed.step(dt: 1.0 / 60)
            try byHandle.step(dt: 1.0 / 60)
            #expect(streamed.restedInLastStep.map(\.index) == byHandle.restedInLastStep.map(\.index))
        }
        #expect(streamed.stateHash() == byHandle.stateHash())
        try streamed._checkInvariants()
    }

    @Test("handles read in storage order carry each slot's generation through removals, reused records, rests, pauses and configuration changes; packed, as the C interface packs them")
    func handlesInStorageOrder() throws {
        let bank = SpringBank<Float32Lanes>()
        var live = try bank.add(values: (0..<200).map { Float($0 % 17) }, targets: (0..<200).map { Float($0 % 3) }, tolerance: 0.5)
        let stiff = try SpringConfiguration(tension: 900, friction: 40)
        for round in 0..<6 {
            // Remove a few, add as many (reusing their records, each a generation on), move some
            // to another configuration, pause a few, and step so that some rest.
            let gone = stride(from: round, to: live.count, by: 7).map { live[$0] }
            try bank.remove(gone)
            live.removeAll { gone.contains($0) }
            live += try bank.add(values: gone.indices.map { Float($0 % 5) + 10 }, targets: gone.indices.map { _ in 0 }, tolerance: 0.5)
            try bank.setConfiguration(of: stride(from: round, to: live.count, by: 11).map { live[$0] }, to: round % 2 == 0 ? stiff : .default)
            if round == 3 { try bank.pause(try bank.makePauseMask(Array(live.prefix(9)))) }
            for _ in 0..<(round * 7) { try bank.step(dt: 1.0 / 60) }
            try bank._checkInvariants()
            for region in [StorageRegion.all, .moving] {
                let layout = bank.storageLayout(of: region)
                var springs = [SpringHandle](repeating: SpringHandle(index: 0, generation: 0, bankTag: 0), count: layout.count)
                try springs.withUnsafeMutableBufferPointer { try bank.springs(in: layout, into: $0) }
                if region == .all { #expect(Set(springs) == Set(live), "round \(round)") }
                for spring in springs { #expect(try bank.value(of: spring).isFinite) }  // each a live handle of this bank
                var packed = [UInt64](repeating: 0, count: layout.count)
                try packed.withUnsafeMutableBufferPointer {
                    try bank.packedSprings(in: layout, into: $0, high: 0xAB << 48, generationMask: (1 << 18) - 1, indexBits: 30)
                }
                #expect(packed == springs.map { 0xAB << 48 | UInt64($0.generation & ((1 << 18) - 1)) << 30 | UInt64($0.index) }, "round \(round)")
            }
        }
        #expect(live.contains { $0.generation > 0 })
    }

    @Test("user values and layouts follow the bulk forms: add, reconfigure and remove many springs at once")
    func userValuesThroughBulkForms() throws {
        let bank = SpringBank<Float32Lanes>()
        let n = 200
        let springs = try bank.add(
            values: (0..<n).map { Float($0 % 37) }, targets: (0..<n).map { Float($0 % 5) },
            userValues: (0..<n).map { 5000 + UInt64($0) }, tolerance: 0.5)
        for _ in 0..<3 { try bank.step(dt: 1.0 / 60) }
        // More than a quarter of the batch leaves at once (dropped in one pass), then comes back.
        let stiff = try SpringConfiguration(tension: 900, friction: 40)
        let version = bank.layoutVersion
        try bank.setConfiguration(of: Array(springs[0..<120]), to: stiff)
        #expect(bank.layoutVersion != version)
        try bank.remove(Array(springs[150..<200]))
        try bank.setConfiguration(of: Array(springs[0..<60]), to: .default)
        for _ in 0..<30 { try bank.step(dt: 1.0 / 60) }
        for (i, spring) in springs.enumerated() where i < 150 { #expect(try bank.userValue(of: spring) == 5000 + UInt64(i)) }
        let read = try Self.read(bank, bank.storageLayout(), filler: 0)
        #expect(Set(read.springs) == Set(springs[0..<150]))
        for (k, spring) in read.springs.enumerated() { #expect(read.ids[k] == 5000 + UInt64(spring.index)) }
    }
}
