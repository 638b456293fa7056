/// The batch of each (configuration, lane scale) key: an open-addressing hash table of batch
/// indices, whose keys are read from the batches themselves.
///
/// A `[BatchKey: Int]` did this before; with its seeded hashing, storage and copy-on-write paths
/// it was 4.1 KB of a one-format program's text on a Cortex-M4F (of a 64 KB budget). This table is
/// an array of indices, probed linearly from a hash of the key's bits, at most half full, and
/// deletes by shifting the entries after a hole back (no tombstones). The bank looks a key up
/// when a spring is added or reconfigured under a key not among its last few
/// (``SpringBankCore/batchIndex(for:scale:)``), and changes it only when a batch is made or released.
struct BatchKeyTable {
    /// Batch index + 1 per slot, 0 where the slot is empty; a power of two of slots, or none.
    private var slots: [Int32] = []
    /// The keys held.
    private(set) var count = 0

    /// The batch `key` belongs to, if the table holds it. `batches` holds every listed batch.
    func index(of key: BatchKey, in batches: UnsafeTable<Unmanaged<ConfigurationBatch>?>) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = Self.hash(key) & mask
        while slots[slot] != 0 {
            let index = Int(slots[slot] - 1)
            if Self.key(of: index, in: batches) == key { return index }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Lists batch `index` under `key`, which the table does not hold; `batches` holds that batch.
    mutating func insert(_ key: BatchKey, index: Int, in batches: UnsafeTable<Unmanaged<ConfigurationBatch>?>) {
        if 2 * (count + 1) > slots.count { grow(in: batches) }
        let mask = slots.count - 1
        var slot = Self.hash(key) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index + 1)
        count += 1
    }

    /// Stops listing batch `index` under `key` (the table holds it); `batches` still holds that
    /// batch and every other listed one.
    mutating func remove(_ key: BatchKey, index: Int, in batches: UnsafeTable<Unmanaged<ConfigurationBatch>?>) {
        let mask = slots.count - 1
        var hole = Self.hash(key) & mask
        while slots[hole] != Int32(index + 1) { hole = (hole + 1) & mask }
        // Each entry after the hole, up to the next empty slot, moves into the hole if its home
        // slot is not in the cyclic range (hole, entry]: then the hole is on its probe path.
        var slot = hole
        while true {
            slot = (slot + 1) & mask
            guard slots[slot] != 0 else { break }
            let home = Self.hash(Self.key(of: Int(slots[slot] - 1), in: batches)) & mask
            if (slot &- home) & mask >= (slot &- hole) & mask {
                slots[hole] = slots[slot]
                hole = slot
            }
        }
        slots[hole] = 0
        count -= 1
    }

    /// Twice the slots (8 at first), every entry placed again.
    private mutating func grow(in batches: UnsafeTable<Unmanaged<ConfigurationBatch>?>) {
        let old = slots
        slots = [Int32](repeating: 0, count: max(8, 2 * old.count))
        let mask = slots.count - 1
        for entry in old where entry != 0 {
            var slot = Self.hash(Self.key(of: Int(entry - 1), in: batches)) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }

    /// The key of batch `index`, which `batches` holds.
    static func key(of index: Int, in batches: UnsafeTable<Unmanaged<ConfigurationBatch>?>) -> BatchKey {
        batches[index].unsafelyUnwrapped._withUnsafeGuaranteedRef { BatchKey(configuration: $0.configuration, scale: $0.scale) }
    }

    /// A hash of the key's bits, equal for equal keys (a zero parameter hashes as +0), mixed by
    /// SplitMix64's finalizer so that nearby parameters spread over the table.
    private static func hash(_ key: BatchKey) -> Int {
        func bits(_ x: Double) -> UInt64 { x == 0 ? 0 : x.bitPattern }
        func mix(_ x: UInt64) -> UInt64 {
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let configuration = key.configuration
        var hash = mix(bits(configuration.tension))
        hash = mix(hash ^ bits(configuration.friction))
        hash = mix(hash ^ bits(configuration.mass))
        let shifts = UInt64(truncatingIfNeeded: key.scale.displacementShift) ^ UInt64(truncatingIfNeeded: key.scale.velocityShift) << 32
        hash = mix(hash ^ shifts)
        return Int(truncatingIfNeeded: hash)
    }
}
