import BenchStatistics
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Monotonic wall-clock time in seconds.
func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
}

/// This thread's CPU time in seconds: what it ran, not what the scheduler gave to others.
func threadCPUTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
}

/// Which clock a group of contenders is timed by.
enum TimingClock: String, Codable {
    /// The calling thread's CPU time: for groups whose every frame runs on that one thread. A
    /// shared machine time-slices its cores between processes (on these 2-vCPU VMs, with other
    /// builds running, this process got half a core), and a slice taken by another process
    /// inside a repeat is not the kernel's cost: wall time counted it, and ratios of interleaved
    /// repeats moved by up to 3x between two runs of the same code.
    case threadCPU = "thread-cpu"
    /// Wall time: for groups with a step on more than one thread (CPU time would add the threads').
    case wall

    /// The clock's reading in seconds.
    func now() -> Double {
        switch self {
        case .threadCPU: threadCPUTime()
        case .wall: SpringBench.now()
        }
    }
}

/// p0/p50/p90/p100 of a set of samples (nearest rank).
struct Percentiles: Codable, Hashable {
    var p0: Double
    var p50: Double
    var p90: Double
    var p100: Double

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty)
        let sorted = samples.sorted()
        func rank(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))] }
        p0 = rank(0)
        p50 = rank(0.5)
        p90 = rank(0.9)
        p100 = rank(1)
    }

    init(p0: Double, p50: Double, p90: Double, p100: Double) {
        self.p0 = p0
        self.p50 = p50
        self.p90 = p90
        self.p100 = p100
    }
}

/// One thing to time: a frame of work, and what to set up before each of its repeats.
struct Contender {
    var prepare: () -> Void = {}
    var frame: () throws -> Void
    /// Whether the frame is the kernel's or the layer's own code, which the hidden
    /// `SPRING_BENCH_SLOWDOWN_FOR_TESTING` factor slows (the C loops, probes and peers it never
    /// slows), so that `compare` can be shown a genuine regression.
    var isOurs = false
}

/// The repeats of a group of contenders, interleaved.
struct GroupTiming {
    /// Seconds per frame of each contender, one sample per repeat (sample i of every contender
    /// comes from round i: they are pairs).
    var samples: [[Double]]
    var framesPerRepeat: [Int]
    /// The rounds taken.
    var repeats: Int
    /// The group's time budget (nil: a fixed number of repeats).
    var budgetSeconds: Double?
    /// Seconds the repeats took.
    var seconds: Double
    /// Why the repeats stopped: `precision` (every judged interval within the rule's ±),
    /// `budget`, `cap` (the rule's most repeats) or `fixed` (`--repeats`).
    var stoppedBy: String
    /// The clock the repeats were timed by.
    var clock: TimingClock
}

/// Times frames the Box2D way (untimed warm-up, then repeats of a calibrated number of frames),
/// with the repeats of several contenders interleaved: repeat 1 of each, then repeat 2 of each...
/// On a shared machine whose speed drifts by ±15 % between runs, the ratio of two contenders
/// measured this way is the ratio of their costs under the same conditions, and the ratios of
/// one round are pairs, which the bootstrap resamples (``Bootstrap``).
///
/// Adaptive (no fixed `repeats`): rounds continue until the judged ratios' intervals are within
/// the rule's precision (±3 %), or the group's budget is spent (``StoppingRule``).
struct FrameTimer {
    /// A fixed number of rounds (`--repeats N`); nil: adaptive.
    var repeats: Int?
    /// Each repeat runs for about this long.
    var secondsPerRepeat: Double
    /// When adaptive rounds stop.
    var rule = StoppingRule(budgetSeconds: 3)
    /// The confidence level of the intervals the rule judges.
    var confidence = 0.95

    /// The injected slowdown of our own frames (1: none), from `SPRING_BENCH_SLOWDOWN_FOR_TESTING`:
    /// a test hook for `compare`, kept out of the README's main text.
    static let slowdown: Double = {
        guard let text = ProcessInfo.processInfo.environment["SPRING_BENCH_SLOWDOWN_FOR_TESTING"], let factor = Double(text),
              factor >= 1, factor <= 10 else { return 1 }
        return factor
    }()

    /// A fixed-repeat timer (the old interface).
    init(repeats: Int, secondsPerRepeat: Double) {
        self.repeats = repeats
        self.secondsPerRepeat = secondsPerRepeat
    }

    /// An adaptive timer.
    init(secondsPerRepeat: Double, rule: StoppingRule, confidence: Double, repeats: Int? = nil) {
        self.repeats = repeats
        self.secondsPerRepeat = secondsPerRepeat
        self.rule = rule
        self.confidence = confidence
    }

    /// Seconds per frame of each contender, one sample per repeat, and each one's frames per repeat.
    func secondsPerFrame(_ contenders: [Contender], warmUpFrames: Int = 3) throws -> [(samples: [Double], framesPerRepeat: Int)] {
        let timing = try measure(contenders, warmUpFrames: warmUpFrames)
        return zip(timing.samples, timing.framesPerRepeat).map { ($0, $1) }
    }

    /// Times the contenders; `judged` are the (numerator, denominator) pairs whose ratios the
    /// adaptive rule watches (none: each contender against the first).
    /// `clock` times the repeats (the budget is always wall time).
    func measure(_ contenders: [Contender], judged: [(Int, Int)] = [], warmUpFrames: Int = 3, clock: TimingClock = .wall) throws -> GroupTiming {
        var frames: [Int] = []
        for contender in contenders {
            contender.prepare()
            for _ in 0..<warmUpFrames { try contender.frame() }
            frames.append(try calibrate(contender, clock: clock))
        }
        let pairs = !judged.isEmpty ? judged : (contenders.count > 1 ? (1..<contenders.count).map { ($0, 0) } : [(0, 0)])
        var samples = [[Double]](repeating: [], count: contenders.count)
        let started = now()
        var rounds = 0
        var stoppedBy = repeats == nil ? "precision" : "fixed"
        while true {
            let roundStarted = now()
            for (i, contender) in contenders.enumerated() {
                contender.prepare()
                try contender.frame()  // untimed: the frame after a change of settings rebuilds its plan
                let start = clock.now()
                for _ in 0..<frames[i] { try contender.frame() }
                var end = clock.now()
                if contender.isOurs && Self.slowdown > 1 {
                    let until = start + (end - start) * Self.slowdown
                    while clock.now() < until {}
                    end = clock.now()
                }
                samples[i].append((end - start) / Double(frames[i]))
            }
            rounds += 1
            if let repeats {
                if rounds >= repeats { break }
                continue
            }
            let widest = pairs.compactMap { pair -> Interval? in
                pair.0 == pair.1
                    ? Bootstrap.medianInterval(samples[pair.0], confidence: confidence, resamples: 500)
                    : Bootstrap.medianInterval(Bootstrap.pairedRatios(samples[pair.0], samples[pair.1]), confidence: confidence, resamples: 500)
            }.max { $0.relativeHalfWidth < $1.relativeHalfWidth }
            let elapsed = now() - started
            if !rule.shouldContinue(widest: widest, repeats: rounds, elapsed: elapsed, secondsPerRound: now() - roundStarted) {
                if rounds >= rule.maximumRepeats { stoppedBy = "cap" }
                else if let widest, widest.relativeHalfWidth > rule.precision { stoppedBy = "budget" }
                break
            }
        }
        return GroupTiming(
            samples: samples, framesPerRepeat: frames, repeats: rounds, budgetSeconds: repeats == nil ? rule.budgetSeconds : nil,
            seconds: now() - started, stoppedBy: stoppedBy, clock: clock)
    }

    /// Frames that take about `secondsPerRepeat` on `clock`.
    private func calibrate(_ contender: Contender, clock: TimingClock) throws -> Int {
        var frames = 1
        while true {
            let start = clock.now()
            for _ in 0..<frames { try contender.frame() }
            let elapsed = clock.now() - start
            if elapsed >= secondsPerRepeat / 4 || frames >= 1 << 24 {
                return max(1, Int(Double(frames) * secondsPerRepeat / max(elapsed, 1e-9)))
            }
            frames *= 4
        }
    }
}
