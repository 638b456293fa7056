/// Estimates a gesture's velocity from its recent samples: the slope of the least-squares line
/// through the samples of the last `window` seconds, for each axis.
///
/// A least-squares slope is exact for a steady drag however irregular the frame times, and it
/// averages jitter rather than amplifying it the way a two-sample difference does. Samples with
/// the same timestamp (a burst) are merged into the latest one, so a time difference is never
/// zero; fewer than two distinct times, or a time spread too small to divide by, give zero.
/// Samples are kept in a fixed ring, so adding one allocates nothing.
struct GestureVelocityEstimator {
    struct Sample {
        var time: Double
        var x: Double
        var y: Double
    }

    static let capacity = 12
    /// The smallest Σ(t − t̄)² the slope is divided by (a spread of about a microsecond): below it
    /// the samples carry no usable timing.
    static let minimumTimeSpread = 1e-12

    let window: Double
    private var samples = [Sample](repeating: Sample(time: 0, x: 0, y: 0), count: capacity)
    private var newest = 0
    private(set) var count = 0

    init(window: Double) {
        self.window = window
    }

    mutating func reset() {
        count = 0
    }

    /// Adds a sample. `time` must not be earlier than the newest sample's (the recognizer clamps
    /// it); a sample at the same time replaces the newest one's position.
    mutating func add(time: Double, x: Double, y: Double) {
        if count > 0, time <= samples[newest].time {
            samples[newest].x = x
            samples[newest].y = y
            return
        }
        newest = (newest + 1) % Self.capacity
        samples[newest] = Sample(time: time, x: x, y: y)
        count = min(count + 1, Self.capacity)
    }

    /// The velocity at the newest sample, in translation units per second; finite always.
    func velocity() -> (x: Double, y: Double) {
        guard count >= 2 else { return (0, 0) }
        let latest = samples[newest].time
        // Times relative to the newest sample keep the sums well conditioned.
        var used = 0
        var sumT = 0.0, sumX = 0.0, sumY = 0.0
        for age in 0..<count {
            let sample = samples[(newest - age + Self.capacity) % Self.capacity]
            guard latest - sample.time <= window else { break }
            sumT += sample.time - latest
            sumX += sample.x
            sumY += sample.y
            used += 1
        }
        guard used >= 2 else { return (0, 0) }
        let n = Double(used)
        let meanT = sumT / n, meanX = sumX / n, meanY = sumY / n
        var spread = 0.0, covarianceX = 0.0, covarianceY = 0.0
        for age in 0..<used {
            let sample = samples[(newest - age + Self.capacity) % Self.capacity]
            let t = sample.time - latest - meanT
            spread += t * t
            covarianceX += t * (sample.x - meanX)
            covarianceY += t * (sample.y - meanY)
        }
        guard spread >= Self.minimumTimeSpread else { return (0, 0) }
        let vx = covarianceX / spread, vy = covarianceY / spread
        guard vx.isFinite, vy.isFinite else { return (0, 0) }
        return (vx, vy)
    }
}
