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

    @Test("a spring's place is 12 bytes, its record 48 (60 a spring, the figure SpringBank's docs give) and its rest schedule entry 12, one type each for both formats")
    func springRecord() {
        #expect(MemoryLayout<SpringPlace>.stride == 12)
        #expect(MemoryLayout<SpringRecord>.stride == 48)
        #expect(MemoryLayout<RestSchedule.Entry>.stride == 12)
    }

    @Test("the step's per-batch work and lanes entry stay small: read once per batch per frame")
    func stepWork() {
        // Two lane pointers, the bundle count, the last bundle's lane word and 8 coefficients.
        #expect(MemoryLayout<LaneWork>.stride == 64)
        // Three lane pointers, the scale, ω and the quick retarget check's two limits.
        #expect(MemoryLayout<BatchLanes>.stride == 56)
        #expect(MemoryLayout<MaskEdge>.stride == 20)
    }

    @Test("a pause mask is a 40-byte record that keeps up to two members (a stream's pause in the layer) in itself")
    func pauseMaskRecord() {
        #expect(MemoryLayout<PauseMaskRecord>.stride == 40)
        #expect(PauseMaskRecord.inlineMembers == 2)
    }

    @Test("lane buffers start at the same address modulo 4096 (4 KB and up) or a multiple of their own size apart: no 4K aliasing between a batch's lanes, wherever the heap puts them")
    func laneBufferAlignment() throws {
        #expect(BundleIndexing.bufferAlignment(bytes: 64) == 64)
        #expect(BundleIndexing.bufferAlignment(bytes: 192) == 256)
        #expect(BundleIndexing.bufferAlignment(bytes: 2048) == 2048)
        #expect(BundleIndexing.bufferAlignment(bytes: 4096) == 4096)
        #expect(BundleIndexing.bufferAlignment(bytes: 1 << 22) == 4096)
        for springs in [16, 48, 1000, 4096, 65536] {
            // Blocks of assorted sizes first, some freed, so the lanes land wherever the heap has room.
            var held: [UnsafeMutableRawPointer] = []
            var generator = SplitMix64(seed: UInt64(springs))
            for i in 0..<24 {
                let block = UnsafeMutableRawPointer.allocate(byteCount: Int(generator.next() % 40_000) + 16, alignment: 16)
                if i % 3 == 0 { block.deallocate() } else { held.append(block) }
            }
            defer { for block in held { block.deallocate() } }
            let bank = SpringBank<Float32Lanes>()
            _ = try bank.add(values: [Float](repeating: 1, count: springs), targets: [Float](repeating: 0, count: springs), tolerance: 0.5)
            let batch = try #require(bank.core.batches.first ?? nil)
            let bytes = batch.capacity * 4
            let alignment = BundleIndexing.bufferAlignment(bytes: bytes)
            for lanes in [batch.displacements, batch.velocities, batch.targets] {
                #expect(Int(bitPattern: lanes.base) % alignment == 0, "\(springs) springs")
            }
            let apart = (Int(bitPattern: batch.velocities.base) - Int(bitPattern: batch.displacements.base)) & 4095
            #expect(apart % min(alignment, 4096) == 0, "\(springs) springs: velocities \(apart) bytes past displacements modulo 4096")
        }
    }
}
