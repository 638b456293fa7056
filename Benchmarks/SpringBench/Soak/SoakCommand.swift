import Foundation
@_spi(KernelInternals) import SpringKernel

/// `spring-bench soak`: a long mixed workload, checked at the end for drift, NaN, lost springs
/// and memory growth.
struct SoakCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench soak [--frames N] [--springs N] [--tossables N] [--seed S] [--quick]
                          [--format table|json|csv] [--output DIR]

          A long session of everything an engine does, checked as it goes and at the end. Exits 1 if
          any check fails (each failure on stderr), 2 on a usage error.

          Kernel: a float32 SpringBank of about N springs (default 40,000; --quick 8,000) in 11
          configurations (damping ratio 0.02-20), for F frames (default 20,000; --quick 3,000) of
          60/120/144 Hz stretches with jittered frames and 0.25-2 s hitches. Each frame, before the
          step, a seeded mix of retargets, impulses, setState, setConfiguration, removals and
          additions (the count swings ±20 % and back, reusing handles, growing past the capacity the
          bank was made with), and overlapping pause masks made, filled, emptied, paused and resumed
          (half with restart values), and removed. A Float64 model of every spring (its own exact
          closed form) mirrors each call; each rest event must fall within the spring's band by the
          model. Every 32 frames, and after a drain at 60 Hz until every spring rests, every spring
          is read back: no lost or stale handle, no NaN, the same target, configuration, rest and
          pause depth, and a drift from the model (in the spring's energy norm, relative to its
          motion scale) within the bound float32 rounding allows (a few 1e-5; see SoakDriftBound).
          Interactions: T Tossables (default 2,000; --quick 500) in a MotionRuntime stepped with the
          same frame durations, grabbed, dragged and flicked (or cancelled) by timestamped gesture
          events, destinations moved, Tossables replaced: every delivered value finite, every rest
          exactly on the destination, every toss at rest after a drain.
          Fixed point: the same workload on two FixedSpringBanks (SIMD on 1 thread, scalar on 2),
          their state hashes equal every 64 frames.
          Memory: resident set (VmRSS) and its peak (VmHWM) after set-up and warm-up (one swing of
          the spring count) and after the last frame; the resident set may grow by at most
          max(8 MiB, 5 %).

          --format json prints one object (frames, spring_frames, max_drift, drift_bound, nan_count,
          lost_handles, rss_start_bytes, rss_end_bytes, peak_rss_start_bytes, peak_rss_end_bytes,
          passed and the rest); csv one header and one row. --output DIR writes soak.json and soak.csv.
        """

    var frames: Int
    var springs: Int
    var tossables: Int
    var seed: UInt64
    var quick: Bool
    var format: OutputFormat
    var output: String?

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        quick = arguments.flag("quick")
        frames = try arguments.int("frames", in: 1...100_000_000) ?? (quick ? 3_000 : 20_000)
        springs = try arguments.int("springs", in: 1...10_000_000) ?? (quick ? 8_000 : 40_000)
        tossables = try arguments.int("tossables", in: 0...1_000_000) ?? (quick ? 500 : 2_000)
        guard frames >= 1, springs >= 1, tossables >= 0 else {
            throw .usage("--frames and --springs must be positive, --tossables not negative")
        }
        seed = try arguments.seed("seed") ?? 2026
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
    }

    /// Runs the soak, prints (and writes) its report; returns the exit status.
    func run() throws -> Int32 {
        let report = try SoakRun(frames: frames, springs: springs, tossables: tossables, seed: seed, quick: quick).run(progress: Progress())
        if let output {
            try writeFile(try jsonText(report), to: "\(output)/soak.json")
            try writeFile(report.csv(), to: "\(output)/soak.csv")
        }
        switch format {
        case .table: print(report.table().render())
        case .json: print(try jsonText(report), terminator: "")
        case .csv: print(report.csv(), terminator: "")
        }
        guard report.passed else {
            let lines = report.failures.map { "  \($0)" } + report.examples.map { "  e.g. \($0)" }
            FileHandle.standardError.write(Data("spring-bench soak: FAILED\n\(lines.joined(separator: "\n"))\n".utf8))
            return 1
        }
        return 0
    }
}

/// One soak: the parts, set up, run frame by frame together, drained and judged.
struct SoakRun {
    var frames: Int
    var springs: Int
    var tossables: Int
    var seed: UInt64
    var quick: Bool

    /// Frames between two full comparisons with the model.
    static let comparisonInterval = 32

    /// Runs every part and judges the outcome.
    func run(progress: Progress) throws -> SoakReport {
        let started = now()
        // One swing of the spring count; the memory baseline is taken after the first.
        let period = quick ? 300 : 2_000
        let warmUp = min(period, frames / 4)
        let bound = SoakDriftBound(configurations: SoakConfiguration.all, shortestFrame: SoakFrameClock.shortestFrame)
        progress.note(String(format: "soak: drift bound %.2e of the motion scale (K = %.1f, ", bound.relative, bound.stepsOfMemory) + "\(bound.slowestConfiguration))")

        progress.note("soak: \(thousands(springs)) springs, \(thousands(tossables)) Tossables, \(thousands(frames)) frames")
        let bank = try FloatSpringBank(capacity: springs / 4)
        let model = SoakSpringModel(bank: bank, configurations: SoakConfiguration.all, bound: bound)
        let workload = SoakKernelWorkload(bank: bank, springs: springs, period: period, seed: seed, observer: model, extremeTargets: true)
        let interactions = try SoakInteractions(count: tossables, seed: seed &+ 1)
        let clockSeed = seed &+ 2
        var clock = SoakFrameClock(seed: clockSeed, stretchFrames: quick ? 100 : 400, framesPerHitch: quick ? 150 : 600)

        var memoryStart: ProcessMemory?
        // The resident set at the start, at each tenth of the rest of the run, and at the end.
        let sampleFrames = (0..<10).map { warmUp + $0 * (frames - warmUp) / 10 }
        var memorySamples: [Int] = []
        let loopStarted = now()
        var lastUpdate = loopStarted
        for frame in 0..<frames {
            if frame == warmUp { memoryStart = ProcessMemory.current() }
            for sampleFrame in sampleFrames where sampleFrame == frame {
                if let sample = ProcessMemory.current() { memorySamples.append(sample.residentBytes) }
            }
            let dt = clock.next()
            try workload.advance(dt: dt)
            try interactions.advance(dt: dt)
            if frame % Self.comparisonInterval == Self.comparisonInterval - 1 {
                model.compare()
                interactions.checkSprings()
            }
            if now() - lastUpdate > 0.5 {
                lastUpdate = now()
                progress.update(String(
                    format: "soak: frame %d of %d, %d springs, max drift %.2e", frame + 1, frames, bank.count, model.findings.maxDrift))
            }
        }
        model.compare()
        interactions.checkSprings()
        let memoryEnd = ProcessMemory.current()
        if let memoryEnd { memorySamples.append(memoryEnd.residentBytes) }

        progress.note("soak: draining: stepping at 60 Hz until everything rests")
        let drainFrames = try workload.drain(limit: 3600)
        model.compare()
        try interactions.drain()
        let loopSeconds = now() - loopStarted

        let fixedFrames = min(frames, quick ? 600 : 4_000), fixedSprings = quick ? 512 : 2_048
        progress.note("soak: fixed-point twins, \(thousands(fixedSprings)) springs, \(thousands(fixedFrames)) frames")
        let fixedStarted = now()
        let fixedPoint = try SoakFixedPointTwins.run(
            springs: fixedSprings, frames: fixedFrames, seed: seed &+ 3, clock: SoakFrameClock(seed: clockSeed, stretchFrames: 100, framesPerHitch: 150))
        let fixedSeconds = now() - fixedStarted
        progress.finish()

        return judge(
            model: model, workload: workload, interactions: interactions, fixedPoint: fixedPoint, clock: clock,
            memory: (memoryStart, memoryEnd, memorySamples), frames: (warmUp, drainFrames),
            seconds: (now() - started, loopSeconds, fixedSeconds))
    }

    /// The report, and every failed check in it.
    private func judge(
        model: SoakSpringModel, workload: SoakKernelWorkload<Float32Lanes>, interactions: SoakInteractions,
        fixedPoint: SoakFixedPointTwins.Report, clock: SoakFrameClock, memory: (start: ProcessMemory?, end: ProcessMemory?, samples: [Int]),
        frames: (warmUp: Int, drain: Int), seconds: (wall: Double, loop: Double, fixedPoint: Double)
    ) -> SoakReport {
        let findings = model.findings, calls = workload.tally, bound = model.bound, layer = interactions.tally
        let awakeAfterDrain = workload.bank.awakeCount
        let nanCount = findings.nonFiniteValues + layer.nonFiniteValues
        let lostHandles = findings.lostHandles + layer.lostSprings
        // JSON has no NaN or infinity: a drift that is not a finite number is reported as the largest double.
        let maxDrift = findings.maxDrift.isFinite ? findings.maxDrift : .greatestFiniteMagnitude
        let maxDriftAbsolute = findings.maxDriftAbsolute.isFinite ? findings.maxDriftAbsolute : .greatestFiniteMagnitude

        var failures: [String] = []
        func check(_ holds: Bool, _ failure: @autoclosure () -> String) { if !holds { failures.append(failure()) } }
        check(findings.driftViolations == 0, String(
            format: "drift: %d spring reads beyond the bound (max %.3e of the motion scale, bound %.3e)",
            findings.driftViolations, maxDrift, bound.relative))
        check(nanCount == 0, "NaN: \(nanCount) non-finite values read or delivered")
        check(lostHandles == 0, "lost handles: \(lostHandles)")
        check(findings.staleHandlesAccepted == 0, "stale handles: \(findings.staleHandlesAccepted) removed handles still accepted")
        check(findings.stateMismatches == 0, "state: \(findings.stateMismatches) disagreements with the model (target, configuration, rest, pause depth)")
        check(findings.restViolations == 0, "rest: \(findings.restViolations) rest events outside the band or for a spring not moving")
        check(findings.pauseMismatches == 0, "pause: \(findings.pauseMismatches) resumes freed other springs than the model's")
        check(calls.refusals == 0, "refused: \(calls.refusals) valid calls refused (\(workload.firstRefusal ?? ""))")
        check(awakeAfterDrain == 0, "drain: \(awakeAfterDrain) springs still awake after \(frames.drain) frames at 60 Hz")
        check(layer.restsOffDestination == 0, "interactions: \(layer.restsOffDestination) rests not exactly on the destination")
        check(layer.tossesNotLanded == 0, "interactions: \(layer.tossesNotLanded) tosses never came to rest")
        check(layer.containerRecognizers == layer.tossables, "interactions: the container lists \(layer.containerRecognizers) recognizers for \(layer.tossables) Tossables")
        check(fixedPoint.mismatches == 0, "fixed point: \(fixedPoint.mismatches) of \(fixedPoint.checkpoints) state hashes differ between the twins")
        var growth: Int?, allowed: Int?, lateGrowth: Int?, lateAllowed: Int?
        if let start = memory.start, let end = memory.end {
            growth = end.residentBytes - start.residentBytes
            allowed = SoakReport.allowedGrowth(start: start.residentBytes)
            check(growth! <= allowed!, "memory: the resident set grew by \(mebibytes(growth!)) (allowed \(mebibytes(allowed!)))")
            if memory.samples.count == 11 {
                lateGrowth = end.residentBytes - memory.samples[5]
                lateAllowed = SoakReport.allowedLateGrowth(start: start.residentBytes)
                check(lateGrowth! <= lateAllowed!, "memory: the resident set grew by \(mebibytes(lateGrowth!)) over the second half of the run (allowed \(mebibytes(lateAllowed!))): a leak")
            }
        }

        return SoakReport(
            passed: failures.isEmpty, failures: failures, examples: findings.examples + interactions.examples, seed: seed, quick: quick,
            frames: self.frames, warmUpFrames: frames.warmUp, drainFrames: frames.drain, springs: springs,
            fewestSprings: calls.fewestSprings, mostSprings: calls.mostSprings, configurations: SoakConfiguration.all.count,
            springFrames: calls.springFrames, movingSpringFrames: model.movingSpringFrames, calls: calls,
            frameDurations: SoakReport.FrameDurations(jittered: clock.jitteredFrames, hitches: clock.hitches, changes: clock.durationChanges),
            restChecks: findings.restChecks, comparisons: findings.comparisons, springChecks: findings.springChecks,
            maxDrift: maxDrift, maxDriftConfiguration: findings.maxDriftConfiguration, maxDriftAbsolute: maxDriftAbsolute,
            driftBound: bound.relative, driftBoundAbsolute: bound.absolute, driftStepsOfMemory: bound.stepsOfMemory,
            driftSlowestConfiguration: bound.slowestConfiguration, driftViolations: findings.driftViolations,
            nanCount: nanCount, lostHandles: lostHandles, staleHandlesAccepted: findings.staleHandlesAccepted,
            stateMismatches: findings.stateMismatches, restViolations: findings.restViolations,
            maxRestExcess: findings.maxRestExcess.isFinite ? findings.maxRestExcess : .greatestFiniteMagnitude,
            pauseMismatches: findings.pauseMismatches, springsAwakeAfterDrain: awakeAfterDrain,
            interactions: layer, fixedPoint: fixedPoint,
            rssStartBytes: memory.start?.residentBytes, rssEndBytes: memory.end?.residentBytes,
            peakRssStartBytes: memory.start?.peakResidentBytes, peakRssEndBytes: memory.end?.peakResidentBytes,
            rssGrowthBytes: growth, rssGrowthAllowedBytes: allowed, rssSamplesBytes: memory.samples,
            rssLateGrowthBytes: lateGrowth, rssLateGrowthAllowedBytes: lateAllowed,
            wallSeconds: seconds.wall, loopSeconds: seconds.loop, fixedPointSeconds: seconds.fixedPoint)
    }
}
