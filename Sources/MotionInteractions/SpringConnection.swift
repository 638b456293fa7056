import SpringKernel

/// The runtime's record of one connected spring stream: its kernel springs (one per component)
/// and where it stands. The hot fields live here, in a non-generic base class, so the frame loop
/// walks plain references and makes one virtual call per moving stream. The fields the frame loop
/// reads are single-statement accesses, never held across a callback, so they skip the runtime
/// exclusivity checks (`@exclusivity(unchecked)`) that would otherwise cost a call each.
class SpringConnection {
    /// The kernel springs, one per component, in component order.
    let handles: ComponentHandles
    /// Bit c set while component c is not at rest in the kernel (moving, or paused mid-motion).
    @exclusivity(unchecked) var awakeComponents: UInt8 = 0
    /// Whether a pause mask holds the springs (they are held together, so one bit says it).
    @exclusivity(unchecked) var isHeld = false
    /// False once cancelled: the springs are gone from the kernel.
    @exclusivity(unchecked) var isConnected = true
    /// The state last sent: true after `.active`, false after `.atRest`.
    var isActive = false
    /// The runtime's slot for this stream, or −1 once disconnected.
    @exclusivity(unchecked) var slot = -1
    /// The mask that pauses this stream's springs when its subscription is paused, made on first use.
    var subscriptionMask: PauseMaskID?

    init(handles: ComponentHandles) {
        self.handles = handles
    }

    /// Whether the stream has values to deliver this frame: connected, moving, not held.
    @inline(__always)
    var wantsDelivery: Bool { isConnected && awakeComponents != 0 && !isHeld }

    /// The component that `handle` animates, or nil if it is not one of this stream's springs.
    func component(of handle: SpringHandle) -> Int? {
        handles.firstIndex(of: handle)
    }

    /// Reads the springs' values from the kernel and sends them on the value channel.
    func deliverValue(from bank: SpringBank<Float32Lanes>) {}

    /// Sends `state` on the state channel.
    func deliverState(_ state: MotionState) {}

    /// The state a component restarts from when the subscription resumes (nil: from where it was).
    func restartState(component: Int) -> (value: Float, velocity: Float)? { nil }

    /// Stops observing the spring's properties.
    func cancelObservations() {}
}

/// A spring stream of values of type `T`.
final class TypedSpringConnection<T: SpringAnimatable>: SpringConnection {
    let spring: Spring<T>
    let observer: MotionObserver<T>
    /// The target of each component: the last usable destination.
    var targets: SIMD4<Float>
    var observations: [Subscription] = []

    init(spring: Spring<T>, observer: MotionObserver<T>, handles: ComponentHandles, targets: SIMD4<Float>) {
        self.spring = spring
        self.observer = observer
        self.targets = targets
        super.init(handles: handles)
    }

    override func deliverValue(from bank: SpringBank<Float32Lanes>) {
        // `targets` is read only if a spring is gone (it never is while connected): it sits on
        // another cache line of this object, and with thousands of streams that line is a miss.
        var components = SIMD4<Float>()
        for component in handles.indices {
            do {
                components[component] = try bank.value(of: handles[component])
            } catch {
                components[component] = targets[component]
            }
        }
        observer.next(T(springComponents: components))
    }

    override func deliverState(_ state: MotionState) {
        observer.state(state)
    }

    override func restartState(component: Int) -> (value: Float, velocity: Float)? {
        let value = spring.initialValue.value.springComponents[component]
        guard SpringInput.isUsable(value) else { return nil }
        let velocity = spring.initialVelocity.value.springComponents[component]
        return (value, SpringInput.isUsable(velocity) ? velocity : 0)
    }

    override func cancelObservations() {
        for observation in observations { observation.cancel() }
        observations.removeAll()
    }
}

/// Which numbers the kernel takes: finite, within its float32 range.
enum SpringInput {
    static func isUsable(_ value: Float) -> Bool {
        value.isFinite && abs(value) <= Float32Lanes.valueLimit
    }
}
