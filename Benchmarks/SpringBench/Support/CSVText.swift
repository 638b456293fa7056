/// CSV as spring-bench writes it, every file and every `--format csv` through this one writer:
/// RFC 4180 fields (a field holding a comma, a double quote, a CR or an LF goes in double quotes,
/// its quotes doubled; any other field as it is), one record a line, lines ending in LF (as the
/// files always have; ``CSVRecords``, Python's csv module and spreadsheets read it).
enum CSVText {
    /// The header line and one line per row.
    static func text(header: [String], rows: [[String]]) -> String {
        var text = line(header)
        for row in rows { text += line(row) }
        return text
    }

    /// One record, its line break included.
    static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\n"
    }

    /// The string as one RFC 4180 field. ``CSVRecords`` reads it back.
    static func field(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacing("\"", with: "\"\"") + "\""
    }
}
