/// A libFuzzer input read as a stream of choices: each read takes the next bytes (0 once the input
/// is exhausted, so every input is a complete, finite script). Numbers come mostly from tables of
/// the values that matter (edges of each domain, NaN, ±∞, denormals), sometimes from raw bits.
struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = UnsafeBufferPointer(start: data, count: size)
    }

    var isExhausted: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint32() -> UInt32 {
        (0..<4).reduce(0) { value, _ in value << 8 | UInt32(byte()) }
    }

    mutating func uint64() -> UInt64 { UInt64(uint32()) << 32 | UInt64(uint32()) }

    /// 0..<count (0 when count is 0).
    mutating func index(_ count: Int) -> Int { count == 0 ? 0 : Int(byte()) % count }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A number: from `table`, or in `low...high` on a linear or log scale, or raw bits.
    mutating func double(_ table: [Double], low: Double = -1000, high: Double = 1000) -> Double {
        let selector = byte()
        switch selector % 8 {
        case 0, 1, 2: return table[Int(selector / 8) % table.count]
        case 3, 4, 5: return low + (high - low) * Double(uint32()) / Double(UInt32.max)
        case 6:
            let magnitude = Double(sign: .plus, exponent: Int(byte()) * 8 / 3 - 340, significand: 1 + Double(byte()) / 256)
            return bool() ? -magnitude : magnitude
        default: return Double(bitPattern: uint64())
        }
    }

    /// A string of up to `limit` bytes (UTF-8, invalid sequences repaired).
    mutating func string(limit: Int) -> String {
        let count = index(limit + 1)
        return String(decoding: (0..<count).map { _ in byte() }, as: UTF8.self)
    }
}

/// Stops the fuzz run with a message: libFuzzer records the input as a crash.
func violated(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError("invariant violated: \(message())", file: file, line: line)
}
