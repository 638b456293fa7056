import _SpringKernelShims

extension SpringBank {
    /// Advances every moving spring by `dt` seconds and settles the springs due in this frame.
    ///
    /// The common frame (one thread, the SIMD path, the first batch's lane loop) is always
    /// inlined into the caller, so it is compiled for the CPU of the module that calls it: build
    /// your engine for its target CPU (`-Xcc -march=native` or `-target-cpu`) to get the full SIMD
    /// width. The rest (other batches, threads, the scalar path, settling) is out of line, which
    /// keeps the inlined code small.
    ///
    /// - Parameters:
    ///   - dt: the frame's duration in seconds; any finite positive value, a multi-second hitch
    ///     included, is stepped exactly. With the default ``FrameClock/variable`` clock every frame
    ///     may have its own duration at no extra cost (rest is predicted in seconds, which holds
    ///     for any frame durations); with ``FrameClock/fixed(frameDuration:)`` it must be the
    ///     declared duration.
    ///   - path: ``StepPath/simd`` or the bit-identical ``StepPath/scalar`` loop.
    /// - Throws: ``SpringKernelError/invalidTimeStep(_:)``,
    ///   ``SpringKernelError/timeStepMismatch(declared:given:)``, or
    ///   ``SpringKernelError/reentrantMutation`` inside a callback; the bank is then unchanged.
    ///
    /// - Complexity: O(m + b + c + r log q): m moving springs (in 16-lane bundles), b configuration
    ///   batches (visited when the frame's work is laid out again: after a change, or a new `dt`;
    ///   an unchanged frame visits none), c springs changed since the last step (each predicted
    ///   again), r springs due this frame (to rest, or to be predicted again) and q springs queued.
    ///   Springs at rest or paused cost nothing.
    @inlinable @inline(__always)
    public func step(dt: Double, path: StepPath = .simd) throws(SpringKernelError) {
        // Q16.16 lanes step in binary32: a thread in another rounding mode gets round-to-nearest
        // for the frame (the test folds away for float32 banks, which follow the thread's mode).
        if Lanes.stepsInNearestRounding, !NearestRounding.isCurrent {
            return try stepRoundingToNearest(dt: dt, path: path)
        }
        try stepInCurrentRounding(dt: dt, path: path)
    }

    /// ``step(dt:path:)`` between ``NearestRounding/enter()`` and ``NearestRounding/leave(_:)``.
    @inlinable @inline(never)
    func stepRoundingToNearest(dt: Double, path: StepPath) throws(SpringKernelError) {
        let saved = NearestRounding.enter()
        defer { NearestRounding.leave(saved) }
        // dt through a fence: its checks and coefficients are not computed before enter().
        try stepInCurrentRounding(dt: NearestRounding.fence((dt, 0, 0)).0, path: path)
    }

    /// The frame itself: inlined into every step. On 32-bit ARM and RISC-V it is called instead
    /// (still specialised in the caller's module, for its CPU): there a copy of the frame in each
    /// caller and in ``stepRoundingToNearest(dt:path:)`` cost a microcontroller's flash, for one
    /// call a frame.
    #if arch(arm) || arch(riscv32)
    @inlinable @inline(never)
    #else
    @inlinable @inline(__always)
    #endif
    func stepInCurrentRounding(dt: Double, path: StepPath) throws(SpringKernelError) {
        // The common frame: the last plan still holds, no spring is due, no event to clear. It costs
        // a compare, the loop, an increment and a compare.
        let state = frameState
        if state.pointee.needsPreparation || state.pointee.readyDuration != dt.bitPattern { try core.prepareStep(duration: dt) }
        let saturated = StepExecution.advance(state, path: path, lanes: Lanes.self)
        state.pointee.frame += 1
        state.pointee.time += dt
        if saturated != 0 || state.pointee.frame >= state.pointee.nextDueFrame || state.pointee.time >= state.pointee.nextDueTime {
            core.finishStep(saturated: saturated != 0)
        }
    }
}

/// Runs a step's plan: on one thread, or split into equal bundle ranges across threads.
@usableFromInline
enum StepExecution {
    /// Advances the frame; returns non-zero if any lane saturated.
    ///
    /// Inlined into every step: only the common frame (one thread, the SIMD path) is here, and
    /// its first batch (with one configuration, the only one) comes from the frame state, so a
    /// small bank's frame is the lane loop and a few compares. Everything else is out of line.
    @inlinable @inline(__always)
    static func advance<Lanes: SpringLaneArithmetic>(
        _ state: UnsafeMutablePointer<FrameState>, path: StepPath, lanes: Lanes.Type
    ) -> Int {
        let plan = state.pointee.plan
        let checksBound = Q16Lanes.checksBound(frame: state.pointee.frame)
        guard plan.threadCount <= 1, path == .simd else {
            return advanceOffTheCommonPath(
                plan, threadResults: state.pointee.threadResults, path: path, checksBound: checksBound, lanes: lanes)
        }
        guard plan.workCount > 0 else { return 0 }
        let first = state.pointee.firstWork
        var saturated = advance(first, bundles: 0..<first.bundleCount, path: .simd, checksBound: checksBound, lanes: lanes)
        if plan.workCount > 1 {
            saturated |= advance(
                plan, bundles: first.bundleCount..<plan.totalBundles, path: path, checksBound: checksBound, lanes: lanes)
        }
        return saturated
    }

    /// Advances the frame as ``advance(_:path:lanes:)`` does, each batch's moving lanes pulled
    /// toward their goals as they go (`retargeting[i]`: the plan's i-th batch's target lanes and
    /// goals); the common frame inline, the rest out of line. The lanes never saturate.
    @inlinable @inline(__always)
    static func advance<Lanes: SpringLaneArithmetic>(
        _ state: UnsafeMutablePointer<FrameState>, retargeting: UnsafePointer<RetargetingLanes>, path: StepPath, lanes: Lanes.Type
    ) {
        let plan = state.pointee.plan
        guard plan.threadCount <= 1, path == .simd else {
            _ = advanceOffTheCommonPath(
                plan, threadResults: state.pointee.threadResults, path: path, checksBound: false, lanes: lanes,
                retargeting: retargeting)
            return
        }
        for item in 0..<plan.workCount {
            let work = item == 0 ? state.pointee.firstWork : plan.work[item]
            _ = advance(work, bundles: 0..<work.bundleCount, path: .simd, checksBound: false, lanes: lanes, retargeting: retargeting[item])
        }
    }

    /// The frames ``advance(_:path:lanes:)`` does not take inline: the scalar path, and a plan
    /// split across threads in equal bundle ranges.
    @inlinable @inline(never)
    static func advanceOffTheCommonPath<Lanes: SpringLaneArithmetic>(
        _ plan: StepPlan, threadResults: UnsafeMutablePointer<Int>, path: StepPath, checksBound: Bool,
        lanes: Lanes.Type, retargeting: UnsafePointer<RetargetingLanes>? = nil
    ) -> Int {
        guard plan.threadCount > 1 else {
            return advance(
                plan, bundles: 0..<plan.totalBundles, path: path, checksBound: checksBound, lanes: lanes, retargeting: retargeting)
        }
        let shared = UncheckedSendable((plan, threadResults, retargeting))
        Platform.concurrentPerform(iterations: plan.threadCount) { part in
            let (plan, results, retargeting) = shared.value
            let start = plan.totalBundles * part / plan.threadCount
            let end = plan.totalBundles * (part + 1) / plan.threadCount
            // Each thread writes its own slot; they are read after concurrentPerform returns.
            // A worker keeps its own floating-point environment: Q16 lanes pin round-to-nearest
            // there too.
            if Lanes.stepsInNearestRounding, !NearestRounding.isCurrent {
                let saved = NearestRounding.enter()
                results[part] = advance(
                    plan, bundles: start..<end, path: path, checksBound: checksBound, lanes: lanes, retargeting: retargeting)
                NearestRounding.leave(saved)
            } else {
                results[part] = advance(
                    plan, bundles: start..<end, path: path, checksBound: checksBound, lanes: lanes, retargeting: retargeting)
            }
        }
        var saturated = 0
        for part in 0..<plan.threadCount { saturated |= threadResults[part] }
        return saturated
    }

    /// Advances bundles `bundles` of the frame, counted across the plan's batches in order
    /// (one thread's share, the scalar path, or the batches after the first), out of line.
    @inlinable @inline(never)
    static func advance<Lanes: SpringLaneArithmetic>(
        _ plan: StepPlan, bundles: Range<Int>, path: StepPath, checksBound: Bool, lanes: Lanes.Type,
        retargeting: UnsafePointer<RetargetingLanes>? = nil
    ) -> Int {
        var saturated = 0
        var offset = 0
        for item in 0..<plan.workCount {
            let work = plan.work[item]
            let start = max(bundles.lowerBound - offset, 0)
            let end = min(bundles.upperBound - offset, work.bundleCount)
            if start < end {
                saturated |= advance(
                    work, bundles: start..<end, path: path, checksBound: checksBound, lanes: lanes, retargeting: retargeting?[item])
            }
            offset += work.bundleCount
            if offset >= bundles.upperBound { break }
        }
        return saturated
    }
}

extension StepExecution {
    /// Advances bundles `bundles` of one batch's work with the loop of its lane format: once the
    /// step is specialised for a format, one call of it remains, inlined once. A watched batch
    /// (see ``StepWatch``) goes through the same loop a block at a time, each block's watched
    /// springs within the band found while its displacement lanes are still in the first-level
    /// cache (`sk_watch_candidates`), so the watch costs no second pass over the lanes; any other
    /// batch is one block.
    ///
    /// With `retargeting`, each lane is pulled toward its goal as the block is advanced (see
    /// ``SpringBank/step(dt:retargetingIn:to:path:)``).
    @inlinable @inline(__always)
    static func advance<Lanes: SpringLaneArithmetic>(
        _ work: LaneWork, bundles: Range<Int>, path: StepPath, checksBound: Bool, lanes: Lanes.Type,
        retargeting: RetargetingLanes? = nil
    ) -> Int {
        if let retargeting {
            // The format's one pass marks the watch's candidates itself.
            Lanes.advance(work, retargeting: retargeting.targets, toward: retargeting.goals, bundles: bundles, path: path)
            return 0
        }
        let watch = work.watch
        let block = watch == nil ? bundles.count : StepWatch.blockBundles
        var saturated = 0
        var start = bundles.lowerBound
        while start < bundles.upperBound {
            let end = Swift.min(start + block, bundles.upperBound)
            saturated |= Lanes.advance(work, bundles: start..<end, path: path, checksBound: checksBound)
            if let watch {
                _ = sk_watch_candidates(
                    work.displacements.assumingMemoryBound(to: UInt32.self) + start * BundleIndexing.laneCount,
                    watch.pointee.watched + start, watch.pointee.aged + start, watch.pointee.candidates + start, watch.pointee.band,
                    watch.pointee.integerLanes, end - start)
            }
            start = end
        }
        return saturated
    }
}

/// Where a step that also retargets (``SpringBank/step(dt:retargetingIn:to:path:)``) finds one
/// batch's target lanes and the caller's goals for its slots, from slot 0.
@usableFromInline
struct RetargetingLanes {
    @usableFromInline let targets: UnsafeMutableRawPointer
    @usableFromInline let goals: UnsafeRawPointer
    /// The batch's index in the bank.
    let batch: Int

    init(targets: UnsafeMutableRawPointer, goals: UnsafeRawPointer, batch: Int) {
        self.targets = targets
        self.goals = goals
        self.batch = batch
    }
}

/// Carries a value the caller knows is safe to share across the step's threads (the plan's
/// pointers: each thread writes a disjoint range of bundles).
@usableFromInline
struct UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline let value: Value
    @inlinable init(_ value: Value) { self.value = value }
}
