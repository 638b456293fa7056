import Testing
@_spi(KernelInternals) @testable import SpringKernel

/// The sizes the kernel's design and docs rely on, checked as Box2D checks its `b2BodyState`: a
/// field added to a hot or per-spring type shows up here first.
@Suite("Memory layout")
struct MemoryLayoutTests {
    @Test("a lane bundle is one 64-byte cache line of sixteen 32-bit lanes")
    func bundles() {
        #expect(BundleIndexing.laneCount == 16)
        #expect(MemoryLayout<SIMD16<Float>>.size == 64)
        #expect(MemoryLayout<SIMD16<Int32>>.size == 64)
        #expect(MemoryLayout<SIMD16<UInt32>>.size == 64)
    }

    @Test("a spring's record is 88 bytes (the figure SpringBank's docs give), one type for both formats")
    func springRecord() {
        #expect(MemoryLayout<SpringRecord>.stride == 88)
    }

    @Test("the step's per-batch work and lanes entry stay small: read once per batch per frame")
    func stepWork() {
        // Two lane pointers, the bundle count, the last bundle's lane word and 8 coefficients.
        #expect(MemoryLayout<LaneWork>.stride == 64)
        #expect(MemoryLayout<BatchLanes>.stride == 48)
        #expect(MemoryLayout<MaskEdge>.stride == 20)
    }
}
