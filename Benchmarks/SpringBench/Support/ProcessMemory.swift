import Foundation

/// This process's memory, as the kernel counts it: the resident set now and its high-water mark.
struct ProcessMemory: Codable, Hashable {
    /// Resident set size (`VmRSS`), in bytes.
    var residentBytes: Int
    /// The largest resident set size so far (`VmHWM`), in bytes.
    var peakResidentBytes: Int

    /// Reads `/proc/self/status` (Linux); nil where it does not exist or lacks either line.
    static func current() -> ProcessMemory? {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        var resident: Int?, peak: Int?
        for line in status.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") { resident = kibibytes(line) }
            if line.hasPrefix("VmHWM:") { peak = kibibytes(line) }
        }
        guard let resident, let peak else { return nil }
        return ProcessMemory(residentBytes: resident << 10, peakResidentBytes: peak << 10)
        #else
        return nil
        #endif
    }

    /// The number of a status line such as `VmRSS:     12345 kB` (the kernel always writes kB).
    private static func kibibytes(_ line: Substring) -> Int? {
        line.split(whereSeparator: \.isWhitespace).dropFirst().lazy.compactMap { Int($0) }.first
    }
}

/// Bytes as MiB, for tables: "41.3 MiB".
func mebibytes(_ bytes: Int) -> String {
    String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
}
