/// A stream of values with a second channel that says whether the motion behind it is moving.
///
/// A `MotionObservable` is cold: it describes a connection and makes one each time it is
/// subscribed. The value channel carries values (`next`); the state channel carries ``MotionState``
/// (`.active` when the motion starts or resumes, `.atRest` when it stops). A spring stream, for
/// instance, sends `.active` as it starts, a value on every frame its springs moved, and `.atRest`
/// on the frame the kernel reports its rest.
///
/// Streams are connected inside a ``MotionRuntime``, which owns the spring kernel that spring
/// streams run on:
///
/// <!-- fragment: layer-springs -->
/// ```swift
/// let subscription = springSource(spring).subscribe(in: runtime, next: { print($0) }, state: { print($0) })
/// ```
///
/// Subscribing creates the closures and objects of the connection once; delivering values
/// afterwards allocates nothing. A stream is a value (its `connect` closure): storing or passing
/// one makes no object of its own.
public struct MotionObservable<T> {
    /// Makes one connection: sends to the observer and returns the subscription that ends it.
    public typealias Connect = (MotionObserver<T>) -> Subscription

    private let connectBody: Connect

    /// A stream whose subscriptions are made by `connect`.
    public init(_ connect: @escaping Connect) {
        connectBody = connect
    }

    /// Connects `observer` to this stream; operators use this to build streams from streams.
    public func connect(_ observer: MotionObserver<T>) -> Subscription {
        connectBody(observer)
    }

    /// Connects to this stream inside `runtime`.
    ///
    /// While an interaction's ``Interaction/setUp(in:)`` runs, the subscription also belongs to
    /// that interaction and is cancelled when the interaction is removed from the runtime.
    @discardableResult
    public func subscribe(
        in runtime: MotionRuntime, next: @escaping (T) -> Void, state: @escaping (MotionState) -> Void = { _ in }
    ) -> Subscription {
        subscribe(MotionObserver(runtime: runtime, next: next, state: state))
    }

    /// Connects to this stream inside `runtime`, writing every value to `property` (as
    /// ``subscribe(in:next:state:)`` with `next: { property.value = $0 }`, which a spring stream
    /// of points does from the runtime's table, without a closure).
    @discardableResult
    func subscribe(
        in runtime: MotionRuntime, writingTo property: ReactiveProperty<T>, state: @escaping (MotionState) -> Void = { _ in }
    ) -> Subscription {
        subscribe(MotionObserver(runtime: runtime, writingTo: property, state: state))
    }

    /// Connects to this stream inside `runtime`, writing every value to `property` and every state
    /// to `stateProperty` (each straight into the property where the stream can).
    @discardableResult
    func subscribe(
        in runtime: MotionRuntime, writingTo property: ReactiveProperty<T>, statesTo stateProperty: ReactiveProperty<MotionState>
    ) -> Subscription {
        subscribe(MotionObserver(runtime: runtime, writingTo: property, statesTo: stateProperty))
    }

    /// Connects `observer` and hands the subscription to its runtime (an interaction being set up
    /// adopts it).
    private func subscribe(_ observer: MotionObserver<T>) -> Subscription {
        let subscription = connect(observer)
        observer.runtime.adopt(subscription)
        return subscription
    }
}

/// The receiving end of a ``MotionObservable`` connection: its two channels and the runtime the
/// connection lives in.
public struct MotionObserver<T> {
    /// Receives each value.
    public let next: (T) -> Void
    /// Receives each change of state.
    public let state: (MotionState) -> Void
    /// The runtime the connection lives in (a spring stream adds its springs to this runtime's kernel).
    /// Not retained: the runtime must outlive the observer's use (a runtime disconnects every
    /// spring stream as it goes away).
    public unowned(unsafe) let runtime: MotionRuntime
    /// The property `next` writes each value to, when that is all it does (the observer of
    /// ``MotionRuntime/write(_:to:)`` and of an interaction that writes a stream to a property):
    /// a spring stream of points then writes its values straight into it from the runtime's
    /// table (``MotionRuntime``'s stream sinks), with no closure between.
    let valueSink: ReactiveProperty<T>?
    /// The property `state` writes each state to, when that is all it does (an interaction's
    /// `state`): a rest delivered to the stream is written there, with no closure between.
    let stateSink: ReactiveProperty<MotionState>?

    /// An observer in `runtime` with the two channels.
    public init(runtime: MotionRuntime, next: @escaping (T) -> Void, state: @escaping (MotionState) -> Void) {
        self.init(runtime: runtime, next: next, state: state, valueSink: nil, stateSink: nil)
    }

    /// An observer in `runtime` that writes each value to `property` and sends states to `state`.
    init(runtime: MotionRuntime, writingTo property: ReactiveProperty<T>, state: @escaping (MotionState) -> Void) {
        self.init(runtime: runtime, next: { property.write($0) }, state: state, valueSink: property, stateSink: nil)
    }

    /// An observer in `runtime` that writes each value to `property` and each state to `stateProperty`.
    init(runtime: MotionRuntime, writingTo property: ReactiveProperty<T>, statesTo stateProperty: ReactiveProperty<MotionState>) {
        self.init(
            runtime: runtime, next: { property.write($0) }, state: { stateProperty.write($0) }, valueSink: property,
            stateSink: stateProperty)
    }

    private init(
        runtime: MotionRuntime, next: @escaping (T) -> Void, state: @escaping (MotionState) -> Void,
        valueSink: ReactiveProperty<T>?, stateSink: ReactiveProperty<MotionState>?
    ) {
        self.runtime = runtime
        self.next = next
        self.state = state
        self.valueSink = valueSink
        self.stateSink = stateSink
    }

    /// Sends `state` on the state channel: written straight into ``stateSink`` when there is one.
    @inline(__always)
    func send(_ state: MotionState) {
        if let stateSink { stateSink.write(state) } else { self.state(state) }
    }
}

extension MotionObserver {
    /// An observer that sends its values to `observer` and its states to `state`. The value
    /// closure is taken as it is stored: passed through concrete code, it would be wrapped in
    /// a reabstraction thunk (a closure around it), one more object for every value sent.
    init(valuesOf observer: MotionObserver<T>, state: @escaping (MotionState) -> Void) {
        self.next = observer.next
        self.state = state
        self.runtime = observer.runtime
        self.valueSink = observer.valueSink
        self.stateSink = nil
    }

    /// Where its two closures keep what they captured, as addresses to prefetch: a closure value
    /// is its code and its context, two words (Swift's stable ABI), and the context (the captured
    /// object itself when one object is all it captured) is the first thing a call of it reads.
    /// Read from the observer's own bytes: a closure passed on as a generic value would be wrapped
    /// in a new one, with a context of its own. A hint only: nothing is read through it but by the
    /// closures themselves.
    var closureContexts: (next: UnsafeRawPointer?, state: UnsafeRawPointer?) {
        // The stored properties in declaration order: `next` (two words), then `state` (two).
        // `MemoryLayout.offset(of:)` does not answer for a public struct's properties; a test
        // checks these offsets against a closure whose capture is known.
        let word = MemoryLayout<UnsafeRawPointer>.size
        return withUnsafeBytes(of: self) { bytes in
            (bytes.load(fromByteOffset: word, as: UnsafeRawPointer?.self),
             bytes.load(fromByteOffset: 3 * word, as: UnsafeRawPointer?.self))
        }
    }
}
