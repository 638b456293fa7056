#if !$Embedded
import Foundation
#endif
import SpringKernel

/// Pulls a position toward a destination with a spring (the Material Motion AttachWithSpring
/// interaction). The destination is a property, so the position follows it when it moves.
///
/// <!-- fragment: layer-runtime -->
/// ```swift
/// let attach = AttachWithSpring(position: view.position,
///                               to: targetView.position,
///                               springSource: springSource)
/// try runtime.add(attach)
/// ```
///
/// The properties are fixed when it is made; the stream is settable until it is added to a
/// runtime, which connects ``positionStream`` to ``position``.
public class AttachWithSpring: Interaction {
    /// The position to which the position stream is expected to write.
    public let position: ReactiveProperty<CGPoint>
    /// A stream that emits positional values to be written to the view.
    public var positionStream: MotionObservable<CGPoint>
    /// The destination to which the spring will pull the view.
    public let destination: ReactiveProperty<CGPoint>
    /// The initial velocity of the spring.
    public let initialVelocity: ReactiveProperty<CGPoint>
    /// The spring configuration governing this interaction (its spring's
    /// ``Spring/configuration``, made on first read).
    public var springConfiguration: ReactiveProperty<SpringConfiguration> { spring.configuration }
    /// Whether the position stream is moving (`.active`) or at rest.
    public let state = ReactiveProperty(MotionState.atRest)
    /// The spring the position stream was made from.
    private let spring: Spring<CGPoint>

    /// Attaches `position` to `destination` with a spring from `springSource` (threshold 1 point).
    public init(
        position: ReactiveProperty<CGPoint>, to destination: ReactiveProperty<CGPoint>, springSource: SpringSource<CGPoint>
    ) {
        self.destination = destination
        self.position = position

        let spring = Spring(to: destination, initialValue: position, threshold: 1)
        self.spring = spring
        self.initialVelocity = spring.initialVelocity

        let springStream = springSource(spring)
        self.positionStream = springStream
    }

    /// Writes ``positionStream`` to ``position`` and its state to ``state``.
    public override func setUp(in runtime: MotionRuntime) {
        let position = self.position
        let state = self.state
        positionStream.subscribe(in: runtime, writingTo: position, statesTo: state)
    }
}
