/// The member lanes of one pause mask, as one lane word per bundle it touches.
///
/// A flat list, searched linearly while short (a gesture's mask holds a few springs, so a move is
/// a couple of compares), with a key-to-position index once it grows past ``indexThreshold``
/// words. Its first ``inlineCount`` words live in the mask's own record: a mask of a spring or
/// two (one bundle word or two) reaches them without a second cache miss on a heap buffer, which
/// is what every slot swap of a member pays (a spring coming to rest or waking moves slots). Pausing
/// or resuming walks the list: one carry ripple per word. Its order depends only on the order of
/// the bank's operations, so it is the same on every run.
struct MaskMembers: RandomAccessCollection {
    /// The lanes of one bundle that belong to the mask.
    struct BundleWord {
        /// ``SpringBankCore/bundleKey(batch:slot:)`` of the bundle.
        var key: UInt64
        var lanes: UInt16

        static let empty = BundleWord(key: 0, lanes: 0)
    }

    /// Words past which lookups go through `positions`.
    static let indexThreshold = 16
    /// Words kept inline before the rest spill to a heap buffer.
    static let inlineCount = 2

    private var inline0 = BundleWord.empty
    private var inline1 = BundleWord.empty
    /// Words past the inline ones, in order.
    private var spilled: [BundleWord] = []
    private var positions: [UInt64: Int] = [:]
    /// The number of words.
    private(set) var count = 0

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// Word `position`, in list order.
    subscript(position: Int) -> BundleWord {
        switch position {
        case 0: inline0
        case 1: inline1
        default: spilled[position - Self.inlineCount]
        }
    }

    private mutating func set(_ position: Int, _ word: BundleWord) {
        switch position {
        case 0: inline0 = word
        case 1: inline1 = word
        default: spilled[position - Self.inlineCount] = word
        }
    }

    private mutating func append(_ word: BundleWord) {
        if count < Self.inlineCount {
            set(count, word)
        } else {
            spilled.append(word)
        }
        count += 1
    }

    private mutating func removeLast() {
        count -= 1
        if count < Self.inlineCount {
            set(count, .empty)
        } else {
            spilled.removeLast()
        }
    }

    private func position(of key: UInt64) -> Int? {
        if count > Self.indexThreshold { return positions[key] }
        // Written out rather than `firstIndex` over the collection: that generic search through
        // the subscript's switch made spring-bench interactions' kernel step about 10 % slower.
        if count > 0, inline0.key == key { return 0 }
        if count > 1, inline1.key == key { return 1 }
        guard count > Self.inlineCount, let at = spilled.firstIndex(where: { $0.key == key }) else { return nil }
        return at + Self.inlineCount
    }

    /// Adds lane `bit` of bundle `key`.
    mutating func insert(key: UInt64, bit: UInt16) {
        if let at = position(of: key) {
            var word = self[at]
            word.lanes |= bit
            set(at, word)
            return
        }
        append(BundleWord(key: key, lanes: bit))
        if count > Self.indexThreshold {
            if positions.isEmpty {
                for (at, word) in self.enumerated() { positions[word.key] = at }
            } else {
                positions[key] = count - 1
            }
        }
    }

    /// Removes lane `bit` of bundle `key` (if present).
    mutating func remove(key: UInt64, bit: UInt16) {
        guard let at = position(of: key) else { return }
        var word = self[at]
        word.lanes &= ~bit
        guard word.lanes == 0 else {
            set(at, word)
            return
        }
        // Swap-remove the empty word, keeping the index in step.
        let last = count - 1
        if count > Self.indexThreshold {
            positions[key] = nil
            if at != last { positions[self[last].key] = at }
        }
        set(at, self[last])
        removeLast()
        if count <= Self.indexThreshold { positions.removeAll(keepingCapacity: true) }
    }

    /// Moves a member lane from one slot to another.
    mutating func move(fromKey: UInt64, fromBit: UInt16, toKey: UInt64, toBit: UInt16) {
        if fromKey == toKey, let at = position(of: fromKey) {
            var word = self[at]
            word.lanes = (word.lanes & ~fromBit) | toBit
            set(at, word)
            return
        }
        remove(key: fromKey, bit: fromBit)
        insert(key: toKey, bit: toBit)
    }
}
