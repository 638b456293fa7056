#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How many threads advance the lanes in one step.
///
/// Handing a frame to a second thread costs 15–30 µs here (ANCHORS.md), more than a whole step of
/// 256K springs, so ``automatic`` stays on one thread until a frame has at least
/// ``automaticMinimumSprings`` moving springs. The result is the same bits for any thread count:
/// every lane is computed independently.
public enum StepThreading: Hashable, Sendable {
    /// One thread for small frames, every core once a frame is large enough to gain.
    case automatic
    /// Always one thread.
    case single
    /// Exactly this many threads (at least one), whatever the frame size.
    case fixed(Int)

    /// Moving springs from which ``automatic`` uses every core.
    public static let automaticMinimumSprings = 2_000_000

    /// The processors available to this process.
    public static var processorCount: Int {
        #if os(Windows)
        return 1
        #else
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #endif
    }

    /// Threads for a frame of `bundles` bundles.
    func threadCount(bundles: Int) -> Int {
        let threads: Int
        switch self {
        case .single: threads = 1
        case .fixed(let n): threads = max(1, n)
        case .automatic:
            threads = bundles * BundleIndexing.laneCount >= Self.automaticMinimumSprings ? Self.processorCount : 1
        }
        // Never more threads than bundles: a thread with no bundle only adds dispatch cost.
        return max(1, min(threads, bundles))
    }
}
