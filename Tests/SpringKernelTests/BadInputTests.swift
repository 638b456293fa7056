import Testing
@_spi(KernelInternals) @testable import SpringKernel

@Suite("Bad input")
struct BadInputTests {
    /// A bank with a few springs mid-flight, and a snapshot to prove a refused call changed nothing.
    func bankInMotion() throws -> (SpringBank<Float32Lanes>, [SpringHandle], [UInt32]) {
        let bank = SpringBank<Float32Lanes>()
        let springs = try (0..<20).map { try bank.add(value: Float($0), target: 100, velocity: 5, tolerance: 0.5) }
        try bank.step(dt: 1.0 / 60)
        return (bank, springs, try bits(bank, springs))
    }

    @Test("non-finite or out-of-range values, targets, velocities and tolerances are refused", arguments: [Float.nan, .infinity, -.infinity, 2e15])
    func nonFiniteInputs(bad: Float) throws {
        let (bank, springs, snapshot) = try bankInMotion()
        let expected: (SpringQuantity) -> SpringKernelError = { bad.isFinite ? .outOfRange($0) : .nonFinite($0) }
        #expect(throws: expected(.value)) { try bank.add(value: bad, target: 0, tolerance: 0.5) }
        #expect(throws: expected(.target)) { try bank.add(value: 0, target: bad, tolerance: 0.5) }
        #expect(throws: expected(.velocity)) { try bank.add(value: 0, target: 0, velocity: bad, tolerance: 0.5) }
        #expect(throws: expected(.target)) { try bank.retarget(springs[0], to: bad) }
        #expect(throws: expected(.value)) { try bank.setState(of: springs[1], value: bad, velocity: 0) }
        #expect(throws: expected(.velocity)) { try bank.setState(of: springs[1], value: 0, velocity: bad) }
        #expect(throws: expected(.velocity)) { try bank.addVelocity(bad, to: springs[2]) }
        if !bad.isFinite {
            #expect(throws: SpringKernelError.nonFinite(.tolerance)) { try bank.add(value: 0, target: 0, tolerance: bad) }
        }
        let mask = try bank.makePauseMask([springs[3]])
        try bank.pause(mask)
        #expect(throws: expected(.value)) { try bank.resume(mask) { _ in (bad, 0) } }
        #expect(try bank.isPaused(springs[3]))
        try bank.resume(mask)
        #expect(bank.count == 20)
        #expect(try bits(bank, springs) == snapshot)
        try bank._checkInvariants()
    }

    @Test("an impulse that would overflow is refused")
    func impulseOverflow() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 0, velocity: 9e14, tolerance: 0.5)
        #expect(throws: SpringKernelError.outOfRange(.velocity)) { try bank.addVelocity(9e14, to: spring) }
        #expect(try bank.velocity(of: spring) == 9e14)
    }

    @Test("zero and negative tolerances are refused")
    func tolerance() throws {
        let (bank, springs, _) = try bankInMotion()
        #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.add(value: 0, target: 1, tolerance: 0) }
        #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.setTolerance(of: springs[0], to: -1) }
    }

    @Test("dt that is NaN, infinite, zero or negative is refused and changes nothing", arguments: [Double.nan, .infinity, 0, -1.0 / 60, -0.0])
    func badTimeStep(dt: Double) throws {
        let (bank, springs, snapshot) = try bankInMotion()
        let frame = bank.frame
        #expect(throws: SpringKernelError.self) { try bank.step(dt: dt) }
        #expect(bank.frame == frame)
        #expect(try bits(bank, springs) == snapshot)
    }

    @Test("invalid configurations are refused with the parameter named")
    func badConfigurations() {
        #expect(throws: SpringKernelError.invalidConfiguration(.tension)) { try SpringConfiguration(tension: 0) }
        #expect(throws: SpringKernelError.invalidConfiguration(.tension)) { try SpringConfiguration(tension: .nan) }
        #expect(throws: SpringKernelError.invalidConfiguration(.tension)) { try SpringConfiguration(tension: 2e6) }
        #expect(throws: SpringKernelError.invalidConfiguration(.friction)) { try SpringConfiguration(friction: -1) }
        #expect(throws: SpringKernelError.invalidConfiguration(.friction)) { try SpringConfiguration(friction: .infinity) }
        #expect(throws: SpringKernelError.invalidConfiguration(.mass)) { try SpringConfiguration(mass: 0) }
        #expect(throws: SpringKernelError.invalidConfiguration(.mass)) { try SpringConfiguration(mass: -3) }
    }

    @Test("extreme valid configurations and steps stay finite")
    func extremesStayFinite() throws {
        let bank = SpringBank<Float32Lanes>()
        let extremes = try [
            SpringConfiguration(tension: 1e6, friction: 0, mass: 1e-6), SpringConfiguration(tension: 1e-6, friction: 1e6, mass: 1e6),
            SpringConfiguration(tension: 1e6, friction: 1e6, mass: 1e-6), SpringConfiguration(tension: 1e-9, friction: 0, mass: 1e6),
        ]
        let springs = try extremes.map { try bank.add(value: 1e15, target: -1e15, velocity: -1e15, configuration: $0, tolerance: 0.5) }
        for dt in [1e-9, 1.0 / 60, 2, 1e9] {
            for _ in 0..<50 { try bank.step(dt: dt) }
            for spring in springs {
                #expect(try bank.value(of: spring).isFinite)
                #expect(try bank.velocity(of: spring).isFinite)
            }
        }
    }

    @Test("stale and foreign handles and masks are refused; other springs are untouched")
    func staleAndForeign() throws {
        let (bank, springs, _) = try bankInMotion()
        let other = SpringBank<Float32Lanes>()
        let foreign = try other.add(value: 0, target: 1, tolerance: 0.5)
        let foreignMask = try other.makePauseMask([foreign])
        try bank.remove(springs[4])
        let reused = try bank.add(value: 0, target: 1, tolerance: 0.5)
        #expect(reused.index == springs[4].index)  // the record is reused, the old handle is not
        #expect(throws: SpringKernelError.staleHandle(springs[4])) { try bank.value(of: springs[4]) }
        #expect(throws: SpringKernelError.staleHandle(springs[4])) { try bank.remove(springs[4]) }
        #expect(throws: SpringKernelError.staleHandle(springs[4])) { try bank.retarget(springs[4], to: 3) }
        #expect(throws: SpringKernelError.foreignHandle) { try bank.value(of: foreign) }
        #expect(throws: SpringKernelError.foreignHandle) { try bank.pause(foreignMask) }
        #expect(throws: SpringKernelError.foreignHandle) { try bank.makePauseMask([foreign]) }
        let mask = try bank.makePauseMask([springs[0]])
        try bank.removePauseMask(mask)
        #expect(throws: SpringKernelError.stalePauseMask(mask)) { try bank.pause(mask) }
        #expect(try bank.value(of: reused) == 0)
        #expect(bank.count == 20)
        try bank._checkInvariants()
    }

    @Test("a resume's restart closure cannot change the bank")
    func reentrantMutation() throws {
        let (bank, springs, _) = try bankInMotion()
        let mask = try bank.makePauseMask([springs[0], springs[1]])
        try bank.pause(mask)
        var refused: [SpringKernelError] = []
        try bank.resume(mask) { spring in
            do { try bank.remove(springs[7]) } catch { refused.append(error as! SpringKernelError) }
            do { try bank.step(dt: 1.0 / 60) } catch { refused.append(error as! SpringKernelError) }
            return (1, 1)
        }
        #expect(refused == Array(repeating: .reentrantMutation, count: 4))
        #expect(bank.contains(springs[7]))
        #expect(try bank.value(of: springs[0]) == 1)
        try bank._checkInvariants()
    }
}
