import Foundation

/// A small parser for `spring-bench <command> [--option value] [--flag] [positional]`.
struct CommandLineArguments {
    /// Options that take no value.
    static let flagNames: Set<String> = ["help", "quick", "summary"]

    let command: String?
    private var positional: [String] = []
    private var positionalRead = false
    private var options: [String: String] = [:]
    private var flags: Set<String> = []
    private var read: Set<String> = []

    init(_ arguments: [String]) throws(BenchError) {
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
            } else {
                guard let value = remaining.popFirst() else { throw .usage("--\(name) needs a value") }
                options[name] = value
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

    mutating func int(_ name: String) throws(BenchError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")) else { throw .usage("--\(name) expects an integer, got \(text)") }
        return value
    }

    mutating func double(_ name: String) throws(BenchError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), value.isFinite else { throw .usage("--\(name) expects a number, got \(text)") }
        return value
    }

    /// A comma-separated list of words (`simd,c-displacement`).
    mutating func list(_ name: String) -> [String]? {
        string(name).map { $0.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) } }
    }

    /// A comma-separated list of finite numbers.
    mutating func doubles(_ name: String) throws(BenchError) -> [Double]? {
        guard let items = list(name) else { return nil }
        var values: [Double] = []
        for item in items {
            guard let value = Double(item), value.isFinite else { throw .usage("--\(name) expects numbers, got \(item)") }
            values.append(value)
        }
        return values
    }

    /// A comma-separated list of integers, with K/M suffixes (`1K,16K,4M`).
    mutating func sizes(_ name: String) throws(BenchError) -> [Int]? {
        guard let text = string(name) else { return nil }
        var sizes: [Int] = []
        for item in text.split(separator: ",") {
            var digits = item.uppercased()
            var scale = 1
            if digits.hasSuffix("K") { scale = 1 << 10; digits.removeLast() }
            if digits.hasSuffix("M") { scale = 1 << 20; digits.removeLast() }
            guard let value = Int(digits), value > 0 else { throw .usage("--\(name): cannot read \(item)") }
            sizes.append(value * scale)
        }
        return sizes
    }

    /// Throws for any option or flag the command did not read: a typo is an error, not a default.
    func rejectUnread() throws(BenchError) {
        let unknown = Set(options.keys).union(flags).subtracting(read)
        if let name = unknown.sorted().first { throw .usage("unknown option --\(name)") }
        if !positionalRead, let extra = positional.first { throw .usage("unexpected argument \(extra)") }
    }
}

import Foundation

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
