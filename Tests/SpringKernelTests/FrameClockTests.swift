import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel
import _SpringOracles

/// The frame clocks engines really have, as seeded sequences of frame durations.
enum TestFrameClock: String, CaseIterable, CustomStringConvertible {
    /// 1/hz every frame.
    case steady
    /// 1/hz × (1 + U(−15 %, +15 %)) every frame: a game's measured frame time.
    case jitter
    /// Stretches of 10–120 frames at 120, 80, 60 or 48 Hz: an adaptive-refresh display.
    case vrr
    /// 1/hz, with one frame in 50 a hitch of 0.05–0.6 s: loads and collector pauses.
    case hitch

    var description: String { rawValue }

    /// `count` frame durations for a nominal rate `hz`.
    func durations(hz: Double, count: Int, seed: UInt64) -> [Double] {
        var generator = SeededGenerator(seed: seed)
        var result: [Double] = []
        result.reserveCapacity(count)
        var stretchLeft = 0, stretchDuration = 1 / hz
        for _ in 0..<count {
            switch self {
            case .steady: result.append(1 / hz)
            case .jitter: result.append(1 / hz * (1 + Double.random(in: -0.15...0.15, using: &generator)))
            case .vrr:
                if stretchLeft == 0 {
                    stretchLeft = Int.random(in: 10...120, using: &generator)
                    stretchDuration = 1 / [120.0, 80, 60, 48].randomElement(using: &generator)!
                }
                stretchLeft -= 1
                result.append(stretchDuration)
            case .hitch:
                result.append(Int.random(in: 0..<50, using: &generator) == 0 ? Double.random(in: 0.05...0.6, using: &generator) : 1 / hz)
            }
        }
        return result
    }
}

/// The Float64 oracles for one spring stepped with given frame durations: R, the rest frame of the
/// frames actually taken (``ExactRest/restFrame``: the exact propagator of each frame's duration,
/// until the energy proves the rest), and R_c, the first frame that reaches T* (``ReferenceRest/restTime``).
struct FrameOracle {
    let restFrame: Int?
    let continuousRestFrame: Int?
    let restTime: Double

    init(_ c: SettleCase, durations: [Double], band: Double) {
        let configuration = c.configuration
        let d0 = Double(c.from) - Double(c.to), v0 = Double(c.velocity)
        restFrame = durations.isEmpty ? nil : ExactRest.restFrame(
            displacement: d0, velocity: v0, spring: ExactSpring(configuration), band: band, clock: .durations(durations),
            limit: durations.count - 1)
        restTime = ReferenceRest.restTime(displacement: d0, velocity: v0, tolerance: band, configuration: configuration)
        var clock = 0.0
        var continuous: Int?
        for (frame, dt) in durations.enumerated() {
            if clock >= restTime {
                continuous = frame
                break
            }
            clock += dt
        }
        continuousRestFrame = continuous
    }
}

@Suite("Frame clocks: rest under any frame durations")
struct FrameClockTests {
    /// Steps `cases` (one bank per nominal rate, as an engine would) with `clock`'s durations;
    /// returns each case's rest frame and its clock's durations.
    func restFrames<Lanes: SpringLaneArithmetic>(
        _ cases: [SettleCase], clock: TestFrameClock, lanes: Lanes.Type, frames: Int,
        value: (Float) -> Lanes.Value
    ) throws -> [(rest: Int?, durations: [Double])] {
        var result = [(rest: Int?, durations: [Double])](repeating: (nil, []), count: cases.count)
        for hz in Set(cases.map(\.hz)).sorted() {
            let durations = clock.durations(hz: hz, count: frames, seed: UInt64(hz * 1000))
            let bank = SpringBank<Lanes>()
            var handles: [SpringHandle: Int] = [:]
            for (i, c) in cases.enumerated() where c.hz == hz {
                let handle = try bank.add(
                    value: value(c.from), target: value(c.to), velocity: value(c.velocity), configuration: c.configuration,
                    tolerance: value(c.tolerance))
                handles[handle] = i
                result[i].durations = durations
            }
            for dt in durations where bank.awakeCount > 0 {
                try bank.step(dt: dt)
                for spring in bank.restedInLastStep { result[handles[spring]!].rest = bank.frame }
            }
            try bank._checkInvariants()
        }
        return result
    }

    @Test("float32: never early, and within max(R_c, R + 1), under steady, jittered, adaptive and hitching clocks", arguments: TestFrameClock.allCases)
    func float32Corpus(clock: TestFrameClock) throws {
        var generator = SeededGenerator(seed: 0xF00D)
        let cases = (0..<160).map { _ in SettleCase.random(using: &generator, maximumFrames: 1_500) }
        let rests = try restFrames(cases, clock: clock, lanes: Float32Lanes.self, frames: 4_000, value: { $0 })
        var early: [String] = [], late: [String] = []
        for (c, rest) in zip(cases, rests) {
            // The float32 lanes follow the exact motion to about 10⁻⁶ of it: judge against the band
            // widened (never early) and narrowed (not late) by a margin above that.
            let amplitude = abs(Double(c.from) - Double(c.to)) + abs(Double(c.velocity)) / c.configuration.tension.squareRoot()
            let margin = 1e-5 * amplitude
            let wide = FrameOracle(c, durations: rest.durations, band: Double(c.tolerance) + margin)
            let narrow = FrameOracle(c, durations: rest.durations, band: Double(c.tolerance) - margin)
            guard let reported = rest.rest, let r = wide.restFrame, let rc = wide.continuousRestFrame else {
                late.append("\(c): never rested within the run")
                continue
            }
            if reported < max(rc, 1) { early.append("\(c): R=\(r) R_c=\(rc) D=\(reported)") }
            if let narrowR = narrow.restFrame, let narrowRc = narrow.continuousRestFrame, reported > max(max(narrowRc, 1), narrowR + 1) {
                late.append("\(c): R=\(narrowR) R_c=\(narrowRc) D=\(reported)")
            }
        }
        #expect(early.isEmpty, "\(early.count) early under \(clock): \(early.prefix(3))")
        #expect(late.isEmpty, "\(late.count) late under \(clock): \(late.prefix(3))")
    }

    @Test("Q16.16: never early against the exact motion under every clock", arguments: TestFrameClock.allCases)
    func fixedPointCorpus(clock: TestFrameClock) throws {
        var generator = SeededGenerator(seed: 0xBEEF)
        // Within the format: motions whose energy its lanes hold (the others are refused at add).
        let probe = FixedSpringBank()
        func holds(_ c: SettleCase) -> Bool {
            guard abs(c.from) < 3000, abs(c.to) < 3000, abs(c.velocity) < 8000 else { return false }
            let value = Q16(Double(c.from))!, target = Q16(Double(c.to))!
            let velocity = Q16(Double(c.velocity))!, tolerance = Q16(Double(c.tolerance))!
            let added = try? probe.add(
                value: value, target: target, velocity: velocity, configuration: c.configuration, tolerance: tolerance)
            return added != nil
        }
        let cases = (0..<120).map { _ in SettleCase.random(using: &generator, maximumFrames: 1_500) }.filter(holds)
        #expect(cases.count > 60)
        let rests = try restFrames(cases, clock: clock, lanes: Q16Lanes.self, frames: 4_000, value: { Q16(Double($0))! })
        var early: [String] = []
        for (c, rest) in zip(cases, rests) {
            guard let reported = rest.rest else { continue }
            // The lanes hold the case to 2⁻¹⁶; each step rounds toward zero by at most an LSB.
            let margin = Double(reported + 2) * 2.0 / 65536
            let wide = FrameOracle(c, durations: rest.durations, band: Double(c.tolerance) + margin)
            if let rc = wide.continuousRestFrame, reported < max(rc, 1) { early.append("\(c): R_c=\(rc) D=\(reported)") }
        }
        #expect(early.isEmpty, "\(early.count) early under \(clock): \(early.prefix(3))")
    }

    @Test("a new dt every frame never snaps a spring the Float64 trajectory of the same frames would still take out of its band")
    func propertyNewDurationEveryFrame() throws {
        for seed in UInt64(1)...24 {
            var generator = SeededGenerator(seed: seed)
            let bank = SpringBank<Float32Lanes>()
            var models: [SpringHandle: ExactSpringModel] = [:]
            for _ in 0..<12 {
                let c = SettleCase.random(using: &generator, maximumFrames: 2_000)
                let handle = try bank.add(value: c.from, target: c.to, velocity: c.velocity, configuration: c.configuration, tolerance: c.tolerance)
                models[handle] = ExactSpringModel(
                    configuration: c.configuration, d: Double(c.from) - Double(c.to), v: Double(c.velocity), tolerance: Double(c.tolerance))
            }
            var frames = 0
            while bank.awakeCount > 0 && frames < 3_000 {
                let dt = Double.random(in: 0.002...0.05, using: &generator) * (Int.random(in: 0..<40, using: &generator) == 0 ? 10 : 1)
                try bank.step(dt: dt)
                frames += 1
                for handle in models.keys { models[handle]!.advance(by: dt) }
                for spring in bank.restedInLastStep {
                    let remaining = models[spring]!.motionLeftOutsideBand
                    #expect(remaining == 0, "seed \(seed): \(spring) snapped at frame \(frames) with \(remaining) s of motion outside its band left")
                    models[spring] = nil
                }
            }
        }
    }

    @Test("a spring retargeted every frame keeps one schedule entry, and rests on time after the last retarget")
    func retargetEveryFrame() throws {
        let bank = SpringBank<Float32Lanes>()
        let springs = try (0..<64).map { i in try bank.add(value: 0, target: Float(i), tolerance: 0.5) }
        var generator = SeededGenerator(seed: 7)
        for frame in 0..<3_000 {
            for (i, spring) in springs.enumerated() {
                // An attachment following a dragged target: a little further every frame, sometimes back.
                try bank.retarget(spring, to: Float(i) + Float(frame % 200) * (Bool.random(using: &generator) ? 1 : 0.9))
            }
            try bank.step(dt: 1.0 / 60 * (1 + Double.random(in: -0.15...0.15, using: &generator)))
            #expect(bank.core.schedule.count <= 2 * springs.count + 64)
        }
        let restTimes = try springs.map { try bank.restTime(of: $0) }
        let start = bank.time
        while bank.awakeCount > 0 { try bank.step(dt: 1.0 / 60) }
        #expect(bank.time >= start + restTimes.max()! && bank.time < start + restTimes.max()! + 1.0 / 60 + 1e-9)
    }

    @Test("a changed spring with no schedule entry is queued at its check; one whose check moves earlier than its entry, a tenth early")
    func checkQueuedAtDue() throws {
        let bank = SpringBank<Float32Lanes>(threading: .single)
        let spring = try bank.add(value: 400, target: 0, tolerance: 0.5)
        try bank.step(dt: 1.0 / 60)
        let index = try bank.core.recordIndex(spring)
        let first = bank.core.records[index]
        #expect(!first.dueIsRest && first.due > bank.time)
        // Popped early, it would only be queued again at its check.
        #expect(first.queuedDue == first.due)
        // Nearer its target: an earlier check than its entry, which it replaces, queued early.
        try bank.setState(of: spring, value: 20, velocity: 0)
        var model = ExactSpringModel(configuration: .default, d: 20, v: 0, tolerance: 0.5)
        let now = bank.time
        try bank.step(dt: 1.0 / 60)
        model.advance(by: 1.0 / 60)
        let changed = bank.core.records[index]
        #expect(!changed.dueIsRest && changed.due < first.due && changed.due > bank.time)
        #expect(changed.queuedDue == now + (changed.due - now) * 0.9)
        // Either way it rests on the frame the Float64 motion of the frames taken says: none of
        // that motion is left outside its band then, and some was on the frame before.
        var leftBefore = Double.infinity
        while bank.awakeCount > 0 {
            leftBefore = ReferenceRest.restTime(displacement: model.d, velocity: model.v, tolerance: 0.5, configuration: .default)
            try bank.step(dt: 1.0 / 60)
            model.advance(by: 1.0 / 60)
        }
        #expect(model.motionLeftOutsideBand == 0, "rested early")
        #expect(leftBefore > 0, "rested a frame late")
    }

    @Test("a schedule entry is live only at its record's queued time: a stale twin of the live entry, and stale entries due now, neither rest a spring early nor twice")
    func staleEntriesByTime() throws {
        for clock in [FrameClock.variable, .fixed(frameDuration: 1.0 / 60)] {
            let bank = SpringBank<Float32Lanes>(threading: .single)
            try bank.setFrameClock(clock)
            let spring = try bank.add(value: 400, target: 0, tolerance: 0.5)
            let other = try bank.add(value: -300, target: 0, tolerance: 0.5)
            try bank.step(dt: 1.0 / 60)
            var model = ExactSpringModel(configuration: .default, d: 400, v: 0, tolerance: 0.5)
            model.advance(by: 1.0 / 60)
            let index = try bank.core.recordIndex(spring)
            let queued = bank.core.records[index].queuedDue
            #expect(queued.isFinite)
            // What a record's history can leave in the heap: a twin of its live entry (queued at
            // t, replaced, popped and queued at t again), and entries it no longer has, due now
            // (a dropped entry's time, a replaced one's), for it and for the other spring.
            let now = bank.core.clockReading
            for (due, record) in [(queued, index), (now, index), (now, try bank.core.recordIndex(other))] {
                if bank.core.schedule.isFull { #expect(bank.core.schedule.growIfAvailable()) }
                bank.core.schedule.insert(due: due, spring: UInt32(record))
            }
            try bank._checkInvariants()
            var rests = 0, leftBefore = Double.infinity
            while try bank.isAtRest(spring) == false {
                leftBefore = ReferenceRest.restTime(displacement: model.d, velocity: model.v, tolerance: 0.5, configuration: .default)
                try bank.step(dt: 1.0 / 60)
                model.advance(by: 1.0 / 60)
                rests += bank.restedInLastStep.filter { $0 == spring }.count
                try bank._checkInvariants()
            }
            #expect(rests == 1, "\(clock): rested \(rests) times")
            #expect(model.motionLeftOutsideBand == 0, "\(clock): rested early")
            #expect(leftBefore > 0, "\(clock): rested a frame late")
            #expect(bank.core.queuedSprings == (try bank.isAtRest(other) ? 0 : 1))
        }
    }

    @Test("a declared fixed timestep refuses any other, changing nothing; the variable clock takes any")
    func fixedTimestepContract() throws {
        let bank = SpringBank<Float32Lanes>()
        let spring = try bank.add(value: 0, target: 100, tolerance: 0.5)
        try bank.setFrameClock(.fixed(frameDuration: 1.0 / 60))
        #expect(bank.frameClock == .fixed(frameDuration: 1.0 / 60))
        try bank.step(dt: 1.0 / 60)
        let hash = bank.stateHash()
        #expect(throws: SpringKernelError.timeStepMismatch(declared: 1.0 / 60, given: 1.0 / 61)) { try bank.step(dt: 1.0 / 61) }
        #expect(bank.stateHash() == hash && bank.frame == 1)
        #expect(throws: SpringKernelError.invalidTimeStep(0)) { try bank.setFrameClock(.fixed(frameDuration: 0)) }
        #expect(throws: SpringKernelError.self) { try bank.setFrameClock(.fixed(frameDuration: .nan)) }
        #expect(bank.frameClock == .fixed(frameDuration: 1.0 / 60))
        var frames = 1
        while try !bank.isAtRest(spring) { try bank.step(dt: 1.0 / 60); frames += 1 }
        #expect(frames == 24)  // R for the default spring, 0 → 100 at 60 Hz (ANCHORS)
        try bank.setFrameClock(.variable)
        try bank.retarget(spring, to: 0)
        try bank.step(dt: 1.0 / 61)
        try bank.step(dt: 0.3)
        try bank._checkInvariants()
    }
}

@Suite("Settling duration")
struct SettlingDurationTests {
    @Test("a configuration's settling duration is the oracle's T*, and NaN for unusable input")
    func matchesOracle() throws {
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<40 {
            let c = SettleCase.random(using: &generator, maximumFrames: 2_000)
            let distance = Double(c.from) - Double(c.to)
            let duration = c.configuration.settlingDuration(distance: distance, initialVelocity: Double(c.velocity), tolerance: Double(c.tolerance))
            let oracle = ReferenceRest.restTime(displacement: distance, velocity: Double(c.velocity), tolerance: Double(c.tolerance), configuration: c.configuration)
            #expect(duration >= oracle - 1e-9 && duration <= oracle + 1e-6, "\(c): \(duration) against \(oracle)")
        }
        #expect(SpringConfiguration.default.settlingDuration(distance: .nan, tolerance: 0.5).isNaN)
        #expect(SpringConfiguration.default.settlingDuration(distance: 1, tolerance: 0).isNaN)
        #expect(SpringConfiguration.default.settlingDuration(distance: 0.1, tolerance: 0.5) == 0)
    }
}
