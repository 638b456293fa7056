/// A broken internal invariant, found by `_checkInvariants()`.
struct InvariantViolation: Error, CustomStringConvertible {
    let description: String
}

extension SpringBankCore {
    private func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw InvariantViolation(description: message()) }
    }

    /// Checks every structural invariant of the bank; for tests (Swift Collections' `_checkInvariants`).
    func _checkInvariants() throws {
        var liveSprings = 0
        var pauseHolds = [Int: Int]()  // record → masks pausing it
        for (m, mask) in masks.enumerated() where mask.isLive {
            var members = 0
            for word in mask.members {
                let (key, lanes) = (word.key, word.lanes)
                let (batchIndex, bundle) = Self.split(bundleKey: key)
                try check(lanes != 0, "empty member word kept in mask \(m)")
                let batch = try batches[batchIndex] ?? { throw InvariantViolation(description: "mask \(m) names a free batch") }()
                for lane in 0..<BundleIndexing.laneCount where lanes & (1 << lane) != 0 {
                    let slot = bundle * BundleIndexing.laneCount + lane
                    try check(slot < batch.count, "mask \(m) names an empty slot")
                    let spring = Int(batch.springOfSlot[slot])
                    try check(isMember(record: spring, mask: m), "mask \(m) lists a spring that does not list it")
                    if mask.isPausing { pauseHolds[spring, default: 0] += 1 }
                    members += 1
                }
            }
            try check(members == mask.memberCount, "mask \(m) counts \(mask.memberCount) members, has \(members)")
        }
        for (b, slot) in batches.enumerated() {
            guard let batch = slot else { continue }
            try check(batchOfKey[BatchKey(configuration: batch.configuration, scale: batch.scale)] == b, "configuration index of batch \(b)")
            try check(0 <= batch.awakeCount && batch.awakeCount <= batch.count && batch.count <= batch.capacity, "batch \(b) counts")
            try check(batch.count > 0, "empty batch \(b) kept")
            var paused = 0
            for bundle in 0..<(batch.capacity / BundleIndexing.laneCount) {
                try check(batch.pausedLanes[bundle] == batch.pauseDepth.heldLanes(bundle: bundle), "paused word of batch \(b) bundle \(bundle)")
                paused += batch.pausedLanes[bundle].nonzeroBitCount
            }
            try check(paused == batch.pausedLaneCount, "paused lane count of batch \(b)")
            for slot in 0..<batch.capacity {
                guard slot < batch.count else {
                    try check(batch.displacements[slot] == 0 && batch.velocities[slot] == 0 && batch.targets[slot] == 0
                        && batch.pauseDepth.depth(slot: slot) == 0, "unused slot \(slot) of batch \(b) not clear")
                    continue
                }
                let spring = Int(batch.springOfSlot[slot])
                let record = records[spring]
                try check(record.isLive && Int(record.batch) == b && Int(record.slot) == slot, "slot \(slot) of batch \(b) and its record disagree")
                try check(batch.pauseDepth.depth(slot: slot) == pauseHolds[spring, default: 0], "pause depth of spring \(spring)")
                for mask in masks(ofRecord: spring) {
                    let word = masks[mask].members.first { $0.key == Self.bundleKey(batch: b, slot: slot) }?.lanes ?? 0
                    try check(word & BundleIndexing.laneBit(ofSlot: slot) != 0, "spring \(spring) lists mask \(mask) without its bit")
                }
                if slot >= batch.awakeCount {
                    try check(batch.displacements[slot] == 0 && batch.velocities[slot] == 0, "resting spring \(spring) is not exactly at rest")
                } else if !batch.isPaused(slot: slot) && !record.awaitingPrediction {
                    // Never due only if it never rests: under a variable clock as predicted from the
                    // state its trajectory changed at (its lanes may since have left that motion:
                    // float32 cannot hold a velocity of 10⁻¹⁴⁶), else from its lanes.
                    let neverRests: Bool
                    if case .variable = frameClock {
                        neverRests = SettlePredictor.restTime(
                            displacement: record.changeDisplacement, velocity: record.changeVelocity, tolerance: record.tolerance,
                            motion: batch.motion) == .infinity
                    } else {
                        neverRests = restTime(record: spring) == .infinity
                    }
                    try check(record.due.isFinite || neverRests, "moving spring \(spring) is never due")
                }
                if slot < batch.awakeCount && !batch.isPaused(slot: slot) && !record.awaitingPrediction && record.due.isFinite {
                    try check(record.queuedDue <= record.due, "moving spring \(spring) is queued after its due time")
                    try check(schedule.entries.contains { Int($0.spring) == spring && $0.stamp == record.stamp && $0.due == record.queuedDue },
                        "moving spring \(spring) is missing from the rest schedule")
                }
                liveSprings += 1
            }
        }
        try check(records.indices.filter { records[$0].isLive && records[$0].queuedDue.isFinite }.count == queuedSprings,
            "\(queuedSprings) springs counted as queued")
        try check(liveSprings == springCount, "\(springCount) springs counted, \(liveSprings) in slots")
        try check(records.indices.filter { records[$0].isLive }.count == springCount, "live records")
    }
}

extension SpringBank {
    /// Checks every internal invariant; throws the first one broken. For tests.
    func _checkInvariants() throws { try core._checkInvariants() }
}
