import BenchStatistics
import CAllocationCounter
import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel

/// `spring-bench interactions`: the interaction layer's cost per frame above the kernel step.
struct InteractionsCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench interactions [--count N] [--frames F] [--warm-up W] [--quick] [--format table|json|csv] [--output DIR]

          N Tossables (default 13,000, about 10,000 of them in flight on a frame; --quick 1,000) in one
          MotionRuntime at 60 Hz, each scripted round and round: dragged for 5 frames by timestamped
          gesture events, released with a velocity of 500-2000 pt/s, tossed, settled on the kernel's
          rest frame, then dragged again 1 to 3 frames later (staggered over 48 frames). After W
          warm-up frames (default 300), F frames (default 600) are timed in three parts: the gesture
          events due that frame (the engine's input, handled by the recognizers and everything they
          drive), the kernel step (MotionRuntime.stepSprings) and the delivery (deliverFrame). The
          runtime's frame is the step and the delivery (advance(by:)); its overhead is the delivery,
          per moving interaction: the spring streams the runtime delivered to
          (lastFrameDeliveryCount). The input is reported per gesture event, and also added to the
          overhead in a figure of its own. Heap allocations (input included) are counted by a malloc
          interposer (a C target linked into spring-bench only), checked to count Swift's first.
          --format json prints one object: count, frame_ns_p50, kernel_step_ns_p50,
          overhead_ns_per_moving_interaction, allocations_per_frame and the rest.
        """

    var count: Int
    var frames: Int
    var warmUpFrames: Int
    var format: OutputFormat
    var output: String?

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        let quick = arguments.flag("quick")
        count = try arguments.int("count", in: 1...1_000_000) ?? (quick ? 1_000 : InteractionsBench.defaultCount)
        frames = try arguments.int("frames", in: 1...10_000_000) ?? (quick ? 120 : 600)
        warmUpFrames = try arguments.int("warm-up", in: 0...10_000_000) ?? (quick ? 120 : 300)
        guard count >= 1, frames >= 1, warmUpFrames >= 0 else { throw .usage("--count and --frames must be positive, --warm-up not negative") }
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
    }

    /// Runs the bench and prints (and writes) its report.
    func run() throws {
        let report = try InteractionsBench(count: count, frames: frames, warmUpFrames: warmUpFrames).run(progress: Progress())
        if let output {
            try writeFile(try jsonText(report), to: "\(output)/interactions.json")
            try writeFile(report.csv(), to: "\(output)/interactions.csv")
        }
        switch format {
        case .table: print(report.table().render())
        case .json: print(try jsonText(report), terminator: "")
        case .csv: print(report.csv(), terminator: "")
        }
    }
}

/// What one `interactions` run measured.
struct InteractionsReport: Codable {
    var count: Int
    var frames: Int
    var warmUpFrames: Int
    /// Kernel springs (two per Tossable).
    var springs: Int
    /// Spring streams delivered to per frame (the runtime's lastFrameDeliveryCount).
    var movingInteractions: Percentiles
    /// The runtime's frame, `advance(by:)`: the kernel step and the delivery (p50, ns).
    var frameNsP50: Double
    /// `MotionRuntime.stepSprings` alone (p50, ns).
    var kernelStepNsP50: Double
    /// (frame − kernel step) / moving interactions, per frame: p50.
    var overheadNsPerMovingInteraction: Double
    /// Gesture events handled per frame.
    var gestureEventsPerFrame: Percentiles
    /// The gesture input / its events, per frame: p50.
    var inputNsPerGestureEvent: Double
    /// (frame − kernel step + gesture input) / moving interactions, per frame: p50.
    var overheadWithInputNsPerMovingInteraction: Double
    /// Heap bytes in use after making the Tossables (and adding them to the runtime) minus before,
    /// per Tossable: its objects, its share of the runtime's tables and of the kernel's lanes.
    var heapBytesPerTossable: Double?
    /// Heap allocations counted during the timed frames, per frame.
    var allocationsPerFrame: Double
    /// Allocations and frees counted in the timed frames.
    var allocations: Int
    var frees: Int
    /// Whether the interposer was seen counting a Swift allocation before the run.
    var allocationCounterVerified: Bool
    /// Per-frame times (ns): the runtime's frame, the kernel step, the delivery, the gesture input.
    var frameNs: Percentiles
    var kernelStepNs: Percentiles
    var deliveryNs: Percentiles
    var inputNs: Percentiles
    /// ``overheadNsPerMovingInteraction`` over the frames.
    var overheadNsPerMovingInteractionPercentiles: Percentiles
    /// The 95 % intervals of the overhead per moving interaction and of the input per gesture
    /// event: the median of blocks of ``blockFrames`` consecutive frames (each block's median),
    /// bootstrapped over the blocks, since neighbouring frames are not independent (nil in runs
    /// written before schema 2).
    var overheadInterval: Interval?
    var inputPerEventInterval: Interval?
    /// Blocks behind the intervals.
    var blocks: Int?
    /// Each block's median of the per-frame figures (`frame` and `step` ns, `overhead`
    /// ns per moving interaction, `input` ns per gesture event; one-word keys survive snake_case), the samples `compare`
    /// resamples (nil in runs written before schema 2).
    var blockMedians: [String: [Double]]?
    /// Why the noise meter marked the timed frames noisy (empty: quiet; nil: not read).
    var noise: [String]?

    /// Frames per block of the intervals.
    static let blockFrames = 20

    /// The medians of `perFrame`'s blocks of ``blockFrames`` frames.
    static func blockMedians(_ perFrame: [Double]) -> [Double] {
        stride(from: 0, to: perFrame.count, by: blockFrames).compactMap { start in
            Bootstrap.median(Array(perFrame[start..<min(start + blockFrames, perFrame.count)]))
        }
    }

    /// The interval of the median of `perFrame` over blocks of ``blockFrames`` frames.
    static func blockInterval(_ perFrame: [Double], confidence: Double) -> Interval? {
        Bootstrap.medianInterval(blockMedians(perFrame), confidence: confidence)
    }

    /// The report as a text table.
    func table() -> TextTable {
        var table = TextTable(header: ["figure", "p50", "p0", "p90", "p100"])
        func add(_ name: String, _ p: Percentiles, _ format: String = "%.0f") {
            table.rows.append([name] + [p.p50, p.p0, p.p90, p.p100].map { String(format: format, $0) })
        }
        add("moving interactions", movingInteractions)
        add("runtime frame (ns)", frameNs)
        add("  kernel step (ns)", kernelStepNs)
        add("  delivery (ns)", deliveryNs)
        add("above the step, per moving interaction (ns)", overheadNsPerMovingInteractionPercentiles, "%.1f")
        add("gesture events", gestureEventsPerFrame)
        add("gesture input (ns)", inputNs)
        table.rows.append(["  per gesture event (ns)", String(format: "%.0f", inputNsPerGestureEvent), "-", "-", "-"])
        table.rows.append(["above the step with the input, per moving interaction (ns)", String(format: "%.1f", overheadWithInputNsPerMovingInteraction), "-", "-", "-"])
        table.rows.append(["heap bytes per Tossable (objects, tables, lanes)", String(format: "%.0f", heapBytesPerTossable ?? 0), "-", "-", "-"])
        table.rows.append([
            "heap allocations per frame", String(format: "%.3f", allocationsPerFrame), "-", "-",
            "\(allocations) in \(frames) frames\(allocationCounterVerified ? "" : " (counter NOT verified)")",
        ])
        return table
    }

    /// The headline figures as one CSV row.
    func csv() -> String {
        let header = "count,frames,springs,moving_interactions_p50,frame_ns_p50,kernel_step_ns_p50,delivery_ns_p50,input_ns_p50,"
            + "overhead_ns_per_moving_interaction,gesture_events_per_frame_p50,input_ns_per_gesture_event,"
            + "overhead_with_input_ns_per_moving_interaction,heap_bytes_per_tossable,allocations_per_frame,allocation_counter_verified"
        let row = "\(count),\(frames),\(springs),\(movingInteractions.p50),\(frameNsP50),\(kernelStepNsP50),\(deliveryNs.p50),\(inputNs.p50),"
            + "\(overheadNsPerMovingInteraction),\(gestureEventsPerFrame.p50),\(inputNsPerGestureEvent),"
            + "\(overheadWithInputNsPerMovingInteraction),\(heapBytesPerTossable ?? 0),\(allocationsPerFrame),\(allocationCounterVerified)"
        return header + "\n" + row + "\n"
    }
}

/// Tossables driven by a script of gesture events, and the timed frames.
final class InteractionsBench {
    /// 60 Hz.
    static let frameDuration = 1.0 / 60
    /// About 10,000 of 13,000 Tossables are in flight on a frame (the rest are being dragged or
    /// wait to be): the load the interaction layer's figure is stated for.
    static let defaultCount = 13_000
    /// Frames a drag lasts (began, 4 changes; the release comes on the frame after).
    static let dragFrames = 4
    /// First drags are spread over this many frames, about the length of a drag and a toss.
    static let staggerFrames = 48
    /// The ring of frame slots: far enough ahead for the stagger.
    static let scheduleFrames = 64

    let count: Int
    let frames: Int
    let warmUpFrames: Int

    // The script's tables are read and written in single statements, never across a call that
    // could reach them: no exclusivity check is needed (it would be charged to the frame).
    private let runtime: MotionRuntime
    private var tossables: [Tossable] = []
    @exclusivity(unchecked) private var recognizers: ContiguousArray<GestureRecognizer> = []
    private var observations: [Subscription] = []
    /// Each Tossable's release velocity, and how far into its drag it is.
    @exclusivity(unchecked) private var releaseVelocity: ContiguousArray<CGPoint>
    @exclusivity(unchecked) private var dragStep: ContiguousArray<Int32>
    /// Whether each Tossable is in flight (released, not at rest yet).
    @exclusivity(unchecked) private var inFlight: ContiguousArray<Bool>
    /// The Tossables with a gesture event due on each of the next frames (a ring of frame slots).
    @exclusivity(unchecked) private var due: [ContiguousArray<Int32>]
    /// Tossables whose flight ended during the last delivery.
    @exclusivity(unchecked) private var landed: ContiguousArray<Int32> = []
    private var frame = 0

    /// A runtime for `count` Tossables, its script not started yet.
    init(count: Int, frames: Int, warmUpFrames: Int) throws {
        self.count = count
        self.frames = frames
        self.warmUpFrames = warmUpFrames
        // One thread (what .automatic chooses for 26,000 springs), so that the frames can be timed
        // by this thread's CPU time.
        runtime = try MotionRuntime(capacity: 2 * count, threading: .single)
        releaseVelocity = ContiguousArray(repeating: .zero, count: count)
        dragStep = ContiguousArray(repeating: 0, count: count)
        inFlight = ContiguousArray(repeating: false, count: count)
        due = (0..<Self.scheduleFrames).map { _ in
            var slot = ContiguousArray<Int32>()
            slot.reserveCapacity(count)
            return slot
        }
        landed.reserveCapacity(count)
    }

    /// Sets the Tossables up, warms up, and times `frames` frames.
    func run(progress: Progress, confidence: Double = 0.95, noise: NoiseMeter? = nil) throws -> InteractionsReport {
        progress.note("interactions: \(count) Tossables")
        let verified = AllocationProbe.verify()
        let heapBefore = heapBytesInUse()
        try setUp()
        let heapBytesPerTossable = Double(heapBytesInUse() - heapBefore) / Double(count)
        progress.note("interactions: \(warmUpFrames) warm-up frames, then \(frames) timed frames")
        for _ in 0..<warmUpFrames { _ = try advance() }
        var frameNs: [Double] = [], kernelNs: [Double] = [], deliveryNs: [Double] = [], inputNs: [Double] = []
        var moving: [Double] = [], overhead: [Double] = [], withInput: [Double] = [], events: [Double] = [], perEvent: [Double] = []
        frameNs.reserveCapacity(frames)
        kernelNs.reserveCapacity(frames)
        deliveryNs.reserveCapacity(frames)
        inputNs.reserveCapacity(frames)
        moving.reserveCapacity(frames)
        overhead.reserveCapacity(frames)
        allocation_counter_set_enabled(true)
        var countedAllocations: UInt64 = 0, countedFrees: UInt64 = 0
        for _ in 0..<frames {
            let timing = try advance()
            countedAllocations += timing.allocations
            countedFrees += timing.frees
            frameNs.append(timing.frame)
            kernelNs.append(timing.kernel)
            deliveryNs.append(timing.delivery)
            inputNs.append(timing.input)
            moving.append(Double(timing.moving))
            events.append(Double(timing.events))
            if timing.moving > 0 {
                overhead.append((timing.frame - timing.kernel) / Double(timing.moving))
                withInput.append((timing.frame - timing.kernel + timing.input) / Double(timing.moving))
            }
            if timing.events > 0 { perEvent.append(timing.input / Double(timing.events)) }
        }
        allocation_counter_set_enabled(false)
        let none = Percentiles(p0: 0, p50: 0, p90: 0, p100: 0)
        let overheadPercentiles = overhead.isEmpty ? none : Percentiles(overhead)
        let frame = Percentiles(frameNs), kernel = Percentiles(kernelNs)
        return InteractionsReport(
            count: count, frames: frames, warmUpFrames: warmUpFrames, springs: runtime.kernel.count,
            movingInteractions: Percentiles(moving), frameNsP50: frame.p50, kernelStepNsP50: kernel.p50,
            overheadNsPerMovingInteraction: overheadPercentiles.p50, gestureEventsPerFrame: Percentiles(events),
            inputNsPerGestureEvent: perEvent.isEmpty ? 0 : Percentiles(perEvent).p50,
            overheadWithInputNsPerMovingInteraction: withInput.isEmpty ? 0 : Percentiles(withInput).p50,
            heapBytesPerTossable: heapBytesPerTossable, allocationsPerFrame: Double(countedAllocations) / Double(frames), allocations: Int(countedAllocations),
            frees: Int(countedFrees), allocationCounterVerified: verified, frameNs: frame, kernelStepNs: kernel,
            deliveryNs: Percentiles(deliveryNs), inputNs: Percentiles(inputNs), overheadNsPerMovingInteractionPercentiles: overheadPercentiles,
            overheadInterval: InteractionsReport.blockInterval(overhead, confidence: confidence),
            inputPerEventInterval: InteractionsReport.blockInterval(perEvent, confidence: confidence),
            blocks: (overhead.count + InteractionsReport.blockFrames - 1) / InteractionsReport.blockFrames,
            blockMedians: [
                "frame": InteractionsReport.blockMedians(frameNs), "step": InteractionsReport.blockMedians(kernelNs),
                "overhead": InteractionsReport.blockMedians(overhead),
                "input": InteractionsReport.blockMedians(perEvent),
            ],
            noise: noise?.read(after: "interactions").reasons)
    }

    /// Makes the Tossables, each resting on its own destination in a grid, and staggers their
    /// first drags over the length of a toss.
    private func setUp() throws {
        let container = MotionElement()
        var generator = SplitMix64(seed: 7)
        tossables.reserveCapacity(count)
        recognizers.reserveCapacity(count)
        for i in 0..<count {
            let home = CGPoint(x: Double(i % 100) * 12, y: Double(i / 100) * 12)
            let view = MotionElement(position: home)
            let tossable = Tossable(position: view.position, to: ReactiveProperty(home), containerView: container, springSource: springSource)
            try runtime.add(tossable)
            tossables.append(tossable)
            recognizers.append(tossable.panGestureRecognizer)
            let angle = generator.unit() * 2 * Double.pi
            let speed = 500 + 1500 * generator.unit()
            releaseVelocity[i] = CGPoint(x: speed * cos(angle), y: speed * sin(angle))
            let index = Int32(i)
            observations.append(tossable.state.observe { [unowned self] state in
                if state == .atRest && self.inFlight[i] {
                    self.inFlight[i] = false
                    self.landed.append(index)
                }
            })
            due[1 + i % Self.staggerFrames].append(index)
        }
    }

    /// What one frame cost.
    struct FrameTiming {
        /// The runtime's frame: the kernel step and the delivery.
        var frame: Double
        var input: Double
        var kernel: Double
        var delivery: Double
        var moving: Int
        var events: Int
        var allocations: UInt64
        var frees: UInt64
    }

    /// One frame: the gesture events due, the kernel step, the delivery; then the script's own
    /// bookkeeping (untimed). Timed by this thread's CPU time, as `throughput` times its one-thread
    /// groups: a time slice given to another process is not the layer's cost.
    private func advance() throws -> FrameTiming {
        let slot = frame % due.count
        let time = Double(frame) * Self.frameDuration
        let allocations = allocation_counter_allocations(), frees = allocation_counter_frees()
        let t0 = threadCPUTime()
        for index in due[slot] { handleGesture(Int(index), at: time) }
        let t1 = threadCPUTime()
        try runtime.stepSprings(by: Self.frameDuration)
        let t2 = threadCPUTime()
        runtime.deliverFrame()
        let t3 = threadCPUTime()
        let counted = (allocation_counter_allocations() - allocations, allocation_counter_frees() - frees)
        // Reschedule: drags continue on the next frame; landed Tossables are dragged again soon.
        let current = due[slot]
        due[slot].removeAll(keepingCapacity: true)
        for index in current where dragStep[Int(index)] != 0 { due[(frame + 1) % due.count].append(index) }
        for index in landed { due[(frame + 1 + Int(index) % 3) % due.count].append(index) }
        landed.removeAll(keepingCapacity: true)
        frame += 1
        return FrameTiming(
            frame: (t3 - t1) * 1e9, input: (t1 - t0) * 1e9, kernel: (t2 - t1) * 1e9, delivery: (t3 - t2) * 1e9,
            moving: runtime.lastFrameDeliveryCount, events: current.count, allocations: counted.0, frees: counted.1)
    }

    /// The next event of Tossable `index`'s drag: began, changed (4 times), ended with the release.
    private func handleGesture(_ index: Int, at time: Double) {
        let recognizer = recognizers[index]
        let step = Int(dragStep[index])
        let velocity = releaseVelocity[index]
        let translation = CGPoint(x: velocity.x * Double(step) * Self.frameDuration, y: velocity.y * Double(step) * Self.frameDuration)
        switch step {
        case 0:
            recognizer.handle(.began(timestamp: time))
            dragStep[index] = 1
        case 1...Self.dragFrames:
            recognizer.handle(.changed(translation: translation, timestamp: time))
            dragStep[index] += 1
        default:
            inFlight[index] = true
            recognizer.handle(.ended(translation: translation, timestamp: time))
            dragStep[index] = 0
        }
    }
}

/// Checks that the malloc interposer sees Swift's allocations.
enum AllocationProbe {
    /// A class instance Swift must put on the heap (it escapes).
    private final class Box {
        var value: Int
        init(_ value: Int) { self.value = value }
    }

    @inline(never)
    private static func allocate(_ value: Int) -> AnyObject { Box(value) }

    /// Whether allocating one object and one array is counted.
    static func verify() -> Bool {
        allocation_counter_set_enabled(true)
        defer { allocation_counter_set_enabled(false) }
        let before = allocation_counter_allocations()
        let object = allocate(42)
        let array = [Int](repeating: 7, count: 1000)
        let after = allocation_counter_allocations()
        withExtendedLifetime((object, array)) {}
        return after - before >= 2
    }
}

/// Bytes the C heap has handed out and not had back (glibc's `mallinfo2`).
func heapBytesInUse() -> Int { Int(allocation_counter_heap_bytes_in_use()) }
