/// A function that turns a spring into a stream of its values: what interactions take so an
/// engine can choose how springs are run. ``springSource(_:)`` is the kernel-backed one.
///
/// A subscription to the stream is paused while a gesture is in charge (``Tossable``,
/// ``MotionObservable/toggled(with:)``): the stream should send no values while paused, as
/// ``springSource(_:)``'s does.
public typealias SpringSource<T: SpringAnimatable> = (Spring<T>) -> MotionObservable<T>

/// The stream of `spring`'s values, run by the kernel of the runtime it is subscribed in.
///
/// Each subscription adds one kernel spring per component of `T` (value `initialValue`, target
/// `destination`, velocity `initialVelocity`, the spring's configuration, tolerance `threshold`)
/// and sends:
/// - on the state channel, the state it starts in: `.active` if it has somewhere to go, `.atRest`
///   if it starts at its destination with no velocity; later `.active` whenever it starts moving
///   again, and `.atRest` on the frame the kernel reports the last of its components at rest;
/// - on the value channel, the value on every frame in which at least one component moved (the
///   last one is exactly the destination).
///
/// Cancelling removes the springs from the kernel. Pausing the subscription holds them still (a
/// kernel pause mask) and sends no values until it resumes; resuming restarts them from
/// `initialValue` and `initialVelocity`. A
/// destination written while the springs are at rest starts them again from `initialValue`, with
/// no velocity.
///
/// <!-- fragment: layer-runtime -->
/// ```swift
/// let spring = Spring(to: destination, initialValue: position, threshold: 1)
/// springSource(spring).subscribe(in: runtime, next: { position.value = $0 })
/// ```
public func springSource<T: SpringAnimatable>(_ spring: Spring<T>) -> MotionObservable<T> {
    MotionObservable { observer in
        observer.runtime.connect(spring, to: observer)
    }
}
