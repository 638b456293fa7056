// The baseline of Tests/CrossCodeSize: a program that prints a line of the same shape (integers
// read at run time) and uses no kernel. Its text is what Embedded Swift's printing, its runtime,
// newlib's stdio and the board's start take; the rest of CrossCodeSize's is the kernel's.
@main
struct PrintBaseline {
    static func main() {
        var value: Int64 = 1, hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for i in 0..<36 {
            value = value &* 3 &+ Int64(i)
            hash = (hash ^ UInt64(bitPattern: value)) &* 0x100_0000_01B3
        }
        print("baseline: \(Int(value & 0xFFFF)) springs, 36 frames, value sum \(value), hash \(hash)")
    }
}
