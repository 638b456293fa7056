import BenchStatistics
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// spring-bench's one timer. Every figure it measures is timed here: groups of contenders by
// ``FrameTimer`` (interleaved repeats, adaptive or fixed, a frame's parts through ``FrameLaps``),
// a run under a profiler by ``FrameTimer/run(_:frames:seconds:warmUpFrames:clock:)``, and the
// noise meter's calibration loops by ``TimingClock/best(of:_:)``, on the clocks below. Elsewhere
// `now()` only tells how long a run or a phase took.

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

    /// The least of `repeats` timings of `body`, in seconds: a calibration loop's reading (the
    /// fastest run is the one least disturbed).
    func best(of repeats: Int, _ body: () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<max(1, repeats) {
            let start = now()
            body()
            best = min(best, now() - start)
        }
        return best
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
    /// Running totals the frame keeps (its parts' seconds on a ``FrameLaps``, things it counted),
    /// read before and after each timed repeat: their differences are the repeat's
    /// (``GroupTiming/tallies``). Nil: none.
    var tally: (() -> [Double])? = nil
}

/// A frame's parts timed apart on the timer's clock, as running totals: for a frame that must run
/// whole (a script whose parts feed each other: the input, the step, the delivery) but whose parts
/// are figures of their own. The frame calls ``start()``, then ``lap(_:)`` at the end of each part;
/// ``FrameTimer`` reads ``seconds`` through the contender's ``Contender/tally``.
///
/// A lap holds one reading of the clock besides its part (the end of the reading that began it,
/// the start of the one that ends it), and that is taken off: on these VMs this thread's CPU
/// clock is a system call of 1.2 us, an eighth of a 10K-spring frame, where the repeats a
/// ``FrameTimer`` times whole read it twice a repeat. The cost is the median gap between
/// back-to-back readings, measured once per clock.
final class FrameLaps {
    /// The clock the laps read: the one the ``FrameTimer`` times the repeats by.
    let clock: TimingClock
    /// Seconds spent in each part so far.
    private(set) var seconds: [Double]
    /// The injected slowdown of each part (1: none): every part is our own code.
    private let slowdown: Double
    /// The seconds one reading of `clock` adds to a lap.
    let readingCost: Double
    private var last = 0.0

    /// Laps of `parts` parts on `clock`.
    init(parts: Int, clock: TimingClock, slowdown: Double = FrameTimer.slowdown) {
        self.clock = clock
        self.seconds = [Double](repeating: 0, count: parts)
        self.slowdown = slowdown
        readingCost = Self.readingCost(of: clock)
    }

    /// The median gap between 201 back-to-back readings of `clock`, in seconds.
    static func readingCost(of clock: TimingClock) -> Double {
        var readings = [Double](repeating: 0, count: 202)
        for i in readings.indices { readings[i] = clock.now() }
        let gaps = (1..<readings.count - 1).map { readings[$0 + 1] - readings[$0] }.sorted()
        return gaps[gaps.count / 2]
    }

    /// The frame's first part begins.
    func start() { last = clock.now() }

    /// `part` ends (and the next begins).
    func lap(_ part: Int) {
        var end = clock.now()
        if slowdown > 1 {
            let until = last + (end - last) * slowdown
            while clock.now() < until {}
            end = clock.now()
        }
        seconds[part] += Swift.max(0, end - last - readingCost)
        last = end
    }
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
    /// Each contender's ``Contender/tally`` differences, one per repeat (empty: no tally).
    var tallies: [[[Double]]] = []
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
    /// Frames per repeat, instead of calibrating them to ``secondsPerRepeat`` (nil: calibrated).
    var framesPerRepeat: Int? = nil

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
    /// adaptive rule watches (none: each contender against the first), or `judgedFigures`, when
    /// given, the per-repeat figures it watches instead, from the samples and tallies so far.
    /// `clock` times the repeats (the budget is always wall time).
    func measure(
        _ contenders: [Contender], judged: [(Int, Int)] = [], judgedFigures: ((_ samples: [[Double]], _ tallies: [[[Double]]]) -> [[Double]])? = nil,
        warmUpFrames: Int = 3, clock: TimingClock = .wall
    ) throws -> GroupTiming {
        var frames: [Int] = []
        for contender in contenders {
            contender.prepare()
            for _ in 0..<warmUpFrames { try contender.frame() }
            frames.append(try framesPerRepeat ?? calibrate(contender, clock: clock))
        }
        let pairs = !judged.isEmpty ? judged : (contenders.count > 1 ? (1..<contenders.count).map { ($0, 0) } : [(0, 0)])
        var samples = [[Double]](repeating: [], count: contenders.count)
        var tallies = [[[Double]]](repeating: [], count: contenders.count)
        let started = now()
        var rounds = 0
        var stoppedBy = repeats == nil ? "precision" : "fixed"
        while true {
            let roundStarted = now()
            for (i, contender) in contenders.enumerated() {
                contender.prepare()
                try contender.frame()  // untimed: the frame after a change of settings rebuilds its plan
                let before = contender.tally?()
                let start = clock.now()
                for _ in 0..<frames[i] { try contender.frame() }
                var end = clock.now()
                if contender.isOurs && Self.slowdown > 1 {
                    let until = start + (end - start) * Self.slowdown
                    while clock.now() < until {}
                    end = clock.now()
                }
                samples[i].append((end - start) / Double(frames[i]))
                if let before, let after = contender.tally?() { tallies[i].append(zip(after, before).map { $0 - $1 }) }
            }
            rounds += 1
            if let repeats {
                if rounds >= repeats { break }
                continue
            }
            let watched = judgedFigures?(samples, tallies) ?? pairs.map { pair in
                pair.0 == pair.1 ? samples[pair.0] : Bootstrap.pairedRatios(samples[pair.0], samples[pair.1])
            }
            let widest = watched.compactMap { Bootstrap.medianInterval($0, confidence: confidence, resamples: 500) }
                .max { $0.relativeHalfWidth < $1.relativeHalfWidth }
            let elapsed = now() - started
            if !rule.shouldContinue(widest: widest, repeats: rounds, elapsed: elapsed, secondsPerRound: now() - roundStarted) {
                if rounds >= rule.maximumRepeats { stoppedBy = "cap" }
                else if let widest, widest.relativeHalfWidth > rule.precision { stoppedBy = "budget" }
                break
            }
        }
        return GroupTiming(
            samples: samples, framesPerRepeat: frames, repeats: rounds, budgetSeconds: repeats == nil ? rule.budgetSeconds : nil,
            seconds: now() - started, stoppedBy: stoppedBy, clock: clock, tallies: tallies)
    }

    /// Runs `contender`'s frame `frames` times, or (nil) for about `seconds`, in chunks of about
    /// 10 ms so that reading the clock costs nothing, untimed warm-up first: what `profile` runs
    /// under a profiler. Returns the frames run and the seconds they took on `clock`.
    static func run(_ contender: Contender, frames: Int?, seconds: Double, warmUpFrames: Int = 3, clock: TimingClock = .wall) throws -> (frames: Int, seconds: Double) {
        contender.prepare()
        for _ in 0..<warmUpFrames { try contender.frame() }
        var done = 0
        let start = clock.now()
        if let frames {
            for _ in 0..<frames { try contender.frame() }
            done = frames
        } else {
            var chunk = 1
            while clock.now() - start < seconds {
                let chunkStart = clock.now()
                for _ in 0..<chunk { try contender.frame() }
                done += chunk
                if clock.now() - chunkStart < 0.01 { chunk *= 2 }
            }
        }
        return (done, clock.now() - start)
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
