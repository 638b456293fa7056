import Foundation
@_spi(KernelInternals) import SpringKernel

/// One spring released at `from` with `velocity`, pulled toward `to`, stepped at exactly 1/hz:
/// a row of the settle CSV `id,tension,friction,mass,from,to,velocity,tolerance,hz`.
struct SettleCase: Codable {
    var id: String
    var tension: Double
    var friction: Double
    var mass: Double
    var from: Float
    var to: Float
    var velocity: Float
    var tolerance: Float
    var hz: Double

    var frameDuration: Double { 1 / hz }
    func configuration() throws(SpringKernelError) -> SpringConfiguration {
        try SpringConfiguration(tension: tension, friction: friction, mass: mass)
    }
}

/// The settle CSV's format and its parser, apart from any file or run so that it can be tested
/// and fuzzed alone. Every row is checked against the domain the settle command can run, and a
/// row outside it is refused with its line number: nothing is clamped or rounded away silently.
enum SettleCaseFile {
    static let header = "id,tension,friction,mass,from,to,velocity,tolerance,hz"

    /// Frame rates the detectors can run: the peers integrate in 1 ms substeps, so a frame of
    /// 1/hz is 1000/hz substeps (a rate of 10⁻⁶ Hz would be 10⁹ a frame), and the frame watcher
    /// waits 0.1 s of frames.
    static let frameRates: ClosedRange<Double> = 10...1000

    /// The lane format the cases run in, which bounds values, velocities and tolerances.
    enum Format {
        case float32
        case q16

        /// The largest magnitude of a value, target or velocity: the float32 bank's 10¹⁵, Q16.16's
        /// 32767 (a value beyond either is clamped by the format, not stepped).
        var limit: Double {
            switch self {
            case .float32: 1e15
            case .q16: 32767
            }
        }

        /// Whether a tolerance survives the format's rounding as a positive number.
        func holdsTolerance(_ tolerance: Double) -> Bool {
            switch self {
            case .float32: Float(tolerance) > 0
            case .q16: Q16Lanes.nearestValue(to: tolerance).raw > 0
            }
        }
    }

    /// The cases of a settle CSV (RFC 4180: CRLF or LF, a byte-order mark, quoted fields; see
    /// ``CSVRecords``): a header naming the nine columns (in any order), then one case a record;
    /// blank lines are skipped. `path` names the file in errors (`cases.csv:7: ...`). In the Q16.16
    /// format every case is also admitted by a scratch bank, so a motion beyond the format's bound
    /// (its energy or its reach past the Q16.16 range) is refused here, with its line, not in the run.
    static func parse(_ text: String, path: String, format: Format) throws(BenchError) -> [SettleCase] {
        var lines = try CSVRecords.parse(text, path: path)
        guard !lines.isEmpty else { throw .input("\(printable(path)) is empty") }
        let headerLine = lines.removeFirst()
        let names = headerLine.fields
        var column: [String: Int] = [:]
        for (i, name) in names.enumerated() {
            guard column[name] == nil else { throw .input("\(printable(path)):\(headerLine.line): column \(printable(name)) appears twice") }
            column[name] = i
        }
        for required in header.split(separator: ",") where column[String(required)] == nil {
            throw .input("\(printable(path)):\(headerLine.line): missing column \(required)")
        }
        var admission = format == .q16 ? MotionAdmission() : nil
        var cases: [SettleCase] = []
        cases.reserveCapacity(lines.count)
        for line in lines {
            let fields = line.fields
            let at = "\(printable(path)):\(line.line)"
            guard fields.count == names.count else { throw .input("\(at): expected \(names.count) fields, got \(fields.count)") }
            func number(_ name: String) throws(BenchError) -> Double {
                let field = fields[column[name]!]
                guard let value = Double(field), value.isFinite else { throw .input("\(at): \(name) is not a finite number: \(printable(field))") }
                return value
            }
            func lane(_ name: String) throws(BenchError) -> Float {
                let value = try number(name)
                guard abs(value) <= format.limit else {
                    throw .input("\(at): \(name) \(value) is outside ±\(format.limit), the range the lanes hold")
                }
                return Float(value)
            }
            let id = fields[column["id"]!]
            let tension = try number("tension"), friction = try number("friction"), mass = try number("mass")
            let from = try lane("from"), to = try lane("to"), velocity = try lane("velocity")
            let tolerance = try number("tolerance")
            guard tolerance > 0, tolerance <= format.limit, format.holdsTolerance(Double(Float(tolerance))) else {
                throw .input("\(at): tolerance must be positive (and at least the lanes' resolution), got \(printable(fields[column["tolerance"]!]))")
            }
            let hz = try number("hz")
            guard frameRates.contains(hz) else {
                throw .input("\(at): hz must be in \(Int(frameRates.lowerBound))...\(Int(frameRates.upperBound)), got \(printable(fields[column["hz"]!]))")
            }
            // The displacement the bank stores, value − target, must be a lane value too.
            guard abs(Double(from) - Double(to)) <= format.limit else { throw .input("\(at): from − to is outside ±\(format.limit)") }
            let c = SettleCase(
                id: id, tension: tension, friction: friction, mass: mass, from: from, to: to,
                velocity: velocity, tolerance: Float(tolerance), hz: hz)
            do {
                _ = try c.configuration()
                try admission?.admit(c)
            } catch { throw .input("\(at): \(error)") }
            cases.append(c)
        }
        return cases
    }
}

/// The Q16.16 bank's own admission of a case (its value, target, velocity and tolerance at the
/// nearest Q16.16 values, in its configuration), asked of a scratch bank: one source of truth for
/// the motion bound (``Q16Lanes``: an energy norm within 2³⁰ lane steps whose reach stays in the
/// format), checked before a run instead of failing inside it.
struct MotionAdmission {
    private var bank = SpringBank<Q16Lanes>(threading: .single)
    private var added = 0

    /// Throws the bank's error when it refuses the case (``SpringKernelError/outOfRange(_:)``).
    mutating func admit(_ c: SettleCase) throws(SpringKernelError) {
        // A fresh bank now and then: each admitted case may add a configuration batch.
        if added == 4096 {
            bank = SpringBank<Q16Lanes>(threading: .single)
            added = 0
        }
        let spring = try bank.add(
            value: Q16Lanes.nearestValue(to: Double(c.from)), target: Q16Lanes.nearestValue(to: Double(c.to)),
            velocity: Q16Lanes.nearestValue(to: Double(c.velocity)), configuration: try c.configuration(),
            tolerance: Q16Lanes.nearestValue(to: Double(c.tolerance)))
        try bank.remove(spring)
        added += 1
    }
}
