/// Estimates a gesture's velocity from its recent samples: the slope of the least-squares line
/// through the samples of the last `window` seconds, for each axis.
///
/// A least-squares slope is exact for a steady drag however irregular the frame times, and it
/// averages jitter rather than amplifying it the way a two-sample difference does. Samples with
/// the same timestamp (a burst) are merged into the latest one, so a time difference is never
/// zero; fewer than two distinct times, or a time spread too small to divide by, give zero.
/// Samples are kept in a fixed ring inline in the estimator, so adding one allocates nothing.
struct GestureVelocityEstimator {
    /// Samples kept: a 0.1 s window of 120 Hz input fits with room to spare.
    static let capacity = 16
    /// The smallest Σ(t − t̄)² the slope is divided by (a spread of about a microsecond): below it
    /// the samples carry no usable timing.
    static let minimumTimeSpread = 1e-12

    let window: Double
    // A ring inline in the recognizer (no buffer of its own: one object, fewer cache misses per event).
    private var times = SIMD16<Double>()
    private var xs = SIMD16<Double>()
    private var ys = SIMD16<Double>()
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
        if count > 0, time <= times[newest] {
            xs[newest] = x
            ys[newest] = y
            return
        }
        newest = (newest + 1) % Self.capacity
        times[newest] = time
        xs[newest] = x
        ys[newest] = y
        count = min(count + 1, Self.capacity)
    }

    /// The velocity at the newest sample, in translation units per second; finite always.
    func velocity() -> (x: Double, y: Double) {
        guard count >= 2 else { return (0, 0) }
        let latest = times[newest]
        // Times relative to the newest sample keep the sums well conditioned.
        var used = 0
        var sumT = 0.0, sumX = 0.0, sumY = 0.0
        for age in 0..<count {
            let at = (newest - age + Self.capacity) % Self.capacity
            guard latest - times[at] <= window else { break }
            sumT += times[at] - latest
            sumX += xs[at]
            sumY += ys[at]
            used += 1
        }
        guard used >= 2 else { return (0, 0) }
        let n = Double(used)
        let meanT = sumT / n, meanX = sumX / n, meanY = sumY / n
        var spread = 0.0, covarianceX = 0.0, covarianceY = 0.0
        for age in 0..<used {
            let at = (newest - age + Self.capacity) % Self.capacity
            let t = times[at] - latest - meanT
            spread += t * t
            covarianceX += t * (xs[at] - meanX)
            covarianceY += t * (ys[at] - meanY)
        }
        guard spread >= Self.minimumTimeSpread else { return (0, 0) }
        let vx = covarianceX / spread, vy = covarianceY / spread
        guard vx.isFinite, vy.isFinite else { return (0, 0) }
        return (vx, vy)
    }
}
