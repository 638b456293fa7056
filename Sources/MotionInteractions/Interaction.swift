/// Something a runtime runs: it connects streams to properties when it is added.
///
/// Subclass it and override ``setUp(in:)``; every subscription made while `setUp` runs (streams
/// subscribed or written, plans added) belongs to the interaction, and
/// ``MotionRuntime/remove(_:)`` cancels them all.
///
/// <!-- fragment: layer-runtime -->
/// ```swift
/// final class FollowFinger: Interaction {
///     let card: MotionElement, drag: GestureRecognizer
///     init(card: MotionElement, drag: GestureRecognizer) { self.card = card; self.drag = drag }
///     override func setUp(in runtime: MotionRuntime) {
///         runtime.addPlan(Draggable(withGestureRecognizer: drag), to: card)
///     }
/// }
/// try runtime.add(FollowFinger(card: card, drag: drag))
/// ```
///
/// An interaction runs in at most one runtime at a time (see ``MotionRuntime/add(_:)``).
open class Interaction {
    /// The runtime that runs the interaction, or nil. Not retained: a runtime clears it when it
    /// removes the interaction and, for every interaction it still runs, as it goes away.
    public internal(set) unowned(unsafe) var runtime: MotionRuntime?
    /// The subscriptions made while it was set up, cancelled when it is removed.
    var adoptedSubscriptions = AdoptedSubscriptions.none
    /// Where it is in its runtime's table of interactions (``MotionRuntime``), while it runs.
    var placeInRuntime: Int32 = -1

    /// An interaction not added to any runtime.
    public init() {}

    /// Connects the interaction's streams in `runtime`. Called once by ``MotionRuntime/add(_:)``.
    open func setUp(in runtime: MotionRuntime) {}

    /// Called after the runtime cancelled the subscriptions the set-up made (the interaction was
    /// removed, or its runtime went away): the layer's own interactions undo here what is not a
    /// subscription.
    func didCancelSubscriptions() {}
}

extension Interaction {
    /// Cancels (and forgets) the subscriptions its set-up made.
    func cancelAdoptedSubscriptions() {
        let subscriptions = adoptedSubscriptions
        adoptedSubscriptions = .none
        switch subscriptions {
        case .none: break
        case .one(let subscription): subscription.cancel()
        case .many(let list): for subscription in list { subscription.cancel() }
        }
        didCancelSubscriptions()
    }
}

/// The subscriptions an interaction's set-up made: most make one (an AttachWithSpring, a
/// Tossable), which is kept without an array (one object less per interaction).
enum AdoptedSubscriptions {
    case none
    case one(Subscription)
    case many([Subscription])

    /// Adds `subscription` after the others.
    mutating func append(_ subscription: Subscription) {
        switch self {
        case .none: self = .one(subscription)
        case .one(let first): self = .many([first, subscription])
        case .many(var list):
            self = .none
            list.append(subscription)
            self = .many(list)
        }
    }
}
