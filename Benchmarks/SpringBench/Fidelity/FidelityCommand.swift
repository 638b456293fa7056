import Foundation
@_spi(KernelInternals) import SpringKernel
import _SpringOracles

/// `spring-bench fidelity`: how closely the fixed-point (Q16.16) bank follows the exact motion it
/// stands for, frame by frame, over a corpus of point- and unit-scale springs.
struct FidelityCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench fidelity [--count N] [--seed S] [--quick] [--format table|json|csv]

          The fixed-point bank against the exact Float64 trajectory (the oracle module's libm closed
          form, apart from the kernel) on a seeded corpus (default 10,000 cases, --quick 1,000) over
          the whole range: damping ratio 0.01-30, tension 10-5000, mass 0.25-4, 30-240 Hz; half point
          values (tolerance 0.25-1, distances to 3000), half unit values such as opacity (tolerance
          0.001-0.01, values in [0, 1]). Each case is stepped at its rate with the fixed timestep
          declared. Reports, over every frame before each case's rest: the largest deviation of the
          value from the exact trajectory as a fraction of the tolerance and in 2^-16 steps; the
          rest frame D against R of the exact trajectory with the band loosened by 5 % (D below it
          is early) and tightened by 5 % (D within R + 1 of it); and the cases the format refused.
        """

    var count: Int
    var seed: UInt64
    var format: OutputFormat

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        let quick = arguments.flag("quick")
        count = try arguments.int("count", in: 1...1_000_000) ?? (quick ? 1_000 : 10_000)
        self.seed = UInt64(try arguments.int("seed", in: 0...Int.max) ?? 11)
        format = try outputFormat(&arguments)
        try arguments.rejectUnread()
    }

    /// One case: a spring released at `from` toward `to`, with its tolerance and frame rate.
    struct Case {
        var configuration: SpringConfiguration
        var from, to, velocity, tolerance: Double
        var hz: Double
        var unitScale: Bool
    }

    /// The corpus, from `seed`.
    static func corpus(count: Int, seed: UInt64) -> [Case] {
        var random = SplitMix64(seed: seed)
        let rates: [Double] = [30, 48, 60, 90, 120, 144, 240]
        return (0..<count).map { i in
            let zeta = random.logUniform(0.01, 30), tension = random.logUniform(10, 5000), mass = random.logUniform(0.25, 4)
            let configuration = try! SpringConfiguration(tension: tension, friction: zeta * 2 * (tension * mass).squareRoot(), mass: mass)
            let unitScale = i % 2 == 1
            let sign: Double = random.unit() < 0.5 ? -1 : 1
            let tolerance = unitScale ? random.logUniform(0.001, 0.01) : random.logUniform(0.25, 1)
            let to = unitScale ? (random.unit() < 0.5 ? 0 : 1) : (random.unit() * 2000 - 1000).rounded()
            let distance = unitScale ? random.logUniform(0.01, 1) : random.logUniform(0.01, 3000)
            let from = unitScale ? (to == 0 ? distance : 1 - distance) : to + sign * distance
            let omega = configuration.naturalFrequency
            let velocity = random.unit() < 0.35 ? 0 : (random.unit() * 2 - 1) * omega * distance
            return Case(
                configuration: configuration, from: from, to: to, velocity: velocity, tolerance: tolerance,
                hz: rates[Int(random.next() % UInt64(rates.count))], unitScale: unitScale)
        }
    }

    /// The measured figures.
    struct Report: Codable {
        var cases: Int
        var refused: Int
        var judged: Int
        var framesCompared: Int
        var largestDeviationOfTolerance: Double
        var largestDeviationQ16Steps: Double
        var deviationP999OfTolerance: Double
        var largestDeviationPointScale: Double
        var largestDeviationUnitScale: Double
        var earlyAgainstLoosenedBand: Int
        var withinOneFrameOfTightenedBand: Double
        var worstCase: String
    }

    /// Steps the corpus and measures it.
    static func measure(_ cases: [Case]) throws -> Report {
        var worst = [Double](repeating: 0, count: cases.count)
        var restFrames = [Int?](repeating: nil, count: cases.count)
        var starts = [(d: Double, v: Double)](repeating: (0, 0), count: cases.count)
        var refused = 0, compared = 0
        var worstLSB = 0.0
        for hz in Set(cases.map(\.hz)).sorted() {
            let dt = 1 / hz
            let bank = SpringBank<Q16Lanes>(threading: .single)
            try bank.setFrameClock(.fixed(frameDuration: dt))
            var members: [(spring: SpringHandle, index: Int)] = []
            for (i, c) in cases.enumerated() where c.hz == hz {
                guard let value = Q16(c.from), let target = Q16(c.to), let velocity = Q16(c.velocity), let tolerance = Q16(c.tolerance),
                    let spring = try? bank.add(
                        value: value, target: target, velocity: velocity, configuration: c.configuration, tolerance: tolerance)
                else { refused += 1; continue }
                starts[i] = (try bank.displacement(of: spring).doubleValue, try bank.velocity(of: spring).doubleValue)
                if try bank.isAtRest(spring) { restFrames[i] = 0 } else { members.append((spring, i)) }
            }
            var frame = 0
            while !members.isEmpty && frame < 2_000_000 {
                try bank.step(dt: dt)
                frame += 1
                members.removeAll { member in
                    guard let atRest = try? bank.isAtRest(member.spring), !atRest else {
                        restFrames[member.index] = frame
                        return true
                    }
                    let c = cases[member.index]
                    let value = (try? bank.value(of: member.spring).doubleValue) ?? .nan
                    let start = starts[member.index]
                    let expected = c.to + ExactSpring(c.configuration).state(displacement: start.d, velocity: start.v, after: Double(frame) * dt).displacement
                    let difference = abs(value - expected)
                    worst[member.index] = max(worst[member.index], difference / c.tolerance)
                    worstLSB = max(worstLSB, difference * 65536)
                    compared += 1
                    return false
                }
            }
        }
        var early = 0, within = 0, judged = 0
        var worstIndex = 0
        for (i, c) in cases.enumerated() {
            guard let d = restFrames[i] else { continue }
            judged += 1
            let band = Double(Q16(c.tolerance)!.raw) / 65536
            let dt = 1 / c.hz
            // R of the exact trajectory (an R not proven within 5,000,000 frames counts against D).
            func exactRest(band: Double) -> Int? {
                ExactRest.restFrame(
                    displacement: starts[i].d, velocity: starts[i].v, spring: ExactSpring(c.configuration), band: band,
                    clock: .steady(frameDuration: dt), limit: 5_000_000)
            }
            if d < exactRest(band: band * 1.05) ?? Int.max { early += 1 }
            if let r = exactRest(band: band * 0.95), d <= r + 1 { within += 1 }
            if worst[i] > worst[worstIndex] { worstIndex = i }
        }
        let judgedWorst = cases.indices.filter { restFrames[$0] != nil }.map { worst[$0] }.sorted()
        let w = cases[worstIndex]
        return Report(
            cases: cases.count, refused: refused, judged: judged, framesCompared: compared,
            largestDeviationOfTolerance: judgedWorst.last ?? 0, largestDeviationQ16Steps: worstLSB,
            deviationP999OfTolerance: judgedWorst.isEmpty ? 0 : judgedWorst[min(judgedWorst.count - 1, Int(Double(judgedWorst.count) * 0.999))],
            largestDeviationPointScale: cases.indices.filter { !cases[$0].unitScale }.map { worst[$0] }.max() ?? 0,
            largestDeviationUnitScale: cases.indices.filter { cases[$0].unitScale }.map { worst[$0] }.max() ?? 0,
            earlyAgainstLoosenedBand: early, withinOneFrameOfTightenedBand: judged == 0 ? 1 : Double(within) / Double(judged),
            worstCase: "ζ \(w.configuration.dampingRatio), ω \(w.configuration.naturalFrequency), \(w.hz) Hz, tolerance \(w.tolerance), \(w.from) → \(w.to), v \(w.velocity)")
    }

    /// Runs the measurement and prints it.
    func run() throws {
        FileHandle.standardError.write(Data("fidelity: \(count) cases through the fixed-point bank\n".utf8))
        let report = try Self.measure(Self.corpus(count: count, seed: seed))
        switch format {
        case .json:
            print(try jsonText(report), terminator: "")
        case .csv:
            let header = [
                "cases", "refused", "judged", "frames_compared", "largest_deviation_of_tolerance", "largest_deviation_q16_steps",
                "p999_of_tolerance", "early_loosened", "within_one_tightened",
            ]
            let row = [
                "\(report.cases)", "\(report.refused)", "\(report.judged)", "\(report.framesCompared)", "\(report.largestDeviationOfTolerance)",
                "\(report.largestDeviationQ16Steps)", "\(report.deviationP999OfTolerance)", "\(report.earlyAgainstLoosenedBand)",
                "\(report.withinOneFrameOfTightenedBand)",
            ]
            print(CSVText.text(header: header, rows: [row]), terminator: "")
        case .table:
            print("""
                Fixed point (Q16.16) against the exact trajectory, \(report.cases) cases (\(report.refused) outside the format: a velocity past ±32768 or a motion past its lanes' range), \(report.framesCompared) frames compared
                largest deviation: \(String(format: "%.4f", report.largestDeviationOfTolerance)) of the tolerance (point \(String(format: "%.4f", report.largestDeviationPointScale)), unit \(String(format: "%.4f", report.largestDeviationUnitScale))), \(String(format: "%.1f", report.largestDeviationQ16Steps)) LSB of 2^-16; p99.9 \(String(format: "%.4f", report.deviationP999OfTolerance))
                rest: \(report.earlyAgainstLoosenedBand) early against the band loosened by 5 %, \(String(format: "%.3f", report.withinOneFrameOfTightenedBand * 100)) % within one frame of the band tightened by 5 %
                worst case: \(report.worstCase)
                """)
        }
    }
}
