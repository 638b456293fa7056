import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

@Suite("Exact stepping")
struct StepTests {
    static let regimes: [SpringConfiguration] = [
        .default,                                                          // under-damped, ζ 0.81
        try! SpringConfiguration(tension: 400, friction: 4),               // under-damped, ζ 0.1
        try! SpringConfiguration(tension: 400, friction: 40),              // critical, ζ 1
        try! SpringConfiguration(tension: 100, friction: 300, mass: 2),    // over-damped, ζ 10.6
    ]

    @Test("a step composes exactly: M(dt)^n equals M(n dt) in Float64", arguments: regimes)
    func propagatorComposes(configuration: SpringConfiguration) {
        let motion = SpringMotion(configuration)
        for dt in [1e-4, 1.0 / 240, 1.0 / 60, 0.5, 2.0] {
            let step = motion.propagator(over: dt)
            var state = (displacement: 100.0, velocity: -300.0)
            for _ in 0..<1000 { state = step.apply(displacement: state.displacement, velocity: state.velocity) }
            let exact = motion.propagator(over: 1000 * dt).apply(displacement: 100, velocity: -300)
            let scale = 100.0 + 300.0 * dt
            #expect(abs(state.displacement - exact.displacement) <= 1e-9 * scale, "dt \(dt)")
        }
    }

    @Test("the closed form solves the ODE: agrees with a fine RK4 integration", arguments: regimes)
    func closedFormSolvesODE(configuration: SpringConfiguration) {
        let k = configuration.tension, c = configuration.friction, m = configuration.mass
        func acceleration(_ d: Double, _ v: Double) -> Double { (-k * d - c * v) / m }
        var d = 50.0, v = 200.0
        let h = 1e-5
        for _ in 0..<50_000 {  // 0.5 s
            let k1d = v, k1v = acceleration(d, v)
            let k2d = v + h / 2 * k1v, k2v = acceleration(d + h / 2 * k1d, v + h / 2 * k1v)
            let k3d = v + h / 2 * k2v, k3v = acceleration(d + h / 2 * k2d, v + h / 2 * k2v)
            let k4d = v + h * k3v, k4v = acceleration(d + h * k3d, v + h * k3v)
            d += h / 6 * (k1d + 2 * k2d + 2 * k3d + k4d)
            v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        }
        let exact = SpringMotion(configuration).propagator(over: 0.5).apply(displacement: 50, velocity: 200)
        #expect(abs(exact.displacement - d) < 1e-8 * 250)
        #expect(abs(exact.velocity - v) < 1e-6 * 250)
    }

    @Test("float32 kernel stays within 1e-4 of the Float64 closed form after 1,000 steps", arguments: regimes)
    func kernelMatchesClosedForm(configuration: SpringConfiguration) throws {
        for dt in [1e-4, 1.0 / 60, 2.0] {
            let bank = SpringBank<Float32Lanes>()
            // A tolerance far below the motion keeps the springs moving for all 1,000 steps.
            let spring = try bank.add(value: 400, target: -100, velocity: 900, configuration: configuration, tolerance: 1e-30)
            for _ in 0..<1000 { try bank.step(dt: dt) }
            let exact = SpringMotion(configuration).propagator(over: 1000 * dt).apply(displacement: 500, velocity: 900)
            let value = Double(try bank.value(of: spring))
            #expect(abs(value - (-100 + exact.displacement)) <= 1e-4 * 500, "dt \(dt): \(value) vs \(-100 + exact.displacement)")
        }
    }

    @Test("a two-second hitch is one exact step, with no substeps and no clamp")
    func hitch() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 1, configuration: try SpringConfiguration(tension: 10, friction: 0.5), tolerance: 1e-6)
        try bank.step(dt: 2)
        let exact = 1 + SpringMotion(try SpringConfiguration(tension: 10, friction: 0.5)).displacement(after: 2, from: -1, velocity: 0)
        #expect(abs(Double(try bank.value(of: spring)) - exact) < 1e-6)
        #expect(bank.frame == 1)
    }

    @Test("scalar and SIMD paths agree bit for bit, with pauses, partial bundles and many configurations")
    func scalarMatchesSIMD() throws {
        var generator = SeededGenerator(seed: 7)
        let banks = [SpringBank<Float32Lanes>(), SpringBank<Float32Lanes>()]
        var springs: [[SpringHandle]] = [[], []]
        let configurations = try (0..<5).map { i in try SpringConfiguration(tension: 100 + 200 * Double(i), friction: 3 + 20 * Double(i)) }
        for _ in 0..<203 {
            let value = Float.random(in: -1000...1000, using: &generator)
            let target = Float.random(in: -1000...1000, using: &generator)
            let velocity = Float.random(in: -5000...5000, using: &generator)
            let configuration = configurations.randomElement(using: &generator)!
            for b in 0..<2 {
                springs[b].append(try banks[b].add(value: value, target: target, velocity: velocity, configuration: configuration, tolerance: 0.01))
            }
        }
        let paused = (0..<203).filter { $0 % 7 == 3 }
        for b in 0..<2 { try banks[b].pause(try banks[b].makePauseMask(paused.map { springs[b][$0] })) }
        for frame in 0..<300 {
            let dt = frame % 50 == 49 ? 0.25 : 1.0 / 60
            try banks[0].step(dt: dt, path: .simd)
            try banks[1].step(dt: dt, path: .scalar)
            #expect(try bits(banks[0], springs[0]) == bits(banks[1], springs[1]), "frame \(frame)")
            #expect(banks[0].restedInLastStep.map(\.index) == banks[1].restedInLastStep.map(\.index))
        }
        try banks[0]._checkInvariants()
    }

    @Test("two threads give the same bits as one")
    func threadsAgree() throws {
        let single = SpringBank<Float32Lanes>(threading: .single)
        let double = SpringBank<Float32Lanes>(threading: .fixed(2))
        var a: [SpringHandle] = [], b: [SpringHandle] = []
        for i in 0..<500 {
            let value = Float(i % 37) * 13 - 200
            a.append(try single.add(value: value, target: 7, velocity: Float(i), tolerance: 0.1))
            b.append(try double.add(value: value, target: 7, velocity: Float(i), tolerance: 0.1))
        }
        for _ in 0..<60 {
            try single.step(dt: 1.0 / 120)
            try double.step(dt: 1.0 / 120)
            #expect(try bits(single, a) == bits(double, b))
        }
    }
}

@Test("automatic threading stays on one thread while the moving springs' lanes fit in the last-level cache")
func automaticThreshold() {
    #expect(StepThreading.automaticMinimumSprings >= 1 << 20)
    #expect(StepThreading.automatic.threadCount(bundles: 1024) == 1)
    let large = StepThreading.automaticMinimumSprings / BundleIndexing.laneCount
    #expect(StepThreading.automatic.threadCount(bundles: large) == StepThreading.processorCount)
    #expect(StepThreading.fixed(2).threadCount(bundles: 1) == 1)
    #expect(StepThreading.fixed(0).threadCount(bundles: 100) == 1)
}
