import Foundation
@_spi(KernelInternals) import SpringKernel
import _SpringOracles

enum SettleCorpus {
    static let header = SettleCaseFile.header
    /// The most cases `--count` asks for (about 100 bytes each, and a Float64 brute-force rest
    /// frame per case).
    static let maximumCount = 10_000_000
    static let frameRates: [Double] = [30, 48, 60, 72, 90, 120, 144, 165, 240]

    /// A seeded corpus over the whole range the kernel promises: damping ratio 0.01 to 30,
    /// distances 0.01 to 3000 (positions, tolerance 0.5) or to 1 (opacities, tolerance 1/256),
    /// initial velocities to ±8000/s, 30 to 240 Hz.
    static func generate(count: Int, seed: UInt64) -> [SettleCase] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let zeta = generator.logUniform(0.01, 30)
            let tension = generator.logUniform(10, 5000)
            let mass = generator.logUniform(0.25, 4)
            let friction = zeta * 2 * (tension * mass).squareRoot()
            let isOpacity = generator.unit() < 0.3
            let sign: Double = generator.unit() < 0.5 ? -1 : 1
            let distance = sign * (isOpacity ? generator.logUniform(0.01, 1) : generator.logUniform(0.01, 3000))
            let target = isOpacity ? (generator.unit() < 0.5 ? 0 : 1) : (generator.unit() * 2000 - 1000).rounded()
            let speedLimit = isOpacity ? 8.0 : 8000
            let velocity = generator.unit() < 0.35 ? 0 : (generator.unit() * 2 - 1) * speedLimit
            return SettleCase(
                id: "c\(i)", tension: tension, friction: friction, mass: mass,
                from: Float(target + distance), to: Float(target), velocity: Float(velocity),
                tolerance: isOpacity ? 1.0 / 256 : 0.5, hz: frameRates[Int(generator.next() % UInt64(frameRates.count))])
        }
    }

    static func csv(_ cases: [SettleCase]) -> String {
        CSVText.text(
            header: header.split(separator: ",").map(String.init),
            rows: cases.map { c in [c.id, "\(c.tension)", "\(c.friction)", "\(c.mass)", "\(c.from)", "\(c.to)", "\(c.velocity)", "\(c.tolerance)", "\(c.hz)"] })
    }

    /// The cases that share a bank: one frame rate, and at most a bank's 65,536 batches (a
    /// configuration at one lane scale: for Q16.16 lanes, one per binary exponent of the
    /// tolerance; a file with more is run in several banks), in order of rate.
    static func bankGroups<Lanes: SpringLaneArithmetic>(_ cases: [SettleCase], lanes: Lanes.Type) -> [(hz: Double, indices: [Int])] {
        var groups: [(hz: Double, indices: [Int])] = []
        let byRate = Dictionary(grouping: cases.indices, by: { cases[$0].hz })
        for hz in byRate.keys.sorted() {
            var indices: [Int] = [], batches: Set<[Double]> = []
            for i in byRate[hz]! {
                let key = [cases[i].tension, cases[i].friction, cases[i].mass] + laneScale(of: cases[i], Lanes.self)
                if !batches.contains(key), batches.count == SpringBank<Lanes>.maximumConfigurationCount {
                    groups.append((hz, indices))
                    indices = []
                    batches = []
                }
                batches.insert(key)
                indices.append(i)
            }
            groups.append((hz, indices))
        }
        return groups
    }

    /// The lane scale the bank stores a case's spring at, as numbers for a batch key (none for
    /// lanes of one scale).
    private static func laneScale<Lanes: SpringLaneArithmetic>(of c: SettleCase, _: Lanes.Type) -> [Double] {
        guard Lanes.hasScaledLanes, let configuration = try? c.configuration(),
              let tolerance = try? Lanes.tolerance(Lanes.nearestValue(to: Double(c.tolerance)))
        else { return [] }
        let scale = Lanes.laneScale(tolerance: tolerance, naturalFrequency: configuration.naturalFrequency)
        return [Double(scale.displacementShift), Double(scale.velocityShift)]
    }

    /// Reads a settle CSV (see ``SettleCaseFile``).
    static func read(path: String, kernel: SettleKernel) throws(BenchError) -> [SettleCase] {
        try SettleCaseFile.parse(FileAccess.readText(path), path: path, format: kernel == .fixed ? .q16 : .float32)
    }
}

extension SettleCase {
    /// The exact perceptual rest frame R on the case's steady frame clock, by brute force (the
    /// oracle module's scan of the exact Float64 motion, independent of the kernel's propagator and
    /// of its closed-form search, `SettlePredictor`), or nil if not proven within `limit` frames.
    func exactRestFrame(limit: Int = 10_000_000) -> Int? {
        guard let configuration = try? configuration() else { return nil }
        return ExactRest.restFrame(
            displacement: Double(from) - Double(to), velocity: Double(velocity), spring: ExactSpring(configuration),
            band: Double(tolerance), clock: .steady(frameDuration: frameDuration), limit: limit)
    }
}

/// Which lane format a settle run uses. Both are judged against the exact Float64 trajectory of
/// the case as the format holds it (the fixed-point bank's nearest values); a case the fixed-point
/// format clamps (its speed or value reaches ±32768) leaves that trajectory and is not judged.
enum SettleKernel: String {
    case float
    case fixed

    /// The exact rest frame R of a case for this kernel, or nil when it is not judged.
    func exactRestFrame(_ c: SettleCase) -> Int? {
        guard self == .fixed else { return c.exactRestFrame() }
        let (held, saturates) = ClockedSettle.fixedPointCase(c)
        return saturates ? nil : held.exactRestFrame()
    }
}

/// The kernel's own detection: every case of one frame rate in one bank, stepped until all rest.
enum KernelRestFrames {
    /// The frame on which the bank reported each case at rest (0 for a case that starts at rest),
    /// or nil if it had not within `limit` frames.
    static func restFrames(_ cases: [SettleCase], kernel: SettleKernel = .float, limit: Int = 10_000_000) throws(BenchError) -> [Int?] {
        switch kernel {
        case .float: try restFrames(cases, lanes: Float32Lanes.self, limit: limit)
        case .fixed: try restFrames(cases, lanes: Q16Lanes.self, limit: limit)
        }
    }

    private static func restFrames<Lanes: SpringLaneArithmetic>(
        _ cases: [SettleCase], lanes: Lanes.Type, limit: Int
    ) throws(BenchError) -> [Int?] {
        var frames = [Int?](repeating: nil, count: cases.count)
        for (hz, group) in SettleCorpus.bankGroups(cases, lanes: Lanes.self) {
            let bank = SpringBank<Lanes>(threading: .single)
            // A steady frame rate, declared: the bank then rests each case on its sampled rest frame R.
            do { try bank.setFrameClock(.fixed(frameDuration: 1 / hz)) } catch { throw .input("\(hz) Hz: \(error)") }
            var caseOf: [SpringHandle: Int] = [:]
            for i in group {
                let c = cases[i]
                do {
                    let spring = try bank.add(
                        value: Lanes.nearestValue(to: Double(c.from)), target: Lanes.nearestValue(to: Double(c.to)),
                        velocity: Lanes.nearestValue(to: Double(c.velocity)), configuration: try c.configuration(),
                        tolerance: Lanes.nearestValue(to: Double(c.tolerance)))
                    caseOf[spring] = i
                    if try bank.isAtRest(spring) { frames[i] = 0 }
                } catch {
                    throw .input("case \(c.id): \(error)")
                }
            }
            do {
                while bank.awakeCount > 0 && bank.frame < limit {
                    try bank.step(dt: 1 / hz)
                    for spring in bank.restedInLastStep { frames[caseOf[spring]!] = bank.frame }
                }
            } catch {
                throw .failed("stepping at \(hz) Hz: \(error)")
            }
        }
        return frames
    }
}

/// How a detector's rest frames D compare with the exact rest frames R.
struct DetectorSummary: Codable {
    var detector: String
    var cases: Int
    /// D == R.
    var exact: Int
    var lateByOne: Int
    var lateByMore: Int
    /// D < R: reported at rest while the spring would still leave its band.
    var early: Int
    var neverRested: Int
    /// Fraction of cases with R <= D <= R + 1.
    var withinOneFrame: Double
    var latencyFrames: LatencyPercentiles
    var latencyMilliseconds: LatencyPercentiles

    struct LatencyPercentiles: Codable {
        var p50: Double
        var p90: Double
        var p99: Double
        var max: Double
    }

    init(detector: String, cases: [SettleCase], exact reference: [Int?], reported: [Int?]) {
        self.detector = detector
        self.cases = cases.count
        var exact = 0, lateByOne = 0, lateByMore = 0, early = 0, never = 0, judged = 0
        var frames: [Double] = [], milliseconds: [Double] = []
        for i in cases.indices {
            guard let r = reference[i] else { continue }
            judged += 1
            guard let d = reported[i] else { never += 1; continue }
            // A step reports rest, so a moving case whose whole motion is already inside its band
            // (R = 0) is reported on frame 1: one frame late, by construction.
            switch d - r {
            case ..<0: early += 1
            case 0: exact += 1
            case 1: lateByOne += 1
            default: lateByMore += 1
            }
            frames.append(Double(d - r))
            milliseconds.append(Double(d - r) * 1000 / cases[i].hz)
        }
        self.exact = exact
        self.lateByOne = lateByOne
        self.lateByMore = lateByMore
        self.early = early
        self.neverRested = never
        // Of the cases judged (a case without an exact rest frame, or one the format clamps, is not).
        withinOneFrame = judged == 0 ? 0 : Double(exact + lateByOne) / Double(judged)
        func percentiles(_ values: [Double]) -> LatencyPercentiles {
            guard !values.isEmpty else { return LatencyPercentiles(p50: 0, p90: 0, p99: 0, max: 0) }
            let sorted = values.sorted()
            func rank(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))] }
            return LatencyPercentiles(p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: sorted.last!)
        }
        latencyFrames = percentiles(frames)
        latencyMilliseconds = percentiles(milliseconds)
    }
}
