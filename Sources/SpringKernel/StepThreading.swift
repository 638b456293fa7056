#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How many threads advance the lanes in one step.
///
/// Handing a frame to a second thread costs 15–30 µs here (ANCHORS.md), and while a frame's lanes
/// fit in the last-level cache one core streams them faster than two share them. So
/// ``automatic`` stays on one thread until a frame's moving springs need more hot-lane bytes (8 per
/// spring) than the last-level cache holds: ``automaticMinimumSprings``, 4M springs on a 32 MiB
/// L3. The result is the same bits for any thread count: every lane is computed independently.
public enum StepThreading: Hashable, Sendable {
    /// One thread while the moving springs fit in the last-level cache, every core beyond it.
    case automatic
    /// Always one thread.
    case single
    /// Exactly this many threads (at least one), whatever the frame size.
    case fixed(Int)

    /// Moving springs from which ``automatic`` uses every core: the last-level cache's size over
    /// the 8 hot-lane bytes of a spring (4M when the cache size cannot be read).
    public static let automaticMinimumSprings: Int = {
        let bytesPerSpring = 8
        return (lastLevelCacheBytes() ?? 32 << 20) / bytesPerSpring
    }()

    /// The processors available to this process.
    public static var processorCount: Int {
        #if os(Windows)
        return 1
        #else
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #endif
    }

    /// The largest data cache of CPU 0, from Linux's sysfs (`.../cache/indexN/size`, "32768K").
    private static func lastLevelCacheBytes() -> Int? {
        #if os(Linux)
        var largest: Int?
        for index in 0..<8 {
            let path = "/sys/devices/system/cpu/cpu0/cache/index\(index)/size"
            guard let file = fopen(path, "r") else { continue }
            defer { fclose(file) }
            var buffer = [CChar](repeating: 0, count: 32)
            guard fgets(&buffer, Int32(buffer.count), file) != nil else { continue }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let scale = text.contains("K") ? 1 << 10 : text.contains("M") ? 1 << 20 : 1
            if let value = Int(String(text.filter { $0.isNumber })) { largest = max(largest ?? 0, value * scale) }
        }
        return largest
        #else
        return nil
        #endif
    }

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
        return max(1, min(threads, bundles))
    }
}
