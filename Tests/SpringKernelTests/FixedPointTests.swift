import Foundation
import Testing
@testable import SpringKernel

@Suite("Fixed point (Q16.16)")
struct FixedPointTests {
    /// Random springs over the whole range: damping ratio 0.01 to 30, in Q16 range.
    static func randomSprings(count: Int, seed: UInt64) -> [(configuration: SpringConfiguration, from: Q16, to: Q16, velocity: Q16)] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            let zeta = generator.logUniform(0.01, 30)
            let tension = generator.logUniform(20, 3000)
            let mass = generator.logUniform(0.25, 4)
            let configuration = try! SpringConfiguration(tension: tension, friction: zeta * 2 * (tension * mass).squareRoot(), mass: mass)
            let target = Double.random(in: -1000...1000, using: &generator)
            let distance = generator.logUniform(0.01, 2000) * (Bool.random(using: &generator) ? 1 : -1)
            let velocity = Bool.random(using: &generator) ? 0 : Double.random(in: -3000...3000, using: &generator)
            return (configuration, Q16(target + distance)!, Q16(target)!, Q16(velocity)!)
        }
    }

    /// The trajectory of `Q16Lanes.step` from a state, until exactly at rest (or `limit`).
    static func framesToExactRest(_ d: Int32, _ v: Int32, _ coefficients: SIMD8<UInt32>, limit: Int) -> Int? {
        var (d, v) = (d, v)
        for frame in 0...limit {
            if d == 0 && v == 0 { return frame }
            (d, v, _) = Q16Lanes.step(displacement: d, velocity: v, coefficients: coefficients)
        }
        return nil
    }

    @Test("every damped spring reaches d == 0 and v == 0 exactly, across the configuration range", arguments: [30.0, 60, 120, 240])
    func comesExactlyToRest(hz: Double) {
        var slowest = 0
        var stuck: [String] = []
        for spring in Self.randomSprings(count: 4096, seed: UInt64(hz)) {
            let coefficients = Q16Lanes.coefficients(of: SpringMotion(spring.configuration).propagator(over: 1 / hz))
            let d = spring.from.raw &- spring.to.raw
            guard let frames = Self.framesToExactRest(d, spring.velocity.raw, coefficients, limit: 2_000_000) else {
                stuck.append("\(spring.configuration) d=\(d) v=\(spring.velocity.raw)")
                continue
            }
            slowest = max(slowest, frames)
        }
        #expect(stuck.isEmpty, "\(stuck.count) never came exactly to rest: \(stuck.prefix(2))")
        print("Q16 at \(hz) Hz: slowest of 4096 springs reached exact rest in \(slowest) frames")
    }

    @Test("UI springs at 1/60 s reach exact rest within 10 % + 10 frames of their exact motion falling below one LSB")
    func typicalSpringsRestQuickly() throws {
        var generator = SeededGenerator(seed: 60)
        var slowest = 0
        for _ in 0..<4096 {
            let configuration = try SpringConfiguration(tension: Double.random(in: 200...1500, using: &generator), friction: Double.random(in: 20...90, using: &generator))
            let motion = SpringMotion(configuration)
            let coefficients = Q16Lanes.coefficients(of: motion.propagator(over: 1.0 / 60))
            let d = Q16(Double.random(in: -1000...1000, using: &generator))!
            let v = Q16(Double.random(in: -3000...3000, using: &generator))!
            let frames = try #require(Self.framesToExactRest(d.raw, v.raw, coefficients, limit: 100_000))
            // When the exact motion's energy bound falls below one LSB (2^-16): the slow decay rate
            // is σ (under-damped) or ω₀²/(σ+β) (over-damped).
            let bound = (d.doubleValue * d.doubleValue + v.doubleValue * v.doubleValue / motion.stiffnessPerMass).squareRoot()
            let rate = motion.regime == .underdamped ? motion.decayRate : motion.stiffnessPerMass / (motion.decayRate + motion.splitting)
            let exactFrames = Foundation.log(bound * 65536) / rate * 60
            #expect(Double(frames) <= exactFrames * 1.1 + 10, "\(configuration): \(frames) frames, exact motion \(exactFrames)")
            slowest = max(slowest, frames)
        }
        print("Q16 UI springs at 1/60 s: slowest of 4096 reached exact rest in \(slowest) frames")
    }

    @Test("rounding to nearest would not come to rest: the limit cycle the format avoids")
    func nearestRoundingCycles() {
        let coefficients = Q16Lanes.coefficients(of: SpringMotion(.default).propagator(over: 1.0 / 60))
        func nearest(_ sum: Int64, _ shift: Int64) -> Int64 { (sum + (1 << (shift - 1))) >> shift }
        var d: Int64 = 7 << 16, v: Int64 = 0
        let a = (0..<4).map { Int64(Int32(bitPattern: coefficients[$0])) }
        for _ in 0..<10_000 {
            (d, v) = (nearest(a[0] * d + a[1] * v, Int64(coefficients[4])), nearest(a[2] * d + a[3] * v, Int64(coefficients[5])))
        }
        #expect(d != 0 || v != 0, "round-half-up happened to settle here")
        #expect(Self.framesToExactRest(7 << 16, 0, coefficients, limit: 10_000) != nil)
    }

    @Test("scalar and SIMD fixed-point paths agree bit for bit, with pauses, partial bundles and saturation")
    func scalarMatchesSIMD() throws {
        let banks = [FixedSpringBank(), FixedSpringBank()]
        var springs: [[SpringHandle]] = [[], []]
        for spring in Self.randomSprings(count: 150, seed: 5) {
            for b in 0..<2 {
                springs[b].append(try banks[b].add(value: spring.from, target: spring.to, velocity: spring.velocity,
                                                   configuration: spring.configuration, tolerance: Q16(raw: 64)))
            }
        }
        // Two springs driven into saturation.
        for b in 0..<2 {
            springs[b].append(try banks[b].add(value: 30000, target: 30000, velocity: Q16.max, configuration: .default, tolerance: 1))
            springs[b].append(try banks[b].add(value: -30000, target: -30000, velocity: Q16.min, configuration: .default, tolerance: 1))
            try banks[b].pause(try banks[b].makePauseMask(springs[b].enumerated().filter { $0.offset % 9 == 4 }.map(\.element)))
        }
        for frame in 0..<400 {
            let dt = frame % 61 == 60 ? 0.5 : 1.0 / 60
            try banks[0].step(dt: dt, path: .simd)
            try banks[1].step(dt: dt, path: .scalar)
            let lanes = try springs.map { bank in try bank.map { [try banks[springs.firstIndex(of: bank)!].displacement(of: $0).raw] } }
            #expect(lanes[0] == lanes[1], "frame \(frame)")
            #expect(banks[0].restedInLastStep.map(\.index) == banks[1].restedInLastStep.map(\.index))
            #expect(banks[0].saturatedInLastStep.map(\.index) == banks[1].saturatedInLastStep.map(\.index))
        }
        #expect(banks[0].saturationCount == banks[1].saturationCount)
        #expect(banks[0].saturationCount > 0)
        try banks[0]._checkInvariants()
    }

    @Test("a step that would overflow saturates, marks the spring and counts; nothing wraps")
    func saturation() throws {
        let bank = FixedSpringBank()
        // A soft spring released near the range's end, fast: its displacement passes 32768.
        let fast = try bank.add(value: 30000, target: 0, velocity: Q16(32767.0)!, configuration: try SpringConfiguration(tension: 1, friction: 0.1), tolerance: 1)
        let calm = try bank.add(value: 0, target: 10, tolerance: 1)
        var marked = false
        var largest: Int32 = 0
        for _ in 0..<120 {
            try bank.step(dt: 1.0 / 60)
            marked = marked || bank.saturatedInLastStep.contains(fast)
            #expect(!bank.saturatedInLastStep.contains(calm))
            largest = max(largest, try bank.displacement(of: fast).raw)
        }
        #expect(marked)
        #expect(largest == Int32.max)  // clamped at the bound, never wrapped to the negative end
        #expect(try bank.wasSaturated(fast))
        #expect(try !bank.wasSaturated(calm))
        #expect(bank.saturationCount > 0)
        try bank.clearSaturation(of: fast)
        #expect(try !bank.wasSaturated(fast))
    }

    @Test("a value past the range's end (target + displacement) reads clamped, never wrapped")
    func valueReadsClamped() throws {
        let bank = FixedSpringBank()
        let spring = try bank.add(value: 32000, target: 32000, velocity: Q16(30000.0)!, configuration: try SpringConfiguration(tension: 50, friction: 1), tolerance: 1)
        var highest = Q16.min
        for _ in 0..<30 {
            try bank.step(dt: 1.0 / 60)
            highest = max(highest, try bank.value(of: spring))
        }
        #expect(highest == Q16.max)
        #expect(try !bank.wasSaturated(spring))  // its lanes never overflowed
    }

    @Test("values, targets and velocities the format cannot hold are refused with a typed error")
    func badInput() throws {
        let bank = FixedSpringBank()
        let spring = try bank.add(value: 1, target: 2, tolerance: 1)
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.add(value: 30000, target: -30000, tolerance: 1) }
        #expect(throws: SpringKernelError.outOfRange(.displacement)) { try bank.retarget(spring, to: -32767) ; try bank.retarget(spring, to: 32767) }
        #expect(throws: SpringKernelError.outOfRange(.velocity)) {
            try bank.setState(of: spring, value: 1, velocity: Q16.max)
            try bank.addVelocity(Q16.max, to: spring)
        }
        #expect(throws: SpringKernelError.nonPositiveTolerance) { try bank.add(value: 0, target: 1, tolerance: 0) }
        #expect(Q16(40000.0) == nil && Q16(Double.nan) == nil && Q16(-32768.0) == Q16.min)
        try bank._checkInvariants()
    }

    @Test("within 2^-10 units of the exact Float64 trajectory over 10,000 steps at typical configurations")
    func accuracy() throws {
        let typical = try [SpringConfiguration.default, SpringConfiguration(tension: 1323, friction: 91), SpringConfiguration(tension: 200, friction: 20),
                           SpringConfiguration(tension: 700, friction: 40, mass: 2)]
        var worst = 0.0
        for configuration in typical {
            for hz in [60.0, 120] {
                let bank = FixedSpringBank()
                let spring = try bank.add(value: Q16(-400.25)!, target: 300, velocity: 1500, configuration: configuration, tolerance: Q16.resolution)
                let motion = SpringMotion(configuration)
                for frame in 1...10_000 {
                    try bank.step(dt: 1 / hz)
                    let exact = 300 + motion.displacement(after: Double(frame) / hz, from: -700.25, velocity: 1500)
                    worst = max(worst, abs(try bank.value(of: spring).doubleValue - exact))
                }
            }
        }
        #expect(worst <= 0x1p-10, "worst deviation \(worst)")
        print("Q16 worst deviation from the exact trajectory over 10,000 steps, typical configurations: \(worst) (\(worst * 65536) LSB)")
    }

    /// Over the range the error grows where a spring keeps moving for the whole 10,000 steps: a
    /// lightly damped slow spring accumulates the 30-bit coefficients' frequency error as phase
    /// (907 LSB at ζ = 0.01, ω = 5 rad/s, 120 Hz), and a slow overdamped one the toward-zero
    /// rounding's bias (720 LSB at ζ = 30). Springs whose velocity leaves the format's range
    /// (ω = 60 rad/s at this amplitude) saturate, which is reported, not an accuracy figure.
    @Test("over the configuration range, within 2^-6 units of the exact trajectory after 10,000 steps, or saturated and reported")
    func accuracyOverTheRange() throws {
        var worst = 0.0, saturatedCases = 0
        for zeta in [0.01, 0.05, 0.2, 0.5, 1, 2, 5, 30] {
            for omega in [5.0, 20, 60] {
                let configuration = try SpringConfiguration(tension: omega * omega, friction: 2 * zeta * omega)
                let motion = SpringMotion(configuration)
                for hz in [60.0, 120] {
                    let bank = FixedSpringBank()
                    let spring = try bank.add(value: Q16(-400.25)!, target: 300, velocity: 1500, configuration: configuration, tolerance: Q16.resolution)
                    var deviation = 0.0
                    for frame in 1...10_000 {
                        try bank.step(dt: 1 / hz)
                        let exact = 300 + motion.displacement(after: Double(frame) / hz, from: -700.25, velocity: 1500)
                        deviation = max(deviation, abs(try bank.value(of: spring).doubleValue - exact))
                    }
                    if try bank.wasSaturated(spring) { saturatedCases += 1 } else { worst = max(worst, deviation) }
                }
            }
        }
        #expect(worst <= 0x1p-6, "worst deviation \(worst)")
        #expect(worst > 0x1p-10)  // the range is wider than the typical configurations' bound
        #expect(saturatedCases <= 6)
        print("Q16 worst deviation over the configuration range, 10,000 steps: \(worst) (\(worst * 65536) LSB); \(saturatedCases) cases saturated")
    }

    @Test("with a declared fixed timestep, rest frames D are the exact trajectory's R or R + 1, and never before the format's own")
    func settleAgainstExactAndOwnTrajectory() throws {
        for hz in [30.0, 60, 144] {
            let bank = FixedSpringBank()
            try bank.setFrameClock(.fixed(frameDuration: 1 / hz))
            var cases: [(SpringHandle, own: Int, exact: ClosedRange<Int>)] = []
            for spring in Self.randomSprings(count: 300, seed: UInt64(hz) + 7) {
                let tolerance = Q16(raw: 1 << 15)  // 0.5 units
                let coefficients = Q16Lanes.coefficients(of: SpringMotion(spring.configuration).propagator(over: 1 / hz))
                // R by brute force on the format's own trajectory: the frame after the last outside the band.
                var (d, v) = (spring.from.raw &- spring.to.raw, spring.velocity.raw)
                var lastOutside = -1, frame = 0, saturated = false
                while !(d == 0 && v == 0) {
                    if abs(Int64(d)) > Int64(tolerance.raw) { lastOutside = frame }
                    let next = Q16Lanes.step(displacement: d, velocity: v, coefficients: coefficients)
                    (d, v) = (next.displacement, next.velocity)
                    saturated = saturated || next.saturated
                    frame += 1
                }
                // A clamped spring leaves the exact motion (and is predicted again from the clamp):
                // the saturation tests cover it.
                guard frame < 20_000, !saturated else { continue }
                // R of the exact motion from the same start, by brute force in Float64.
                let d0 = Double(spring.from.raw &- spring.to.raw) / 65536, v0 = Double(spring.velocity.raw) / 65536
                let margin = 1e-9 * (abs(d0) + abs(v0))
                guard let early = ReferenceRest.restFrame(displacement: d0, velocity: v0, tolerance: 0.5 + margin, configuration: spring.configuration, dt: 1 / hz),
                    let late = ReferenceRest.restFrame(displacement: d0, velocity: v0, tolerance: 0.5 - margin, configuration: spring.configuration, dt: 1 / hz)
                else { continue }
                let handle = try bank.add(value: spring.from, target: spring.to, velocity: spring.velocity, configuration: spring.configuration, tolerance: tolerance)
                if try !bank.isAtRest(handle) { cases.append((handle, lastOutside + 1, max(early, 1)...(max(late, 1) + 1))) }
            }
            var reported: [SpringHandle: Int] = [:]
            while bank.awakeCount > 0 {
                try bank.step(dt: 1 / hz)
                for spring in bank.restedInLastStep { reported[spring] = bank.frame }
            }
            for (handle, own, exact) in cases {
                let d = try #require(reported[handle])
                #expect(exact.contains(d) && d >= own, "exact R \(exact), own R \(own), D \(d)")
            }
        }
    }
}
