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

/// Times `frame` the Box2D way: untimed warm-up, then repeats of a calibrated number of frames.
struct FrameTimer {
    var repeats: Int
    /// Each repeat runs for about this long.
    var secondsPerRepeat: Double

    /// Seconds per frame, one sample per repeat.
    func secondsPerFrame<Failure: Error>(
        warmUpFrames: Int = 3, _ frame: () throws(Failure) -> Void
    ) throws(Failure) -> (samples: [Double], framesPerRepeat: Int) {
        for _ in 0..<warmUpFrames { try frame() }
        var frames = 1
        while true {
            let start = now()
            for _ in 0..<frames { try frame() }
            let elapsed = now() - start
            if elapsed >= secondsPerRepeat / 4 || frames >= 1 << 24 {
                frames = max(1, Int(Double(frames) * secondsPerRepeat / max(elapsed, 1e-9)))
                break
            }
            frames *= 4
        }
        var samples: [Double] = []
        for _ in 0..<repeats {
            let start = now()
            for _ in 0..<frames { try frame() }
            samples.append((now() - start) / Double(frames))
        }
        return (samples, frames)
    }
}
