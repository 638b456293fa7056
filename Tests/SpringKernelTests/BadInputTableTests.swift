import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

/// Rows of the bad-input table (Tests/RELIABILITY.md) that no other test covered: each input
/// gets exactly the documented typed error, and the bank is left exactly as it was
/// (``SpringBank/stateHash()``, invariants).
@Suite("Bad input table")
struct BadInputTableTests {
    /// A float32 bank in motion, with a snapshot of its whole state.
    func floatBank() throws -> (SpringBank<Float32Lanes>, SpringHandle, UInt64) {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 100, velocity: 20, tolerance: 0.5)
        try bank.step(dt: 1.0 / 60)
        return (bank, spring, bank.stateHash())
    }

    /// The error `body` throws, or nil.
    func refusal(_ body: () throws(SpringKernelError) -> Void) -> SpringKernelError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    func fixedBank() throws -> (SpringBank<Q16Lanes>, SpringHandle, UInt64) {
        let bank = FixedSpringBank()
        let spring = try bank.add(value: 0, target: 100, velocity: 20, tolerance: 1)
        try bank.step(dt: 1.0 / 60)
        return (bank, spring, bank.stateHash())
    }

    @Test("tolerances: NaN or infinite, zero, negative zero or negative, at add and setTolerance, in both formats")
    func tolerances() throws {
        let (bank, spring, before) = try floatBank()
        for bad: Float in [.nan, .infinity, -.infinity] {
            #expect(throws: SpringKernelError.nonFinite(.tolerance)) { try bank.add(value: 0, target: 1, tolerance: bad) }
            #expect(throws: SpringKernelError.nonFinite(.tolerance)) { try bank.setTolerance(of: spring, to: bad) }
        }
        for bad: Float in [0, -0.0, -1, -.leastNonzeroMagnitude] {
            #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.add(value: 0, target: 1, tolerance: bad) }
            #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.setTolerance(of: spring, to: bad) }
        }
        #expect(bank.stateHash() == before && bank.count == 1)
        // The smallest positive tolerance is a tolerance.
        try bank.setTolerance(of: spring, to: .leastNonzeroMagnitude)

        let (fixed, q, fixedBefore) = try fixedBank()
        for bad in [Q16.zero, Q16(raw: -1), .min] {
            #expect(throws: SpringKernelError.nonPositiveTolerance) { try fixed.add(value: 0, target: 1, tolerance: bad) }
            #expect(throws: SpringKernelError.nonPositiveTolerance) { try fixed.setTolerance(of: q, to: bad) }
        }
        #expect(fixed.stateHash() == fixedBefore)
        try bank._checkInvariants()
        try fixed._checkInvariants()
    }

    @Test("configurations: every limit accepted exactly at its edge and refused just past it, or when not finite")
    func configurationLimits() throws {
        let limit = SpringConfiguration.parameterLimit, lightest = SpringConfiguration.minimumMass
        // Accepted at the edges.
        for (k, c, m) in [(1e-46, 0.0, lightest), (limit, limit, limit), (1, 0, 1), (limit, 0, lightest), (1e-40, 0, 1)] {
            #expect((try? SpringConfiguration(tension: k, friction: c, mass: m)) != nil, "k \(k) c \(c) m \(m)")
        }
        for bad in [0, -0.0, -1, limit.nextUp, .nan, .infinity, -.infinity] {
            #expect(throws: SpringKernelError.invalidConfiguration(.tension)) { try SpringConfiguration(tension: bad) }
        }
        // Tension / mass below 10⁻⁴⁰ (ω₀² underflowing toward 0, swings beyond float32): KernelRegressionTests.underflowingNaturalFrequency.
        #expect(throws: SpringKernelError.invalidConfiguration(.naturalFrequency)) { try SpringConfiguration(tension: .leastNonzeroMagnitude, mass: lightest) }
        for bad in [-.leastNonzeroMagnitude, -1, limit.nextUp, .nan, .infinity] {
            #expect(throws: SpringKernelError.invalidConfiguration(.friction)) { try SpringConfiguration(friction: bad) }
        }
        for bad in [lightest.nextDown, 0, -1, limit.nextUp, .nan, .infinity] {
            #expect(throws: SpringKernelError.invalidConfiguration(.mass)) { try SpringConfiguration(mass: bad) }
        }
        // Checked in order: tension first.
        #expect(throws: SpringKernelError.invalidConfiguration(.tension)) { try SpringConfiguration(tension: .nan, friction: .nan, mass: .nan) }
    }

    @Test("frame durations: NaN, infinite, zero, negative zero or negative are refused by step and predictRest, in both formats")
    func invalidTimeSteps() throws {
        let durations: [Double] = [.nan, .infinity, -.infinity, 0, -0.0, -1.0 / 60, -.leastNonzeroMagnitude, -.greatestFiniteMagnitude]
        let (bank, spring, before) = try floatBank()
        let (fixed, q, fixedBefore) = try fixedBank()
        for dt in durations {
            let refusals = [refusal { () throws(SpringKernelError) in try bank.step(dt: dt) }, refusal { () throws(SpringKernelError) in try fixed.step(dt: dt) }]
            for error in refusals {
                guard case .invalidTimeStep(let refused)? = error, refused.bitPattern == dt.bitPattern else {
                    Issue.record("step(dt: \(dt)) gave \(String(describing: error))")
                    continue
                }
            }
            #expect(throws: SpringKernelError.self) { try bank.predictRest(of: spring, dt: dt) }
            #expect(throws: SpringKernelError.self) { try fixed.predictRest(of: q, dt: dt) }
        }
        #expect(bank.frame == 1 && bank.stateHash() == before)
        #expect(fixed.frame == 1 && fixed.stateHash() == fixedBefore)
    }

    @Test("a 256th hold on one spring, by insert into a pausing mask or by pause, is refused and holds nothing")
    func pauseDepthThroughInsert() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 10, tolerance: 0.5)
        for _ in 0..<SpringBank<Float32Lanes>.maximumPauseDepth {
            try bank.pause(try bank.makePauseMask([spring]))
        }
        let pausing = try bank.makePauseMask()
        try bank.pause(pausing)
        let before = bank.stateHash()
        #expect(throws: SpringKernelError.pauseDepthExceeded(spring)) { try bank.insert(spring, into: pausing) }
        #expect(try bank.springs(in: pausing).isEmpty)
        #expect(try bank.pauseDepth(of: spring) == SpringBank<Float32Lanes>.maximumPauseDepth)
        #expect(bank.stateHash() == before)
        try bank._checkInvariants()
    }

    @Test("the 65,537th configuration is refused; removing a spring that held the last of one frees its place")
    func tooManyConfigurations() throws {
        let bank = SpringBank<Float32Lanes>()
        var springs: [SpringHandle] = []
        for i in 0..<SpringBank<Float32Lanes>.maximumConfigurationCount {
            springs.append(try bank.add(value: 0, target: 0, configuration: try SpringConfiguration(tension: Double(i + 1)), tolerance: 1))
        }
        let before = bank.stateHash()
        let another = try SpringConfiguration(tension: 0.5)
        #expect(throws: SpringKernelError.tooManyConfigurations) { try bank.add(value: 0, target: 0, configuration: another, tolerance: 1) }
        #expect(throws: SpringKernelError.tooManyConfigurations) { try bank.setConfiguration(of: springs[7], to: another) }
        #expect(bank.stateHash() == before)
        try bank.remove(springs[0])
        let spring = try bank.add(value: 0, target: 0, configuration: another, tolerance: 1)
        #expect(try bank.configuration(of: spring) == another)
        try bank._checkInvariants()
    }

    @Test("the spring limit is 2^30 (not exercised: 2^30 springs need more than 16 GiB)")
    func springLimit() {
        #expect(SpringBank<Float32Lanes>.maximumSpringCount == 1 << 30)
        #expect(FixedSpringBank.maximumSpringCount == 1 << 30)
    }

    @Test("reading a spring from inside a resume's restart closure is allowed; every change is refused")
    func readsInsideCallbacks() throws {
        let (bank, spring, _) = try floatBank()
        let mask = try bank.makePauseMask([spring])
        try bank.pause(mask)
        var seen: Float?
        var refused: [SpringKernelError?] = []
        try bank.resume(mask) { handle in
            seen = try? bank.value(of: handle)
            refused.append(refusal { () throws(SpringKernelError) in try bank.addVelocity(1, to: handle) })
            refused.append(refusal { () throws(SpringKernelError) in try bank.setState(of: handle, value: 0, velocity: 0) })
            refused.append(refusal { () throws(SpringKernelError) in try bank.setConfiguration(of: handle, to: .default) })
            refused.append(refusal { () throws(SpringKernelError) in try bank.pause(mask) })
            refused.append(refusal { () throws(SpringKernelError) in try bank.resume(mask) })
            refused.append(refusal { () throws(SpringKernelError) in try bank.removePauseMask(mask) })
            refused.append(refusal { () throws(SpringKernelError) in try bank.insert(handle, into: mask) })
            refused.append(refusal { () throws(SpringKernelError) in try bank.remove(handle, from: mask) })
            return nil
        }
        #expect(seen != nil)
        #expect(refused == Array(repeating: .reentrantMutation, count: 8))
        #expect(try !bank.isPaused(spring))
        try bank._checkInvariants()
    }
}
