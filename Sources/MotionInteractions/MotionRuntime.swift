import SpringKernel

/// Runs interactions and plans: owns the one spring kernel every spring of every interaction lives
/// in, steps it once per frame, and delivers what changed.
///
/// <!-- fragment: layer-display-link -->
/// ```swift
/// let runtime = MotionRuntime()
/// let tossable = Tossable(position: card.position, to: slot.position,
///                         containerView: container, springSource: springSource)
/// try runtime.add(tossable)
/// // on every display-link callback:
/// try runtime.advance(toTimestamp: displayLink.targetTimestamp)
/// ```
///
/// ## A frame
/// ``advance(by:)`` is two phases, public so a profiler can time them apart:
/// 1. ``stepSprings(by:)``: the kernel step alone (`SpringBank.step(dt:)`, inlined into the caller).
/// 2. ``deliverFrame()``: each spring stream with a spring in the kernel's moving springs or in
///    its rest events (found from each spring's user value, which names its stream, so nothing
///    is searched) sends its values; then each stream whose last moving component the kernel
///    listed in `restedInLastStep` sends `.atRest`; then ``whenAllAtRest(_:)`` actions run if
///    nothing moves.
///
/// A destination written to a moving stream (an AttachWithSpring following a moving target, a
/// SpringTo moved by a gesture) is not sent to the kernel at once: its retargets are queued and
/// made in one bulk call (storage order when many springs follow, else by handle) before the
/// runtime's next call to the kernel, the step's or any other, and before any read of
/// ``kernel``, so nothing can tell them from one call each. A destination written to a resting
/// stream starts it at once.
///
/// The layer never integrates a spring: every value comes from the kernel, and so does whether a
/// stream moves, rests or is held (its moving springs, rest events, layout version and state);
/// the layer keeps only what it sent. The kernel is the runtime's own: ``kernel`` reads it, and
/// only the runtime changes it, so every spring in it is a stream's. In steady state a
/// frame allocates nothing (nor does a gesture event): the tables are reused, and the closures
/// were made when the streams were connected.
///
/// ## Threading
/// A runtime and everything connected to it (properties, streams, recognizers, interactions) is
/// one single-threaded object graph. None of these types is `Sendable`, so Swift 6's strict
/// concurrency checking keeps the graph in the isolation domain that made it (the main actor, an
/// engine's actor, one thread) and rejects, at compile time, any use from another. A whole graph
/// may be handed to another domain (region transfer) if nothing keeps a reference behind. There
/// are no locks: an engine that runs input and rendering on different threads feeds the runtime
/// from the one that owns it. (The kernel may use several threads inside one step for millions of
/// springs; that never changes the bits or the contract.)
///
/// ## Bad input
/// - ``advance(by:)`` with a non-finite or non-positive duration throws
///   ``MotionRuntimeError/invalidFrameDuration(_:)`` and changes nothing.
/// - Advancing from inside a callback of a delivery throws ``MotionRuntimeError/reentrantAdvance``.
/// - Adding an interaction that belongs to another runtime throws
///   ``MotionRuntimeError/interactionBelongsToAnotherRuntime``; adding it twice to this one does
///   nothing.
/// - Removing an interaction, at any time (while its springs move, or from inside one of its own
///   callbacks), cancels its subscriptions at once: its springs leave the kernel and it receives
///   nothing more, not even from the frame being delivered; every other stream of that frame is
///   delivered exactly once.
public final class MotionRuntime {
    /// The spring kernel: every spring of this runtime, and nothing else (only the runtime adds
    /// springs to it, so each spring's user value names its stream). Read it through ``kernel``.
    @usableFromInline let bank: SpringBank<Float32Lanes>
    /// Retargets of moving streams not yet made in the kernel (``RetargetQueue``): flushed before
    /// anything else reaches it.
    let retargets: RetargetQueue

    /// A step was taken and its changes are not delivered yet.
    /// Read and written in single statements (as are the flags below): no runtime exclusivity
    /// check is needed, and a destination written every frame reads both.
    @usableFromInline @exclusivity(unchecked) var stepAwaitingDelivery = false
    /// A delivery is running (callbacks may be on the stack).
    @usableFromInline @exclusivity(unchecked) var isDelivering = false

    /// One slot per connected spring stream, in the order they connected (freed slots are
    /// reused); each of the stream's kernel springs carries its slot and component as its user
    /// value (``FrameSnapshot/userValue(slot:component:)``), so a moving spring read in storage
    /// order, or a rest event, leads straight to its stream. Walking the slots in order walks the streams'
    /// objects roughly in the order they were allocated, which keeps the frame loop's memory
    /// access close to sequential however streams start and stop. The runtime owns the streams
    /// (retained by hand, so the frame loop reaches them without reference counting): a
    /// subscription dropped without being cancelled keeps running.
    ///
    /// Read and written in single statements, never across a callback, so it skips the runtime
    /// exclusivity checks that would cost a call per access.
    @exclusivity(unchecked) var streamSlots: ContiguousArray<Unmanaged<SpringConnection>?> = []
    /// Beside ``streamSlots``, slot for slot: the `ReactiveProperty<CGPoint>` a stream of points
    /// writes its values to (``SpringConnection/pointSink``), while its values are not
    /// suppressed; nil for every other stream. The frame writes such a stream's values straight
    /// from the snapshot into its property, touching neither the stream nor a closure: one
    /// object per moving stream, whose address this contiguous table gives a few streams ahead.
    @exclusivity(unchecked) var streamSinks: ContiguousArray<UnsafeMutableRawPointer?> = []
    /// Beside ``streamSlots``: whether each connected stream's last state sent was `.active`
    /// (``SpringConnection/isActive``, mirrored here), false for a free slot. A stream's
    /// destination observation reads it to queue a retarget without reaching the stream.
    @exclusivity(unchecked) var streamActive: ContiguousArray<Bool> = []
    var freeStreamSlots: [Int] = []
    /// Slots freed during a delivery, reusable once it ends (so no new stream takes a slot the
    /// frame's bits still name).
    var slotsFreedDuringDelivery: [Int] = []
    /// Streams disconnected during a delivery (perhaps from their own callback, with their
    /// method still running), kept alive until it ends.
    var retiredConnections: [SpringConnection] = []
    /// The kernel's moving springs and rest events as the delivery began, by stream slot.
    let frameSnapshot = FrameSnapshot()
    /// Streams whose last state sent was `.active` (see ``SpringConnection/isActive``).
    var activeConnectionCount = 0
    /// How many spring streams were sent values in the last frame (the streams whose springs moved).
    public internal(set) var lastFrameDeliveryCount = 0

    var restWaiters: [RestWaiter] = []
    /// The interactions the runtime runs, in no particular order: each knows its place
    /// (``Interaction/placeInRuntime``), and a removal moves the last one into the hole.
    var interactions: ContiguousArray<Interaction> = []
    /// The interaction whose set-up is running: subscriptions made now belong to it.
    var adoptingInteraction: Interaction?
    /// The spring that plans drive for each property, by the property's identity (a
    /// `PropertySpring<T>` for the property's `T`).
    var propertySprings: [ObjectIdentifier: any PropertySpringTeardown] = [:]

    /// The timestamp the springs have been advanced to (see ``advance(toTimestamp:)``).
    @usableFromInline var springTimestamp: Double?
    /// The duration of the last frame ``advance(toTimestamp:)`` stepped: what a clock reset steps.
    @usableFromInline var lastTimestampStep = 1.0 / 60

    /// A runtime with an empty kernel.
    ///
    /// - Parameter threading: how many threads one kernel step may use.
    public init(threading: StepThreading = .automatic) {
        bank = SpringBank(threading: threading)
        retargets = RetargetQueue(bank: bank)
        retargets.runtime = self
    }

    /// A runtime with an empty kernel and room reserved for `capacity` springs.
    ///
    /// - Parameters:
    ///   - capacity: springs to reserve room for (two per `CGPoint` interaction), 0 to
    ///     `SpringBank.maximumSpringCount`.
    ///   - threading: how many threads one kernel step may use.
    /// - Throws: ``MotionRuntimeError/invalidCapacity(_:)`` for a negative capacity or one above
    ///   the kernel's spring limit.
    public init(capacity: Int, threading: StepThreading = .automatic) throws(MotionRuntimeError) {
        do {
            bank = try SpringBank(threading: threading, capacity: capacity)
        } catch {
            throw .invalidCapacity(capacity)
        }
        retargets = RetargetQueue(bank: bank)
        retargets.runtime = self
        retargets.reserve(springs: capacity)
        streamSlots.reserveCapacity(capacity)
        streamSinks.reserveCapacity(capacity)
        streamActive.reserveCapacity(capacity)
        frameSnapshot.reserve(slots: capacity, springs: capacity)
    }

    /// Disconnects what the runtime connected from the properties and recognizers that may
    /// outlive it: every interaction's subscriptions, every property spring, every spring stream's
    /// observations. (A subscription made outside an interaction's set-up stays the caller's to
    /// cancel; its springs are gone with the kernel.)
    deinit {
        // The retargets written are made, as they were when written (a reader of the kernel may
        // outlive the runtime).
        retargets.flush()
        retargets.runtime = nil
        // First every stream is disconnected without a word (no state sent, no rest waiter run:
        // nothing may reach a runtime going away), so the cancellations below find them gone.
        for case let entry? in streamSlots {
            let connection = entry.takeRetainedValue()
            connection.slot = -1
            connection.detach()
        }
        // The property springs let go of the runtime before any of their subscriptions is
        // cancelled, so their cancellations do nothing to it.
        for propertySpring in propertySprings.values { propertySpring.runtimeGoesAway() }
        for interaction in interactions {
            interaction.runtime = nil
            interaction.cancelAdoptedSubscriptions()
        }
        for propertySpring in propertySprings.values { propertySpring.tearDown() }
    }

    /// Spring streams not at rest: moving, or held by a pause in mid-motion.
    public var activeSpringStreamCount: Int { activeConnectionCount }

    /// Whether every spring of the runtime is at rest.
    public var isAllAtRest: Bool { activeConnectionCount == 0 }
}

/// Why the runtime refused a call.
public enum MotionRuntimeError: Error, Hashable, Sendable {
    /// A frame duration was NaN, infinite, zero or negative.
    case invalidFrameDuration(Double)
    /// A display-link timestamp was NaN or infinite.
    case invalidTimestamp(Double)
    /// The runtime was advanced from inside a callback of its own delivery.
    case reentrantAdvance
    /// The interaction is already added to another runtime; remove it there first.
    case interactionBelongsToAnotherRuntime
    /// A capacity to reserve was negative or above the kernel's `SpringBank.maximumSpringCount`.
    case invalidCapacity(Int)
}

/// An action waiting for every spring to be at rest.
final class RestWaiter {
    var action: (() -> Void)?
    init(_ action: @escaping () -> Void) { self.action = action }
}

extension MotionRuntime {
    /// Every kernel spring that belongs to a connected stream of this runtime, in the kernel's
    /// record order (for inspection: it builds a new array).
    ///
    /// - Complexity: O(n log n) for the n springs of connected streams (it builds and sorts a new
    ///   array).
    public var springHandles: [SpringHandle] {
        var handles: [SpringHandle] = []
        for case let entry? in streamSlots { handles.append(contentsOf: entry.takeUnretainedValue().handles) }
        return handles.sorted { $0.index < $1.index }
    }
}
