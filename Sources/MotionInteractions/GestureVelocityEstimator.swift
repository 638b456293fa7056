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
    private var newest = 0
    private(set) var count = 0
    // A ring inline in the recognizer (no buffer of its own: one object, fewer cache misses per
    // event), sample i at doubles 3i, 3i + 1, 3i + 2 (time, x, y): adding a sample writes one
    // cache line (two at most), not one in each of three arrays.
    private var ring = (SIMD16<Double>(), SIMD16<Double>(), SIMD16<Double>())

    init(window: Double) {
        self.window = window
    }

    mutating func reset() {
        count = 0
    }

    /// Adds a sample. `time` must not be earlier than the newest sample's (the recognizer clamps
    /// it); a sample at the same time replaces the newest one's position.
    mutating func add(time: Double, x: Double, y: Double) {
        let sameTime = count > 0 && time <= sample(newest).time
        if !sameTime {
            newest = (newest + 1) % Self.capacity
            count = min(count + 1, Self.capacity)
        }
        let offset = 24 * newest
        withUnsafeMutableBytes(of: &ring) { bytes in
            if !sameTime { bytes.storeBytes(of: time, toByteOffset: offset, as: Double.self) }
            bytes.storeBytes(of: x, toByteOffset: offset + 8, as: Double.self)
            bytes.storeBytes(of: y, toByteOffset: offset + 16, as: Double.self)
        }
    }

    /// Sample `index` of the ring.
    @inline(__always)
    private func sample(_ index: Int) -> (time: Double, x: Double, y: Double) {
        withUnsafeBytes(of: ring) { bytes in
            (bytes.load(fromByteOffset: 24 * index, as: Double.self), bytes.load(fromByteOffset: 24 * index + 8, as: Double.self),
             bytes.load(fromByteOffset: 24 * index + 16, as: Double.self))
        }
    }

    /// The velocity at the newest sample, in translation units per second; finite always.
    func velocity() -> (x: Double, y: Double) {
        guard count >= 2 else { return (0, 0) }
        return withUnsafeBytes(of: ring) { bytes in
            func sample(_ index: Int) -> (time: Double, x: Double, y: Double) {
                (bytes.load(fromByteOffset: 24 * index, as: Double.self), bytes.load(fromByteOffset: 24 * index + 8, as: Double.self),
                 bytes.load(fromByteOffset: 24 * index + 16, as: Double.self))
            }
            let latest = sample(newest).time
            // Times relative to the newest sample keep the sums well conditioned.
            var used = 0
            var sumT = 0.0, sumX = 0.0, sumY = 0.0
            for age in 0..<count {
                let at = sample((newest - age + Self.capacity) % Self.capacity)
                guard latest - at.time <= window else { break }
                sumT += at.time - latest
                sumX += at.x
                sumY += at.y
                used += 1
            }
            guard used >= 2 else { return (0, 0) }
            let n = Double(used)
            let meanT = sumT / n, meanX = sumX / n, meanY = sumY / n
            var spread = 0.0, covarianceX = 0.0, covarianceY = 0.0
            for age in 0..<used {
                let at = sample((newest - age + Self.capacity) % Self.capacity)
                let t = at.time - latest - meanT
                spread += t * t
                covarianceX += t * (at.x - meanX)
                covarianceY += t * (at.y - meanY)
            }
            guard spread >= Self.minimumTimeSpread else { return (0, 0) }
            let vx = covarianceX / spread, vy = covarianceY / spread
            guard vx.isFinite, vy.isFinite else { return (0, 0) }
            return (vx, vy)
        }
    }
}
