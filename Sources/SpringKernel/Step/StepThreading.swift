/// How many threads advance the lanes in one step.
///
/// Handing a frame to a second thread costs tens of microseconds (more when the other core
/// sleeps), as much as a whole frame of a million springs in cache; past the last-level cache a
/// frame is memory-bound, and one core comes near saturating DRAM, so a second thread gains less
/// than twice. So ``automatic`` stays on one thread until a frame's moving springs' hot lanes
/// (8 bytes each) fill half the last-level cache: ``automaticMinimumSprings``, 2M springs on a
/// 32 MiB L3. `spring-bench throughput --threads 1,2` measures one thread against two, with
/// repeats interleaved on one bank (a run's figures: `results/<machine>/throughput.csv`).
/// The result is the same bits for any thread count: every lane is computed independently.
public enum StepThreading: Hashable, Sendable {
    /// One thread while the moving springs' lanes fit in half the last-level cache, every core
    /// beyond (at most ``maximumThreads``, and never more threads than the frame has bundles).
    case automatic
    /// Always one thread.
    case single
    /// This many threads (at least one), whatever the frame size, but never more than
    /// ``maximumThreads`` nor than the frame's bundles of 16 springs (a thread with no bundle
    /// would only add dispatch cost).
    case fixed(Int)

    /// Moving springs from which ``automatic`` uses every core: half the last-level cache over the
    /// 8 hot-lane bytes of a spring (2M when the cache size cannot be read).
    public static let automaticMinimumSprings: Int = {
        let bytesPerSpring = 8
        return (lastLevelCacheBytes() ?? 32 << 20) / 2 / bytesPerSpring
    }()

    /// The most threads one step uses.
    public static let maximumThreads = 64

    /// The processors available to this process (1 in an Embedded build, whose step runs on the
    /// caller's thread).
    public static var processorCount: Int { Platform.hasWorkerThreads ? Platform.processorCount : 1 }

    /// The largest data cache of CPU 0 (see ``Platform/lastLevelCacheBytes``).
    private static func lastLevelCacheBytes() -> Int? { Platform.lastLevelCacheBytes }

    /// The threads a step uses for a frame with this many moving springs.
    public func threadCount(movingSprings: Int) -> Int {
        threadCount(bundles: BundleIndexing.bundleCount(springs: movingSprings))
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
        return max(1, min(threads, bundles, Self.maximumThreads))
    }
}
