#if !$Embedded
import Foundation
#endif

extension Tossable {
    /// Tossable's position stream: the finger's position (where the element was when the drag
    /// began, plus the drag's translation in `space`) while the pan gesture is active, the
    /// spring's values otherwise. It is `springStream.toggled(with:)` the drag's translation, with
    /// the release velocity written to `velocity` as the drag ends (before the spring restarts
    /// from it), made as one object per connection: the recognizer's observer, the toggle and the
    /// drag's anchor together, instead of a chain of closures and boxes for every operator.
    static func positionStream(
        spring springStream: MotionObservable<CGPoint>, draggedBy recognizer: GestureRecognizer, in space: MotionElement,
        from position: ReactiveProperty<CGPoint>, releaseVelocityTo velocity: ReactiveProperty<CGPoint>
    ) -> MotionObservable<CGPoint> {
        MotionObservable { observer in
            let connection = TossConnection<CGPoint>(
                observer: observer, springStream: springStream, space: space, position: position, velocity: velocity)
            connection.connect(to: recognizer)
            return connection
        }
    }
}

/// One connection of a Tossable's position stream (see ``Tossable``'s `positionStream(...)`):
/// it observes the recognizer (connected first, as ``MotionObservable/toggled(with:)`` connects
/// the preferred stream first) and holds the spring stream, pausing it while the drag is active
/// and resuming it at the release.
///
/// The spring stream is held by its subscription, whatever its source, and sends its values
/// straight to this stream's subscriber: no closure of this object runs per value. While the drag
/// is in charge the subscription is paused, and a paused spring stream sends no values
/// (``SpringSource``); the frame then reaches this object only for the spring's state.
///
/// The spring stream's state closure holds this object and it holds the stream's subscription:
/// the cycle ends when the connection is cancelled, or when the runtime that runs the spring goes
/// away (the subscription then lets go of the stream).
///
/// Generic over the position's type (always `CGPoint`) for Embedded Swift: there, an override in
/// a non-generic subclass of a specialised generic class (`Observation<GestureRecognizer>`)
/// received a wrong argument when called from generic code (the recognizer read as another
/// object: the drag never moved the element), while a generic subclass's override is called
/// right (Swift 6.3.1; `Tests/CrossLayer` compares the Embedded build with the regular one).
private final class TossConnection<Point>: Observation<GestureRecognizer> {
    private let observer: MotionObserver<CGPoint>
    private let springStream: MotionObservable<CGPoint>
    private let space: MotionElement
    private let position: ReactiveProperty<CGPoint>
    private let velocity: ReactiveProperty<CGPoint>
    /// The spring stream's subscription, once it is connected.
    private var spring: Subscription?
    private var anchor = GestureAnchor<CGPoint>()
    /// Whether the drag is active (the preferred stream of the toggle).
    private var isDragging = false
    private var springIsActive = false
    private var reported: MotionState?

    init(
        observer: MotionObserver<CGPoint>, springStream: MotionObservable<CGPoint>, space: MotionElement,
        position: ReactiveProperty<CGPoint>, velocity: ReactiveProperty<CGPoint>
    ) {
        self.observer = observer
        self.springStream = springStream
        self.space = space
        self.position = position
        self.velocity = velocity
    }

    /// Observes the recognizer, then connects the spring stream unless a drag is in progress.
    func connect(to recognizer: GestureRecognizer) {
        recognizer.add(self)
        isDragging = recognizer.isActive
        if !isDragging { connectSpring() }
        report()
    }

    private func connectSpring() {
        // The values go to the subscriber as they are (the closure as stored: no wrapper).
        let spring = springStream.connect(MotionObserver(valuesOf: observer, state: { [self] state in
            springIsActive = state == .active
            report()
        }))
        // The spring's state goes on to the subscriber's state closure: what it captured is
        // worth prefetching before a rest (see ``MotionObserver/closureContexts``).
        spring.forwardsStates(
            to: observer.stateSink.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) } ?? observer.closureContexts.state)
        self.spring = spring
    }

    override func receive(_ recognizer: GestureRecognizer) {
        let isActive = recognizer.isActive
        if isActive, !isDragging {
            isDragging = true
            pauseSpring()
            report()
        }
        if let value = anchor.value(at: position, for: recognizer.state, combinedWith: { anchor in
            let moved = recognizer.translation(in: space)
            return CGPoint(x: anchor.x + moved.x, y: anchor.y + moved.y)
        }), isDragging {
            // Straight into the position when that is all the subscriber does (no closure).
            if let sink = observer.valueSink { sink.write(value) } else { observer.next(value) }
        }
        guard !isActive, isDragging else { return }
        // The release velocity is written before the spring restarts from it.
        velocity.value = recognizer.velocity(in: space)
        isDragging = false
        if let spring {
            spring.resume()
        } else if !isCancelled {
            connectSpring()
        }
        report()
    }

    /// Holds the spring still while the drag is in charge.
    private func pauseSpring() {
        spring?.pause()
    }

    /// Sends the combined state if it changed since the last report.
    private func report() {
        let state: MotionState = isDragging || springIsActive ? .active : .atRest
        guard state != reported else { return }
        reported = state
        observer.send(state)
    }

    override func sourceCancel() {
        super.sourceCancel()
        let spring = self.spring
        self.spring = nil
        spring?.cancel()
    }
}
