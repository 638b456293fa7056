import Foundation
import CAllocationCounter
import SpringKernel

/// `spring-bench footprint`: the heap a bank takes on this machine, as `.ci/cortex-m` measures it
/// on a microcontroller (Tests/CrossFootprint): an empty bank, and the bytes a spring.
struct FootprintCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench footprint [--springs N,N,...] [--format table|json|csv]

          The heap an empty bank takes, and the heap a spring takes in a bank of N springs of one
          configuration (default 256, 4096 and 65536), in both formats: springs added one by one
          (the bank grows) and into a bank reserved for them (SpringBank(threading:capacity:)).
          Read from glibc's own count of the heap in use (mallinfo2: the blocks with their headers
          and padding). Every bank measured is kept until the end, so that no block one frees is
          handed to the next; glibc's per-thread cache counts the blocks it holds as in use, so a
          grown bank's figure includes the small blocks its growth freed (the reserved one has none).
        """

    var springCounts: [Int]
    var format: OutputFormat

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        _ = arguments.flag("quick")  // every command takes it; this one is quick anyway
        if let list = arguments.string("springs") {
            let counts = list.split(separator: ",").map { Int($0) }
            guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 1 << 24 }) else {
                throw .usage("--springs takes a list of counts from 1 to 16777216, such as 256,4096")
            }
            springCounts = counts.map { $0! }
        } else {
            springCounts = [256, 4096, 65536]
        }
        format = try outputFormat(&arguments)
        try arguments.rejectUnread()
    }

    /// One format's figures, for `--format json`.
    struct Row: Codable {
        var format: String
        var emptyBankBytes: Int
        var springs: Int
        var grownBytesPerSpring: Double
        var reservedBytesPerSpring: Double
    }

    /// Measures; prints a table, JSON or CSV.
    func run() throws {
        var kept: [AnyObject] = []
        // What a process allocates once, at its first bank of a format (generic metadata, lazy
        // globals), is not a bank's: a bank of each format first, stepped once, kept.
        let fixed = SpringBank<Q16Lanes>(threading: .single), float = SpringBank<Float32Lanes>(threading: .single)
        _ = try fixed.add(value: Q16(raw: 1 << 16), target: Q16(raw: 0), tolerance: Q16(raw: 1 << 15))
        _ = try float.add(value: 1, target: 0, tolerance: 0.5)
        try fixed.step(dt: 1.0 / 60)
        try float.step(dt: 1.0 / 60)
        kept += [fixed, float]
        var rows: [Row] = []
        rows += try measure(Q16Lanes.self, value: { Q16(raw: Int32($0) << 12) }, tolerance: Q16(raw: 1 << 15), keeping: &kept)
        rows += try measure(Float32Lanes.self, value: { Float($0) / 16 }, tolerance: 0.5, keeping: &kept)
        withExtendedLifetime(kept) {}
        switch format {
        case .json:
            print(try jsonText(rows), terminator: "")
        case .table, .csv:
            let table = TextTable(
                header: ["format", "empty bank B", "springs", "grown B a spring", "reserved B a spring"],
                rows: rows.map { row in
                    [row.format, "\(row.emptyBankBytes)", "\(row.springs)", String(format: "%.1f", row.grownBytesPerSpring),
                     String(format: "%.1f", row.reservedBytesPerSpring)]
                })
            print(format == .csv ? table.csv() : table.render(), terminator: format == .csv ? "" : "\n")
        }
    }

    /// The empty bank and each spring count's bytes a spring, grown and reserved.
    private func measure<Lanes: SpringLaneArithmetic>(
        _ lanes: Lanes.Type, value: (Int) -> Lanes.Value, tolerance: Lanes.Value, keeping kept: inout [AnyObject]
    ) throws -> [Row] {
        var before = heapBytesInUse()
        let empty = SpringBank<Lanes>(threading: .single)
        let emptyBytes = heapBytesInUse() - before
        kept.append(empty)
        let configuration = try SpringConfiguration(tension: 342, friction: 30)
        var rows: [Row] = []
        for springs in springCounts {
            var perSpring: [Double] = []
            for reserved in [false, true] {
                before = heapBytesInUse()
                let bank = reserved ? try SpringBank<Lanes>(threading: .single, capacity: springs) : SpringBank<Lanes>(threading: .single)
                for i in 0..<springs {
                    _ = try bank.add(value: value(i % 1000), target: value(0), configuration: configuration, tolerance: tolerance)
                }
                perSpring.append(Double(heapBytesInUse() - before) / Double(springs))
                kept.append(bank)
            }
            rows.append(Row(
                format: Lanes.formatName, emptyBankBytes: emptyBytes, springs: springs, grownBytesPerSpring: perSpring[0],
                reservedBytesPerSpring: perSpring[1]))
        }
        return rows
    }
}
