/// Estimates a gesture's velocity from its recent samples: the slope of the least-squares line
/// through the samples of the last `window` seconds, for each axis.
///
/// A least-squares slope is exact for a steady drag however irregular the frame times, and it
/// averages jitter rather than amplifying it the way a two-sample difference does. Samples with
/// the same timestamp (a burst) are merged into the latest one, so a time difference is never
/// zero; fewer than two distinct times, or a time spread too small to divide by, give zero.
/// Samples are kept in a fixed ring (``GestureSampleRing``) that the recognizer holds only while
/// its gesture is active, so adding one allocates nothing, and a recognizer at rest carries no
/// samples.
struct GestureVelocityEstimator {
    /// Samples kept: a 0.1 s window of 120 Hz input fits with room to spare.
    static let capacity = GestureSampleRing.capacity
    /// The smallest Σ(t − t̄)² the slope is divided by (a spread of about a microsecond): below it
    /// the samples carry no usable timing.
    static let minimumTimeSpread = 1e-12

    let window: Double
    // Small, so the estimator and the recognizer's other fields share its first cache lines.
    private var newest: Int32 = 0
    private(set) var count: Int32 = 0
    /// The newest sample's time (while `count` > 0), which every ``add(time:x:y:)`` compares
    /// with: kept here, beside the recognizer's fields, so that an add only writes the ring. The
    /// ring's line is cold by the next event (a frame of 13,000 Tossables touches every one's
    /// objects); reading it was the add's one load miss (`spring-bench interactions`, perf).
    private var newestTime = 0.0
    /// The samples, while a gesture is active (see ``GestureRecognizer``): nil otherwise.
    var ring: GestureSampleRing?

    init(window: Double) {
        self.window = window
    }

    mutating func reset() {
        count = 0
    }

    /// Adds a sample. `time` must not be earlier than the newest sample's (the recognizer clamps
    /// it); a sample at the same time replaces the newest one's position. Needs a ``ring``.
    mutating func add(time: Double, x: Double, y: Double) {
        guard let ring else { return }
        let sameTime = count > 0 && time <= newestTime
        if !sameTime {
            newest = (newest + 1) % Int32(Self.capacity)
            count = min(count + 1, Int32(Self.capacity))
            newestTime = time
        }
        ring.store(time: sameTime ? nil : time, x: x, y: y, at: Int(newest))
    }

    /// The velocity at the newest sample, in translation units per second; finite always.
    func velocity() -> (x: Double, y: Double) {
        guard count >= 2, let ring else { return (0, 0) }
        let count = Int(self.count), newest = Int(self.newest)
        let doubles = ring.doubles
        func sample(_ index: Int) -> (time: Double, x: Double, y: Double) {
            (doubles[3 * index], doubles[3 * index + 1], doubles[3 * index + 2])
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

/// The samples of one active gesture: 16 of them, sample i at doubles 3i, 3i + 1, 3i + 2 (time,
/// x, y) of one buffer, so adding one writes one cache line (two at most), not one in each of
/// three arrays. The estimator holds the buffer itself (no object around it: one load less on
/// every event).
///
/// A recognizer holds a ring only while its gesture is active: it borrows one as the gesture
/// begins, from the element it is attached to (``MotionElement``'s idle rings, which double as
/// more gestures are active at once on that element than ever before and are then reused, so an
/// event allocates nothing once warmed up), and gives it back as the gesture ends. A recognizer
/// attached to no element makes its own and keeps it for its next gesture. Whoever holds a ring
/// frees it as it goes away (the recognizer, or the element its idle rings).
struct GestureSampleRing {
    /// Samples kept.
    static let capacity = 16

    /// The samples, time, x and y each.
    let doubles: UnsafeMutablePointer<Double>

    /// A new ring (zeroed).
    static func make() -> GestureSampleRing {
        let doubles = UnsafeMutablePointer<Double>.allocate(capacity: 3 * capacity)
        doubles.initialize(repeating: 0, count: 3 * capacity)
        return GestureSampleRing(doubles: doubles)
    }

    /// Frees the ring; it must not be used again.
    func deallocate() {
        doubles.deallocate()
    }

    /// Sample `index`.
    @inline(__always)
    func sample(_ index: Int) -> (time: Double, x: Double, y: Double) {
        (doubles[3 * index], doubles[3 * index + 1], doubles[3 * index + 2])
    }

    /// Writes sample `index`'s position, and its time unless `time` is nil.
    @inline(__always)
    func store(time: Double?, x: Double, y: Double, at index: Int) {
        if let time { doubles[3 * index] = time }
        doubles[3 * index + 1] = x
        doubles[3 * index + 2] = y
    }
}
