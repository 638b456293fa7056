import Testing
import SpringKernel

/// Issue 28 ("Reliability, round 3"): the kernel's defects, each reproduced.
@Suite("Kernel regressions, round 3")
struct KernelRound3Tests {
    @Test("a capacity of 2^30 reserves or throws outOfMemory; it never stops the process")
    func largestCapacity() {
        // 94 GB of records: a system that overcommits gives it (untouched pages cost nothing),
        // one that cannot says so.
        do {
            _ = try SpringBank<Float32Lanes>(capacity: 1 << 30)
        } catch {
            #expect(error == .outOfMemory)
        }
        do {
            _ = try SpringBank<Q16Lanes>(capacity: 1 << 30)
        } catch {
            #expect(error == .outOfMemory)
        }
        #expect(throws: SpringKernelError.invalidCapacity((1 << 30) + 1)) { try SpringBank<Float32Lanes>(capacity: (1 << 30) + 1) }
    }

    @Test("settlingDuration is scale-free: the same answer for a move and tolerance scaled together, from 1e-300 to 1e300")
    func settlingDurationScaleFree() {
        let configuration = SpringConfiguration.default
        let unscaled = configuration.settlingDuration(distance: 100, tolerance: 0.5)
        #expect(abs(unscaled - 0.3885) < 0.001)
        let unscaledMoving = configuration.settlingDuration(distance: 100, initialVelocity: -2000, tolerance: 0.5)
        var wrong: [Int] = []
        for exponent in stride(from: -300, through: 300, by: 25) {
            let scale = Self.pow10(exponent)
            let scaled = configuration.settlingDuration(distance: 100 * scale, tolerance: 0.5 * scale)
            let scaledMoving = configuration.settlingDuration(distance: 100 * scale, initialVelocity: -2000 * scale, tolerance: 0.5 * scale)
            if !(abs(scaled - unscaled) <= 1e-9 * unscaled) || !(abs(scaledMoving - unscaledMoving) <= 1e-9 * unscaledMoving) {
                wrong.append(exponent)
            }
        }
        #expect(wrong.isEmpty, "scales 1e\(wrong) give another answer")
        // The case: 100e200 within 0.5e200 was "settled" (0).
        #expect(abs(configuration.settlingDuration(distance: 100e200, tolerance: 0.5e200) - unscaled) <= 1e-9)
    }

    static func pow10(_ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<abs(exponent) { value *= 10 }
        return exponent < 0 ? 1 / value : value
    }

    @Test("a duration too long for the slowest stiffness is the duration's fault, as documented")
    func longestDuration() {
        #expect(throws: SpringKernelError.invalidConfiguration(.duration)) { try SpringConfiguration(duration: 1e21, bounce: 0) }
        #expect(throws: SpringKernelError.invalidConfiguration(.duration)) { try SpringConfiguration(response: 1e21, dampingRatio: 1) }
        #expect(throws: SpringKernelError.invalidConfiguration(.duration)) { try SpringConfiguration(visualDuration: 1e21, bounce: 0) }
        // At the documented edge, 2π · 10²⁰ s, it is accepted.
        #expect((try? SpringConfiguration(duration: 2 * Double.pi * 1e20 * 0.999, bounce: 0)) != nil)
    }

    @Test("Q16.16: the configuration limit counts configuration × lane scale (8 tolerance classes: 8,192 configurations)")
    func configurationLimitCountsLaneScales() throws {
        let bank = SpringBank<Q16Lanes>()
        let classes = 8
        // Tolerances of 2⁻¹⁶ ... 2⁻⁹: 8 binary exponents, 8 lane scales per configuration.
        let tolerances = (0..<classes).map { Q16(raw: 1 << $0) }
        let configurations = SpringBank<Q16Lanes>.maximumConfigurationCount / classes
        var kept: SpringHandle?
        for i in 0..<configurations {
            let configuration = try SpringConfiguration(tension: Double(i + 1))
            for tolerance in tolerances {
                kept = try bank.add(value: Q16(raw: 0), target: Q16(raw: 0), configuration: configuration, tolerance: tolerance)
            }
        }
        let another = try SpringConfiguration(tension: 0.5)
        #expect(throws: SpringKernelError.tooManyConfigurations) {
            try bank.add(value: Q16(raw: 0), target: Q16(raw: 0), configuration: another, tolerance: tolerances[0])
        }
        // A configuration × scale already held is not a new batch.
        _ = try bank.add(value: Q16(raw: 0), target: Q16(raw: 0), configuration: try SpringConfiguration(tension: 1), tolerance: tolerances[3])
        // Freeing one batch makes room for one.
        try bank.remove(kept!)
        _ = try bank.add(value: Q16(raw: 0), target: Q16(raw: 0), configuration: another, tolerance: tolerances[0])
    }
}
