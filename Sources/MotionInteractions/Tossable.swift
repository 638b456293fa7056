#if !$Embedded
import Foundation
#endif

/// Lets an element be dragged and tossed to a destination (the Material Motion Tossable
/// interaction): while the pan gesture is in progress the position follows the finger and the
/// spring holds still in the kernel; on release the spring restarts from where the finger left
/// the element, with the gesture's release velocity, toward the destination.
///
/// <!-- fragment: layer-runtime -->
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
    ///
    /// Set-up writes it to ``AttachWithSpring/initialVelocity`` if it or
    /// ``AttachWithSpring/positionStream`` was replaced; otherwise the position stream writes the
    /// same velocity itself at the release, and this stream is made only when read.
    public var initialVelocityStream: MotionObservable<CGPoint> {
        get {
            replacedInitialVelocityStream
                ?? gestureSource(panGestureRecognizer).onRecognitionState(.ended, .cancelled).velocity(in: containerView)
        }
        set { replacedInitialVelocityStream = newValue }
    }

    /// The stream of values written to the position: by default the drag's translation while the
    /// pan gesture is active, the spring's values otherwise, the release velocity written to
    /// ``AttachWithSpring/initialVelocity`` as the drag ends (see
    /// ``init(position:to:containerView:springSource:panGestureRecognizer:)``). Settable until the
    /// Tossable is added to a runtime.
    public override var positionStream: MotionObservable<CGPoint> {
        // Made when read (set-up reads it once): the spring's stream is the one stored.
        get {
            guard !positionStreamIsReplaced else { return super.positionStream }
            return Self.positionStream(
                spring: super.positionStream, draggedBy: panGestureRecognizer, in: containerView, from: position,
                releaseVelocityTo: initialVelocity)
        }
        set {
            super.positionStream = newValue
            positionStreamIsReplaced = true
        }
    }

    /// The recognizer that drags the element: the one given, or one made and attached to the
    /// container.
    public let panGestureRecognizer: GestureRecognizer
    /// The coordinate space the drag is measured in.
    public let containerView: MotionElement

    /// Whether this Tossable attached ``panGestureRecognizer`` to the container (it made it, or
    /// it was attached to no element): then it detaches it when it is removed from its runtime,
    /// so a container outliving many Tossables does not keep their recognizers.
    private let attachesRecognizer: Bool
    // Beside the other flag (fields are laid out in declaration order): a byte, not a word.
    private var positionStreamIsReplaced = false
    private var replacedInitialVelocityStream: MotionObservable<CGPoint>?

    /// Makes `position` tossable toward `destination` by a pan gesture in `containerView`.
    ///
    /// On release, the spring restarts with the recognizer's velocity in `containerView` (zero
    /// for a cancelled gesture), read from the recognizer as the drag comes to rest, before the
    /// spring restarts: whatever order the recognizer's subscribers run in, the toss starts with
    /// the gesture's own release velocity.
    ///
    /// Out-of-range input is clamped, never dropped: a drag carried past the kernel's range
    /// (±10¹⁵ points) restarts from ±10¹⁵ with the release velocity, and a flick faster than the
    /// recognizer's `maximumSpeed` (10¹⁶⁰ pt/s included) is tossed at `maximumSpeed` in its own
    /// direction. A NaN position at the release restarts from where the spring was paused.
    ///
    /// - Parameters:
    ///   - position: the property the spring drives and the drag moves.
    ///   - destination: where the spring pulls the position after a release.
    ///   - containerView: the element whose coordinates the gesture's velocity is measured in.
    ///   - springSource: the source that makes the position's spring.
    ///   - panGestureRecognizer: the recognizer to use; when nil, one is made. A
    ///     recognizer attached to no element is attached to `containerView` (and detached again
    ///     when the Tossable is removed from its runtime).
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

        super.init(position: position, to: destination, springSource: springSource)
    }

    /// Connects the position (see ``AttachWithSpring/setUp(in:)``), after writing
    /// ``initialVelocityStream`` to the spring's initial velocity if either stream was replaced.
    /// The toss itself does not depend on that write: it reads the release velocity from the
    /// recognizer (see ``init(position:to:containerView:springSource:panGestureRecognizer:)``).
    public override func setUp(in runtime: MotionRuntime) {
        if replacedInitialVelocityStream != nil || positionStreamIsReplaced {
            runtime.write(initialVelocityStream, to: initialVelocity)
        }
        super.setUp(in: runtime)
        // Adding it back after a removal attaches the recognizer again.
        if attachesRecognizer, panGestureRecognizer.view == nil { containerView.addGestureRecognizer(panGestureRecognizer) }
    }

    /// Detaches the recognizer this Tossable attached, as its subscriptions are cancelled (it is
    /// removed from its runtime, or its runtime goes away).
    override func didCancelSubscriptions() {
        if attachesRecognizer { containerView.removeGestureRecognizer(panGestureRecognizer) }
    }
}
