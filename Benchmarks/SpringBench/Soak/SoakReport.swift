import Foundation
@_spi(KernelInternals) import SpringKernel

/// What one `soak` run did and found. `--format json` prints it with snake_case keys.
struct SoakReport: Codable {
    /// Every check held.
    var passed: Bool
    /// The checks that failed, one line each (empty when passed).
    var failures: [String]
    /// The first few problems found, described (empty when passed).
    var examples: [String]
    var seed: UInt64
    var quick: Bool

    // The kernel part.
    /// Frames run with the workload, warm-up included; then the drain's frames at 60 Hz.
    var frames: Int
    var warmUpFrames: Int
    var drainFrames: Int
    /// The spring count the workload swings around (±20 %), and the fewest and most it held.
    var springs: Int
    var fewestSprings: Int
    var mostSprings: Int
    var configurations: Int
    /// Springs in the bank summed over frames (drain included), and those of them moving.
    var springFrames: Int
    var movingSpringFrames: Int
    var calls: SoakKernelWorkload<Float32Lanes>.Tally
    var frameDurations: FrameDurations
    /// Rest events the model checked.
    var restChecks: Int
    /// Full comparisons of every spring with the model, and spring reads compared.
    var comparisons: Int
    var springChecks: Int
    /// The largest drift of a spring from its model, relative to its motion scale (the checked
    /// figure), its configuration, and the largest in value units.
    var maxDrift: Double
    var maxDriftConfiguration: String
    var maxDriftAbsolute: Double
    /// The bound on `max_drift` (see ``SoakDriftBound``), its absolute term, and its K.
    var driftBound: Double
    var driftBoundAbsolute: Double
    var driftStepsOfMemory: Double
    var driftSlowestConfiguration: String
    var driftViolations: Int
    /// NaN or infinite numbers read from the kernel or delivered by the interaction layer.
    var nanCount: Int
    /// Live springs the kernel lost (no longer known, unreadable, or a count that disagreed),
    /// in the bank and in the runtime's kernel.
    var lostHandles: Int
    var staleHandlesAccepted: Int
    var stateMismatches: Int
    var restViolations: Int
    /// The farthest outside its tolerance band the model was at a rest event, in value units.
    var maxRestExcess: Double
    var pauseMismatches: Int
    /// Springs still awake after the kernel part's drain.
    var springsAwakeAfterDrain: Int

    var interactions: SoakInteractions.Tally
    var fixedPoint: SoakFixedPointTwins.Report

    /// Resident set and its high-water mark after set-up and warm-up ("start") and after the last
    /// workload frame ("end"), from /proc/self/status (absent off Linux), and the growth allowed.
    var rssStartBytes: Int?
    var rssEndBytes: Int?
    var peakRssStartBytes: Int?
    var peakRssEndBytes: Int?
    var rssGrowthBytes: Int?
    var rssGrowthAllowedBytes: Int?
    /// The resident set at eleven evenly spaced frames from the start to the end.
    var rssSamplesBytes: [Int]
    /// Its growth over the second half of the run (from the sixth sample to the end), and the
    /// growth allowed there.
    var rssLateGrowthBytes: Int?
    var rssLateGrowthAllowedBytes: Int?

    var wallSeconds: Double
    /// Seconds of the main loop (workload, model, interactions), and of the fixed-point twins.
    var loopSeconds: Double
    var fixedPointSeconds: Double

    /// The frame clock's irregular frames.
    struct FrameDurations: Codable {
        var jittered: Int
        var hitches: Int
        /// Frames whose duration differed from the previous one (each makes the kernel predict
        /// every moving spring again).
        var changes: Int
    }

    /// Growth of the resident set allowed between start and end: 5 % or 8 MiB, whichever is more
    /// (allocator caches and page-granular frees move RSS by a few MiB on their own).
    static func allowedGrowth(start: Int) -> Int { max(8 << 20, start / 20) }

    /// Growth allowed over the second half of the run: 1 % or 1 MiB. A steady leak shows half its
    /// growth there, however small it is against the whole-run slack; the allocator settles early.
    static func allowedLateGrowth(start: Int) -> Int { max(1 << 20, start / 100) }

    /// A readable summary.
    func table() -> TextTable {
        var table = TextTable(header: ["soak", "value"], leftAligned: [0, 1])
        func row(_ name: String, _ value: String) { table.rows.append([name, value]) }
        func count(_ value: Int) -> String { thousands(value) }
        row("result", passed ? "PASS" : "FAIL")
        row("frames", "\(count(frames)) (\(count(warmUpFrames)) warm-up) + \(count(drainFrames)) drain at 60 Hz")
        row("frame durations", "60/120/144 Hz stretches; \(count(frameDurations.jittered)) jittered, \(count(frameDurations.hitches)) hitches of 0.25-2 s, \(count(frameDurations.changes)) changes")
        row("springs", "\(count(springs)) nominal, \(count(fewestSprings))-\(count(mostSprings)) held, \(configurations) configurations")
        row("spring-frames", "\(count(springFrames)) (\(count(movingSpringFrames)) moving)")
        row("calls: add / remove", "\(count(calls.adds)) / \(count(calls.removes))")
        row("calls: retarget / addVelocity / setState", "\(count(calls.retargets)) / \(count(calls.impulses)) / \(count(calls.statesSet))")
        row("calls: setConfiguration", count(calls.reconfigurations))
        row("pause masks: made / removed", "\(count(calls.masksMade)) / \(count(calls.masksRemoved))")
        row("pause masks: insert / remove", "\(count(calls.maskInserts)) / \(count(calls.maskRemovals))")
        row("pause masks: pause / resume (springs restarted)", "\(count(calls.pauses)) / \(count(calls.resumes)) (\(count(calls.restarts)))")
        row("rest events (checked)", "\(count(calls.restEvents)) (\(count(restChecks)))")
        row("farthest outside the band at rest, by the model", String(format: "%.2e", maxRestExcess))
        row("comparisons with the model", "\(count(comparisons)) (\(count(springChecks)) spring reads)")
        row("max drift / bound", String(format: "%.2e / %.2e", maxDrift, driftBound) + " of the motion scale (\(maxDriftConfiguration))")
        row("max drift, absolute (energy norm, value units)", String(format: "%.2e", maxDriftAbsolute))
        row("bound from", String(format: "K = %.1f", driftStepsOfMemory) + " steps of memory (\(driftSlowestConfiguration))")
        row("drift violations", count(driftViolations))
        row("NaN or infinite values", count(nanCount))
        row("lost handles", count(lostHandles))
        row("stale handles accepted", count(staleHandlesAccepted))
        row("state / rest / pause mismatches", "\(count(stateMismatches)) / \(count(restViolations)) / \(count(pauseMismatches))")
        row("refused calls", count(calls.refusals))
        row("springs awake after drain", count(springsAwakeAfterDrain))
        row("Tossables", "\(count(interactions.tossables)), \(count(interactions.replacements)) replaced")
        row("drags: flicks / cancels", "\(count(interactions.drags)): \(count(interactions.flicks)) / \(count(interactions.cancels))")
        row("tosses landed / grabbed in flight", "\(count(interactions.landings)) / \(count(interactions.interrupted))")
        row("destination changes", count(interactions.destinationChanges))
        row("rests off destination / tosses not landed", "\(count(interactions.restsOffDestination)) / \(count(interactions.tossesNotLanded))")
        row("values delivered", count(interactions.valuesDelivered))
        row("recognizers the container still lists", count(interactions.containerRecognizers))
        row("fixed-point twins (1 thread SIMD, 2 threads scalar)", "\(count(fixedPoint.springs)) springs, \(count(fixedPoint.frames)) frames, \(fixedPoint.checkpoints) hashes compared, \(fixedPoint.mismatches) differ")
        if let rssStartBytes, let rssEndBytes, let rssGrowthAllowedBytes {
            row("RSS start / end", "\(mebibytes(rssStartBytes)) / \(mebibytes(rssEndBytes)) (growth \(mebibytes(rssEndBytes - rssStartBytes)), allowed \(mebibytes(rssGrowthAllowedBytes)))")
        } else {
            row("RSS start / end", "not available")
        }
        if !rssSamplesBytes.isEmpty {
            row("RSS through the run (MiB)", rssSamplesBytes.map { String(format: "%.1f", Double($0) / Double(1 << 20)) }.joined(separator: " "))
        }
        if let rssLateGrowthBytes, let rssLateGrowthAllowedBytes {
            row("RSS growth over the second half", "\(mebibytes(rssLateGrowthBytes)) (allowed \(mebibytes(rssLateGrowthAllowedBytes)))")
        }
        if let peakRssStartBytes, let peakRssEndBytes {
            row("peak RSS start / end", "\(mebibytes(peakRssStartBytes)) / \(mebibytes(peakRssEndBytes))")
        }
        row("wall time", String(format: "%.1f s (main loop %.1f s, fixed-point twins %.1f s)", wallSeconds, loopSeconds, fixedPointSeconds))
        for failure in failures { row("FAILED", failure) }
        return table
    }

    /// The headline figures: one header line and one row.
    func csv() -> String {
        func optional(_ value: Int?) -> String { value.map(String.init) ?? "" }
        let fields: [(String, String)] = [
            ("passed", "\(passed)"), ("frames", "\(frames)"), ("warm_up_frames", "\(warmUpFrames)"), ("drain_frames", "\(drainFrames)"),
            ("springs", "\(springs)"), ("spring_frames", "\(springFrames)"), ("moving_spring_frames", "\(movingSpringFrames)"),
            ("rest_events", "\(calls.restEvents)"), ("max_drift", "\(maxDrift)"), ("max_drift_absolute", "\(maxDriftAbsolute)"),
            ("drift_bound", "\(driftBound)"), ("nan_count", "\(nanCount)"), ("lost_handles", "\(lostHandles)"),
            ("state_mismatches", "\(stateMismatches)"), ("rest_violations", "\(restViolations)"),
            ("tossables", "\(interactions.tossables)"), ("tosses_landed", "\(interactions.landings)"),
            ("tosses_not_landed", "\(interactions.tossesNotLanded)"), ("fixed_point_mismatches", "\(fixedPoint.mismatches)"),
            ("rss_start_bytes", optional(rssStartBytes)), ("rss_end_bytes", optional(rssEndBytes)),
            ("peak_rss_start_bytes", optional(peakRssStartBytes)), ("peak_rss_end_bytes", optional(peakRssEndBytes)),
            ("wall_seconds", String(format: "%.2f", wallSeconds)),
        ]
        return CSVText.text(header: fields.map(\.0), rows: [fields.map(\.1)])
    }
}

/// A count with thousands separators: 12,345,678.
func thousands(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var grouped = ""
    for (i, digit) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { grouped.append(",") }
        grouped.append(digit)
    }
    return (value < 0 ? "-" : "") + grouped
}
