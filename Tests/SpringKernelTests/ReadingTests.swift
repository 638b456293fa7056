import Testing
@_spi(KernelInternals) @testable import SpringKernel

@Suite("Reads: state(of:), bulk reads, user values")
struct ReadingTests {
    @Test("state(of:) reads what the throwing reads do, and is nil for a removed or foreign handle")
    func stateOf() throws {
        let bank = SpringBank<Float32Lanes>()
        let moving = try bank.add(value: 0, target: 100, velocity: 5, tolerance: 0.5)
        let resting = try bank.add(value: 3, target: 3, tolerance: 0.5)
        try bank.step(dt: 1.0 / 60)
        let mask = try bank.makePauseMask([moving])
        try bank.pause(mask)
        let state = try #require(bank.state(of: moving))
        let value = try bank.value(of: moving), velocity = try bank.velocity(of: moving)
        #expect(state.value == value && state.velocity == velocity)
        #expect(state.target == 100 && !state.isAtRest && state.isPaused)
        #expect(bank.state(of: resting) == SpringState(value: 3, velocity: 0, target: 3, isAtRest: true, isPaused: false))
        try bank.remove(resting)
        #expect(bank.state(of: resting) == nil)
        #expect(SpringBank<Float32Lanes>().state(of: moving) == nil)
    }

    @Test("bulk reads give the per-spring reads, in both formats; a bad call leaves the buffer alone")
    func bulkReads() throws {
        func check<Lanes: SpringLaneArithmetic>(_ bank: SpringBank<Lanes>, _ value: (Double) -> Lanes.Value) throws where Lanes.Value: Equatable {
            let springs = try (0..<40).map { i in
                try bank.add(value: value(Double(i)), target: value(Double(40 - i)), velocity: value(Double(i % 3)), tolerance: value(0.5))
            }
            for _ in 0..<7 { try bank.step(dt: 1.0 / 60) }
            var values = [Lanes.Value](repeating: value(-1), count: springs.count)
            var velocities = values, targets = values
            try springs.withUnsafeBufferPointer { handles in
                try values.withUnsafeMutableBufferPointer { try bank.values(of: handles, into: $0) }
                try velocities.withUnsafeMutableBufferPointer { try bank.velocities(of: handles, into: $0) }
                try targets.withUnsafeMutableBufferPointer { try bank.targets(of: handles, into: $0) }
            }
            for (i, spring) in springs.enumerated() {
                let value = try bank.value(of: spring), velocity = try bank.velocity(of: spring), target = try bank.target(of: spring)
                #expect(values[i] == value && velocities[i] == velocity && targets[i] == target)
            }
            try bank.remove(springs[5])
            var untouched = [Lanes.Value](repeating: value(-1), count: springs.count)
            springs.withUnsafeBufferPointer { handles in
                untouched.withUnsafeMutableBufferPointer { out in
                    #expect(throws: SpringKernelError.staleHandle(springs[5])) { try bank.values(of: handles, into: out) }
                    #expect(throws: SpringKernelError.countMismatch(expected: 40, given: 39)) {
                        try bank.values(of: handles, into: UnsafeMutableBufferPointer(rebasing: out[1...]))
                    }
                }
            }
            #expect(untouched.allSatisfy { $0 == value(-1) })
        }
        try check(SpringBank<Float32Lanes>()) { Float($0) }
        try check(FixedSpringBank()) { Q16($0)! }
    }

    @Test("a user value set at add comes back with the rest event, follows setUserValue, and is not inherited")
    func userValues() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try (0..<10).map { i in try bank.add(value: Float(i), target: 0, tolerance: 0.5, userValue: 1000 + UInt64(i)) }
        #expect(try bank.userValue(of: springs[3]) == 1003)
        try bank.setUserValue(42, of: springs[4])
        var rested: [SpringHandle] = []
        for _ in 0..<600 where rested.count < 9 {
            try bank.step(dt: 1.0 / 60)
            rested += bank.restedInLastStep
        }
        #expect(Set(rested) == Set(springs.dropFirst()))  // the first starts at rest
        var ids = [UInt64](repeating: 0, count: rested.count)
        try rested.withUnsafeBufferPointer { handles in try ids.withUnsafeMutableBufferPointer { try bank.userValues(of: handles, into: $0) } }
        #expect(Set(ids) == Set((1...9).map { $0 == 4 ? 42 : 1000 + UInt64($0) }))
        try bank.remove(springs[7])
        let reused = try bank.add(value: 1, target: 0, tolerance: 0.5)
        #expect(try bank.userValue(of: reused) == 0)
        #expect(throws: SpringKernelError.staleHandle(springs[7])) { try bank.userValue(of: springs[7]) }
    }
}
