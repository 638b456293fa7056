/// The records of a text file as people write them (RFC 4180): lines end in CRLF (Python's csv
/// module, spreadsheets) or LF, a leading byte-order mark is dropped, and a field in double quotes
/// may hold commas, line breaks and doubled quotes (`"a,b"` is `a,b`, `"say ""hi"""` is `say "hi"`).
/// Every parser of spring-bench's input files reads through this one, so none of them splits on
/// `"\n"` (which Swift does not match inside a CRLF, one `Character`).
///
/// Spaces and tabs around an unquoted field are trimmed; blank lines are skipped. Scanning is by
/// Unicode scalar, so a CR, LF or quote is never hidden inside a grapheme.
enum CSVRecords {
    /// One record: the line it starts on (1-based) and its fields.
    struct Record: Equatable {
        var line: Int
        var fields: [String]
    }

    /// The records of `text`; `path` names the file in errors (`cases.csv:3: ...`).
    static func parse(_ text: String, path: String) throws(BenchError) -> [Record] {
        var scalars = Substring(text).unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        var records: [Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var quoted = false       // the current field began with a quote
        var inQuotes = false     // inside its quotes
        var closed = false       // its closing quote has been read
        var line = 1, recordLine = 1
        var sawQuote = false     // the record holds a quoted field (so it is not blank)
        var index = scalars.startIndex

        func endField() {
            var value = String(field)
            if !quoted { value = value.trimmingSpacesAndTabs() }
            fields.append(value)
            field = String.UnicodeScalarView()
            quoted = false
            closed = false
        }
        func endRecord() {
            endField()
            // A line of nothing but spaces is blank, not a record of one empty field.
            if !(fields.count == 1 && fields[0].isEmpty && !sawQuote) { records.append(Record(line: recordLine, fields: fields)) }
            fields = []
            sawQuote = false
        }

        while index < scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            // A NUL would end the field for the C number parsers (`Double("0.016\0junk")` is
            // 0.016): no text file holds one.
            guard scalar != "\u{0}" else { throw .input("\(printable(path)):\(line): a NUL byte (not a text file)") }
            if inQuotes {
                if scalar == "\"" {
                    if index < scalars.endIndex, scalars[index] == "\"" {
                        field.append("\"")
                        index = scalars.index(after: index)
                    } else {
                        inQuotes = false
                        closed = true
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"":
                guard !closed, String(field).trimmingSpacesAndTabs().isEmpty else {
                    throw .input("\(printable(path)):\(line): a quote inside an unquoted field (quote the whole field and double the quote)")
                }
                field = String.UnicodeScalarView()
                quoted = true
                inQuotes = true
                sawQuote = true
            case ",":
                endField()
            case "\r" where index < scalars.endIndex && scalars[index] == "\n":
                continue  // the LF that follows ends the record
            case "\n":
                endRecord()
                line += 1
                recordLine = line
            case " ", "\t":
                if !closed { field.append(scalar) }
            default:
                guard !closed else {
                    throw .input("\(printable(path)):\(line): text after a closing quote (a quoted field ends at its quote)")
                }
                field.append(scalar)
            }
        }
        guard !inQuotes else { throw .input("\(printable(path)):\(recordLine): a quoted field is not closed") }
        if !fields.isEmpty || !field.isEmpty || quoted { endRecord() }
        return records
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmingSpacesAndTabs() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(scalars[first...last])
    }
}
