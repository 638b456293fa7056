import Foundation

/// A small parser for `spring-bench <command> [--option value] [--flag] [positional]`.
struct CommandLineArguments {
    /// Options that take no value.
    static let flagNames: Set<String> = ["help", "quick", "summary", "full", "across-machines"]

    let command: String?
    private var positional: [String] = []
    private var positionalRead = false
    private var options: [String: String] = [:]
    /// Options given without a value (last, or followed by another option): reported by
    /// ``rejectUnread()``, after the unknown ones, so a typo is called unknown, not valueless.
    private var valueless: Set<String> = []
    private var flags: Set<String> = []
    private var read: Set<String> = []

    init(_ arguments: [String]) {
        var remaining = arguments[...]
        command = remaining.first.flatMap { $0.hasPrefix("-") ? nil : $0 }
        if command != nil { remaining = remaining.dropFirst() }
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--") else {
                positional.append(argument)
                continue
            }
            let name = String(argument.dropFirst(2))
            if Self.flagNames.contains(name) {
                flags.insert(name)
            } else if let value = remaining.first, !value.hasPrefix("--") {
                options[name] = value
                remaining = remaining.dropFirst()
            } else {
                valueless.insert(name)
            }
        }
    }

    /// The arguments that are not options (a command's operands).
    mutating func operands() -> [String] {
        positionalRead = true
        return positional
    }

    mutating func flag(_ name: String) -> Bool {
        read.insert(name)
        return flags.contains(name)
    }

    mutating func string(_ name: String) -> String? {
        read.insert(name)
        return options[name]
    }

    /// An integer in `range` (underscores allowed: `20_000`).
    mutating func int(_ name: String, in range: ClosedRange<Int>) throws(BenchError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(value) else {
            throw .usage("--\(name) takes an integer in \(range.lowerBound)...\(range.upperBound), got \(printable(text))")
        }
        return value
    }

    /// A seed: any integer from 0 to 2⁶⁴ − 1.
    mutating func seed(_ name: String) throws(BenchError) -> UInt64? {
        guard let text = string(name) else { return nil }
        guard let value = UInt64(text.replacingOccurrences(of: "_", with: "")) else {
            throw .usage("--\(name) takes an integer in 0...\(UInt64.max), got \(printable(text))")
        }
        return value
    }

    /// A finite number in `range`.
    mutating func double(_ name: String, in range: ClosedRange<Double>) throws(BenchError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw .usage("--\(name) takes a number in \(range.lowerBound)...\(range.upperBound), got \(printable(text))")
        }
        return value
    }

    /// A comma-separated list of words (`simd,c-displacement`).
    mutating func list(_ name: String) -> [String]? {
        string(name).map { $0.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) } }
    }

    /// A comma-separated list of words, each one of `allowed` (`--kernel float,fixed`).
    mutating func list(_ name: String, from allowed: [String]) throws(BenchError) -> [String]? {
        guard let words = list(name) else { return nil }
        for word in words where !allowed.contains(word) {
            throw .usage("--\(name) takes \(allowed.joined(separator: " and ")), got \(printable(word))")
        }
        return words
    }

    /// A comma-separated list of numbers in `range`.
    mutating func doubles(_ name: String, in range: ClosedRange<Double>) throws(BenchError) -> [Double]? {
        guard let items = list(name) else { return nil }
        var values: [Double] = []
        for item in items {
            guard let value = Double(item), range.contains(value) else {
                throw .usage("--\(name) takes numbers in \(range.lowerBound)...\(range.upperBound), got \(printable(item))")
            }
            values.append(value)
        }
        guard !values.isEmpty else { throw .usage("--\(name) needs at least one number") }
        return values
    }

    /// A comma-separated list of spring counts with K/M suffixes (`1K,16K,4M`), each from 1 to
    /// `limit` and small enough that `bytesEach` bytes a spring fit in this machine's memory: a
    /// size that cannot be run is refused before anything is allocated.
    mutating func sizes(_ name: String, limit: Int = 1 << 30, bytesEach: Int) throws(BenchError) -> [Int]? {
        guard let text = string(name) else { return nil }
        var sizes: [Int] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            var digits = item.uppercased()
            var scale = 1
            if digits.hasSuffix("K") { scale = 1 << 10; digits.removeLast() }
            else if digits.hasSuffix("M") { scale = 1 << 20; digits.removeLast() }
            guard let value = Int(digits) else { throw .usage("--\(name): cannot read \(printable(item)) (a count like 4096, 16K or 4M)") }
            let (size, overflow) = value.multipliedReportingOverflow(by: scale)
            guard !overflow, (1...limit).contains(size) else { throw .usage("--\(name) \(printable(item)): at least 1 and at most \(limit) springs") }
            try Self.checkMemory(name: name, item: printable(item), bytes: Double(size) * Double(bytesEach))
            sizes.append(size)
        }
        return sizes
    }

    /// Refuses a size whose working set would not fit in physical memory (an allocation the system
    /// cannot give stops the process with a crash dump, not an error).
    static func checkMemory(name: String, item: String, bytes: Double) throws(BenchError) {
        let available = Double(ProcessInfo.processInfo.physicalMemory)
        guard bytes <= available * 0.75 else {
            throw .usage(String(format: "--%@ %@ needs about %.1f GiB; this machine has %.1f GiB", name, item, bytes / 0x1p30, available / 0x1p30))
        }
    }

    /// Throws for any option or flag the command did not read: a typo is an error, not a default;
    /// then for an option given without its value.
    func rejectUnread() throws(BenchError) {
        let unknown = Set(options.keys).union(flags).union(valueless).subtracting(read)
        if let name = unknown.sorted().first { throw .usage("unknown option --\(printable(name))") }
        if let name = valueless.sorted().first { throw .usage("--\(printable(name)) needs a value") }
        if !positionalRead, let extra = positional.first { throw .usage("unexpected argument \(printable(extra))") }
    }
}

import Foundation

/// `text` from the user (an option, a field of a file) as it may appear in a one-line message:
/// control characters (a newline, a carriage return, a tab) escaped, at most 80 characters.
func printable(_ text: some StringProtocol) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
        if result.unicodeScalars.count >= 80 { return result + "..." }
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .format: result += "\\u{\(String(scalar.value, radix: 16))}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// Why a spring-bench command stopped.
enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    case input(String)
    case failed(String)

    var description: String {
        switch self {
        case .usage(let message): "usage: \(message)"
        case .input(let message): "input: \(message)"
        case .failed(let message): message
        }
    }
}
