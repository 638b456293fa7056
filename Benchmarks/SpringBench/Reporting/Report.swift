import Foundation

/// How a command prints its results.
enum OutputFormat: String {
    case table, json, csv
}

/// A plain aligned text table.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []
    /// Columns aligned left (text); the others are aligned right (numbers).
    var leftAligned: Set<Int> = [0]

    func render() -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                leftAligned.contains(i) ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ").replacing(/\ +$/, with: "")
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(separator: "\n")
    }

    /// The same rows as CSV (``CSVText``).
    func csv() -> String {
        CSVText.text(header: header, rows: rows)
    }
}

/// JSON with snake_case keys, sorted, pretty-printed.
func jsonText<Value: Encodable>(_ value: Value) throws -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
}

/// Human-readable numbers: 21.8 G, 512 K, 3.1 M.
func engineering(_ value: Double) -> String {
    let magnitude = abs(value)
    if magnitude >= 1e9 { return String(format: "%.2f G", value / 1e9) }
    if magnitude >= 1e6 { return String(format: "%.2f M", value / 1e6) }
    if magnitude >= 1e3 { return String(format: "%.1f K", value / 1e3) }
    return String(format: "%.3g", value)
}

/// Springs as 1K, 16K, 4M.
func springCountLabel(_ count: Int) -> String {
    if count >= 1 << 20 && count % (1 << 20) == 0 { return "\(count >> 20)M" }
    if count >= 1 << 10 && count % (1 << 10) == 0 { return "\(count >> 10)K" }
    return "\(count)"
}

/// Progress on stderr, so stdout stays clean for JSON and CSV: a live line on a terminal,
/// plain lines otherwise.
/// When the process started (read first by `main`).
let processStarted = now()

struct Progress {
    let isTerminal = isatty(2) == 1

    func note(_ message: String) {
        if isTerminal {
            FileHandle.standardError.write(Data("\r\u{1B}[2K\(message)".utf8))
        } else {
            // Logs get the seconds since the process started, for the phases' costs.
            FileHandle.standardError.write(Data(String(format: "[%5.0f s] %@\n", now() - processStarted, message).utf8))
        }
    }

    /// A live update: shown on a terminal, dropped otherwise (so logs get phases, not a flood).
    func update(_ message: String) {
        if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[2K\(message)".utf8)) }
    }

    func finish() {
        if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}
