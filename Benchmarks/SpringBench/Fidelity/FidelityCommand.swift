import Foundation
@_spi(KernelInternals) import SpringKernel

/// `spring-bench fidelity`: how closely the fixed-point (Q16.16) bank follows the exact motion it
/// stands for, frame by frame, over a corpus of point- and unit-scale springs.
struct FidelityCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench fidelity [--count N] [--seed S] [--quick] [--format table|json|csv]

          The fixed-point bank against the exact Float64 trajectory (closed form, libm, written here
          apart from the kernel) on a seeded corpus (default 10,000 cases, --quick 1,000) over the
          whole range: damping ratio 0.01-30, tension 10-5000, mass 0.25-4, 30-240 Hz; half point
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
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        func logUniform(_ low: Double, _ high: Double) -> Double { exp(log(low) + unit() * (log(high) - log(low))) }
        let rates: [Double] = [30, 48, 60, 90, 120, 144, 240]
        return (0..<count).map { i in
            let zeta = logUniform(0.01, 30), tension = logUniform(10, 5000), mass = logUniform(0.25, 4)
            let configuration = try! SpringConfiguration(tension: tension, friction: zeta * 2 * (tension * mass).squareRoot(), mass: mass)
            let unitScale = i % 2 == 1
            let sign: Double = unit() < 0.5 ? -1 : 1
            let tolerance = unitScale ? logUniform(0.001, 0.01) : logUniform(0.25, 1)
            let to = unitScale ? (unit() < 0.5 ? 0 : 1) : (unit() * 2000 - 1000).rounded()
            let distance = unitScale ? logUniform(0.01, 1) : logUniform(0.01, 3000)
            let from = unitScale ? (to == 0 ? distance : 1 - distance) : to + sign * distance
            let omega = configuration.naturalFrequency
            let velocity = unit() < 0.35 ? 0 : (unit() * 2 - 1) * omega * distance
            return Case(
                configuration: configuration, from: from, to: to, velocity: velocity, tolerance: tolerance,
                hz: rates[Int(random.next() % UInt64(rates.count))], unitScale: unitScale)
        }
    }

    /// The exact displacement and velocity at time t from (d0, v0): the closed form, in libm.
    static func exact(_ d0: Double, _ v0: Double, _ configuration: SpringConfiguration, _ t: Double) -> (d: Double, v: Double) {
        let omega = configuration.naturalFrequency
        let zeta = configuration.dampingRatio
        if zeta < 1 - 1e-9 {
            let wd = omega * (1 - zeta * zeta).squareRoot(), decay = exp(-zeta * omega * t)
            let b = (v0 + zeta * omega * d0) / wd
            let c = cos(wd * t), s = sin(wd * t)
            return (decay * (d0 * c + b * s), decay * (v0 * c - (d0 * wd + zeta * omega * b) * s))
        }
        if zeta > 1 + 1e-9 {
            let root = omega * (zeta * zeta - 1).squareRoot()
            let r1 = -zeta * omega + root, r2 = -zeta * omega - root
            let c2 = (v0 - r1 * d0) / (r2 - r1), c1 = d0 - c2
            return (c1 * exp(r1 * t) + c2 * exp(r2 * t), c1 * r1 * exp(r1 * t) + c2 * r2 * exp(r2 * t))
        }
        let b = v0 + omega * d0, decay = exp(-omega * t)
        return ((d0 + b * t) * decay, (b - omega * (d0 + b * t)) * decay)
    }

    /// R: 1 + the last frame whose exact displacement is outside `band` (0 if none), scanning until
    /// the energy bound proves no later frame leaves it.
    static func restFrame(_ d0: Double, _ v0: Double, _ configuration: SpringConfiguration, dt: Double, band: Double) -> Int {
        let ratio = configuration.mass / configuration.tension
        var last = -1
        for n in 0..<5_000_000 {
            let s = exact(d0, v0, configuration, Double(n) * dt)
            if abs(s.d) > band { last = n }
            if (s.d * s.d + ratio * s.v * s.v).squareRoot() <= band { break }
        }
        return last + 1
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
                    let expected = c.to + exact(starts[member.index].d, starts[member.index].v, c.configuration, Double(frame) * dt).d
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
            if d < restFrame(starts[i].d, starts[i].v, c.configuration, dt: dt, band: band * 1.05) { early += 1 }
            if d <= restFrame(starts[i].d, starts[i].v, c.configuration, dt: dt, band: band * 0.95) + 1 { within += 1 }
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
            print("cases,refused,judged,frames_compared,largest_deviation_of_tolerance,largest_deviation_q16_steps,p999_of_tolerance,early_loosened,within_one_tightened")
            print("\(report.cases),\(report.refused),\(report.judged),\(report.framesCompared),\(report.largestDeviationOfTolerance),\(report.largestDeviationQ16Steps),\(report.deviationP999OfTolerance),\(report.earlyAgainstLoosenedBand),\(report.withinOneFrameOfTightenedBand)")
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
