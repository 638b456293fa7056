@_spi(KernelInternals) import SpringKernel

/// The settle detectors spring-bench puts beside the kernel's own (`ours`), each a published rule.
/// The velocity thresholds watch the trajectory their own library computes (its RK4 in 1 ms
/// substeps, interpolation and all, in Float64: ``ReboundSpring``, ``POPSpring``); the frame
/// watcher watches the exact trajectory, as it would watch a view the kernel moves. Frame j is
/// the state after j steps.
enum PeerDetector: String, CaseIterable, Codable {
    /// Rebound's `Spring.isAtRest`, checked after each frame: |v| <= 0.005 and |x - end| <= 0.005,
    /// absolute, whatever the value's units (`mRestSpeedThreshold`,
    /// `mDisplacementFromRestThreshold`, both 0.005 by default).
    case rebound = "velocity-threshold-rebound"
    /// POP's `isDone` for a spring animation, checked after each frame: the animation has converged
    /// (from the second frame: |to - x_j| < t/5 and |x_{j-1} - x_j| < t/5) or its solver has
    /// (`SpringSolver::hasConverged`: every |x - to| < t/2, |v|² < 25 t and |a|² < 625 t²), with the
    /// property's threshold t: 1.0 for points (`kPOPThresholdPoint`), 0.01 for opacity
    /// (`kPOPThresholdOpacity`); for another tolerance, the point rule scaled so that t/2 is it.
    case pop = "velocity-threshold-pop"
    /// The "Detecting Pauses" chapter's frame watcher (Listing 6-2): the value is steady when it
    /// is within a laxity of the frame it last changed at; rest is reported once it has been steady
    /// for 0.1 s (6 frames at 60 Hz: `count > kThreshold` with kThreshold 5). The laxity is the
    /// case's tolerance.
    case frameWatcher = "frame-watcher"

    /// The seconds a frame watcher waits.
    static let watchWindowSeconds = 0.1

    /// POP's threshold for a value of this tolerance: the published one for points (0.5) and
    /// opacities (1/256).
    static func popThreshold(tolerance: Float) -> Double {
        if tolerance == 0.5 { return 1.0 }
        if tolerance == 1 / 256 { return 0.01 }
        return 2 * Double(tolerance)
    }

    /// The frames a watcher waits at `hz` (0.1 s, at least one frame).
    static func watchFrames(hz: Double) -> Int { max(1, Int((watchWindowSeconds * hz).rounded(.up))) }
}

extension ReboundSpring {
    /// The spring of a settle case (tension and friction per unit mass), overshoot clamping off.
    init(_ c: SettleCase) {
        self.init(
            position: Double(c.from), velocity: Double(c.velocity), endValue: Double(c.to),
            tension: c.tension / c.mass, friction: c.friction / c.mass)
    }
}

extension POPSpring {
    /// A one-component animation of a settle case.
    init(_ c: SettleCase, threshold: Double) throws {
        self.init(
            from: [Double(c.from), 0, 0, 0], to: [Double(c.to), 0, 0, 0], velocity: [Double(c.velocity), 0, 0, 0],
            configuration: try c.configuration(), threshold: threshold)
    }
}

/// The chapter's frame watcher along one value: steady while within `laxity` of the value it last
/// changed at; rest once steady for `frames` frames in a row.
struct FrameWatcher {
    let laxity: Double
    let frames: Int
    private var reference: Double
    private var steadyFrames = 0

    /// A watcher whose first reference is `start`.
    init(start: Double, laxity: Double, frames: Int) {
        reference = start
        self.laxity = laxity
        self.frames = frames
    }

    /// Looks at the value of the next frame; returns whether rest is reported on it.
    mutating func observe(_ value: Double) -> Bool {
        guard abs(value - reference) < laxity else {
            reference = value
            steadyFrames = 0
            return false
        }
        steadyFrames += 1
        return steadyFrames >= frames
    }
}

/// The peer detectors' rest frames for a case (nil for one that had not fired within `limit` frames).
enum PeerRestFrames {
    /// Each detector's rest frame for `c`.
    static func restFrames(
        _ c: SettleCase, detectors: [PeerDetector], popThreshold: Double? = nil, limit: Int = 10_000_000
    ) -> [Int?] {
        detectors.map { restFrame(c, detector: $0, popThreshold: popThreshold, limit: limit) }
    }

    /// The frame (state after that many steps of 1/hz) on which `detector` reports rest.
    static func restFrame(_ c: SettleCase, detector: PeerDetector, popThreshold: Double? = nil, limit: Int = 10_000_000) -> Int? {
        restFrame(c, detector: detector, durations: [c.frameDuration], popThreshold: popThreshold, limit: limit)
    }

    /// The frame on which `detector` reports rest when its frames last `durations` (cycled): the
    /// peers take the measured frame time, as the kernel does.
    static func restFrame(
        _ c: SettleCase, detector: PeerDetector, durations: [Double], popThreshold: Double? = nil, limit: Int = 10_000_000
    ) -> Int? {
        func dt(_ frame: Int) -> Double { durations[(frame - 1) % durations.count] }
        switch detector {
        case .rebound:
            var spring = ReboundSpring(c)
            for frame in 1...limit {
                spring.advance(dt(frame))
                if spring.isAtRest { return frame }
                // RK4 in 1 ms steps diverges once a rate exceeds ~2.8 per ms (friction/mass above
                // ~2800 here): such a spring never rests in the peer either.
                if !spring.position.isFinite { return nil }
            }
        case .pop:
            guard var spring = try? POPSpring(c, threshold: popThreshold ?? PeerDetector.popThreshold(tolerance: c.tolerance)) else { return nil }
            for frame in 1...limit {
                if spring.advance(dt(frame)) { return frame }
                if !spring.p.sum().isFinite { return nil }
            }
        case .frameWatcher:
            guard let configuration = try? c.configuration() else { return nil }
            let motion = SpringMotion(configuration)
            // One propagator per distinct duration, made once.
            var propagators: [UInt64: SpringPropagator] = [:]
            var d = Double(c.from) - Double(c.to), v = Double(c.velocity)
            var watcher = FrameWatcher(start: d, laxity: Double(c.tolerance), frames: PeerDetector.watchFrames(hz: c.hz))
            for frame in 1...limit {
                let duration = dt(frame)
                let step = propagators[duration.bitPattern] ?? motion.propagator(over: duration)
                if propagators.count < 256 { propagators[duration.bitPattern] = step }
                (d, v) = step.apply(displacement: d, velocity: v)
                if watcher.observe(d) { return frame }
            }
        }
        return nil
    }
}
