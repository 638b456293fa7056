#if canImport(Glibc)
import Glibc
#endif

/// Monotonic wall-clock time in seconds.
func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
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
}

/// Times frames the Box2D way (untimed warm-up, then repeats of a calibrated number of frames),
/// with the repeats of several contenders interleaved: repeat 1 of each, then repeat 2 of each...
/// On a shared machine whose speed drifts by ±15 % between runs, the ratio of two contenders
/// measured this way is the ratio of their costs under the same conditions.
struct FrameTimer {
    var repeats: Int
    /// Each repeat runs for about this long.
    var secondsPerRepeat: Double

    /// Seconds per frame of each contender, one sample per repeat, and each one's frames per repeat.
    func secondsPerFrame(_ contenders: [Contender], warmUpFrames: Int = 3) throws -> [(samples: [Double], framesPerRepeat: Int)] {
        var frames: [Int] = []
        for contender in contenders {
            contender.prepare()
            for _ in 0..<warmUpFrames { try contender.frame() }
            frames.append(try calibrate(contender))
        }
        var samples = [[Double]](repeating: [], count: contenders.count)
        for _ in 0..<repeats {
            for (i, contender) in contenders.enumerated() {
                contender.prepare()
                try contender.frame()  // untimed: the frame after a change of settings rebuilds its plan
                let start = now()
                for _ in 0..<frames[i] { try contender.frame() }
                samples[i].append((now() - start) / Double(frames[i]))
            }
        }
        return zip(samples, frames).map { ($0, $1) }
    }

    /// Frames that take about `secondsPerRepeat`.
    private func calibrate(_ contender: Contender) throws -> Int {
        var frames = 1
        while true {
            let start = now()
            for _ in 0..<frames { try contender.frame() }
            let elapsed = now() - start
            if elapsed >= secondsPerRepeat / 4 || frames >= 1 << 24 {
                return max(1, Int(Double(frames) * secondsPerRepeat / max(elapsed, 1e-9)))
            }
            frames *= 4
        }
    }
}
