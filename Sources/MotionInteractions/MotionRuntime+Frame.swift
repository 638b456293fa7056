#if !$Embedded
import Foundation
#endif
import SpringKernel
import _MotionInteractionsShims

/// Advancing by a frame: one kernel step, then the delivery of what it changed.
extension MotionRuntime {
    /// The shortest time ``advance(toTimestamp:)`` steps, in seconds (0.1 ms: no display ticks at
    /// 10 kHz); less is rounding or a repeated timestamp, and is carried to the next frame.
    public static var minimumTimestampStep: Double { 1e-4 }

    /// Advances every spring by `dt` seconds and delivers the frame: exactly
    /// ``stepSprings(by:)`` followed by ``deliverFrame()``.
    ///
    /// - Throws: ``MotionRuntimeError/invalidFrameDuration(_:)`` for a NaN, infinite, zero or
    ///   negative `dt`; ``MotionRuntimeError/reentrantAdvance`` from inside a delivery's callback.
    ///   Nothing changes when it throws.
    ///
    /// - Complexity: As ``stepSprings(by:)`` then ``deliverFrame()``: the kernel's step, then
    ///   O(streams delivered to, and their subscribers).
    @inlinable
    public func advance(by dt: Double) throws(MotionRuntimeError) {
        try stepSprings(by: dt)
        deliverFrame()
    }

    /// Advances to a display link's timestamp (seconds, any monotonic clock).
    ///
    /// The first call only records the timestamp. After that, the springs advance by exactly the
    /// time since the timestamp they were last advanced to, jitter, adaptive refresh rates and
    /// hitches included: the kernel's rest prediction holds for any frame durations and costs
    /// nothing more when they change.
    ///
    /// This is the one place the timestamp policy is stated:
    /// - later by ``minimumTimestampStep`` or more: steps the time since the last timestamp;
    /// - repeated, or later by less (a sliver of rounding): steps nothing, and the time is carried
    ///   to the next frame;
    /// - earlier by ``minimumTimestampStep`` or more (a display clock that restarted): a clock
    ///   reset. It steps one frame of the last stepped frame's duration (1/60 s before any), and
    ///   later timestamps are measured from this one, so the springs never wait for the old clock
    ///   to come round again;
    /// - earlier by less: steps nothing (jitter).
    ///
    /// - Throws: ``MotionRuntimeError/invalidTimestamp(_:)`` for a non-finite timestamp (nothing
    ///   changes), ``MotionRuntimeError/reentrantAdvance`` from inside a delivery's callback.
    ///
    /// - Complexity: As ``advance(by:)`` (nothing when no time is stepped).
    @inlinable
    public func advance(toTimestamp timestamp: Double) throws(MotionRuntimeError) {
        guard let dt = try frameDuration(advancingTo: timestamp) else { return }
        try advance(by: dt)
    }

    /// The kernel step alone: advances every moving spring by `dt` and settles those due, without
    /// delivering anything yet. ``advance(by:)`` calls it; a profiler may call it and
    /// ``deliverFrame()`` itself to time the two phases apart.
    ///
    /// If the previous step was not delivered yet, it is delivered first, so no rest event is lost.
    ///
    /// - Complexity: The kernel's step (`SpringBank.step(dt:path:)`): O(moving springs) and the
    ///   springs due this frame.
    @inlinable
    public func stepSprings(by dt: Double) throws(MotionRuntimeError) {
        try prepareToStep(dt)
        do {
            try bank.step(dt: dt)
        } catch {
            throw .invalidFrameDuration(dt)
        }
        stepAwaitingDelivery = true
    }

    /// Delivers the last step: values for every stream whose springs moved, `.atRest` for every
    /// stream the kernel brought to rest, then the ``whenAllAtRest(_:)`` actions if nothing moves.
    /// Does nothing if the last step was delivered already.
    ///
    /// - Complexity: O(moving springs + streams delivered to, and their subscribers).
    public func deliverFrame() {
        guard stepAwaitingDelivery, !isDelivering else { return }
        retargets.flush()
        stepAwaitingDelivery = false
        isDelivering = true
        frameSnapshot.take(from: bank, slotCount: streamSlots.count)
        deliverMovingValues()
        deliverRests()
        runRestWaitersIfAllAtRest()
        isDelivering = false
        finishDelivery()
    }

    @usableFromInline
    func prepareToStep(_ dt: Double) throws(MotionRuntimeError) {
        guard !isDelivering else { throw .reentrantAdvance }
        guard dt.isFinite, dt > 0 else { throw .invalidFrameDuration(dt) }
        if stepAwaitingDelivery { deliverFrame() }
        // The frame's retargets, in one bulk call, before the step.
        retargets.flush()
    }

    /// The duration to step for a display-link timestamp, or nil when there is nothing to step.
    @usableFromInline
    func frameDuration(advancingTo timestamp: Double) throws(MotionRuntimeError) -> Double? {
        guard timestamp.isFinite else { throw .invalidTimestamp(timestamp) }
        guard !isDelivering else { throw .reentrantAdvance }
        guard let last = springTimestamp else {
            springTimestamp = timestamp
            return nil
        }
        let elapsed = timestamp - last
        if elapsed <= -Self.minimumTimestampStep {
            // The clock restarted: one frame of the last duration, then on from here.
            springTimestamp = timestamp
            return lastTimestampStep
        }
        // A sliver of time (a repeated timestamp plus rounding, or jitter back) is carried to the
        // next frame.
        guard elapsed >= Self.minimumTimestampStep else { return nil }
        springTimestamp = timestamp
        lastTimestampStep = elapsed
        return elapsed
    }

    /// Phase 1: every stream with a spring among the kernel's moving springs or rest events sends
    /// its values: from the frame's snapshot (the kernel's moving springs read in storage order),
    /// or, for a stream the snapshot cannot vouch for, read from the kernel at its turn.
    ///
    /// The streams are the snapshot's, walked in slot order. A stream cancelled during the walk
    /// is skipped when its turn comes; one whose springs a callback changed is asked about again
    /// (skipped if none moves any more, or it is held) and read from the kernel; one that starts
    /// gets its first values next frame. Nothing here allocates.
    func deliverMovingValues() {
        let bank = self.bank
        let snapshot = frameSnapshot
        let count = snapshot.listMovedSlots()
        let order = snapshot.order
        var delivered = 0
        for i in 0..<count {
            // The walk is bound by cache misses. A stream of points written to a property (a
            // Tossable, an AttachWithSpring, a SpringTo of a position) is one object, the
            // property, whose address the sink table holds: asked for d turns ahead, straight
            // from the table. Any other stream is two, the stream and its subscriber: the stream
            // 2d turns ahead is asked for now, and the subscriber of the one d ahead (its
            // closure's context, read from the stream asked for d turns ago), so the misses of
            // several streams overlap instead of following one another.
            if i + 2 * Self.prefetchDistance < count {
                let ahead = Int(order[i + 2 * Self.prefetchDistance])
                if streamSinks[ahead] == nil, let stream = streamSlots[ahead] { prefetchObject(UnsafeRawPointer(stream.toOpaque())) }
            }
            if i + Self.prefetchDistance < count {
                let ahead = Int(order[i + Self.prefetchDistance])
                if let sink = streamSinks[ahead] {
                    mi_prefetch(sink)
                } else if let stream = streamSlots[ahead], let receiver = stream._withUnsafeGuaranteedRef({ $0.valueReceiverContext }) {
                    mi_prefetch(receiver)
                }
            }
            let slot = Int(order[i])
            // A stream of points written to a property, its two values read in the step: written
            // there (a stream cancelled or paused during the walk has left the table).
            if let sink = streamSinks[slot], let values = snapshot.values(ofSlot: slot, componentMask: 0b11) {
                Unmanaged<ReactiveProperty<CGPoint>>.fromOpaque(sink)._withUnsafeGuaranteedRef {
                    $0.write(CGPoint(springComponents: values))
                }
                delivered += 1
                continue
            }
            // A stream cancelled during the walk has left its slot.
            guard let entry = streamSlots[slot] else { continue }
            let sent = entry._withUnsafeGuaranteedRef { connection in
                if let values = snapshot.values(ofSlot: slot, componentMask: connection.componentMask) {
                    connection.deliver(values)
                    return true
                }
                // Changed during the walk (or a component the snapshot did not read): the kernel
                // says whether it still moves, unheld, and what its values are.
                guard !snapshot.isStale(slot: slot) || Self.isMovingUnheld(connection, in: bank) else { return false }
                connection.deliverValue(from: bank)
                return true
            }
            if sent { delivered += 1 }
        }
        lastFrameDeliveryCount = delivered
    }

    /// Whether some spring of the stream moves and none is held, as the kernel has them now.
    private static func isMovingUnheld(_ connection: SpringConnection, in bank: SpringBank<Float32Lanes>) -> Bool {
        var isMoving = false
        for handle in connection.handles {
            guard let state = bank.state(of: handle), !state.isPaused else { return false }
            isMoving = isMoving || !state.isAtRest
        }
        return isMoving
    }

    /// How many streams ahead the frame's walks prefetch (twice that for the streams themselves).
    static var prefetchDistance: Int { 8 }

    /// Prefetches a stream's object (its first four cache lines: every field the frame reads).
    @inline(__always)
    func prefetchObject(_ address: UnsafeRawPointer) {
        mi_prefetch(address)
        mi_prefetch(address + 64)
        mi_prefetch(address + 128)
        mi_prefetch(address + 192)
    }

    /// How many rests ahead the rest walk prefetches each level.
    static var restPrefetchDistance: Int { 4 }

    /// Prefetches one level of what rest event `index` reaches (0: the stream, 1: what its
    /// subscriber's state closure captured, 2: where that passes the state on, if the stream's
    /// holder said), if the event will rest its stream as far as the snapshot can tell.
    @inline(__always)
    func prefetchRest(_ index: Int, level: Int) {
        let snapshot = frameSnapshot
        guard index < snapshot.restEventCount else { return }
        let event = Int(snapshot.restEvents[index])
        guard event >= 0, snapshot.isMoving(slot: event >> 2) != true, let entry = streamSlots[event >> 2] else { return }
        let address = entry._withUnsafeGuaranteedRef { connection -> UnsafeRawPointer? in
            switch level {
            case 0: UnsafeRawPointer(entry.toOpaque())
            case 1: connection.stateReceiverContext
            default: connection.stateForwardingContext
            }
        }
        guard let address else { return }
        if level == 0 { prefetchObject(address) } else { mi_prefetch(address) }
    }

    /// After a delivery: slots freed during it become reusable, and retired streams are released.
    func finishDelivery() {
        if !slotsFreedDuringDelivery.isEmpty {
            freeStreamSlots.append(contentsOf: slotsFreedDuringDelivery)
            slotsFreedDuringDelivery.removeAll(keepingCapacity: true)
        }
        if !retiredConnections.isEmpty { retiredConnections.removeAll(keepingCapacity: true) }
    }

    /// Phase 2: the kernel's rest events, as the frame's snapshot decoded them (each spring's
    /// user value names its stream's slot and component); a stream is at rest when the last of
    /// its springs rests.
    func deliverRests() {
        let snapshot = frameSnapshot
        let count = snapshot.restEventCount
        guard count > 0 else { return }
        let rested = bank.restedInLastStep
        // Each rest reaches the stream, its subscriber and what that passes the state on to:
        // cold objects, each found through the one before. The walk asks for them a level at a
        // time, a few rests ahead, so the misses of several rests overlap.
        let distance = Self.restPrefetchDistance
        for i in 0..<count {
            prefetchRest(i + 3 * distance, level: 0)
            prefetchRest(i + 2 * distance, level: 1)
            prefetchRest(i + distance, level: 2)
            let event = Int(snapshot.restEvents[i])
            // −1: a spring removed since the step (its stream cancelled).
            guard event >= 0, let entry = streamSlots[event >> 2] else { continue }
            // Unretained: a stream disconnected by a callback is kept until the delivery ends.
            entry._withUnsafeGuaranteedRef { deliverRest(of: $0, slot: event >> 2, component: event & 3, spring: rested[i]) }
        }
    }

    /// Sends `.atRest` to the stream if `spring`, its `component`, rested in the step and was the
    /// last of its springs to move.
    private func deliverRest(of connection: SpringConnection, slot: Int, component: Int, spring: SpringHandle) {
        guard connection.isActive, connection.handles[component] == spring else { return }
        if bank.layoutVersion == frameSnapshot.layoutVersion, let isMoving = frameSnapshot.isMoving(slot: slot) {
            // No spring changed region since the snapshot: it says whether another component
            // still moves (the runtime pauses a stream's springs together, so one that rested in
            // the step had none paused; the others are at rest or moving).
            guard !isMoving else { return }
        } else {
            // A change made since (by a callback, say) may have started the spring or another
            // component again: the kernel is asked.
            guard !isAwake(connection) else { return }
        }
        connection.isActive = false
        activeConnectionCount -= 1
        connection.deliverState(.atRest)
    }
}
