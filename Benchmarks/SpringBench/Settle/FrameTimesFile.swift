import Foundation

/// A file of frame durations: one duration in seconds a line, cycled when exhausted.
enum FrameTimesFile {
    /// The longest frame a file may hold: a day (the kernel steps any duration exactly, but a
    /// detector run of days of frames would not end).
    static let longestFrame = 86_400.0

    static func read(path: String) throws(BenchError) -> [Double] {
        try parse(FileAccess.readText(path), path: path)
    }

    /// The durations of a frame-times text; `path` names it in errors (`times.txt:3: ...`).
    static func parse(_ text: String, path: String) throws(BenchError) -> [Double] {
        var durations: [Double] = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let field = line.trimmingCharacters(in: .whitespacesAndCarriageReturn)
            if field.isEmpty { continue }
            guard let value = Double(field), value.isFinite, value > 0, value <= longestFrame else {
                throw .input("\(printable(path)):\(n + 1): a frame duration must be a number of seconds in (0, \(Int(longestFrame))], got \(printable(field))")
            }
            durations.append(value)
        }
        guard !durations.isEmpty else { throw .input("\(printable(path)) holds no frame durations") }
        return durations
    }
}
