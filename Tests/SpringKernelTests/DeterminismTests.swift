import Testing
@_spi(KernelInternals) import SpringKernel

/// Box2D's determinism test: a fixed scene run until everything rests, its rest frame and final
/// state hash pinned. The same constants are checked by `.ci/run` on a release build for the host
/// CPU (`spring-bench determinism --validate-hash`), so debug and release, baseline and native
/// instruction sets, scalar and SIMD loops, one and two threads all give these bits.
@Suite("Determinism")
struct DeterminismTests {
    static let pinnedFixed = (hash: "3878ce1b79a24028", restFrame: 401)
    static let pinnedFloat = (hash: "07e717409d0fdf42", restFrame: 401)

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
