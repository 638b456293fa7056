import Synchronization
#if !hasFeature(Embedded)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#endif

/// The bank registry's lock (only the registry uses it, for a slot lookup or update of a few
/// instructions): a spin lock on an atomic flag that yields the processor (`sched_yield`) while
/// another thread holds it, so a preempted holder gets to finish.
///
/// One compare-and-exchange and one store a lookup, in every build. ThreadSanitizer sees the
/// hand-off (the flag's acquiring exchange and releasing store are instrumented atomics), where
/// Synchronization's `Mutex` (a futex lock in a library it does not instrument) hid it; and
/// Embedded Swift has neither pthreads nor `Mutex`.
final class RegistryLock<Value>: @unchecked Sendable {
    /// Only `withLock` reaches it, holding the lock: no dynamic exclusivity check (a call through
    /// the Swift runtime's thread-local access set on every C call).
    @exclusivity(unchecked) private var value: Value
    private let held = Atomic<Bool>(false)

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value, holding the lock.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        while !held.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            _ = sched_yield()
        }
        defer { held.store(false, ordering: .releasing) }
        return try body(&value)
    }
}

#if hasFeature(Embedded)
/// POSIX `sched_yield` (libc), declared here: an Embedded build imports no C library module.
@_extern(c, "sched_yield")
private func sched_yield() -> Int32
#endif
