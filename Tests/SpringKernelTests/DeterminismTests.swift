import Foundation
import Testing
@_spi(KernelInternals) import SpringKernel

/// Box2D's determinism test: a fixed scene run until everything rests, its rest frame and final
/// state hash pinned. The same constants are checked by `.ci/run` on a release build for the host
/// CPU (`spring-bench determinism --validate-hash`), so debug and release, baseline and native
/// instruction sets, scalar and SIMD loops, one and two threads all give these bits.
@Suite("Determinism")
struct DeterminismTests {
    static let pinnedFixed = (hash: "4ec5ef2a3980cebe", restFrame: 401)
    static let pinnedFloat = (hash: "b0aadebe1c662a9b", restFrame: 401)

    @Test("the fixed-point scene gives its pinned hash and rest frame, for every loop and thread count")
    func fixedPoint() throws {
        let results = try [
            DeterminismScene.run(Q16Lanes.self, threading: .single, path: .simd),
            DeterminismScene.run(Q16Lanes.self, threading: .single, path: .scalar),
            DeterminismScene.run(Q16Lanes.self, threading: .fixed(2), path: .simd),
        ]
        print("fixed-point scene:", results[0])
        #expect(Set(results).count == 1, "\(results)")
        #expect(results[0].hashHex == Self.pinnedFixed.hash)
        #expect(results[0].restFrame == Self.pinnedFixed.restFrame)
    }

    @Test("the float32 scene gives its pinned hash and rest frame, for every loop and thread count")
    func float32() throws {
        let results = try [
            DeterminismScene.run(Float32Lanes.self, threading: .single, path: .simd),
            DeterminismScene.run(Float32Lanes.self, threading: .single, path: .scalar),
            DeterminismScene.run(Float32Lanes.self, threading: .fixed(2), path: .simd),
        ]
        print("float32 scene:", results[0])
        #expect(Set(results).count == 1, "\(results)")
        #expect(results[0].hashHex == Self.pinnedFloat.hash)
        #expect(results[0].restFrame == Self.pinnedFloat.restFrame)
    }
}

/// The Q16.16 step computes in binary32, whose bits depend on the thread's rounding mode: a bank
/// steps in round-to-nearest whatever mode its caller set, and gives that mode back.
@Suite("Fixed point in any floating-point environment")
struct FixedPointEnvironmentTests {
    /// The hash of ``movingBank()`` after ``frames`` frames in round-to-nearest, pinned like the
    /// scene's: springs still moving, so it is the step's arithmetic that it pins.
    static let pinnedMovingHash: UInt64 = 0x0740_92d4_b08e_4935

    static let frames = 40

    /// 300 springs in four configurations and two tolerance classes, three quarters still moving
    /// after ``frames`` frames of 1/60 s and 1/144 s.
    static func movingBank(threading: StepThreading) throws -> FixedSpringBank {
        let bank = FixedSpringBank(threading: threading)
        var generator = SplitMix64(seed: 0xF1A7)
        let configurations = try [
            SpringConfiguration.default, SpringConfiguration(tension: 40, friction: 1),
            SpringConfiguration(tension: 10, friction: 20), SpringConfiguration(tension: 900, friction: 3),
        ]
        for i in 0..<300 {
            // Points within ±1000 at ±2000 per second (tolerance 0.5); opacities within ±20 at
            // ±40 per second (tolerance 1/256, whose lanes hold 256 units).
            let range: Int32 = i % 3 == 0 ? 20 : 1000
            let value = Q16(raw: Int32(truncatingIfNeeded: generator.next() % UInt64(2 * range << 16)) - (range << 16))
            let velocity = Q16(raw: Int32(truncatingIfNeeded: generator.next() % UInt64(4 * range << 16)) - (2 * range << 16))
            _ = try bank.add(
                value: value, target: Q16(raw: Int32(i) << 8), velocity: velocity,
                configuration: configurations[i % 4], tolerance: i % 3 == 0 ? Q16(raw: 256) : Q16(0.5)!)
        }
        return bank
    }

    /// Steps a fresh bank with `environment` set around the frames, checks the environment is
    /// the caller's again after each, and returns the state hash.
    static func hash(threading: StepThreading, path: StepPath, environment: (inout fenv_t) -> Void) throws -> UInt64 {
        let bank = try movingBank(threading: threading)
        var saved = fenv_t()
        fegetenv(&saved)
        var set = saved
        environment(&set)
        fesetenv(&set)
        defer { fesetenv(&saved) }
        let mode = fegetround()
        for frame in 0..<frames {
            try bank.step(dt: frame % 3 == 2 ? 1.0 / 144 : 1.0 / 60, path: path)
            #expect(fegetround() == mode)
        }
        // The default springs (a quarter) have come to rest; the rest still move.
        #expect(bank.awakeCount == 225)
        return bank.stateHash()
    }

    @Test("a fixed-point bank steps to the same bits in every rounding mode, with flush-to-zero, for every loop and thread count")
    func roundingModes() throws {
        let nearest = try Self.hash(threading: .single, path: .simd) { _ in }
        print("fixed-point moving bank: hash \(String(nearest, radix: 16))")
        #expect(nearest == Self.pinnedMovingHash)
        var environments: [(String, (inout fenv_t) -> Void)] = [
            // fesetround sets the live environment: read back into the one set around the frames
            // (it was lost, and these three ran in the nearest mode).
            ("upward", { fesetround(FE_UPWARD); fegetenv(&$0) }),
            ("downward", { fesetround(FE_DOWNWARD); fegetenv(&$0) }),
            ("toward zero", { fesetround(FE_TOWARDZERO); fegetenv(&$0) }),
        ]
        #if arch(x86_64)
        // MXCSR alone (as _MM_SET_ROUNDING_MODE does): rounding up, flush-to-zero and
        // denormals-are-zero, the x87 control word left at nearest.
        environments.append(("SSE upward, FTZ, DAZ", { $0.__mxcsr = ($0.__mxcsr & ~0x6000) | 0x4000 | 0x8040 }))
        #endif
        for (name, environment) in environments {
            for (threading, path) in [(StepThreading.single, StepPath.simd), (.single, .scalar), (.fixed(2), .simd)] {
                let hash = try Self.hash(threading: threading, path: path, environment: environment)
                #expect(hash == nearest, "\(name), \(threading), \(path)")
            }
        }
    }
}
