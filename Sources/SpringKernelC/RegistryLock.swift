#if hasFeature(Embedded)
import Synchronization
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bank registry's lock (only the registry uses it, for a slot lookup or update of a few
/// instructions).
///
/// A pthread mutex in the regular build: ThreadSanitizer intercepts its lock and unlock, where
/// Synchronization's `Mutex` (a futex lock in a library it does not instrument) hid the hand-off,
/// and CI's TSan run reported registry accesses under that lock as races. Embedded Swift has
/// neither pthreads nor `Mutex` as modules: there a spin lock on an atomic flag that yields the
/// processor (`sched_yield`) while another thread holds it, so a preempted holder gets to finish.
final class RegistryLock<Value>: @unchecked Sendable {
    private var value: Value
    #if hasFeature(Embedded)
    private let held = Atomic<Bool>(false)
    #else
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    init(_ value: Value) {
        self.value = value
        #if !hasFeature(Embedded)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        #endif
    }

    deinit {
        #if !hasFeature(Embedded)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        #endif
    }

    /// Runs `body` on the value, holding the lock.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        #if hasFeature(Embedded)
        while !held.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            _ = sched_yield()
        }
        defer { held.store(false, ordering: .releasing) }
        #else
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        #endif
        return try body(&value)
    }
}

#if hasFeature(Embedded)
/// POSIX `sched_yield` (libc), declared here: an Embedded build imports no C library module.
@_extern(c, "sched_yield")
private func sched_yield() -> Int32
#endif
