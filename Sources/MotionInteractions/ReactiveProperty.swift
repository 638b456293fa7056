#if !$Embedded
import Foundation
#endif
/// A value that can be read, written and observed: the position of an element, the destination
/// of a spring, its configuration.
///
/// Every write notifies the observers, in the order they subscribed, even when the value is equal
/// to the previous one. The property stores whatever is written, a NaN included; what a consumer
/// does with a value it cannot use is that consumer's documented policy (springs, for instance,
/// never take a non-finite destination, see ``Spring``).
///
/// <!-- fragment: layer -->
/// ```swift
/// let center = ReactiveProperty(CGPoint(x: 10, y: 20))
/// let observation = center.observe { print($0) }
/// center.value.x = 30          // prints CGPoint(x: 30.0, y: 20.0)
/// observation.cancel()
/// ```
public final class ReactiveProperty<T> {
    // Read and written in single statements, never across a callback: no runtime exclusivity
    // check is needed on each frame's write.
    @exclusivity(unchecked) private var storage: T
    /// The observers, in the property itself: a write touches no other object until it reaches
    /// its first observer.
    @exclusivity(unchecked) var observerChain = ObserverChain<T>()

    /// A property holding `value`.
    public init(_ value: T) {
        storage = value
    }

    deinit {
        releaseObservers()
    }

    #if $Embedded
    /// The current value; writing it notifies every observer.
    public var value: T {
        get { storage }
        // Embedded Swift specialises the setter into each client that writes it.
        set {
            storage = newValue
            sendToObservers(newValue)
        }
    }
    #else
    /// The current value; writing it notifies every observer.
    public var value: T {
        get { storage }
        // Compiled for the layer's own property types too, and exported: a client's write of a
        // position reaches the chain without looking up the generic conformance on every write.
        @_specialize(exported: true, where T == CGPoint)
        set {
            storage = newValue
            sendToObservers(newValue)
        }
    }
    #endif

    /// Writes `newValue` and notifies every observer, as setting ``value`` does: how the layer's
    /// own writes into a property are made (the frame's, a stream written to a property). A
    /// closure of the module that called the setter made the compiler drop its exported
    /// specialisation, which clients link against.
    @inline(__always)
    func write(_ newValue: T) {
        storage = newValue
        sendToObservers(newValue)
    }

    /// Calls `body` with every value written after this call, until the subscription is cancelled.
    public func observe(_ body: @escaping (T) -> Void) -> Subscription {
        addObserver(body)
    }

    /// Adds one of the layer's own observers (it is its own subscription).
    func add(_ observation: Observation<T>) {
        addObserver(observation)
    }

    /// A stream that emits the current value when subscribed, then every value written.
    public var stream: MotionObservable<T> {
        MotionObservable { observer in
            let subscription = self.observe(observer.next)
            observer.next(self.storage)
            return subscription
        }
    }
}

extension ReactiveProperty: ObserverChainOwner, ObserverCancellationHandling {}
