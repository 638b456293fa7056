#if hasFeature(Embedded)
import Synchronization

/// Embedded Swift's Synchronization has no `Mutex`: the registry's lock there, with the same
/// `withLock` (only the registry uses it, for a slot lookup or update of a few instructions).
///
/// A spin lock on an atomic flag that yields the processor (`sched_yield`) while another thread
/// holds it, so a holder that was preempted gets to finish.
final class Mutex<Value>: @unchecked Sendable {
    private let held = Atomic<Bool>(false)
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        while !held.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            _ = sched_yield()
        }
        defer { held.store(false, ordering: .releasing) }
        return try body(&value)
    }
}

/// POSIX `sched_yield` (libc), declared here: an Embedded build imports no C library module.
@_extern(c, "sched_yield")
private func sched_yield() -> Int32
#endif
