/// What one step advances: the work of every batch with moving springs, and how many threads share it.
@usableFromInline
struct StepPlan {
    @usableFromInline let work: UnsafePointer<LaneWork>
    @usableFromInline let workCount: Int
    @usableFromInline let totalBundles: Int
    @usableFromInline let threadCount: Int

    init(work: UnsafePointer<LaneWork>, workCount: Int, totalBundles: Int, threadCount: Int) {
        self.work = work
        self.workCount = workCount
        self.totalBundles = totalBundles
        self.threadCount = threadCount
    }
}

extension SpringBankCore {
    /// Validates the step, brings the rest schedule up to date, and lays out this frame's work.
    @usableFromInline
    func beginStep(duration: Double) throws(SpringKernelError) -> StepPlan {
        try checkMutable()
        guard duration.isFinite, duration > 0 else { throw .invalidTimeStep(duration) }
        prepareRestSchedule(duration: duration)
        if workCapacity < batches.count {
            work.deallocate()
            workCapacity = max(batches.count, workCapacity * 2)
            work = .allocate(capacity: workCapacity)
        }
        var items = 0
        var bundles = 0
        for case let batch? in batches where batch.awakeCount > 0 {
            let item = batch.work(coefficients: batch.coefficients(duration: duration, lanes: lanes))
            (work + items).initialize(to: item)
            items += 1
            bundles += item.bundleCount
        }
        return StepPlan(
            work: UnsafePointer(work), workCount: items, totalBundles: bundles,
            threadCount: threading.threadCount(bundles: bundles))
    }

    /// Counts the frame and settles the springs due in it.
    @usableFromInline
    func finishStep() {
        frame += 1
        settleDueSprings()
    }
}
