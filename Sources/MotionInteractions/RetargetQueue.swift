import SpringKernel

/// The retargets of moving streams, written since the kernel was last reached: applied in bulk
/// (in the order they were written) before anything else reaches the kernel, so nothing can tell
/// them from one call each.
///
/// A destination written to a moving stream (an AttachWithSpring whose target moves every frame,
/// a SpringTo whose destination a gesture moves) only pulls its springs toward the new target:
/// it starts nothing, sends no state and changes no region, so its kernel calls may wait. A
/// frame of such writes costs a bulk call instead of a kernel call (and a read of the target,
/// and a state query) per component.
///
/// The queue is flushed by every runtime call that reaches the kernel (the step, a start, a
/// pause, a removal, a configuration, a retarget that starts a resting stream), and by every read
/// of ``MotionRuntime/kernel``: the kernel sees the same retargets, in the same order relative to
/// every other call, as if each had been made when written. Retargets of different springs
/// commute, and a spring listed twice is retargeted twice, in order, as two calls would.
///
/// How a flush calls the kernel:
/// - When many springs are queued (a quarter or more of the moving ones, as when everything
///   follows a pointer), in storage order: the layout's user values (each spring's stream slot
///   and component) and targets are read, each queued spring's target written over its own, and
///   the whole layout retargeted in one call (`retarget(in:to:)`), which leaves a spring whose
///   target bits are unchanged exactly as it is. The layout is the moving springs' (a queued
///   spring outside it, held or a resting component, goes by handle after the pass).
/// - Otherwise, or when a stream was queued twice (its springs must be retargeted twice, in
///   order), one bulk retarget by handle (`retarget(_:to:)` with buffers).
/// - A bulk call the kernel refuses (a retarget out of the format's range) changes nothing; the
///   retargets are then made one call each, each refused one ignored, as when each was a call.
///
/// Cost (spring-bench interactions, 10,000 AttachWithSpring elements whose targets move every
/// frame): the write itself (the property, its observation, the queue) is most of it, bound by
/// the two objects a write reaches; the flush is a few ns a spring.
final class RetargetQueue {
    /// The runtime's kernel.
    let bank: SpringBank<Float32Lanes>
    /// The runtime whose streams queue here (debug builds check its streams after a flush); nil
    /// once it went away (it flushes first).
    unowned(unsafe) var runtime: MotionRuntime?

    /// The queue: each spring, its target and its user value (stream slot and component), in the
    /// order written. Raw buffers: an append is a bounds check and three stores.
    // Every stored property is read and written in single statements, never across a call out
    // of the queue but the kernel's: no runtime exclusivity check is needed (it would be paid
    // per entry in the loops).
    @exclusivity(unchecked) private var springs: UnsafeMutablePointer<SpringHandle>
    @exclusivity(unchecked) private var targets: UnsafeMutablePointer<Float>
    @exclusivity(unchecked) private var keys: UnsafeMutablePointer<UInt32>
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var capacity: Int

    /// The storage-order pass: the layout as last read and each of its springs' user values (its
    /// stream slot and component); the goals, the layout's targets with the queued ones written
    /// over them; and each queued spring's goal by user value (NaN: none queued; a usable target
    /// is never NaN), written as it is queued. Grown as needed, never shrunk: a frame allocates
    /// nothing once they are large enough.
    @exclusivity(unchecked) private var layout: StorageLayout?
    @exclusivity(unchecked) private var layoutKeys = GrowingBuffer<UInt64>(filling: 0)
    @exclusivity(unchecked) private var goals = GrowingBuffer<Float>(filling: 0)
    @exclusivity(unchecked) private var queuedGoals = GrowingBuffer<Float>(filling: .nan)
    /// A spring queued again before a flush (its entry in ``queuedGoals`` is set already): it is
    /// retargeted twice, in order, which the storage-order pass (one target per spring) cannot
    /// do, so that flush goes by handle.
    @exclusivity(unchecked) private var hasRepeats = false
    /// The queue entries a storage-order pass leaves to the bulk call by handle, and that call's
    /// buffers (reused: a frame allocates nothing).
    @exclusivity(unchecked) private var leftover: [Int] = []
    @exclusivity(unchecked) private var leftoverSprings: [SpringHandle] = []
    @exclusivity(unchecked) private var leftoverTargets: [Float] = []

    init(bank: SpringBank<Float32Lanes>) {
        self.bank = bank
        capacity = 64
        springs = .allocate(capacity: capacity)
        targets = .allocate(capacity: capacity)
        keys = .allocate(capacity: capacity)
    }

    deinit {
        springs.deallocate()
        targets.deallocate()
        keys.deallocate()
        layoutKeys.deallocate()
        goals.deallocate()
        queuedGoals.deallocate()
    }

    /// Whether nothing is queued.
    var isEmpty: Bool {
        @inline(__always) get { count == 0 }
    }

    /// Room for `springs` queued springs, so a frame's writes do not grow the buffers.
    func reserve(springs wanted: Int) {
        if wanted > capacity { grow(to: wanted) }
    }

    private func grow(to wanted: Int) {
        let newCapacity = Swift.max(wanted, 2 * capacity)
        func moved<T>(_ old: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<T> {
            let new = UnsafeMutablePointer<T>.allocate(capacity: newCapacity)
            new.moveInitialize(from: old, count: count)
            old.deallocate()
            return new
        }
        springs = moved(springs)
        targets = moved(targets)
        keys = moved(keys)
        capacity = newCapacity
    }

    /// Queues the retarget of `spring` to `target` (usable), component `component` of the stream
    /// in `slot`.
    @inline(__always)
    func append(_ spring: SpringHandle, to target: Float, slot: Int, component: Int) {
        if count == capacity { grow(to: count + 1) }
        let key = slot << 2 | component
        if key >= queuedGoals.count { queuedGoals.reserve(key + 1) }
        if !queuedGoals[key].isNaN { hasRepeats = true }
        springs[count] = spring
        targets[count] = target
        keys[count] = UInt32(truncatingIfNeeded: key)
        queuedGoals[key] = target
        count += 1
    }

    /// Applies what is queued, if anything.
    @inline(__always)
    func flush() {
        if count != 0 { apply() }
    }

    /// Makes every queued retarget in the kernel (see the type's notes), and empties the queue.
    @inline(never)
    private func apply() {
        if hasRepeats || !applyInStorageOrder() { applyByHandle(nil) }
        // The streams are not asked again, as after other changes of their springs: no retarget
        // here can change one's state. Each queued stream had a spring awake (its last state sent
        // was `.active`, and no step was taken since), and a retarget leaves an awake spring
        // awake (a moving one moving, a held one held); it may wake a resting component, which
        // leaves the stream active. (Checked in debug builds.)
        #if DEBUG
        if let runtime { for i in 0..<count { runtime.checkQueuedStreamAwake(slot: Int(keys[i] >> 2)) } }
        #endif
        // What the frame's snapshot knew of the queued streams' rests is forgotten, as after any
        // change of their springs (a rested component retargeted moves again): here, before the
        // next delivery, rather than at each write.
        let snapshot = runtime?.frameSnapshot
        for i in 0..<count {
            queuedGoals[Int(keys[i])] = .nan
            snapshot?.forgetRests(ofSlot: Int(keys[i] >> 2))
        }
        hasRepeats = false
        count = 0
    }

    /// The queued entries `entries` (indices into the queue, in order; nil: all of them) in one
    /// bulk call by handle, or one call each if the kernel refuses it.
    private func applyByHandle(_ entries: [Int]?) {
        if let entries {
            guard !entries.isEmpty else { return }
            leftoverSprings.removeAll(keepingCapacity: true)
            leftoverTargets.removeAll(keepingCapacity: true)
            for i in entries {
                leftoverSprings.append(springs[i])
                leftoverTargets.append(targets[i])
            }
            do throws(SpringKernelError) {
                try leftoverSprings.withUnsafeBufferPointer { springs throws(SpringKernelError) in
                    try leftoverTargets.withUnsafeBufferPointer { targets throws(SpringKernelError) in try bank.retarget(springs, to: targets) }
                }
                return
            } catch {}
            // Nothing was changed: one call each, as when each was written.
            for i in entries { _ = try? bank.retarget(springs[i], to: targets[i]) }
        } else {
            do throws(SpringKernelError) {
                try bank.retarget(UnsafeBufferPointer(start: springs, count: count), to: UnsafeBufferPointer(start: targets, count: count))
                return
            } catch {}
            for i in 0..<count { _ = try? bank.retarget(springs[i], to: targets[i]) }
        }
    }

    /// The storage-order pass, when a quarter or more of the moving springs are queued (and no
    /// stream was queued twice); false when it was not taken (then nothing was changed).
    private func applyInStorageOrder() -> Bool {
        guard count >= 64, 4 * count >= bank.awakeCount else { return false }
        // The moving springs: a queued resting component goes by handle after the pass. (The
        // whole bank's layout would take those in the pass too, but the kernel's storage-order
        // retarget allocates when it wakes resting springs, and a frame allocates nothing.)
        let current = bank.storageLayout(of: .moving)
        let n = current.count
        guard n > 0 else { return false }
        if layout != current {
            layout = nil
            layoutKeys.reserve(n)
            guard (try? bank.userValues(in: current, into: layoutKeys.prefix(n))) != nil else { return false }
            layout = current
        }
        goals.reserve(n)
        guard (try? bank.targets(in: current, into: goals.prefix(n))) != nil else { return false }
        // In storage order: each spring's goal is its queued target if it has one (taken, so a
        // queued spring left over is one the layout does not hold), else its target.
        let tableCount = queuedGoals.count
        var written = 0
        for position in 0..<n {
            let key = Int(truncatingIfNeeded: layoutKeys[position])
            guard key < tableCount else { continue }
            let goal = queuedGoals[key]
            if !goal.isNaN {
                goals[position] = goal
                queuedGoals[key] = .nan
                written += 1
            }
        }
        leftover.removeAll(keepingCapacity: true)
        if written < count {
            // Queued springs outside the moving region (held, or resting components): by handle,
            // after the storage pass, in order.
            for i in 0..<count where !queuedGoals[Int(keys[i])].isNaN { leftover.append(i) }
        }
        // Refused (nothing changed): everything by handle, in order.
        if written > 0, (try? bank.retarget(in: current, to: UnsafeBufferPointer(goals.prefix(n)))) == nil { return false }
        applyByHandle(leftover)
        return true
    }
}

/// A buffer that grows (doubling, new elements set to a fill value) and never shrinks.
struct GrowingBuffer<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    let fillValue: Element

    init(filling fillValue: Element) {
        self.fillValue = fillValue
        base = .allocate(capacity: 1)
    }

    /// At least `wanted` elements.
    mutating func reserve(_ wanted: Int) {
        guard wanted > count else { return }
        let newCount = Swift.max(wanted, 2 * count)
        let new = UnsafeMutablePointer<Element>.allocate(capacity: newCount)
        new.moveInitialize(from: base, count: count)
        (new + count).initialize(repeating: fillValue, count: newCount - count)
        base.deallocate()
        base = new
        count = newCount
    }

    subscript(i: Int) -> Element {
        @inline(__always) get { base[i] }
        @inline(__always) nonmutating set { base[i] = newValue }
    }

    /// The first `n` elements (n ≤ count).
    func prefix(_ n: Int) -> UnsafeMutableBufferPointer<Element> { UnsafeMutableBufferPointer(start: base, count: n) }

    func fill(_ value: Element) { base.update(repeating: value, count: count) }

    func deallocate() { base.deallocate() }
}
