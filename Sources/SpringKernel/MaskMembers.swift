/// The member lanes of one pause mask, as one lane word per bundle it touches.
///
/// A flat list, searched linearly while short (a gesture's mask holds a few springs, so a move is
/// a couple of compares), with a key-to-position index once it grows past ``indexThreshold``
/// words. Pausing or resuming walks the list: one carry ripple per word. Its order depends only on
/// the order of the bank's operations, so it is the same on every run.
struct MaskMembers {
    /// The lanes of one bundle that belong to the mask.
    struct BundleWord {
        /// ``SpringBankCore/bundleKey(batch:slot:)`` of the bundle.
        var key: UInt64
        var lanes: UInt16
    }

    /// Words past which lookups go through `positions`.
    static let indexThreshold = 16

    private(set) var words: [BundleWord] = []
    private var positions: [UInt64: Int] = [:]

    private func position(of key: UInt64) -> Int? {
        if words.count > Self.indexThreshold { return positions[key] }
        return words.firstIndex { $0.key == key }
    }

    /// Adds lane `bit` of bundle `key`.
    mutating func insert(key: UInt64, bit: UInt16) {
        if let at = position(of: key) {
            words[at].lanes |= bit
            return
        }
        words.append(BundleWord(key: key, lanes: bit))
        if words.count > Self.indexThreshold {
            if positions.isEmpty {
                for (at, word) in words.enumerated() { positions[word.key] = at }
            } else {
                positions[key] = words.count - 1
            }
        }
    }

    /// Removes lane `bit` of bundle `key` (if present).
    mutating func remove(key: UInt64, bit: UInt16) {
        guard let at = position(of: key) else { return }
        words[at].lanes &= ~bit
        guard words[at].lanes == 0 else { return }
        // Swap-remove the empty word, keeping the index in step.
        let last = words.count - 1
        if words.count > Self.indexThreshold {
            positions[words[at].key] = nil
            if at != last { positions[words[last].key] = at }
        }
        words.swapAt(at, last)
        words.removeLast()
        if words.count <= Self.indexThreshold { positions.removeAll(keepingCapacity: true) }
    }

    /// Moves a member lane from one slot to another.
    mutating func move(fromKey: UInt64, fromBit: UInt16, toKey: UInt64, toBit: UInt16) {
        if fromKey == toKey, let at = position(of: fromKey) {
            words[at].lanes = (words[at].lanes & ~fromBit) | toBit
            return
        }
        remove(key: fromKey, bit: fromBit)
        insert(key: toKey, bit: toBit)
    }
}
