/// How many threads advance the lanes in one step.
///
/// Handing a frame to a second thread costs tens of microseconds (15–30 µs in ANCHORS.md, more
/// when the other core sleeps), as much as a whole frame of a million springs in cache. Measured
/// here with repeats interleaved on one bank, two threads run 0.57–0.81x of one at 512K–1M springs
/// and 1.38x at 2M, 1.61x at 4M, 1.05–1.15x at 8M–16M (memory-bound: one core nearly saturates
/// DRAM). So ``automatic`` stays on one thread until a frame's moving springs' hot lanes (8 bytes
/// each) fill half the last-level cache: ``automaticMinimumSprings``, 2M springs on a 32 MiB L3.
/// The result is the same bits for any thread count: every lane is computed independently.
public enum StepThreading: Hashable, Sendable {
    /// One thread while the moving springs' lanes fit in half the last-level cache, every core beyond.
    case automatic
    /// Always one thread.
    case single
    /// Exactly this many threads (at least one), whatever the frame size.
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
