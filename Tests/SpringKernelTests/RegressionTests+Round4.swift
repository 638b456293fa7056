import Testing
@testable @_spi(KernelInternals) import SpringKernel

/// Issue 34 ("Reliability, round 4"): the kernel's part (32-bit arithmetic, growth that fails,
/// records retired at a generation limit for the C interface's handles).
@Suite("Kernel regressions, round 4")
struct KernelRound4Tests {
    @Test("the record table's growth throws outOfMemory, the table as it was, when its size overflows or the system cannot give it")
    func growthThrows() throws {
        let table = UnsafeTable<SpringRecord>(capacity: 4)
        defer { table.deallocate() }
        table.append(SpringRecord())
        // Bytes past Int.max (on wasm32: 2^25 records of 88 bytes); then an allocation no system gives.
        for count in [Int.max, Int.max / 2, Int.max / MemoryLayout<SpringRecord>.stride, 1 << 56] {
            #expect(throws: SpringKernelError.outOfMemory) { try table.reserveCapacity(appending: count) }
            #expect(table.count == 1)
        }
        try table.reserveCapacity(appending: 100)
        #expect(table.count == 1)
    }

    @Test("a batch's growth throws outOfMemory, every lane and mark buffer as it was, when the system cannot give it")
    func batchGrowthThrows() throws {
        let bank = SpringBank<Float32Lanes>(threading: .single)
        let springs = try (0..<20).map { try bank.add(value: Float($0), target: 100, tolerance: 0.5) }
        try bank.step(dt: 1.0 / 60)
        let (batch, _) = bank.core.batch(ofRecord: Int(springs[3].index))
        let capacity = batch.capacity, lanes = batch.displacements.base, hash = bank.stateHash()
        // Lanes whose size overflows an Int of bytes, then sizes no system gives (2^44 lanes: 64 TB).
        for needed in [Int.max, 1 << 60, 1 << 44] {
            #expect(throws: SpringKernelError.outOfMemory) { try batch.reserve(needed) }
            #expect(batch.capacity == capacity && batch.displacements.base == lanes)
            #expect(bank.stateHash() == hash)
        }
        // The bank goes on as if nothing had been asked, and grows when it can.
        try batch.reserve(capacity * 4)
        #expect(batch.capacity == capacity * 4)
        #expect(bank.stateHash() == hash)
        let values = try springs.map { try bank.value(of: $0) }
        try bank.step(dt: 1.0 / 60)
        #expect(try springs.map { try bank.value(of: $0) } != values)
    }

    @Test("the settle horizon and its frame arithmetic fit a 32-bit Int")
    func horizonFitsInt32() {
        #expect(SettlePredictor.horizon == Int(Int32.max))
        #expect(Int32(exactly: SettlePredictor.horizon - 1) != nil)
        // A fixed clock (wasm32 trapped at the first step) rests its springs as before.
        let bank = SpringBank<Q16Lanes>(threading: .single)
        #expect(throws: Never.self) {
            try bank.setFrameClock(.fixed(frameDuration: 1.0 / 60))
            _ = try bank.add(value: 0, target: 100, tolerance: Q16(raw: 1 << 15))
            var frames = 0
            while bank.awakeCount > 0, frames < 1000 {
                try bank.step(dt: 1.0 / 60)
                frames += 1
            }
            #expect(bank.awakeCount == 0)
        }
    }

    @Test("past the generation limit a spring or mask record is retired, never reused")
    func retiredRecords() throws {
        let bank = SpringBank<Float32Lanes>(threading: .single)
        bank.retireRecords(pastGeneration: 3)
        var seen: Set<SpringHandle> = [], seenMasks: Set<PauseMaskID> = []
        for _ in 0..<20 {
            let spring = try bank.add(value: 0, target: 1, tolerance: 0.5)
            #expect(seen.insert(spring).inserted)
            #expect(spring.generation <= 3)
            try bank.remove(spring)
            let mask = try bank.makePauseMask([])
            #expect(seenMasks.insert(mask).inserted)
            #expect(mask.generation <= 3)
            try bank.removePauseMask(mask)
        }
        // Four handles (generations 0...3) a record: 20 springs used 5 records.
        #expect(Set(seen.map(\.index)).count == 5)
        #expect(bank.highestGeneration == 4)
        try bank._checkInvariants()
    }
}
