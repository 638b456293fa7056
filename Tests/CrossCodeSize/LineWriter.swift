// A line written a byte at a time through the C library's putchar, with no String: how a
// firmware's log writes, and what keeps the standard library's String and its Unicode machinery
// (about 20 KB at -Osize on the M4F) out of a program whose text Tests/CrossCodeSize measures.
// Shared by CrossCodeSize and its baseline.

@_extern(c, "putchar")
func putchar(_ byte: CInt) -> CInt

enum LineWriter {
    /// Writes `text`'s bytes.
    static func write(_ text: StaticString) {
        text.withUTF8Buffer { for byte in $0 { _ = putchar(CInt(byte)) } }
    }

    /// Writes `value` in decimal.
    static func write(_ value: UInt64) {
        // The digits, least significant first, then written from the most significant.
        var digits = (UInt64(0), UInt64(0), UInt64(0)), count = 0, rest = value
        withUnsafeMutableBytes(of: &digits) { bytes in
            repeat {
                bytes[count] = UInt8(truncatingIfNeeded: rest % 10) &+ 48
                rest /= 10
                count += 1
            } while rest != 0
            while count > 0 {
                count -= 1
                _ = putchar(CInt(bytes[count]))
            }
        }
    }

    /// Writes `value` in decimal, with a minus sign when negative.
    static func write(_ value: Int64) {
        if value < 0 { _ = putchar(45) }
        write(value.magnitude)
    }

    /// Writes `value` in decimal.
    static func write(_ value: Int) { write(Int64(value)) }
}
