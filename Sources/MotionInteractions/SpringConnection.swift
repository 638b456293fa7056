#if !$Embedded
import Foundation
#endif
import SpringKernel

/// One connected spring stream: its kernel springs (one per component), its place in the
/// runtime, and its subscriber.
///
/// The layer keeps no copy of what the kernel knows about the springs (moving, at rest, held):
/// the kernel's moving springs and rest events carry the stream's slot as each spring's user
/// value, and after a change the kernel's layout version says whether to ask it anything. What
/// the stream keeps is its own: the slot, and the state it last sent.
/// The hot fields live here, in a non-generic base class, so the frame loop walks plain
/// references and makes one virtual call per moving stream.
class SpringConnection {
    /// The runtime that runs the stream. Unowned and unchecked: the runtime disconnects every
    /// stream when it goes away, and a disconnected stream never reaches it again.
    /// Held unmanaged: the runtime is weakly referenced by its interactions, so retaining it
    /// takes the slow path of a side table, which a destination written every frame must not pay
    /// (see ``runtimeReference``).
    var runtime: MotionRuntime { runtimeReference.takeUnretainedValue() }
    /// The runtime, for a call that must not retain it (`_withUnsafeGuaranteedRef`).
    let runtimeReference: Unmanaged<MotionRuntime>
    /// The kernel springs, one per component, in component order.
    let handles: ComponentHandles
    // The fields are in declaration order (a class's stored properties are laid out so): the
    // byte-sized ones together, so the stream and its subscriber fit one smaller heap block.
    /// Bit c set for each component c (`handles.count` low bits).
    let componentMask: UInt8
    /// The state last sent: true after `.active`, false after `.atRest`. The layer's own record
    /// of what the subscriber was told, so each change is sent once; the kernel decides it.
    /// Mirrored, while connected, in the runtime's table (``MotionRuntime/streamActive``), which a
    /// destination written every frame reads instead of this object.
    @exclusivity(unchecked) var isActive = false {
        didSet {
            guard slot >= 0 else { return }
            runtimeReference._withUnsafeGuaranteedRef { $0.streamActive[slot] = isActive }
        }
    }
    /// Values are not sent while set: the subscription is paused (its subscriber's own stream is
    /// in charge, a drag say), even if the kernel could not hold the springs.
    @exclusivity(unchecked) var isValueSuppressed = false
    /// The mask that pauses this stream's springs when its subscription is paused, made on first use.
    var subscriptionMask: PauseMaskID?
    /// The runtime's slot for this stream (also in each spring's user value, with the spring's
    /// component: ``FrameSnapshot/userValue(slot:component:)``), or −1 once disconnected.
    @exclusivity(unchecked) var slot = -1
    /// What holds the stream for its subscriber (its ``SpringSubscription``), while it holds it:
    /// told when the stream is detached (``Subscription/springStreamDetached()``), and clears
    /// this as it goes away.
    unowned(unsafe) var holder: Subscription?
    /// Where the state goes on from there, when the subscriber passes it on to one of its own (a
    /// Tossable's position stream, through ``Subscription/forwardsStates(to:)``): prefetched too.
    var stateForwardingContext: UnsafeRawPointer?
    /// The `ReactiveProperty<CGPoint>` the subscriber writes each value to, when that is all it
    /// does (``MotionObserver/valueSink``), unretained (the subscriber holds it): the runtime
    /// keeps it in its table of stream sinks and writes the frame's values straight into it.
    var pointSink: UnsafeMutableRawPointer?

    init(runtime: MotionRuntime, handles: ComponentHandles) {
        self.runtimeReference = .passUnretained(runtime)
        self.handles = handles
        componentMask = UInt8(truncatingIfNeeded: 1 << handles.count - 1)
    }

    /// False once cancelled (or its runtime went away): the springs are gone from the kernel.
    @inline(__always)
    var isConnected: Bool { slot >= 0 }

    /// Where the subscriber's value and state closures keep what they captured (see
    /// ``MotionObserver/closureContexts``): the frame prefetches them a few streams ahead. Read
    /// from the subscriber, which the stream holds in its own object (among the cache lines the
    /// frame prefetches first), rather than kept in two more words of it.
    var valueReceiverContext: UnsafeRawPointer? { nil }
    var stateReceiverContext: UnsafeRawPointer? { nil }

    /// The component that `handle` animates, or nil if it is not one of this stream's springs.
    func component(of handle: SpringHandle) -> Int? {
        handles.firstIndex(of: handle)
    }

    /// Reads the springs' values from the kernel and sends them on the value channel.
    func deliverValue(from bank: SpringBank<Float32Lanes>) {}

    /// Sends the value of these components (one per spring, in order) on the value channel.
    func deliver(_ components: SIMD4<Float>) {}

    /// Sends `state` on the state channel.
    func deliverState(_ state: MotionState) {}

    /// The state the springs restart from when a pause lets go of them: the spring's
    /// `initialValue` and `initialVelocity`, component by component; a component whose bit is
    /// clear in `restarting` (its value is not usable) continues from where it was.
    func restartState() -> (values: SIMD4<Float>, velocities: SIMD4<Float>, restarting: UInt8) { (.zero, .zero, 0) }

    /// The stream is gone (cancelled, or its runtime went away): stops observing the spring's
    /// properties and lets go of the spring, and the subscription lets go of the stream, so a
    /// subscriber's closures that hold their own subscription make no cycle that outlives it.
    /// The caller holds a reference to the stream for the call.
    func detach() {
        holder?.springStreamDetached()
        holder = nil
    }
}

/// A spring stream's subscription: what its subscriber keeps to cancel, pause and resume it.
///
/// It is not the stream's connection itself, so the connection can hold its subscriber's
/// closures in constants, which the frame calls without reference counting: cancelling lets go
/// of the connection (as the runtime does), and with it of those closures.
final class SpringSubscription: Subscription {
    private var connection: SpringConnection?

    init(_ connection: SpringConnection) {
        self.connection = connection
        super.init()
        connection.holder = self
    }

    deinit {
        connection?.holder = nil
    }

    /// The stream was detached: nothing is left to reach.
    override func springStreamDetached() {
        connection = nil
    }

    override func sourceCancel() {
        guard let connection else { return }
        if connection.isConnected { connection.runtime.disconnect(connection) }
        connection.holder = nil
        self.connection = nil
    }

    /// Holds the springs still; no values are sent until it resumes.
    override func sourcePause() {
        guard let connection, connection.isConnected else { return }
        connection.isValueSuppressed = true
        connection.runtime.updateSink(of: connection)
        connection.runtime.pauseSubscription(of: connection)
    }

    override func sourceResume() {
        guard let connection, connection.isConnected else { return }
        connection.isValueSuppressed = false
        connection.runtime.updateSink(of: connection)
        connection.runtime.resumeSubscription(of: connection)
    }

    override func forwardsStates(to context: UnsafeRawPointer?) {
        connection?.stateForwardingContext = context
    }
}

/// A spring stream of values of type `T`.
final class TypedSpringConnection<T: SpringAnimatable>: SpringConnection {
    /// The spring; nil once detached (a cancelled subscription keeps nothing alive).
    private(set) var spring: Spring<T>?
    /// The spring's `initialValue` and `initialVelocity`, held here so a restart does not reach
    /// through the spring object; nil once detached.
    private(set) var initialValue: ReactiveProperty<T>?
    private var initialVelocity: ReactiveProperty<T>?
    /// The subscriber. A constant, so a delivery calls its closures without retaining them; the
    /// stream is released as a whole when it is gone (see ``SpringSubscription``).
    private let observer: MotionObserver<T>
    private var destinationObservation: Subscription?
    private var configurationObservation: Subscription?
    /// The next stream in its spring's list of those waiting for the spring's configuration
    /// property to be made (``Spring/ConfigurationLink``), while this one waits in it.
    var nextAwaitingConfiguration: Unmanaged<TypedSpringConnection<T>>?

    init(runtime: MotionRuntime, spring: Spring<T>, observer: MotionObserver<T>, handles: ComponentHandles) {
        self.spring = spring
        initialValue = spring.initialValue
        initialVelocity = spring.initialVelocity
        self.observer = observer
        super.init(runtime: runtime, handles: handles)
        if T.self == CGPoint.self, let sink = observer.valueSink { pointSink = Unmanaged.passUnretained(sink).toOpaque() }
    }

    /// Follows the spring's destination and configuration.
    func observeSpring() {
        guard let spring else { return }
        #if $Embedded
        // Embedded Swift specialises every generic for its types (and its optimizer does not
        // take the cast below): the generic observation is already concrete.
        let destination: Observation<T> = DestinationObservation(self)
        #else
        let destination: Observation<T> = T.self == CGPoint.self
            ? unsafeBitCast(PointDestinationObservation(unsafeDowncast(self, to: TypedSpringConnection<CGPoint>.self)), to: Observation<T>.self)
            : DestinationObservation(self)
        #endif
        spring.destination.add(destination)
        destinationObservation = destination
        switch spring.configurationLink {
        case .made(let property):
            observeConfiguration(property)
        case .none:
            spring.configurationLink = .awaited(.passUnretained(self))
        case .awaited(let first):
            // At the head of the list (its order does not matter: each observes the property).
            nextAwaitingConfiguration = first
            spring.configurationLink = .awaited(.passUnretained(self))
        }
    }

    /// Follows the spring's configuration property.
    private func observeConfiguration(_ property: ReactiveProperty<SpringConfiguration>) {
        let configuration = ConfigurationObservation(self)
        property.add(configuration)
        configurationObservation = configuration
    }

    /// The spring's configuration property was just made: every stream of the list that starts
    /// at `first` observes it from now on.
    static func observe(_ property: ReactiveProperty<SpringConfiguration>, fromFirst first: Unmanaged<TypedSpringConnection<T>>) {
        var next: Unmanaged<TypedSpringConnection<T>>? = first
        while let entry = next {
            let connection = entry.takeUnretainedValue()
            next = connection.nextAwaitingConfiguration
            connection.nextAwaitingConfiguration = nil
            connection.observeConfiguration(property)
        }
    }

    /// Leaves the spring's list of streams waiting for its configuration property, if it is in it.
    private func stopAwaitingConfiguration(of spring: Spring<T>) {
        guard case .awaited(let first) = spring.configurationLink else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        if first.toOpaque() == me {
            spring.configurationLink = nextAwaitingConfiguration.map { .awaited($0) } ?? .none
        } else {
            var previous = first.takeUnretainedValue()
            while let entry = previous.nextAwaitingConfiguration {
                if entry.toOpaque() == me {
                    previous.nextAwaitingConfiguration = nextAwaitingConfiguration
                    break
                }
                previous = entry.takeUnretainedValue()
            }
        }
        nextAwaitingConfiguration = nil
    }

    override var valueReceiverContext: UnsafeRawPointer? { observer.closureContexts.next }
    override var stateReceiverContext: UnsafeRawPointer? { observer.closureContexts.state }

    override func deliverValue(from bank: SpringBank<Float32Lanes>) {
        guard !isValueSuppressed else { return }
        // One bulk read of the stream's springs. A connected stream's springs are in the kernel;
        // if one were not, nothing is sent.
        var components = SIMD4<Float>()
        let read = handles.withUnsafeBufferPointer { springs in
            withUnsafeMutableBytes(of: &components) { bytes in
                let values = UnsafeMutableBufferPointer(rebasing: bytes.bindMemory(to: Float.self)[0..<springs.count])
                return (try? bank.values(of: springs, into: values)) != nil
            }
        }
        guard read else { return }
        observer.next(T(springComponents: components))
    }

    override func deliver(_ components: SIMD4<Float>) {
        guard !isValueSuppressed else { return }
        observer.next(T(springComponents: components))
    }

    override func deliverState(_ state: MotionState) {
        observer.send(state)
    }

    override func restartState() -> (values: SIMD4<Float>, velocities: SIMD4<Float>, restarting: UInt8) {
        guard let initialValue, let initialVelocity else { return (.zero, .zero, 0) }
        var values = initialValue.value.springComponents
        var velocities = initialVelocity.value.springComponents
        var restarting: UInt8 = 0
        for component in 0..<handles.count {
            // Past the kernel's range (a drag carried beyond ±10¹⁵): clamped to it, not dropped,
            // so the spring still restarts there with the release velocity. NaN restarts nothing.
            if let value = SpringInput.clamped(values[component]) {
                values[component] = value
                restarting |= 1 << component
            }
            velocities[component] = SpringInput.clamped(velocities[component]) ?? 0
        }
        return (values, velocities, restarting)
    }

    override func detach() {
        if let spring { stopAwaitingConfiguration(of: spring) }
        destinationObservation?.cancel()
        configurationObservation?.cancel()
        destinationObservation = nil
        configurationObservation = nil
        spring = nil
        initialValue = nil
        initialVelocity = nil
        super.detach()
    }
}

/// A spring stream's observer of its spring's destination: retargets the springs.
private final class DestinationObservation<T: SpringAnimatable>: Observation<T> {
    // The stream cancels this observation when it disconnects, before it can go away. Held
    // unmanaged, so a destination written every frame reaches it without reference counting.
    let connection: Unmanaged<TypedSpringConnection<T>>

    init(_ connection: TypedSpringConnection<T>) {
        self.connection = .passUnretained(connection)
    }

    override func receive(_ destination: T) {
        retargetStream(connection, to: destination.springComponents)
    }
}

#if !$Embedded
/// ``DestinationObservation`` for a `CGPoint` destination (every position attachment: an
/// AttachWithSpring, a SpringTo of a position): not generic, so a destination written every
/// frame reaches the queue with no witness call.
private final class PointDestinationObservation: Observation<CGPoint> {
    let connection: Unmanaged<TypedSpringConnection<CGPoint>>
    /// The stream's runtime, slot and springs, as they stay while it is connected (it cancels
    /// this observation as it disconnects): a moving stream's retarget is queued from these and
    /// the runtime's tables, without reaching the stream.
    let runtime: Unmanaged<MotionRuntime>
    let slot: Int
    let springs: (SpringHandle, SpringHandle)

    init(_ connection: TypedSpringConnection<CGPoint>) {
        self.connection = .passUnretained(connection)
        runtime = connection.runtimeReference
        slot = connection.slot
        springs = (connection.handles[0], connection.handles[1])
    }

    override func receive(_ destination: CGPoint) {
        let components = destination.springComponents
        let queued = withUnsafeBytes(of: springs) { bytes in
            runtime._withUnsafeGuaranteedRef {
                $0.queueRetarget(slot: slot, springs: bytes.bindMemory(to: SpringHandle.self), to: components)
            }
        }
        if !queued { retargetStream(connection, to: components) }
    }
}
#endif

/// A destination written to a stream: a moving stream's retarget waits for the runtime's next
/// call to the kernel, made in bulk with the frame's others (``RetargetQueue``); a resting one
/// starts at once.
@inline(__always)
private func retargetStream<T>(_ connection: Unmanaged<TypedSpringConnection<T>>, to components: SIMD4<Float>) {
    let queued = connection._withUnsafeGuaranteedRef { connection -> Bool? in
        guard connection.isConnected else { return nil }
        return connection.runtimeReference._withUnsafeGuaranteedRef { $0.queueRetarget(connection, to: components) }
    }
    guard queued == false else { return }
    let connection = connection.takeUnretainedValue()
    connection.runtime.retarget(connection, to: components)
}

/// A spring stream's observer of its spring's configuration: reconfigures the springs.
private final class ConfigurationObservation<T: SpringAnimatable>: Observation<SpringConfiguration> {
    unowned(unsafe) let connection: TypedSpringConnection<T>

    init(_ connection: TypedSpringConnection<T>) {
        self.connection = connection
    }

    override func receive(_ configuration: SpringConfiguration) {
        guard connection.isConnected else { return }
        connection.runtime.reconfigure(connection, configuration)
    }
}

/// Which numbers the kernel takes: finite, within its float32 range.
enum SpringInput {
    static func isUsable(_ value: Float) -> Bool {
        value.isFinite && abs(value) <= Float32Lanes.valueLimit
    }

    /// A restart value or velocity the kernel takes: clamped to ±``Float32Lanes/valueLimit``
    /// (an infinity too: the direction is kept); nil for NaN.
    static func clamped(_ value: Float) -> Float? {
        value.isNaN ? nil : min(max(value, -Float32Lanes.valueLimit), Float32Lanes.valueLimit)
    }
}
