import Foundation
@_spi(KernelInternals) import SpringKernel
import _SpringOracles

/// The frame clocks engines have, as seeded sequences of frame durations for a nominal rate.
enum SettleClock: String, CaseIterable, Codable {
    /// 1/hz every frame (the bank declares it: `FrameClock.fixed`).
    case steady
    /// 1/hz × (1 + U(−15 %, +15 %)) every frame: a game's measured frame time.
    case jitter
    /// Stretches of 10–120 frames at 120, 80, 60 or 48 Hz, whatever the nominal rate: an
    /// adaptive-refresh display.
    case vrr
    /// 1/hz, with one frame in 50 a hitch of 0.05–0.6 s: loads and collector pauses.
    case hitch

    /// `count` frame durations for nominal rate `hz`, the same on every run.
    func durations(hz: Double, count: Int) -> [Double] {
        var generator = SplitMix64(seed: UInt64(hz * 1000) &+ UInt64(SettleClock.allCases.firstIndex(of: self)!) << 40)
        var result: [Double] = []
        result.reserveCapacity(count)
        var stretchLeft = 0, stretchDuration = 1 / hz
        for _ in 0..<count {
            switch self {
            case .steady: result.append(1 / hz)
            case .jitter: result.append(1 / hz * (1 + (generator.unit() * 2 - 1) * 0.15))
            case .vrr:
                if stretchLeft == 0 {
                    stretchLeft = 10 + Int(generator.next() % 111)
                    stretchDuration = 1 / [120.0, 80, 60, 48][Int(generator.next() % 4)]
                }
                stretchLeft -= 1
                result.append(stretchDuration)
            case .hitch:
                result.append(generator.next() % 50 == 0 ? 0.05 + generator.unit() * 0.55 : 1 / hz)
            }
        }
        return result
    }
}

/// The Float64 oracles of one case stepped with given frame durations, from the oracle module
/// (independent of the kernel's propagator and predictor): R, the rest frame of the frames actually
/// taken (`ExactRest.restFrame`: the exact propagator of each frame's duration, until the energy
/// proves the rest), and R_c, the first frame whose end reaches T*, the last time the exact
/// continuous motion is outside the band (`ExactRest.restTime`).
struct ClockOracle {
    var restFrame: Int?
    var continuousRestFrame: Int?

    /// T* of a case (seconds), or nil if it does not settle.
    static func restTime(_ c: SettleCase, configuration: SpringConfiguration) -> Double? {
        ExactRest.restTime(
            displacement: Double(c.from) - Double(c.to), velocity: Double(c.velocity), spring: ExactSpring(configuration),
            band: Double(c.tolerance))
    }

    init(_ c: SettleCase, configuration: SpringConfiguration, restTime: Double?, durations: [Double], limit: Int) {
        restFrame = ExactRest.restFrame(
            displacement: Double(c.from) - Double(c.to), velocity: Double(c.velocity), spring: ExactSpring(configuration),
            band: Double(c.tolerance), clock: .durations(durations), limit: limit)
        guard let restTime else { return }
        var clock = 0.0
        for frame in 0...limit {
            if clock >= restTime {
                continuousRestFrame = frame
                return
            }
            clock += durations[frame % durations.count]
        }
    }
}

/// How the kernel's rest frames D compare, under one clock, with R and R_c.
struct ClockSummary: Codable {
    var clock: String
    /// `ours` (the kernel) or a peer's detector, stepped with the same frame durations.
    var detector: String?
    var kernel: String
    /// The bank's frame clock: `fixed` (the steady clock, declared) or `variable`.
    var frameClock: String
    var cases: Int
    /// D < R_c: snapped while the exact motion would still leave its band (a frame of some duration could see it).
    var early: Int
    /// D < R: snapped while a later frame actually taken is outside the band.
    var earlySampled: Int
    /// Fraction of cases with R ≤ D ≤ max(R_c, R + 1) (variable clock), or R ≤ D ≤ R + 1 (fixed).
    var withinBound: Double
    var neverRested: Int
    /// Cases the fixed-point format clamps (it leaves the exact motion): not judged.
    var saturated: Int
    var latencyFrames: DetectorSummary.LatencyPercentiles
}

/// The kernel's rest frames under each clock, and their summaries.
enum ClockedSettle {
    /// The frame on which the bank reported each case at rest, stepping every case of one nominal
    /// rate together with `durations(hz)` (cycled); `fixed`: the bank declares the first duration
    /// as its fixed timestep.
    static func restFrames<Lanes: SpringLaneArithmetic>(
        _ cases: [SettleCase], lanes: Lanes.Type, fixed: Bool, durations: (Double) -> [Double], limit: Int
    ) throws(BenchError) -> [Int?] {
        var frames = [Int?](repeating: nil, count: cases.count)
        for (hz, group) in SettleCorpus.bankGroups(cases, lanes: Lanes.self) {
            let steps = durations(hz)
            let bank = SpringBank<Lanes>(threading: .single)
            var caseOf: [SpringHandle: Int] = [:]
            do {
                if fixed { try bank.setFrameClock(.fixed(frameDuration: steps[0])) }
                for i in group {
                    let c = cases[i]
                    let spring = try bank.add(
                        value: Lanes.nearestValue(to: Double(c.from)), target: Lanes.nearestValue(to: Double(c.to)),
                        velocity: Lanes.nearestValue(to: Double(c.velocity)), configuration: try c.configuration(),
                        tolerance: Lanes.nearestValue(to: Double(c.tolerance)))
                    caseOf[spring] = i
                    if try bank.isAtRest(spring) { frames[i] = 0 }
                }
                while bank.awakeCount > 0 && bank.frame < limit {
                    try bank.step(dt: steps[bank.frame % steps.count])
                    for spring in bank.restedInLastStep { frames[caseOf[spring]!] = bank.frame }
                }
            } catch {
                throw .failed("stepping the \(hz) Hz cases: \(error)")
            }
        }
        return frames
    }

    /// The case as the fixed-point bank holds it (nearest values), and whether its own trajectory
    /// at the nominal rate saturates.
    static func fixedPointCase(_ c: SettleCase) -> (case: SettleCase, saturates: Bool) {
        var q = c
        q.from = Float(Double(Q16Lanes.nearestValue(to: Double(c.from)).raw) / 65536)
        q.to = Float(Double(Q16Lanes.nearestValue(to: Double(c.to)).raw) / 65536)
        q.velocity = Float(Double(Q16Lanes.nearestValue(to: Double(c.velocity)).raw) / 65536)
        q.tolerance = Float(Double(Q16Lanes.nearestValue(to: Double(c.tolerance)).raw) / 65536)
        // Far outside the format's ±32768 (a velocity of |d| ω₀ or more): it will clamp.
        guard let configuration = try? c.configuration() else { return (q, true) }
        let omega = (configuration.tension / configuration.mass).squareRoot()
        let peakSpeed = abs(Double(q.velocity)) + abs(Double(q.from) - Double(q.to)) * omega
        let peakValue = abs(Double(q.from) - Double(q.to)) + abs(Double(q.velocity)) / omega + abs(Double(q.to))
        return (q, peakSpeed >= 32000 || peakValue >= 32000)
    }

    /// Every clock's summary for `kernel` on `cases`.
    static func summaries(
        _ cases: [SettleCase], clocks: [SettleClock], kernel: SettleKernel, progress: Progress, limit: Int = 200_000,
        peers: [PeerDetector] = []
    ) throws -> [ClockSummary] {
        let judged: [(case: SettleCase, saturates: Bool)] = cases.map { kernel == .fixed ? fixedPointCase($0) : ($0, false) }
        progress.note("settle clocks: T* of \(cases.count) cases (\(kernel.rawValue))")
        let restTimes = judged.map { item in (try? item.case.configuration()).flatMap { ClockOracle.restTime(item.case, configuration: $0) } }
        var result: [ClockSummary] = []
        for clock in clocks {
            progress.note("settle clocks: \(clock.rawValue) (\(kernel.rawValue))")
            let frameCount = 20_000
            let fixed = clock == .steady
            let ours: [Int?] = kernel == .fixed
                ? try restFrames(judged.map(\.case), lanes: Q16Lanes.self, fixed: fixed, durations: { clock.durations(hz: $0, count: frameCount) }, limit: limit)
                : try restFrames(cases, lanes: Float32Lanes.self, fixed: fixed, durations: { clock.durations(hz: $0, count: frameCount) }, limit: limit)
            var oracles: [ClockOracle?] = []
            for (i, item) in judged.enumerated() {
                guard !item.saturates, let configuration = try? item.case.configuration() else { oracles.append(nil); continue }
                oracles.append(ClockOracle(
                    item.case, configuration: configuration, restTime: restTimes[i],
                    durations: clock.durations(hz: item.case.hz, count: frameCount), limit: limit))
            }
            var detectors: [(name: String, reported: [Int?])] = [("ours", ours)]
            for peer in peers {
                progress.note("settle clocks: \(clock.rawValue), \(peer.rawValue)")
                var durationsOfRate: [Double: [Double]] = [:]
                detectors.append((peer.rawValue, judged.map { item in
                    let hz = item.case.hz
                    let durations = durationsOfRate[hz] ?? clock.durations(hz: hz, count: frameCount)
                    durationsOfRate[hz] = durations
                    return PeerRestFrames.restFrame(item.case, detector: peer, durations: durations, limit: limit)
                }))
            }
            for (name, reported) in detectors {
            var early = 0, earlySampled = 0, within = 0, never = 0, saturated = 0, counted = 0
            var latencies: [Double] = []
            for (i, item) in judged.enumerated() {
                if item.saturates { saturated += 1; continue }
                guard let oracle = oracles[i], let r = oracle.restFrame else { continue }
                counted += 1
                guard let d = reported[i] else { never += 1; continue }
                let rc = oracle.continuousRestFrame ?? Int.max
                if d < r { earlySampled += 1 }
                if !fixed && d < rc { early += 1 }
                let bound = fixed ? max(r, 1) + 1 : max(rc, max(r, 1) + 1)
                if d >= r && d <= bound { within += 1 }
                latencies.append(Double(d - r))
            }
            let sorted = latencies.sorted()
            func rank(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))] }
            result.append(ClockSummary(
                clock: clock.rawValue, detector: name, kernel: kernel == .fixed ? "q16.16" : "float32", frameClock: fixed ? "fixed" : "variable",
                cases: counted, early: early, earlySampled: earlySampled, withinBound: counted == 0 ? 0 : Double(within) / Double(counted),
                neverRested: never, saturated: saturated,
                latencyFrames: DetectorSummary.LatencyPercentiles(p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: sorted.last ?? 0)))
            }
        }
        return result
    }

    static func table(_ summaries: [ClockSummary]) -> TextTable {
        var table = TextTable(header: ["detector", "kernel", "clock", "bank clock", "cases", "early (< R_c)", "early (< R)", "within bound", "never", "saturated", "latency p50/p99/max (frames vs R)"])
        for s in summaries {
            table.rows.append([
                s.detector ?? "ours", s.kernel, s.clock, s.frameClock, "\(s.cases)", "\(s.early)", "\(s.earlySampled)",
                String(format: "%.2f %%", s.withinBound * 100), "\(s.neverRested)", "\(s.saturated)",
                String(format: "%.0f / %.0f / %.0f", s.latencyFrames.p50, s.latencyFrames.p99, s.latencyFrames.max),
            ])
        }
        return table
    }
}
