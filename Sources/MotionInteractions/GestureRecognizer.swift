#if !$Embedded
import Foundation
#endif

/// A platform-neutral continuous gesture (a drag, or any gesture whose progress is a 2-D
/// translation), fed by timestamped events from an engine's input layer. Rotations and pinches
/// have their own recognizers (``RotationGestureRecognizer``, ``PinchGestureRecognizer``), which
/// track their progress with one of these.
///
/// <!-- fragment: layer -->
/// ```swift
/// let drag = GestureRecognizer()
/// drag.handle(.began(timestamp: 0))
/// drag.handle(.changed(translation: CGPoint(x: 0, y: 12), timestamp: 1.0 / 60))
/// drag.handle(.ended(translation: CGPoint(x: 0, y: 25), timestamp: 2.0 / 60))
/// print(drag.velocity)   // the release velocity, about (0, 750) points per second
/// ```
///
/// ## Bad input
/// - An event that does not fit the state (`changed`, `ended` or `cancelled` with no gesture in
///   progress, `began` during one) is ignored: nothing changes, observers are not called,
///   ``handle(_:)`` returns false and ``ignoredEventCount`` counts it.
/// - An event out of time order (a timestamp earlier than the newest one seen) is applied, but
///   as if it arrived at the newest timestamp: its translation is the latest news about the
///   finger, and its time cannot be trusted. The velocity estimate merges it with the newest
///   sample like any burst of events with one timestamp.
/// - A non-finite timestamp is treated the same way; a non-finite translation is replaced by the
///   last translation.
///
/// The velocity is never infinite or NaN: see ``velocity``.
public final class GestureRecognizer {
    // Every access to the recognizer's state is a single statement and `handle(_:)` notifies its
    // observers only after its last write, so an observer reading the recognizer (or handing it
    // a nested event) never overlaps an access in progress: no runtime exclusivity checks, which
    // cost `handle(_:)` fifteen calls an event.

    // The small fields first, together in one word (a class's fields are laid out in declaration
    // order), so that a recognizer at rest fits a smaller heap block.
    /// Where the gesture is in its life.
    @exclusivity(unchecked) public private(set) var state: GestureRecognitionState = .possible
    /// Whether ``newestTimestamp`` holds an event's timestamp (none before the first event).
    @exclusivity(unchecked) private var hasTimestamp = false
    /// Where the recognizer is in its ``view``'s list of attached recognizers.
    var placeInView: Int32 = 0
    /// The total movement since the gesture began, in input points.
    @exclusivity(unchecked) public private(set) var translation: CGPoint = .zero
    /// The newest timestamp accepted, once ``hasTimestamp``.
    @exclusivity(unchecked) private var newestTimestamp = 0.0
    /// Events ignored because they did not fit the state.
    @exclusivity(unchecked) public private(set) var ignoredEventCount = 0
    /// The element the recognizer is attached to (see ``MotionElement/addGestureRecognizer(_:)``).
    /// Not retained: an element clears it in every recognizer still attached as it goes away.
    public internal(set) unowned(unsafe) var view: MotionElement?

    /// The newest timestamp accepted, or nil before the first event.
    public var timestamp: Double? { hasTimestamp ? newestTimestamp : nil }
    /// The fastest velocity reported, in input points per second; faster estimates are scaled
    /// down to it, keeping their direction.
    public let maximumSpeed: Double
    /// How far back, in seconds, samples count towards the velocity.
    public var velocityWindow: Double { estimator.window }

    @exclusivity(unchecked) private var releaseVelocity = CGPoint.zero
    /// The observers, in the recognizer itself (no list object: one cache miss less per event).
    @exclusivity(unchecked) var observerChain = ObserverChain<GestureRecognizer>()
    /// The velocity estimate; its sample ring is held only while the gesture is active (borrowed
    /// from ``view`` as it begins and given back as it ends: see ``GestureSampleRing``), so a
    /// recognizer at rest is a small object.
    @exclusivity(unchecked) private var estimator: GestureVelocityEstimator

    /// A recognizer in the `.possible` state.
    ///
    /// - Parameters:
    ///   - maximumSpeed: the fastest velocity reported, in points per second (a fast flick is a
    ///     few thousand); a non-finite or non-positive value means no limit beyond finiteness.
    ///   - velocityWindow: how many seconds of recent samples the velocity is estimated from.
    public init(maximumSpeed: Double = 20_000, velocityWindow: Double = 0.1) {
        self.maximumSpeed = maximumSpeed.isFinite && maximumSpeed > 0 ? maximumSpeed : .greatestFiniteMagnitude
        estimator = GestureVelocityEstimator(window: velocityWindow.isFinite && velocityWindow > 0 ? velocityWindow : 0.1)
    }

    deinit {
        releaseObservers()
        estimator.ring?.deallocate()
    }

    /// Whether the gesture is in progress (`.began` or `.changed`).
    public var isActive: Bool { state == .began || state == .changed }

    /// The velocity, in input points per second: while the gesture is in progress, the estimate
    /// at its newest sample; after it ended, the release velocity; otherwise zero (a cancelled
    /// gesture has no release velocity).
    ///
    /// Estimated by a least-squares fit over the samples of the last ``velocityWindow`` seconds,
    /// so it is exact for a steady drag whatever the frame times; a single sample, or samples
    /// that share one timestamp, give zero; it is always finite and at most ``maximumSpeed``: a
    /// faster one (a flick of 10¹⁶⁰ pt/s, or one past `Double`) is capped at ``maximumSpeed`` in
    /// its own direction, never dropped to zero.
    public var velocity: CGPoint {
        switch state {
        case .began, .changed: currentEstimate()
        case .ended: releaseVelocity
        case .possible, .cancelled: .zero
        }
    }

    /// ``translation`` in the coordinate space of `space` (unchanged when `space` is nil).
    public func translation(in space: MotionElement?) -> CGPoint {
        space?.convertFromInput(translation) ?? translation
    }

    /// ``velocity`` in the coordinate space of `space` (unchanged when `space` is nil).
    public func velocity(in space: MotionElement?) -> CGPoint {
        space?.convertFromInput(velocity) ?? velocity
    }

    /// Calls `body` after every event the recognizer accepts, until the subscription is cancelled.
    public func observe(_ body: @escaping (GestureRecognizer) -> Void) -> Subscription {
        addObserver(body)
    }

    /// Adds one of the layer's own observers (it is its own subscription).
    func add(_ observation: Observation<GestureRecognizer>) {
        addObserver(observation)
    }

    /// Applies one input event and notifies the observers; returns false when the event was
    /// ignored because it did not fit the state (see the type's bad-input policy).
    @discardableResult
    public func handle(_ event: GestureEvent) -> Bool {
        let time = acceptedTime(event.timestamp)
        switch event {
        case .began(let moved, _):
            guard !isActive else { return ignore() }
            if estimator.ring == nil { estimator.ring = view?.lendSampleRing() ?? GestureSampleRing.make() }
            estimator.reset()
            translation = .zero
            record(moved, at: time)
            state = .began
        case .changed(let moved, _):
            guard isActive else { return ignore() }
            record(moved, at: time)
            state = .changed
        case .ended(let moved, _):
            guard isActive else { return ignore() }
            record(moved, at: time)
            releaseVelocity = currentEstimate()
            state = .ended
            returnSampleRing()
        case .cancelled:
            guard isActive else { return ignore() }
            releaseVelocity = .zero
            state = .cancelled
            returnSampleRing()
        }
        newestTimestamp = time
        hasTimestamp = true
        sendToObservers(self)
        return true
    }

    /// The gesture ended: its samples go back to the element that lent them (a recognizer
    /// attached to no element keeps its ring for its next gesture).
    private func returnSampleRing() {
        guard let view, let ring = estimator.ring else { return }
        estimator.ring = nil
        view.takeBackSampleRing(ring)
    }

    private func ignore() -> Bool {
        ignoredEventCount += 1
        return false
    }

    /// Timestamps never go backwards: an earlier or non-finite one is taken as the newest seen.
    private func acceptedTime(_ time: Double) -> Double {
        guard hasTimestamp else { return time.isFinite ? time : 0 }
        let newest = newestTimestamp
        return time.isFinite && time > newest ? time : newest
    }

    private func record(_ moved: CGPoint, at time: Double) {
        if moved.x.isFinite, moved.y.isFinite { translation = moved }
        estimator.add(time: time, x: Double(translation.x), y: Double(translation.y))
    }

    private func currentEstimate() -> CGPoint {
        let (vx, vy) = estimator.velocity()
        guard !vx.isNaN, !vy.isNaN else { return .zero }
        // A speed past Double (an infinite component) is capped in the direction of its infinite
        // components.
        let (x, y) = vx.isInfinite || vy.isInfinite
            ? (vx.isInfinite ? (vx < 0 ? -1.0 : 1) : 0, vy.isInfinite ? (vy < 0 ? -1.0 : 1) : 0) : (vx, vy)
        // Measured against the larger component: squaring a flick past 10¹⁵⁴ pt/s would overflow.
        let largest = max(abs(x), abs(y))
        guard largest > 0 else { return .zero }
        let (unitX, unitY) = (x / largest, y / largest)
        let speed = largest * (unitX * unitX + unitY * unitY).squareRoot()
        let unbounded = vx.isInfinite || vy.isInfinite
        let scale = unbounded || speed > maximumSpeed ? maximumSpeed / speed : 1
        return CGPoint(x: x * scale, y: y * scale)
    }
}

extension GestureRecognizer: ObserverChainOwner, ObserverCancellationHandling {}
