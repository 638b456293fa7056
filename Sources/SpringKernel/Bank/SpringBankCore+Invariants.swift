/// A broken internal invariant, found by `_checkInvariants()`.
struct InvariantViolation: Error, CustomStringConvertible {
    let description: String
}

extension SpringBankCore {
    private func check(_ condition: Bool, _ message: @autoclosure () -> String) throws(InvariantViolation) {
        if !condition { throw InvariantViolation(description: message()) }
    }

    /// Checks every structural invariant of the bank; for tests (Swift Collections' `_checkInvariants`).
    func _checkInvariants() throws(InvariantViolation) {
        var liveSprings = 0
        var pauseHolds = [Int: Int]()  // record → masks pausing it
        var springEdges = 0
        for index in records.indices where places[index].isLive {
            try check(records[index].listedAt == 0, "spring \(index) still marked by a bulk call")
            var edge = records[index].firstMaskEdge, previous = MaskEdge.none
            while edge != MaskEdge.none {
                let e = maskEdges[Int(edge)]
                try check(Int(e.spring) == index && e.previousOfSpring == previous, "edge \(edge) of spring \(index) mislinked")
                try check(masks[Int(e.mask)].isLive, "spring \(index) listed by a free mask")
                try check(edge == self.edge(record: index, mask: Int(e.mask)), "spring \(index) listed twice by mask \(e.mask)")
                springEdges += 1
                (previous, edge) = (edge, e.nextOfSpring)
            }
        }
        // Springs a storage-order write changed are predicted at the next mutation or step: until
        // then their schedule is the old one, and no spring has changed slot since.
        try check(changedRuns.isEmpty || changedRunsLayoutVersion == layoutVersion, "springs moved before their changes were predicted")
        var changedSlots = [ObjectIdentifier: Set<Int>]()
        for run in changedRuns {
            changedSlots[ObjectIdentifier(run.batch.takeUnretainedValue()), default: []].formUnion(Int(run.lower)..<Int(run.upper))
        }
        var maskEdgeCount = 0
        for (m, mask) in masks.enumerated() where mask.isLive {
            let members = Int(mask.memberCount)
            for position in 0..<members {
                let edge = mask.edge(at: position)
                let e = maskEdges[Int(edge)]
                try check(Int(e.mask) == m && Int(e.position) == position && e.spring == mask.member(at: position),
                    "edge \(edge) of mask \(m) misplaced")
                try check(places[Int(e.spring)].isLive, "mask \(m) lists a removed spring")
                if mask.isPausing { pauseHolds[Int(e.spring), default: 0] += 1 }
            }
            maskEdgeCount += members
        }
        try check(maskEdgeCount == springEdges, "masks list \(maskEdgeCount) memberships, springs \(springEdges)")
        try check(maskEdges.count == springEdges + freeMaskEdges.count, "edges lost")
        try check(batchOfKey.count == batches.count { $0 != nil }, "configuration index holds \(batchOfKey.count) batches")
        for (b, slot) in batches.enumerated() {
            guard let batch = slot else { continue }
            try check(batchOfKey.index(of: BatchKey(configuration: batch.configuration, scale: batch.scale), in: batchObjects) == b,
                "configuration index of batch \(b)")
            try check(0 <= batch.movingCount && batch.movingCount <= batch.awakeCount && batch.awakeCount <= batch.count
                && batch.count <= batch.capacity, "batch \(b) counts")
            try check(batch.count > 0 || (batch.isRetiring && retiringBatches.contains { $0.index == b }), "empty batch \(b) kept")
            try check(!batch.isRetiring || retiringBatches.filter({ $0.index == b }).count == 1, "retiring batch \(b) not listed once")
            try check(watchingBatches.filter({ Int($0) == b }).count == (batch.isWatching ? 1 : 0), "watching batch \(b) not listed once")
            for slot in 0..<batch.capacity {
                guard slot < batch.count else {
                    try check(batch.displacements[slot] == 0 && batch.velocities[slot] == 0 && batch.targets[slot] == 0
                        && batch.generationOfSlot[slot] == 0 && !batch.isWatched(slot: slot), "unused slot \(slot) of batch \(b) not clear")
                    continue
                }
                // The watch's marks: on moving springs only, in a batch it visits. A watched
                // spring's rest is the watch's to decide, not the schedule's.
                let watched = batch.isWatched(slot: slot)
                try check(!watched || (slot < batch.movingCount && batch.isWatching), "slot \(slot) of batch \(b) marked by the watch")
                let spring = Int(batch.springOfSlot[slot])
                var record = records[spring]
                if changedSlots[ObjectIdentifier(batch)]?.contains(slot) == true {
                    try check(slot < batch.awakeCount, "resting spring \(spring) noted as changed")
                    record.awaitingPrediction = true
                }
                let place = places[spring]
                try check(place.isLive && Int(place.batch) == b && Int(place.slot) == slot, "slot \(slot) of batch \(b) and its record disagree")
                try check(batch.generationOfSlot[slot] == place.generation, "slot \(slot) of batch \(b) has another generation than its record")
                try check(Int(record.pauseDepth) == pauseHolds[spring, default: 0], "pause depth of spring \(spring)")
                try check((slot < batch.movingCount) == (slot < batch.awakeCount && record.pauseDepth == 0),
                    "spring \(spring) in the wrong region of batch \(b)")
                if slot >= batch.awakeCount {
                    try check(batch.displacements[slot] == 0 && batch.velocities[slot] == 0, "resting spring \(spring) is not exactly at rest")
                } else if slot < batch.movingCount && !record.awaitingPrediction && !watched {
                    // Never due only if it never rests: under a variable clock as predicted from the
                    // state its trajectory changed at (its lanes may since have left that motion:
                    // float32 cannot hold a velocity of 10⁻¹⁴⁶), else from its lanes.
                    let neverRests: Bool
                    if case .variable = frameClock {
                        neverRests = restTimeFromChange(record: spring, batch: batch) == .infinity
                    } else {
                        neverRests = restTime(record: spring) == .infinity
                    }
                    try check(record.due.isFinite || neverRests, "moving spring \(spring) is never due")
                }
                if slot < batch.movingCount && !record.awaitingPrediction && !watched && record.due.isFinite {
                    try check(record.queuedDue <= record.due, "moving spring \(spring) is queued after its due time")
                    try check(schedule.entries.indices.contains {
                        let entry = schedule.entries[$0]
                        return Int(entry.spring) == spring && entry.due == record.queuedDue
                    },
                        "moving spring \(spring) is missing from the rest schedule")
                }
                liveSprings += 1
            }
        }
        // Free records count too: they keep their entry for the next spring (see `retireSchedule`).
        try check(records.indices.filter { records[$0].queuedDue.isFinite }.count == queuedSprings,
            "\(queuedSprings) springs counted as queued")
        try check(liveSprings == springCount, "\(springCount) springs counted, \(liveSprings) in slots")
        try check(records.indices.filter { places[$0].isLive }.count == springCount, "live records")
        try check(places.count == records.count, "a place for every record")
    }
}

extension SpringBank {
    /// Checks every internal invariant; throws the first one broken. For tests.
    func _checkInvariants() throws(InvariantViolation) { try core._checkInvariants() }
}
