/// How many pause masks hold each lane of a bundle, stored bit-sliced: plane p holds bit p of
/// every lane's depth. Adding or removing one hold for any set of lanes of a bundle is a ripple of
/// carries through ``planeCount`` words, with no loop over lanes.
///
/// A lane is paused while its depth is non-zero, so a spring held by several masks (several
/// gesture recognizers) is paused until the last of them lets go.
struct PauseDepth {
    /// Bit planes per bundle; the deepest a lane can be held is 2^planeCount − 1.
    static let planeCount = 8
    static let maximumDepth = (1 << planeCount) - 1

    /// `planeCount` words per bundle.
    let planes: UnsafeMutablePointer<UInt16>

    private func plane(_ bundle: Int, _ p: Int) -> UInt16 { planes[bundle * Self.planeCount + p] }

    /// The lanes of `bundle` held at the maximum depth (adding a hold would overflow).
    func saturatedLanes(bundle: Int) -> UInt16 {
        var all = UInt16.max
        for p in 0..<Self.planeCount { all &= plane(bundle, p) }
        return all
    }

    /// The lanes of `bundle` with a non-zero depth.
    func heldLanes(bundle: Int) -> UInt16 {
        var any: UInt16 = 0
        for p in 0..<Self.planeCount { any |= plane(bundle, p) }
        return any
    }

    /// Adds one hold to each lane in `lanes`. The caller has checked ``saturatedLanes(bundle:)``.
    func increment(bundle: Int, lanes: UInt16) {
        var carry = lanes
        var p = 0
        while carry != 0 && p < Self.planeCount {
            let word = bundle * Self.planeCount + p
            let next = planes[word] & carry
            planes[word] ^= carry
            carry = next
            p += 1
        }
    }

    /// Removes one hold from each lane in `lanes`, which must all be held.
    func decrement(bundle: Int, lanes: UInt16) {
        var borrow = lanes
        var p = 0
        while borrow != 0 && p < Self.planeCount {
            let word = bundle * Self.planeCount + p
            let next = ~planes[word] & borrow
            planes[word] ^= borrow
            borrow = next
            p += 1
        }
    }

    /// Exchanges the depths of slots `a` and `b`.
    func swapSlots(_ a: Int, _ b: Int) {
        let bundleA = BundleIndexing.bundle(ofSlot: a), bitA = BundleIndexing.laneBit(ofSlot: a)
        let bundleB = BundleIndexing.bundle(ofSlot: b), bitB = BundleIndexing.laneBit(ofSlot: b)
        for p in 0..<Self.planeCount {
            let wordA = bundleA * Self.planeCount + p, wordB = bundleB * Self.planeCount + p
            let hasA = planes[wordA] & bitA != 0, hasB = planes[wordB] & bitB != 0
            if hasA == hasB { continue }
            planes[wordA] ^= bitA
            planes[wordB] ^= bitB
        }
    }

    /// The depth of slot `slot`.
    func depth(slot: Int) -> Int {
        let bundle = BundleIndexing.bundle(ofSlot: slot), bit = BundleIndexing.laneBit(ofSlot: slot)
        var depth = 0
        for p in 0..<Self.planeCount where plane(bundle, p) & bit != 0 { depth |= 1 << p }
        return depth
    }
}

extension PauseDepth {
    /// The lanes of `bundle` held exactly once: the lanes one more release would free.
    func lanesHeldOnce(bundle: Int) -> UInt16 {
        var higher: UInt16 = 0
        for p in 1..<Self.planeCount { higher |= planes[bundle * Self.planeCount + p] }
        return planes[bundle * Self.planeCount] & ~higher
    }
}
