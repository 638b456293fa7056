// The heap a bank takes, as `.ci/cross` builds it for x86-64 and Cortex-M (Embedded Swift): an
// empty bank, and the bytes a spring at 256 and 4,096 springs, in both formats, growing (springs
// added one by one) and reserved up front (`SpringBank(threading:capacity:)`, with what the springs
// after the first still allocated, and then the steps until they all rest: 0 when the
// reservation holds). Measured with the C
// library's own count of the heap in use (heap.c: mallinfo), so the figures include the blocks'
// headers and alignment padding.
//
//   GLIBC_TUNABLES=glibc.malloc.tcache_count=0 .ci/cross run-x86_64 baseline Tests/CrossFootprint/*.swift Tests/CrossFootprint/heap.c
//   .ci/cross run cortex-m4f Tests/CrossFootprint/*.swift Tests/CrossFootprint/heap.c
//
// (glibc counts the blocks its per-thread cache holds as in use: without the tunable, a block
// freed by one bank and reused by the next is not seen.)
import SpringKernel

@_extern(c, "footprint_heap_in_use")
func heapInUse() -> Int

@main
struct CrossFootprint {
    static func main() {
        // Whatever the first bank allocates once per process (the C library's own buffers, lazy
        // globals) is not a bank's.
        do {
            let fixed = SpringBank<Q16Lanes>(threading: .single), float = SpringBank<Float32Lanes>(threading: .single)
            _ = try? fixed.add(value: Q16(raw: 1 << 16), target: Q16(raw: 0), tolerance: Q16(raw: 1 << 15))
            _ = try? float.add(value: 1, target: 0, tolerance: 0.5)
            try? fixed.step(dt: 1.0 / 60)
            try? float.step(dt: 1.0 / 60)
        }
        measure(Q16Lanes.self, value: { Q16(raw: Int32($0) << 12) }, tolerance: Q16(raw: 1 << 15))
        measure(Float32Lanes.self, value: { Float($0) / 16 }, tolerance: 0.5)
    }

    /// The heap an empty bank takes, read in a function of its own: read in `measure`, the
    /// optimizer placed an allocation of the caller's own between the two readings once (the M4F's
    /// Q16.16 bank read 1,120 B there and 832 B here, the same build).
    @inline(never)
    static func emptyBankBytes<Lanes: SpringLaneArithmetic>(_: Lanes.Type) -> Int {
        let before = heapInUse()
        let bank = SpringBank<Lanes>(threading: .single)
        let bytes = heapInUse() - before
        _ = bank.count
        return bytes
    }

    static func measure<Lanes: SpringLaneArithmetic>(
        _ lanes: Lanes.Type, value: (Int) -> Lanes.Value, tolerance: Lanes.Value
    ) {
        let empty = emptyBankBytes(Lanes.self)
        var line = "footprint \(Lanes.formatName): empty bank \(empty) B"
        for springs in [256, 4096] {
            for reserved in [false, true] {
                let start = heapInUse()
                do throws(SpringKernelError) {
                    let bank = reserved
                        ? try SpringBank<Lanes>(threading: .single, capacity: springs) : SpringBank<Lanes>(threading: .single)
                    let configuration = try SpringConfiguration(tension: 342, friction: 30)
                    var afterFirst = 0
                    for i in 0..<springs {
                        _ = try bank.add(
                            value: value(i % 1000), target: value(0), configuration: configuration, tolerance: tolerance)
                        if i == 0 { afterFirst = heapInUse() }
                    }
                    let end = heapInUse()
                    line += ", \(springs) springs \(reserved ? "reserved" : "grown") \((end - start) / springs) B a spring"
                    if reserved {
                        // Then stepped until every spring rests: a reserved bank's steps allocate
                        // nothing either (its list of rested springs was reserved with it).
                        var frames = 0
                        let beforeSteps = heapInUse()  // after this line's text grew
                        while bank.awakeCount > 0, frames < 1000 {
                            try bank.step(dt: 1.0 / 60)
                            frames += 1
                        }
                        let inSteps = heapInUse() - beforeSteps  // before the text is built
                        line += " (+\(end - afterFirst) B after the first, +\(inSteps) B in \(frames) steps to rest)"
                    }
                } catch {
                    line += ", \(springs) springs \(reserved ? "reserved" : "grown"): refused"
                }
            }
        }
        print(line)
    }
}
