import BenchStatistics
import CAllocationCounter
import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel

/// `spring-bench interactions`: the interaction layer's cost per frame above the kernel step.
struct InteractionsCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench interactions [--count N] [--attach-elements A] [--budget S | --repeats R | --frames F] [--confidence C]
                                  [--warm-up W] [--quick] [--format table|json|csv] [--output DIR]

          N Tossables (default 13,000, about 10,000 of them in flight on a frame; --quick 1,000) in one
          MotionRuntime at 60 Hz, each scripted round and round: dragged for 5 frames by timestamped
          gesture events, released with a velocity of 500-2000 pt/s, tossed, settled on the kernel's
          rest frame, then dragged again 1 to 3 frames later (staggered over 48 frames). After W
          warm-up frames (default 300), frames are timed in three parts: the gesture events due that
          frame (the engine's input, handled by the recognizers and everything they drive), the kernel
          step (MotionRuntime.stepSprings) and the delivery (deliverFrame). The runtime's frame is the
          step and the delivery (advance(by:)); its overhead is the delivery, per moving interaction:
          the spring streams the runtime delivered to (lastFrameDeliveryCount). The input is reported
          per gesture event, and also added to the overhead in a figure of its own.
          Timed as `throughput` times its groups, on this thread's CPU time: repeats of a calibrated
          number of frames (about 20 ms; --quick 10 ms), until the figures' 95 % intervals (a bootstrap
          over the repeats) are within ±3 % or the budget S (default 2 s; --quick 1) is spent;
          --repeats R takes R repeats, --frames F about F frames in repeats of 20. Each figure is the
          median of the repeats' figures, with its interval.
          Then A AttachWithSpring elements (default 10,000, --quick too; 0: none) in a runtime of their
          own, each following a target element of its own, in two cases timed in interleaved repeats
          (the same rule and budget): targets moving every frame along a pointer's path (the default
          spring, the layer's threshold: each target's position written every frame, its home plus a
          circle of radius 10-160 pt at 1 Hz in 16 phases), and targets standing still (the elements
          started away from them on lightly damped springs, decay time 200 s, so every spring moves
          on every frame as in the moving case). Each case's figure is above the kernel step, ns
          per element-frame: the target writes (everything the layer does for a new destination)
          and the delivery; moving over still is judged (issue 33: at most 2.0x).
          Heap allocations (input included) are counted by a malloc interposer (a C target linked into
          spring-bench only), checked to count Swift's first; heap bytes per Tossable are those in use
          after the warm-up (gestures' sample rings included) minus before the Tossables were made.
          --format json prints one object: count, frame_ns_p50, kernel_step_ns_p50,
          overhead_ns_per_moving_interaction (overhead_interval), input_ns_per_gesture_event
          (input_per_event_interval), allocations_per_frame and the rest; attach_follow: elements,
          moving_ns_per_element_frame (moving_interval), still_ns_per_element_frame (still_interval),
          moving_over_still (moving_over_still_interval) and the rest.
        """

    var count: Int
    var attachElements: Int
    var warmUpFrames: Int
    var timer: FrameTimer
    var format: OutputFormat
    var output: String?

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        let quick = arguments.flag("quick")
        count = try arguments.int("count", in: 1...1_000_000) ?? (quick ? 1_000 : InteractionsBench.defaultCount)
        attachElements = try arguments.int("attach-elements", in: 0...1_000_000) ?? AttachFollowBench.defaultElements
        let frames = try arguments.int("frames", in: 1...10_000_000)
        warmUpFrames = try arguments.int("warm-up", in: 0...10_000_000) ?? (quick ? 120 : 300)
        let settings = try DefaultRun.settings(&arguments, quick: quick)
        if frames != nil && settings.repeats != nil { throw .usage("--frames and --repeats exclude each other") }
        timer = InteractionsBench.timer(quick: quick, settings: settings)
        if let frames {
            timer.framesPerRepeat = InteractionsBench.framesPerFixedRepeat
            timer.repeats = max(1, (frames + InteractionsBench.framesPerFixedRepeat - 1) / InteractionsBench.framesPerFixedRepeat)
        }
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
    }

    /// Runs the bench and prints (and writes) its report.
    func run() throws {
        let report = try InteractionsBench(count: count, attachElements: attachElements, warmUpFrames: warmUpFrames, timer: timer).run(progress: Progress())
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

/// What one `interactions` run measured. Times are per frame, each repeat's mean (its parts'
/// seconds over its frames); the percentiles and medians are over the repeats.
struct InteractionsReport: Codable {
    var count: Int
    /// Timed frames, over all the repeats.
    var frames: Int
    var warmUpFrames: Int
    /// Kernel springs (two per Tossable).
    var springs: Int
    /// Spring streams delivered to per frame (the runtime's lastFrameDeliveryCount).
    var movingInteractions: Percentiles
    /// The runtime's frame, `advance(by:)`: the kernel step and the delivery (median, ns).
    var frameNsP50: Double
    /// `MotionRuntime.stepSprings` alone (median, ns).
    var kernelStepNsP50: Double
    /// (frame − kernel step) / moving interactions: the median of the repeats'.
    var overheadNsPerMovingInteraction: Double
    /// Gesture events handled per frame.
    var gestureEventsPerFrame: Percentiles
    /// The gesture input / its events: the median of the repeats'.
    var inputNsPerGestureEvent: Double
    /// (frame − kernel step + gesture input) / moving interactions: the median of the repeats'.
    var overheadWithInputNsPerMovingInteraction: Double
    /// Heap bytes in use after making the Tossables, adding them to the runtime and the warm-up
    /// frames, minus before, per Tossable: its objects, its share of the runtime's tables, of the
    /// kernel's lanes and of the gestures' sample rings.
    var heapBytesPerTossable: Double?
    /// Heap allocations counted during the timed frames, per frame.
    var allocationsPerFrame: Double
    /// Allocations and frees counted in the timed frames.
    var allocations: Int
    var frees: Int
    /// Whether the interposer was seen counting a Swift allocation before the run.
    var allocationCounterVerified: Bool
    /// Per-frame times (ns) over the repeats: the runtime's frame, the kernel step, the delivery,
    /// the gesture input.
    var frameNs: Percentiles
    var kernelStepNs: Percentiles
    var deliveryNs: Percentiles
    var inputNs: Percentiles
    /// ``overheadNsPerMovingInteraction`` over the repeats.
    var overheadNsPerMovingInteractionPercentiles: Percentiles
    /// The intervals (at the run's confidence, 95 % by default) of the overhead per moving
    /// interaction, of the input per gesture event and of the overhead with the input: a
    /// bootstrap of the median over the repeats (nil in runs written before schema 2).
    var overheadInterval: Interval?
    var inputPerEventInterval: Interval?
    var overheadWithInputInterval: Interval?
    /// The repeats behind the intervals, their frames, the budget (nil: fixed repeats), why they
    /// stopped and the clock (nil in runs written before the interactions used ``FrameTimer``).
    var repeats: Int?
    var framesPerRepeat: Int?
    var budgetSeconds: Double?
    var stoppedBy: String?
    var clock: TimingClock?
    /// Each repeat's figures (`frame` and `step` ns, `overhead` ns per moving interaction,
    /// `input` ns per gesture event; one-word keys survive snake_case): the samples `compare`
    /// resamples.
    var samples: [String: [Double]]?
    /// Runs written before the interactions used ``FrameTimer``: blocks of 20 frames and each
    /// block's median of the per-frame figures, read by `compare` in place of ``samples``.
    var blocks: Int?
    var blockMedians: [String: [Double]]?
    /// Why the noise meter marked the timed frames noisy (empty: quiet; nil: not read).
    var noise: [String]?
    /// AttachWithSpring elements following targets that move every frame, against still targets
    /// (nil: not measured, or a run written before issue 33).
    var attachFollow: AttachFollowReport?
    /// The noise meter's slowdown of the timed frames' group (``NoiseReading/slowdown``; nil: not read).
    var slowdown: Double?

    /// The samples of the figure `key`: the repeats', or an older run's blocks'.
    func samples(_ key: String) -> [Double]? {
        (samples ?? blockMedians)?[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The report as a text table.
    func table() -> TextTable {
        var table = TextTable(header: ["figure", "median", "95 % interval", "p0", "p90", "p100"])
        func add(_ name: String, _ p: Percentiles, _ interval: Interval? = nil, _ format: String = "%.0f") {
            let bounds = interval.map { String(format: "[\(format), \(format)]", $0.low, $0.high) } ?? "-"
            table.rows.append([name, String(format: format, p.p50), bounds] + [p.p0, p.p90, p.p100].map { String(format: format, $0) })
        }
        func point(_ name: String, _ value: String, _ interval: String = "-", _ note: String = "-") {
            table.rows.append([name, value, interval, "-", "-", note])
        }
        add("moving interactions", movingInteractions)
        add("runtime frame (ns)", frameNs)
        add("  kernel step (ns)", kernelStepNs)
        add("  delivery (ns)", deliveryNs)
        add("above the step, per moving interaction (ns)", overheadNsPerMovingInteractionPercentiles, overheadInterval, "%.1f")
        add("gesture events", gestureEventsPerFrame)
        add("gesture input (ns)", inputNs)
        point("  per gesture event (ns)", String(format: "%.0f", inputNsPerGestureEvent),
              inputPerEventInterval.map { String(format: "[%.0f, %.0f]", $0.low, $0.high) } ?? "-")
        point("above the step with the input, per moving interaction (ns)", String(format: "%.1f", overheadWithInputNsPerMovingInteraction),
              overheadWithInputInterval.map { String(format: "[%.1f, %.1f]", $0.low, $0.high) } ?? "-")
        point("heap bytes per Tossable (objects, tables, lanes)", String(format: "%.0f", heapBytesPerTossable ?? 0))
        point("heap allocations per frame", String(format: "%.3f", allocationsPerFrame), "-",
              "\(allocations) in \(frames) frames\(allocationCounterVerified ? "" : " (counter NOT verified)")")
        if let repeats, let framesPerRepeat {
            point("repeats (frames each)", "\(repeats) (\(framesPerRepeat))", "-",
                  "stopped by \(stoppedBy ?? "-")" + (budgetSeconds.map { String(format: ", budget %g s", $0) } ?? ""))
        }
        if let a = attachFollow {
            func bounds(_ interval: Interval?, _ format: String) -> String {
                interval.map { String(format: "[\(format), \(format)]", $0.low, $0.high) } ?? "-"
            }
            point("AttachWithSpring, targets moving every frame: above the step, per element-frame (ns)",
                  String(format: "%.1f", a.movingNsPerElementFrame), bounds(a.movingInterval, "%.1f"),
                  String(format: "%d elements; writes %.1f, delivery %.1f, step %.1f", a.elements, a.movingTargetWritesNsPerElementFrame,
                         a.movingDeliveryNsPerElementFrame, a.movingStepNsPerElementFrame))
            point("AttachWithSpring, targets still: above the step, per element-frame (ns)",
                  String(format: "%.1f", a.stillNsPerElementFrame), bounds(a.stillInterval, "%.1f"),
                  String(format: "step %.1f", a.stillStepNsPerElementFrame))
            point("AttachWithSpring, targets moving: heap allocations per frame", String(format: "%.3f", a.movingAllocationsPerFrame))
            point("AttachWithSpring, moving over still (bound 2.0x)", String(format: "%.2fx", a.movingOverStill),
                  bounds(a.movingOverStillInterval, "%.2f"),
                  "\(a.repeats) repeats (\(a.movingFramesPerRepeat), \(a.stillFramesPerRepeat) frames), stopped by \(a.stoppedBy)")
        }
        return table
    }

    /// The AttachWithSpring figures' CSV columns (empty strings when not measured).
    private func attachColumns() -> [String] {
        guard let a = attachFollow else { return [String](repeating: "", count: 10) }
        func bounds(_ interval: Interval?) -> [String] { interval.map { ["\($0.low)", "\($0.high)"] } ?? ["", ""] }
        var columns: [String] = ["\(a.elements)", "\(a.movingNsPerElementFrame)"]
        columns += bounds(a.movingInterval)
        columns.append("\(a.stillNsPerElementFrame)")
        columns += bounds(a.stillInterval)
        columns.append("\(a.movingOverStill)")
        columns += bounds(a.movingOverStillInterval)
        return columns
    }

    /// The headline figures as one CSV row.
    func csv() -> String {
        func low(_ interval: Interval?) -> String { interval.map { "\($0.low)" } ?? "" }
        func high(_ interval: Interval?) -> String { interval.map { "\($0.high)" } ?? "" }
        let header = [
            "count", "frames", "springs", "moving_interactions_p50", "frame_ns_p50", "kernel_step_ns_p50", "delivery_ns_p50", "input_ns_p50",
            "overhead_ns_per_moving_interaction", "overhead_low", "overhead_high", "gesture_events_per_frame_p50", "input_ns_per_gesture_event",
            "input_per_event_low", "input_per_event_high",
            "overhead_with_input_ns_per_moving_interaction", "heap_bytes_per_tossable", "allocations_per_frame", "allocation_counter_verified",
            "attach_elements", "attach_moving_ns_per_element_frame", "attach_moving_low", "attach_moving_high",
            "attach_still_ns_per_element_frame", "attach_still_low", "attach_still_high", "attach_moving_over_still",
            "attach_moving_over_still_low", "attach_moving_over_still_high",
        ]
        let row = [
            "\(count)", "\(frames)", "\(springs)", "\(movingInteractions.p50)", "\(frameNsP50)", "\(kernelStepNsP50)", "\(deliveryNs.p50)",
            "\(inputNs.p50)", "\(overheadNsPerMovingInteraction)", low(overheadInterval), high(overheadInterval), "\(gestureEventsPerFrame.p50)",
            "\(inputNsPerGestureEvent)", low(inputPerEventInterval), high(inputPerEventInterval),
            "\(overheadWithInputNsPerMovingInteraction)", "\(heapBytesPerTossable ?? 0)", "\(allocationsPerFrame)", "\(allocationCounterVerified)",
        ] + attachColumns()
        return CSVText.text(header: header, rows: [row])
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

    /// Frames per repeat of a run given as `--frames F`.
    static let framesPerFixedRepeat = 20

    /// The timer of a run: `throughput`'s rule (±3 %, at least 5 repeats, 3 with `--quick`) on
    /// repeats of about 20 ms (10 ms with `--quick`), or fixed repeats.
    static func timer(quick: Bool, settings: DefaultRun.Settings) -> FrameTimer {
        let rule = StoppingRule(precision: 0.03, minimumRepeats: quick ? 3 : 5, maximumRepeats: 1000, budgetSeconds: settings.budget)
        return FrameTimer(secondsPerRepeat: quick ? 0.01 : 0.02, rule: rule, confidence: settings.confidence, repeats: settings.repeats)
    }

    let count: Int
    /// AttachWithSpring elements measured after the Tossables (``AttachFollowBench``; 0: none).
    let attachElements: Int
    let warmUpFrames: Int
    let timer: FrameTimer

    // The script's tables are read and written in single statements, never across a call that
    // could reach them: no exclusivity check is needed (it would be charged to the frame).
    private let runtime: MotionRuntime
    private var tossables: [Tossable] = []
    /// Each Tossable's recognizer, unretained (the Tossables hold them): an engine's own
    /// reference counting of its input objects is not the layer's cost.
    @exclusivity(unchecked) private var recognizers: ContiguousArray<Unmanaged<GestureRecognizer>> = []
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
    /// The frame's parts (``Part``), timed on this thread's CPU time.
    private let laps = FrameLaps(parts: 3, clock: .threadCPU)
    /// Running totals of what the frames counted (``tally()``).
    private var counted = Counted()

    /// The parts of a frame, as ``laps`` indexes them.
    private enum Part: Int { case input, step, delivery }

    /// What the frames counted, as running totals.
    private struct Counted {
        var moving = 0.0, events = 0.0, frames = 0.0, allocations = 0.0, frees = 0.0
    }

    /// The indexes of ``tally()``'s values.
    private enum Tally: Int { case input, step, delivery, moving, events, frames, allocations, frees }

    /// A runtime for `count` Tossables, its script not started yet; `timer` times its frames.
    init(count: Int, attachElements: Int = AttachFollowBench.defaultElements, warmUpFrames: Int, timer: FrameTimer) throws {
        self.count = count
        self.attachElements = attachElements
        self.warmUpFrames = warmUpFrames
        self.timer = timer
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

    /// The running totals ``FrameTimer`` reads around each repeat (indexed by ``Tally``): the
    /// parts' seconds, then what the frames counted.
    private func tally() -> [Double] {
        laps.seconds + [counted.moving, counted.events, counted.frames, counted.allocations, counted.frees]
    }

    /// One repeat's figures from its tally differences: ns per frame of the runtime's frame, the
    /// step, the delivery and the input; moving interactions and events per frame; the overhead
    /// per moving interaction, the input per event, and the overhead with the input (nil where
    /// the repeat had no moving interaction, or no event).
    struct RepeatFigures {
        var frame, step, delivery, input, moving, events: Double
        var overhead, perEvent, withInput: Double?

        init(_ t: [Double]) {
            func at(_ i: Tally) -> Double { t[i.rawValue] }
            let frames = max(1, at(.frames))
            step = at(.step) * 1e9 / frames
            delivery = at(.delivery) * 1e9 / frames
            input = at(.input) * 1e9 / frames
            frame = step + delivery
            moving = at(.moving) / frames
            events = at(.events) / frames
            overhead = at(.moving) > 0 ? at(.delivery) * 1e9 / at(.moving) : nil
            withInput = at(.moving) > 0 ? (at(.delivery) + at(.input)) * 1e9 / at(.moving) : nil
            perEvent = at(.events) > 0 ? at(.input) * 1e9 / at(.events) : nil
        }
    }

    /// Sets the Tossables up, warms up, and times frames with ``timer``.
    func run(progress: Progress, noise: NoiseMeter? = nil) throws -> InteractionsReport {
        progress.note("interactions: \(count) Tossables")
        let verified = AllocationProbe.verify()
        let heapBefore = heapBytesInUse()
        try setUp()
        progress.note("interactions: \(warmUpFrames) warm-up frames, then repeats of timed frames")
        for _ in 0..<warmUpFrames { try advance() }
        // After the warm-up: what the gestures took (their sample rings) is in the figure too.
        let heapBytesPerTossable = Double(heapBytesInUse() - heapBefore) / Double(count)
        allocation_counter_set_enabled(true)
        let timing = try timer.measure(
            [Contender(frame: { try self.advance() }, tally: { self.tally() })],
            judgedFigures: { _, tallies in
                let figures = tallies[0].map(RepeatFigures.init)
                return [figures.compactMap(\.overhead), figures.compactMap(\.perEvent)]
            },
            warmUpFrames: 0, clock: laps.clock)
        allocation_counter_set_enabled(false)
        let repeats = timing.tallies[0].map(RepeatFigures.init)
        let totals = timing.tallies[0].reduce(into: [Double](repeating: 0, count: Tally.frees.rawValue + 1)) { sum, t in
            for i in sum.indices { sum[i] += t[i] }
        }
        let frames = Int(totals[Tally.frames.rawValue]), allocations = Int(totals[Tally.allocations.rawValue])
        let overhead = repeats.compactMap(\.overhead), perEvent = repeats.compactMap(\.perEvent), withInput = repeats.compactMap(\.withInput)
        let none = Percentiles(p0: 0, p50: 0, p90: 0, p100: 0)
        func percentiles(_ values: [Double]) -> Percentiles { values.isEmpty ? none : Percentiles(values) }
        let confidence = timer.confidence
        let noiseReading = noise?.read(after: "interactions")
        let attachFollow = attachElements > 0
            ? try AttachFollowBench(elements: attachElements, warmUpFrames: warmUpFrames, timer: timer).run(progress: progress, noise: noise)
            : nil
        return InteractionsReport(
            count: count, frames: frames, warmUpFrames: warmUpFrames, springs: runtime.kernel.count,
            movingInteractions: percentiles(repeats.map(\.moving)),
            frameNsP50: Bootstrap.median(repeats.map(\.frame)) ?? 0, kernelStepNsP50: Bootstrap.median(repeats.map(\.step)) ?? 0,
            overheadNsPerMovingInteraction: Bootstrap.median(overhead) ?? 0, gestureEventsPerFrame: percentiles(repeats.map(\.events)),
            inputNsPerGestureEvent: Bootstrap.median(perEvent) ?? 0,
            overheadWithInputNsPerMovingInteraction: Bootstrap.median(withInput) ?? 0,
            heapBytesPerTossable: heapBytesPerTossable, allocationsPerFrame: Double(allocations) / Double(max(frames, 1)),
            allocations: allocations, frees: Int(totals[Tally.frees.rawValue]), allocationCounterVerified: verified,
            frameNs: percentiles(repeats.map(\.frame)), kernelStepNs: percentiles(repeats.map(\.step)),
            deliveryNs: percentiles(repeats.map(\.delivery)), inputNs: percentiles(repeats.map(\.input)),
            overheadNsPerMovingInteractionPercentiles: percentiles(overhead),
            overheadInterval: Bootstrap.medianInterval(overhead, confidence: confidence),
            inputPerEventInterval: Bootstrap.medianInterval(perEvent, confidence: confidence),
            overheadWithInputInterval: Bootstrap.medianInterval(withInput, confidence: confidence),
            repeats: timing.repeats, framesPerRepeat: timing.framesPerRepeat[0], budgetSeconds: timing.budgetSeconds,
            stoppedBy: timing.stoppedBy, clock: timing.clock,
            samples: ["frame": repeats.map(\.frame), "step": repeats.map(\.step), "overhead": overhead, "input": perEvent],
            noise: noiseReading?.reasons, attachFollow: attachFollow, slowdown: noiseReading?.slowdown)
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
            recognizers.append(.passUnretained(tossable.panGestureRecognizer))
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

    /// One frame: the gesture events due, the kernel step, the delivery, each a lap of ``laps``
    /// (this thread's CPU time, as `throughput` times its one-thread groups: a time slice given
    /// to another process is not the layer's cost); then the script's own bookkeeping (untimed).
    private func advance() throws {
        let slot = frame % due.count
        let time = Double(frame) * Self.frameDuration
        let allocations = allocation_counter_allocations(), frees = allocation_counter_frees()
        laps.start()
        for index in due[slot] { handleGesture(Int(index), at: time) }
        laps.lap(Part.input.rawValue)
        try runtime.stepSprings(by: Self.frameDuration)
        laps.lap(Part.step.rawValue)
        runtime.deliverFrame()
        laps.lap(Part.delivery.rawValue)
        counted.allocations += Double(allocation_counter_allocations() - allocations)
        counted.frees += Double(allocation_counter_frees() - frees)
        counted.moving += Double(runtime.lastFrameDeliveryCount)
        counted.events += Double(due[slot].count)
        counted.frames += 1
        // Reschedule: drags continue on the next frame; landed Tossables are dragged again soon.
        // Taken out of the table while it is read, so that emptying it reuses its buffer.
        var current = ContiguousArray<Int32>()
        swap(&current, &due[slot])
        for index in current where dragStep[Int(index)] != 0 { due[(frame + 1) % due.count].append(index) }
        current.removeAll(keepingCapacity: true)
        due[slot] = current
        for index in landed { due[(frame + 1 + Int(index) % 3) % due.count].append(index) }
        landed.removeAll(keepingCapacity: true)
        frame += 1
    }

    /// The next event of Tossable `index`'s drag: began, changed (4 times), ended with the release.
    private func handleGesture(_ index: Int, at time: Double) {
        let recognizer = recognizers[index]
        let step = Int(dragStep[index])
        let velocity = releaseVelocity[index]
        let translation = CGPoint(x: velocity.x * Double(step) * Self.frameDuration, y: velocity.y * Double(step) * Self.frameDuration)
        let event: GestureEvent
        switch step {
        case 0:
            event = .began(timestamp: time)
            dragStep[index] = 1
        case 1...Self.dragFrames:
            event = .changed(translation: translation, timestamp: time)
            dragStep[index] += 1
        default:
            inFlight[index] = true
            event = .ended(translation: translation, timestamp: time)
            dragStep[index] = 0
        }
        recognizer._withUnsafeGuaranteedRef { _ = $0.handle(event) }
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
