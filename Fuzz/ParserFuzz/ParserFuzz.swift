import Foundation
@_spi(KernelInternals) import SpringKernel

/// libFuzzer's entry point for spring-bench's parsers, compiled from spring-bench's own files: the
/// first byte picks the command-line parser, the settle CSV parser (float32 or Q16.16 domain) or
/// the frame-times parser; the rest is their input. Each must return or refuse with a
/// `BenchError` (one line), never trap; what it accepts must lie in its documented domain.
@_cdecl("LLVMFuzzerTestOneInput")
public func parserFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    switch input.byte() % 4 {
    case 0: fuzzArguments(&input)
    case 1: fuzzCases(input, format: .float32)
    case 2: fuzzCases(input, format: .q16)
    default: fuzzFrameTimes(input)
    }
    return 0
}

/// The rest of the input as text.
func text(_ input: FuzzInput) -> String {
    var input = input
    var bytes: [UInt8] = []
    while !input.isExhausted { bytes.append(input.byte()) }
    return String(decoding: bytes, as: UTF8.self)
}

func checkOneLine(_ error: BenchError) {
    guard !error.description.contains("\n") else { violated("a parser error spans lines: \(error)") }
}

/// Arguments split on NUL bytes, then every typed accessor, as the commands call them.
func fuzzArguments(_ input: inout FuzzInput) {
    let words = text(input).split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
    var arguments = CommandLineArguments(words)
    let names = ["springs", "count", "seed", "threads", "seconds", "paused", "kernel", "output", "quick", "help", "cases", "repeats"]
    do {
        for name in names {
            switch name {
            case "springs":
                if let sizes = try arguments.sizes(name, bytesEach: 256) {
                    guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 && $0 <= 1 << 30 }) else { violated("--springs accepted \(sizes)") }
                }
            case "count", "repeats":
                if let count = try arguments.int(name, in: 1...10_000_000), !(1...10_000_000).contains(count) { violated("--\(name) accepted \(count)") }
            case "seed": _ = try arguments.seed(name)
            case "threads": if let threads = try arguments.int(name, in: 1...64), threads < 1 || threads > 64 { violated("--threads accepted \(threads)") }
            case "seconds": if let seconds = try arguments.double(name, in: 1e-3...1e6), !(seconds >= 1e-3 && seconds <= 1e6) { violated("--seconds accepted \(seconds)") }
            case "paused": if let fractions = try arguments.doubles(name, in: 0...1), !fractions.allSatisfy({ $0 >= 0 && $0 <= 1 }) { violated("--paused accepted \(fractions)") }
            case "quick", "help": _ = arguments.flag(name)
            case "kernel": _ = arguments.list(name)
            default: _ = arguments.string(name)
            }
        }
        _ = arguments.operands()
        try arguments.rejectUnread()
    } catch {
        checkOneLine(error)
    }
}

/// The same text as a spreadsheet writes it: CRLF line ends and a byte-order mark (nil when the
/// text already holds a carriage return, whose meaning the change could alter).
func asSpreadsheetText(_ text: String) -> String? {
    guard !text.unicodeScalars.contains("\r") else { return nil }
    let crlf = text.replacingOccurrences(of: "\n", with: "\r\n")
    return text.unicodeScalars.first == "\u{FEFF}" ? crlf : "\u{FEFF}" + crlf
}

func fuzzCases(_ input: FuzzInput, format: SettleCaseFile.Format) {
    let cases: [SettleCase]
    let source = text(input)
    do {
        cases = try SettleCaseFile.parse(source, path: "cases.csv", format: format)
    } catch {
        checkOneLine(error)
        return
    }
    // CRLF and a byte-order mark read as the same cases (issue 28: CRLF files were refused).
    if let spreadsheet = asSpreadsheetText(source) {
        guard let again = try? SettleCaseFile.parse(spreadsheet, path: "cases.csv", format: format),
              again.map({ $0.id.replacingOccurrences(of: "\r\n", with: "\n") }) == cases.map(\.id), again.map(\.hz) == cases.map(\.hz)
        else { violated("the CRLF form of an accepted case file reads differently") }
    }
    for c in cases {
        guard (try? c.configuration()) != nil else { violated("accepted an invalid configuration: \(c)") }
        guard SettleCaseFile.frameRates.contains(c.hz) else { violated("accepted hz \(c.hz)") }
        for value in [c.from, c.to, c.velocity] where !(value.isFinite && Double(abs(value)) <= format.limit * (1 + 1e-7)) {
            violated("accepted a value outside the lanes: \(c)")
        }
        guard c.tolerance > 0, c.tolerance.isFinite, format.holdsTolerance(Double(c.tolerance)) else { violated("accepted tolerance \(c.tolerance)") }
        // The frame watcher's window and the frame duration are finite for every accepted rate.
        guard (0.1 * c.hz).rounded(.up) < 1e6, c.frameDuration.isFinite else { violated("hz \(c.hz)") }
    }
}

func fuzzFrameTimes(_ input: FuzzInput) {
    do {
        let source = text(input)
        let durations = try FrameTimesFile.parse(source, path: "times.txt")
        guard !durations.isEmpty, durations.allSatisfy({ $0.isFinite && $0 > 0 && $0 <= FrameTimesFile.longestFrame }) else {
            violated("accepted frame durations \(durations)")
        }
        if let spreadsheet = asSpreadsheetText(source), (try? FrameTimesFile.parse(spreadsheet, path: "times.txt")) != durations {
            violated("the CRLF form of an accepted frame-times file reads differently")
        }
    } catch {
        checkOneLine(error)
    }
}
