/// The bank's own order of springs (see ``StorageLayout``): the walk over it that reads and
/// writes in storage order share, and the caller's user values, kept by slot so that walk streams
/// them.
extension SpringBankCore {
    /// The caller's own value for the spring (an entity id, an index into its tables).
    func userValue(ofRecord index: Int) -> UInt64 {
        let (batch, slot) = location(ofRecord: index)
        return batchObjects[batch].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.userValues[slot] }
    }

    func setUserValue(_ userValue: UInt64, ofRecord index: Int) {
        let (batch, slot) = location(ofRecord: index)
        batchObjects[batch].unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.userValues[slot] = userValue }
    }

    /// Moved on whenever a spring changes slot or region.
    var layoutVersion: UInt64 { frameState.pointee.layoutVersion }

    /// How many of a batch's slots, from slot 0, lie in `region`.
    static func slots(of batch: ConfigurationBatch, in region: StorageRegion) -> Int {
        switch region {
        case .all: batch.count
        case .moving: batch.movingCount
        }
    }

    /// The bank's current order of the springs in `region`.
    func layout(of region: StorageRegion) -> StorageLayout {
        var count = 0
        for batch in batches {
            if let batch { count += Self.slots(of: batch, in: region) }
        }
        return StorageLayout(region: region, count: count, version: layoutVersion, bankTag: tag)
    }

    /// Refuses a layout this bank no longer has (or never made), or buffers not of its length.
    func check(_ layout: StorageLayout, count: Int) throws(SpringKernelError) {
        guard layout.bankTag == tag, layout.version == layoutVersion else { throw .staleLayout }
        guard count == layout.count else { throw .countMismatch(expected: layout.count, given: count) }
    }

    /// Calls `body` with each batch holding springs of `region`, in storage order, with how many
    /// of its slots (from 0) are in it and where they start in the layout.
    @inline(__always)
    func forEachRun<Failure: Error>(
        in region: StorageRegion, _ body: (_ batch: ConfigurationBatch, _ slots: Int, _ offset: Int) throws(Failure) -> Void
    ) throws(Failure) {
        var offset = 0
        for index in batches.indices {
            guard let batch = batches[index] else { continue }
            let slots = Self.slots(of: batch, in: region)
            guard slots > 0 else { continue }
            try body(batch, slots, offset)
            offset += slots
        }
    }
}
