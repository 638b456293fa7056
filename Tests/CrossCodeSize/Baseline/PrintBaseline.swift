// The baseline of Tests/CrossCodeSize: a program that writes a line of the same shape (integers
// computed at run time, with the same LineWriter) and uses no kernel. Its text is what Embedded
// Swift's runtime, the writer, newlib-nano and the board's start take; the rest of
// CrossCodeSize's is the kernel's.
@main
struct PrintBaseline {
    static func main() {
        var value: Int64 = 1, hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for i in 0..<36 {
            value = value &* 3 &+ Int64(i)
            hash = (hash ^ UInt64(bitPattern: value)) &* 0x100_0000_01B3
        }
        LineWriter.write("baseline: ")
        LineWriter.write(Int(value & 0xFFFF))
        LineWriter.write(" springs, 36 frames, value sum ")
        LineWriter.write(value)
        LineWriter.write(", hash ")
        LineWriter.write(hash)
        LineWriter.write("\n")
    }
}
