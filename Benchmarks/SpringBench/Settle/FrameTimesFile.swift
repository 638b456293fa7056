import Foundation

/// A file of frame durations: one duration in seconds a line, cycled when exhausted.
enum FrameTimesFile {
    /// The longest frame a file may hold: a day (the kernel steps any duration exactly, but a
    /// detector run of days of frames would not end).
    static let longestFrame = 86_400.0

    static func read(path: String) throws(BenchError) -> [Double] {
        try parse(FileAccess.readText(path), path: path)
    }

    /// The durations of a frame-times text (one a line; CRLF or LF, a byte-order mark and a quoted
    /// number are read as ``CSVRecords`` reads them); `path` names it in errors (`times.txt:3: ...`).
    static func parse(_ text: String, path: String) throws(BenchError) -> [Double] {
        var durations: [Double] = []
        for record in try CSVRecords.parse(text, path: path) {
            guard record.fields.count == 1 else {
                throw .input("\(printable(path)):\(record.line): one frame duration a line, got \(record.fields.count) fields")
            }
            let field = record.fields[0]
            guard let value = Double(field), value.isFinite, value > 0, value <= longestFrame else {
                throw .input("\(printable(path)):\(record.line): a frame duration must be a number of seconds in (0, \(Int(longestFrame))], got \(printable(field))")
            }
            durations.append(value)
        }
        guard !durations.isEmpty else { throw .input("\(printable(path)) holds no frame durations") }
        return durations
    }
}
