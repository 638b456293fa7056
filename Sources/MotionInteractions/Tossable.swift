import Foundation

/// Lets an element be dragged and tossed to a destination (the Material Motion Tossable
/// interaction): while the pan gesture is in progress the position follows the finger and the
/// spring holds still in the kernel; on release the spring restarts from where the finger left
/// the element, with the gesture's release velocity, toward the destination.
///
/// ```swift
/// let tossable = Tossable(position: view.position,
///                         to: targetView.position,
///                         containerView: container,
///                         springSource: springSource)
/// try runtime.add(tossable)
/// tossable.panGestureRecognizer.handle(.began(timestamp: t))   // from the engine's input
/// ```
public final class Tossable: AttachWithSpring {
    /// A stream that emits the pan gesture's velocity when the gesture ends (and zero when it is
    /// cancelled, so a cancelled drag never reuses an earlier toss's velocity).
    public var initialVelocityStream: MotionObservable<CGPoint>
    /// The recognizer that drags the element: the one given, or one made and attached to the
    /// container.
    public let panGestureRecognizer: GestureRecognizer
    /// The coordinate space the drag is measured in.
    public let containerView: MotionElement

    /// Whether this Tossable attached ``panGestureRecognizer`` to the container (it made it, or
    /// it was attached to no element): then it detaches it when it is removed from its runtime,
    /// so a container outliving many Tossables does not keep their recognizers.
    private let attachesRecognizer: Bool

    /// Makes `position` tossable toward `destination` by a pan gesture in `containerView`.
    ///
    /// On release, the spring restarts with the recognizer's velocity in `containerView` (zero
    /// for a cancelled gesture), read from the recognizer as the drag comes to rest, before the
    /// spring restarts: whatever order the recognizer's subscribers run in, the toss starts with
    /// the gesture's own release velocity.
    ///
    /// - Parameter panGestureRecognizer: the recognizer to use; when nil, one is made. A
    ///   recognizer attached to no element is attached to `containerView` (and detached again
    ///   when the Tossable is removed from its runtime).
    public init(
        position: ReactiveProperty<CGPoint>, to destination: ReactiveProperty<CGPoint>, containerView: MotionElement,
        springSource: SpringSource<CGPoint>, panGestureRecognizer: GestureRecognizer? = nil
    ) {
        let panGestureRecognizer = panGestureRecognizer ?? GestureRecognizer()
        attachesRecognizer = panGestureRecognizer.view == nil
        if attachesRecognizer {
            containerView.addGestureRecognizer(panGestureRecognizer)
        }
        self.panGestureRecognizer = panGestureRecognizer
        self.containerView = containerView

        let dragStream = gestureSource(panGestureRecognizer)
        let translationStream = dragStream.translated(from: position, in: containerView)

        self.initialVelocityStream = dragStream.onRecognitionState(.ended, .cancelled).velocity(in: containerView)

        super.init(position: position, to: destination, springSource: springSource)

        self.positionStream = self.positionStream.toggled(
            with: Self.releasing(translationStream, velocityOf: panGestureRecognizer, in: containerView, to: initialVelocity))
    }

    /// Writes ``initialVelocityStream`` to the spring's initial velocity (so it holds the last
    /// release velocity), then connects the position. The toss itself does not depend on that
    /// write: it reads the release velocity from the recognizer (see
    /// ``init(position:to:containerView:springSource:panGestureRecognizer:)``).
    public override func setUp(in runtime: MotionRuntime) {
        runtime.write(initialVelocityStream, to: initialVelocity)
        super.setUp(in: runtime)
        guard attachesRecognizer else { return }
        // Removing the interaction cancels what its set-up adopted: this detaches the recognizer
        // again (and adding it back attaches it again).
        let recognizer = panGestureRecognizer, container = containerView
        if recognizer.view == nil { container.addGestureRecognizer(recognizer) }
        runtime.adopt(Subscription(onCancel: { container.removeGestureRecognizer(recognizer) }))
    }

    /// `translation`, writing the recognizer's velocity in `space` to `velocity` just before it
    /// says the drag is at rest (so before ``MotionObservable/toggled(with:)`` restarts the spring
    /// from `velocity`). Only a drag that was active and stops writes: the `.atRest` a stream
    /// sends when it connects to an idle recognizer leaves the velocity alone.
    private static func releasing(
        _ translation: MotionObservable<CGPoint>, velocityOf recognizer: GestureRecognizer, in space: MotionElement,
        to velocity: ReactiveProperty<CGPoint>
    ) -> MotionObservable<CGPoint> {
        MotionObservable { observer in
            var isDragging = false
            return translation.connect(MotionObserver(runtime: observer.runtime, next: observer.next, state: { state in
                if state == .atRest, isDragging { velocity.value = recognizer.velocity(in: space) }
                isDragging = state == .active
                observer.state(state)
            }))
        }
    }
}
