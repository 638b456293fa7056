import Foundation
import MotionInteractions
import Testing

/// Bugs the reliability work found in the interaction layer, each now fixed; these tests keep
/// them fixed (see Tests/RELIABILITY.md).
@Suite("Interaction layer regressions")
struct InteractionRegressionTests {
    final class Box { var subscription: Subscription? }

    /// Was: `Subscription.cancel()` released only its cancel closure, and the pause and resume
    /// closures kept the stream (and through it the subscriber's closures, which held the
    /// subscription) alive, a leak LeakSanitizer reported. Cancelling now releases all three.
    @Test("a subscription cancelled from its own callback lets go of its stream")
    func cancelledSubscriptionReleasesItsStream() throws {
        weak var spring: Spring<Float>?
        let box = Box()
        do {
            let runtime = MotionRuntime()
            let moving = Spring(to: ReactiveProperty(Float(100)), initialValue: ReactiveProperty(Float(0)))
            spring = moving
            box.subscription = springSource(moving).subscribe(in: runtime, next: { _ in box.subscription?.cancel() })
            try runtime.advance(by: 1.0 / 60)
            #expect(box.subscription?.isCancelled == true && runtime.kernel.count == 0)
        }
        let leaked = spring != nil
        #expect(!leaked)
        box.subscription = nil
    }

    /// Was: a Tossable made without a recognizer attached the one it made to its container, and
    /// nothing detached it, so a long-lived container kept every recognizer of every Tossable it
    /// ever hosted (found by `spring-bench soak`: the resident set grew by 4 MiB over 7,000
    /// Tossables replaced). Removing the Tossable from its runtime now detaches it.
    @Test("a removed Tossable's recognizer does not stay on its container")
    func removedTossableLeavesNoRecognizerBehind() throws {
        let container = MotionElement()
        weak var recognizer: GestureRecognizer?
        do {
            let runtime = MotionRuntime()
            let tossable = Tossable(
                position: ReactiveProperty(CGPoint.zero), to: ReactiveProperty(CGPoint(x: 0, y: 100)),
                containerView: container, springSource: springSource)
            recognizer = tossable.panGestureRecognizer
            try runtime.add(tossable)
            runtime.remove(tossable)
        }
        #expect(container.gestureRecognizers.isEmpty)
        #expect(recognizer == nil)
    }
}
