import BenchStatistics
import Foundation

/// The Markdown summary of a run (`results/README.md` and each run folder's README.md): every
/// table is built from the run's measured figures.
enum ResultsSummary {
    /// The run folders under `root` (those holding a results.json).
    static func runFolders(in root: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { !$0.hasPrefix(".") && FileManager.default.fileExists(atPath: "\(root)/\($0)/results.json") }.sorted()
    }

    /// The other folders under `root` that hold results but not a run of the main job (the
    /// browser benchmark's, .ci/wasm-drag's), each with what its first file says it is.
    static func otherResultFolders(in root: String) -> [(folder: String, what: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { !$0.hasPrefix(".") && !FileManager.default.fileExists(atPath: "\(root)/\($0)/results.json") }.sorted().compactMap { name in
            let folder = "\(root)/\(name)"
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
            if let readme = try? String(contentsOfFile: "\(folder)/README.md", encoding: .utf8),
               let heading = readme.split(separator: "\n").first(where: { $0.hasPrefix("# ") }) {
                return (name, String(heading.dropFirst(2)))
            }
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
            guard !files.isEmpty else { return nil }
            return (name, files.map { "`\($0)`" }.joined(separator: ", "))
        }
    }

    /// `2.50x`, `1234x`, `0.00157x`.
    static func ratio(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0fx", value) : (value >= 0.1 ? String(format: "%.2fx", value) : String(format: "%.3gx", value))
    }
    /// `95.4 %`.
    static func percent(_ value: Double) -> String { String(format: "%.1f %%", value * 100) }

    /// The plain-bank (or loop, C, peer) figure of a kernel at a size in a group.
    static func find(_ results: [ThroughputResult], _ kernel: ThroughputKernel, _ springs: Int, group: String = "kernels") -> ThroughputResult? {
        results.first { $0.kernel == kernel.rawValue && $0.springs == springs && $0.group == group && $0.threadsRequested == "1" && $0.isPlain }
    }

    /// A table of the run folders under `root`: the CPU, the build, the commit and the date each
    /// was measured on, read from its machine.json.
    static func runIndex(_ folders: [String], root: String) -> [String] {
        var lines = ["| folder | CPU | built for | commit | measured |", "|---|---|---|---|---|"]
        for folder in folders {
            guard let machine = MachineInfo.read(folder: "\(root)/\(folder)") else {
                lines.append("| [`\(folder)`](\(folder)/README.md) | - | - | - | - |")
                continue
            }
            let cpu = "\(machine.cpuModel)\(machine.cpuFamily.map { " (\($0))" } ?? ""), \(machine.processors) cores"
            let build = machine.isProxyBuild ? "\(machine.isa) on a CPU with \(machine.hostIsa ?? "more") (a proxy)" : machine.isa
            lines.append("| [`\(folder)`](\(folder)/README.md) | \(cpu) | \(build) | \(machine.commit ?? "-") | \(machine.date) |")
        }
        return lines + [""]
    }

    /// The whole summary; `plotFolder` is where the SVGs are, relative to the Markdown file.
    static func markdown(_ results: RunResults, plotFolder: String, otherRuns: [String] = [], indexRoot: String = ".") -> String {
        let m = results.machine
        var lines = [
            "# spring-bench results", "",
        ]
        if !otherRuns.isEmpty {
            lines += ["The latest run, `\(plotFolder)/`. Runs kept here (each a full run of the main job, with its README):", ""]
            lines += runIndex(otherRuns, root: indexRoot)
            let others = otherResultFolders(in: indexRoot)
            if !others.isEmpty {
                lines += ["Other results kept here (not runs of the main job):", ""]
                lines += others.map { "- [`\($0.folder)`](\($0.folder)/): \($0.what)" } + [""]
            }
        }
        lines += noiseLines(results) + [
            "## Machine", "",
            "- CPU: \(m.cpuModel), \(m.processors) cores",
            "- spring-bench and the kernel step inlined into it built for **\(m.isa)**; the C reference loops and probes built for \(m.referenceIsa) (clang -O3 -march=native, compiled into the same binary)",
        ]
        if m.isProxyBuild {
            lines.append("- **A proxy run**: the CPU offers \(m.hostIsa ?? "more"), the build uses \(m.isa) only (`SPRING_BENCH_CPU`): \(m.isa) code on another microarchitecture, not a machine of that instruction set")
        }
        lines += [
            "- Swift \(m.swiftVersion); measured \(m.date); the run took \(String(format: "%.0f", results.durationSeconds)) s\(results.quick ? " (**--quick**: CI-sized, not a reference run)" : "")",
            "- Throughput figures are p50 over repeats after an untimed warm-up; the cases of one group (one size, one comparison) are measured together with their repeats interleaved, and every ratio below is taken within one group.",
            "- " + repeatsLine(results),
            "- Groups whose every case steps on one thread are timed by that thread's CPU time: a time slice the scheduler gives another process inside a repeat is not the kernel's cost (wall time counted it, and moved interleaved ratios by up to 3x between two runs of the same code on this shared VM). The interaction layer's frames (one thread) are timed the same way; groups with a step on two threads by wall time.",
            "",
        ]
        lines += figures(results)
        lines += throughput(results.throughput, plotFolder: plotFolder)
        lines += variants(results.throughput)
        lines += settle(results, plotFolder: plotFolder)
        lines += fixedPoint(results)
        lines += seedScenario(results.seedScenario)
        lines += interactions(results.interactions)
        lines += settleClocks(results.settleClocks)
        lines += events(results.events)
        lines += drag(results.drag)
        lines += [
            "## Files", "",
            "In `\(plotFolder == "." ? "this folder" : plotFolder + "/")`: `results.json` (everything; what `spring-bench compare` reads), `machine.json`, "
                + "`throughput.{json,csv}`, `settle.{json,csv}`, `settle-cases.csv` (every case's R and each detector's D), `settle-reference.{json,csv}`, "
                + "`seed-scenario.{json,csv}`, `interactions.{json,csv}`, `throughput.svg`, `settle-latency.svg`.", "",
        ]
        return lines.joined(separator: "\n")
    }

    /// The noise meter, peak memory and running time: the summary's first lines, before any verdict.
    static func noiseLines(_ results: RunResults) -> [String] {
        var lines: [String] = []
        let time = String(format: "%.0f s", results.durationSeconds)
        let memory = results.peakResidentBytes.map { String(format: "%.0f MB", Double($0) / 1e6) } ?? "not recorded"
        if let n = results.machine.noise {
            // Slowest and fastest readings, then the median: one outlier shows as a range's end.
            var summary = String(
                format: "steal up to %.1f %%; other processes %.2f cores (median), up to %.2f; compute loop %@-%@ steps/s (median %@, baseline %@); bandwidth loop %.1f-%.1f GB/s (median %.1f, baseline %.1f)",
                n.stealShareMax * 100, n.otherProcessesCoresMedian, n.otherProcessesCoresMax,
                engineering(n.computeStepsPerSecond.p0), engineering(n.computeStepsPerSecond.p100), engineering(n.computeStepsPerSecond.p50),
                engineering(n.computeReference), n.bandwidthGigabytesPerSecond.p0, n.bandwidthGigabytesPerSecond.p100, n.bandwidthGigabytesPerSecond.p50,
                n.bandwidthReference)
            if let latency = n.latencyNanoseconds {
                summary += String(format: "; cache latency %.1f-%.1f ns a load (median %.1f, baseline %.1f; a %.0f MB chase)", latency.p0, latency.p100, latency.p50,
                                  n.latencyReference ?? latency.p50, Double(n.latencyBufferBytes ?? 0) / 0x1p20)
            }
            summary += "; baselines: \(n.reference)"
            if let slowdown = n.slowdown { summary += String(format: "; group slowdowns %.2f-%.2fx (median %.2fx)", slowdown.p0, slowdown.p100, slowdown.p50) }
            if n.isNoisy {
                lines.append("**Noisy machine: \(n.noisyGroups) of \(n.groups) measurement groups were taken while it was loaded** (\(summary)). Those groups are marked (noisy) below, with their slowdown: the worst of the three probes, on either side of the group, against the run's quiet baseline, and at least 1 + the cores other processes used over the group (a neighbour the short probes can miss). A timed figure of theirs that misses its target by more than that slowdown can explain is not met; one that misses by less is inconclusive (a met one stays met).")
            } else {
                lines.append("Quiet machine: none of \(n.groups) measurement groups was marked by the noise meter (\(summary)).")
            }
        } else {
            lines.append("No noise meter readings (a run written before schema 2).")
        }
        lines += ["", "Running time \(time); peak resident memory \(memory) (getrusage).", ""]
        return lines
    }

    /// How the repeats were taken.
    static func repeatsLine(_ results: RunResults) -> String {
        let confidence = String(format: "%g %%", (results.confidence ?? 0.95) * 100)
        if let repeats = results.fixedRepeats { return "Each group took \(repeats) interleaved repeats (--repeats); intervals are \(confidence) bootstrap intervals over the repeats' pairs." }
        guard let budget = results.budgetSecondsPerGroup else { return "Repeats and intervals were not recorded (a run written before schema 2)." }
        let repeats = results.throughput.compactMap { $0.samplesNanosecondsPerFrame?.count }
        let stopped = Dictionary(grouping: results.throughput.compactMap(\.stoppedBy), by: { $0 }).mapValues(\.count)
        return "Each group repeated until its judged ratios' \(confidence) intervals (a bootstrap over the interleaved repeats' pairs) were within ±3 % or its budget of \(String(format: "%g", budget)) s was spent: "
            + "\(repeats.min() ?? 0)-\(repeats.max() ?? 0) repeats (cases stopped by precision \(stopped["precision"] ?? 0), by budget \(stopped["budget"] ?? 0))."
    }

    /// The judged figures (computed from the run when it predates them).
    static func judged(_ results: RunResults) -> [JudgedFigure] {
        results.figures ?? JudgedFigures.judge(results, confidence: results.confidence ?? 0.95)
    }

    /// The issue's figures as CSV: figure,target,verdict,estimate,low,high,confidence,noisy,slowdown,measured
    /// (slowdown empty for an exact figure or a group the meter did not read).
    static func figuresCSV(_ results: RunResults) -> String {
        // Without the Markdown emphasis the summary's figure texts carry.
        func plain(_ text: String) -> String { text.replacingOccurrences(of: "**", with: "") }
        return CSVText.text(
            header: ["figure", "target", "verdict", "estimate", "low", "high", "confidence", "noisy", "slowdown", "measured"],
            rows: judged(results).map { f in
                [plain(f.figure), plain(f.target), f.verdict.rawValue, "\(f.estimate)", "\(f.low)", "\(f.high)", "\(f.confidence)",
                 f.noise.isEmpty ? "false" : "true", f.slowdown.map { "\($0)" } ?? "", plain(f.measured)]
            })
    }

    /// The issue's figures, each against what this run measured: verdict, then `ratio [low, high]`.
    static func figures(_ results: RunResults) -> [String] {
        let figures = judged(results)
        let count = { (verdict: Verdict) in figures.filter { $0.verdict == verdict }.count }
        return ["## Figures against the issue's targets", "",
                "\(count(.met)) met, \(count(.notMet)) not met, \(count(.inconclusive)) inconclusive. Timed figures show the estimate and its \(String(format: "%g", (results.confidence ?? 0.95) * 100)) % interval; met means the whole interval meets the target, not met that none of it does (in a group the noise meter marked, that none of it would on a machine as fast as the quiet baseline: it misses by more than the group's slowdown).", ""]
            + markdownTable(["figure", "target", "verdict", "measured [interval]"], figures.map { f in
                let verdict = f.verdict == .met ? "met" : (f.verdict == .notMet ? "**not met**" : "inconclusive")
                return [f.figure, f.target, verdict + noisyMark(f), f.measured]
            }) + [""]
    }

    /// ` (noisy, slowdown 1.12x)` after a noisy figure's verdict (` (noisy)` without a slowdown);
    /// nothing after a quiet one's.
    static func noisyMark(_ figure: JudgedFigure) -> String {
        guard !figure.noise.isEmpty else { return "" }
        return figure.slowdown.map { String(format: " (noisy, slowdown %.2fx)", $0) } ?? " (noisy)"
    }

    /// The fixed-point kernel against its C loop and the float32 kernel, and the determinism hashes.
    static func fixedPoint(_ results: RunResults) -> [String] {
        let t = results.throughput
        var rows: [[String]] = []
        for springs in Set(t.map(\.springs)).sorted() {
            guard let fixed = find(t, .fixed, springs) else { continue }
            let f = fixed.springStepsPerSecond.p50
            func versus(_ kernel: ThroughputKernel) -> String { find(t, kernel, springs).map { ratio(f / $0.springStepsPerSecond.p50) } ?? "-" }
            rows.append([
                springCountLabel(springs), engineering(f), String(format: "%.1f", fixed.gigabytesPerSecond.p50),
                find(t, .cFixed, springs).map { engineering($0.springStepsPerSecond.p50) } ?? "-", versus(.cFixed), versus(.simd), versus(.fixedScalar),
            ])
        }
        var lines = [
            "## Fixed point (Q16.16)", "",
            "The fixed-point bank's whole step (`fixed`) against clang -O3 -march=native on the same arithmetic (`c-fixed`: the same binary32 increments rounded to nearest even, added to the Int32 lanes, the bound's report) and against the float32 bank, measured in the same groups as the float32 kernel.", "",
        ] + markdownTable(["springs", "fixed steps/s", "GB/s", "c-fixed", "vs c-fixed", "vs float32", "vs fixed-scalar"], rows)
        if let settle = results.fixedSettle?.first {
            lines += ["", String(format: "Settle on the corpus, judged against the fixed-point trajectory itself: %d cases, D = R %d, D = R + 1 %d, later %d, early %d, never %d (%.3f %% within [R, R + 1]).",
                settle.cases, settle.exact, settle.lateByOne, settle.lateByMore, settle.early, settle.neverRested, settle.withinOneFrame * 100)]
        }
        if let determinism = results.determinism, !determinism.isEmpty {
            lines += ["", "The determinism scene (`spring-bench determinism`; the tests pin these values):", ""]
            lines += markdownTable(["kernel", "threads", "built for", "rest frame", "state hash"], determinism.map {
                [$0.kernel, "\($0.threads)", $0.isa, "\($0.restFrame)", "`\($0.hash)`"]
            })
        }
        return lines + [""]
    }

    /// The throughput table and plot.
    static func throughput(_ t: [ThroughputResult], plotFolder: String) -> [String] {
        var rows: [[String]] = []
        for springs in Set(t.map(\.springs)).sorted() {
            guard let simd = find(t, .simd, springs) else { continue }
            let s = simd.springStepsPerSecond.p50
            func versus(_ kernel: ThroughputKernel) -> String { find(t, kernel, springs).map { ratio(s / $0.springStepsPerSecond.p50) } ?? "-" }
            func rate(_ kernel: ThroughputKernel) -> String { find(t, kernel, springs).map { engineering($0.springStepsPerSecond.p50) } ?? "-" }
            let loop = find(t, .simdLoop, springs).flatMap { l in find(t, .cDisplacement, springs).map { ratio(l.springStepsPerSecond.p50 / $0.springStepsPerSecond.p50) } } ?? "-"
            rows.append([
                springCountLabel(springs), engineering(s), String(format: "%.1f", simd.gigabytesPerSecond.p50),
                simd.roofline.map { engineering($0.springStepsPerSecond) } ?? "-",
                simd.roofline.map { percent($0.fraction.p50) } ?? "-",
                simd.roofline.map { String(format: "%.1f", $0.probeGigabytesPerSecond) } ?? "-",
                versus(.cDisplacement), loop, versus(.cAbsolute), versus(.scalar), versus(.rk4), versus(.objectPerSpring),
                rate(.rk4), rate(.objectPerSpring),
            ])
        }
        return [
            "## Throughput against the probes and the peers", "",
            "Spring-steps per second of one frame of N springs (`simd`: the bank's whole step on one thread). `share` is of the bandwidth probe (an in-place read and write of the step's 16 bytes a spring, at the same N, with no arithmetic) over 16 bytes. The probes are references, not bounds: the bank's step has run at up to 1.4x of the bandwidth probe in L2 (the AVX-512 VMs) and 1.37x of the compute probe (the step's arithmetic on springs held in registers) in L1 (Zen 3), and a true ceiling would need the core's clock, which these VMs do not expose; `x` columns are `simd`'s throughput over the other's. `C` is clang -O3 -march=native on the same step and layout (clang contracts a·b + c to FMA: four vector operations a bundle to the kernel's six, which keeps its results bit-identical on every instruction set); `C 20 B` the ANCHORS loop on absolute positions; `rk4-1ms` the peers' integrator (RK4, 1 ms substeps) vectorised over SIMD16 lanes, at its best; `object-per-spring` one class instance per spring as Rebound and POP keep them.", "",
        ] + markdownTable([
            "springs", "simd steps/s", "GB/s", "bandwidth probe", "share", "probe GB/s", "vs C", "simd-loop vs C", "vs C 20 B", "vs scalar",
            "vs rk4-1ms", "vs object", "rk4-1ms", "object-per-spring",
        ], rows) + ["", "![Throughput against springs, with the probes](\(plotFolder)/throughput.svg)", ""]
    }

    /// Threads, pause masks, settling and configurations against the plain bank.
    static func variants(_ t: [ThroughputResult]) -> [String] {
        var rows: [[String]] = []
        func share(_ group: String, _ springs: Int, _ match: (ThroughputResult) -> Bool) -> String {
            guard let plain = t.first(where: { $0.group == group && $0.springs == springs && $0.isPlain && $0.threadsRequested == "1" }),
                let variant = t.first(where: { $0.group == group && $0.springs == springs && match($0) })
            else { return "-" }
            return ratio(variant.springStepsPerSecond.p50 / plain.springStepsPerSecond.p50)
        }
        /// The churn ratio, the springs settling a frame, and what each costs above the plain frame.
        func churn(_ springs: Int) -> String {
            let ratio = share("settle", springs) { $0.settle == SettleWorkload.churn.rawValue }
            guard let plain = t.first(where: { $0.group == "settle" && $0.springs == springs && $0.isPlain }),
                let churn = t.first(where: { $0.group == "settle" && $0.springs == springs && $0.settle == SettleWorkload.churn.rawValue }),
                let settled = churn.settledPerFrame, settled > 0
            else { return ratio }
            let each = (churn.nanosecondsPerFrame.p50 - plain.nanosecondsPerFrame.p50) / settled
            return "\(ratio) (\(String(format: "%.0f", settled)) settle a frame, \(String(format: "%.0f", each)) ns each)"
        }
        /// How many threads `.automatic` chose, when it chose more than one.
        func autoThreads(_ springs: Int) -> String {
            guard let auto = t.first(where: { $0.group == "threads" && $0.springs == springs && $0.threadsRequested == "auto" }), auto.threads > 1 else { return "" }
            return " (\(auto.threads))"
        }
        for springs in Set(t.map(\.springs)).sorted() {
            rows.append([
                springCountLabel(springs),
                share("threads", springs) { $0.threadsRequested == "2" },
                share("threads", springs) { $0.threadsRequested == "auto" } + autoThreads(springs),
                share("pause", springs) { $0.paused == 0.5 }, share("pause", springs) { $0.paused == 1 },
                churn(springs),
                share("configurations", springs) { $0.configurations == 64 },
            ])
        }
        var lines = [
            "## Threads, pause masks, settling, configurations", "",
            "Each against the plain bank measured in the same group (all springs moving, none paused, one configuration, one thread), as spring-steps/s over the plain bank's: spring-steps count every spring in the bank, so 2x means half the frame time. `automatic threads` is `StepThreading.automatic`, the default (the threads it chose in brackets when more than one): all cores once the moving springs' lanes fill half the last-level cache, one thread below. "
                + "`settle churn`: the kernel has no per-step settle check to switch off (rest is predicted once per trajectory); this bank's springs (tension 342, friction 30) come to rest on their predicted frames and are retargeted at once, so each frame pays for the predictions, rest-schedule pushes and pops, snaps and restarts of the springs that settle in it, against undamped springs that never rest; \"ns each\" is the frame's extra time over the springs that settled in it (a restart included).", "",
        ] + markdownTable(["springs", "2 threads", "automatic threads", "50 % paused", "100 % paused", "settle churn", "64 configurations"], rows)
        if let few = t.first(where: { $0.group == "skip-at-rest" && $0.moving < 1 }),
            let all = t.first(where: { $0.group == "skip-at-rest" && $0.isPlain }) {
            lines += [
                "", "Skip at rest: \(springCountLabel(all.springs)) springs with \(String(format: "%g", few.moving * 100)) % moving at random cost \(String(format: "%.0f", few.nanosecondsPerFrame.p50)) ns a frame against \(String(format: "%.0f", all.nanosecondsPerFrame.p50)) ns with all moving: **\(String(format: "%.2f", few.nanosecondsPerFrame.p50 / all.nanosecondsPerFrame.p50 * 100)) %** of the cost.",
            ]
        }
        return lines + [""]
    }

    /// The reference cases, the corpus summary and the histogram.
    static func settle(_ results: RunResults, plotFolder: String) -> [String] {
        let detectors = SettleCommand.allDetectors
        let reference = results.settleReference.map { row -> [String] in
            [row.id, String(format: "%g", row.tolerance), String(format: "%g", row.popThreshold), row.exactRestFrame.map(String.init) ?? "-"]
                + detectors.map { name in
                    guard let frame = row.frames[name] ?? nil else { return "never" }
                    guard let r = row.exactRestFrame else { return "\(frame)" }
                    return "\(frame) (\(frame - r >= 0 ? "+" : "")\(frame - r))"
                }
        }
        let summary = results.settle.map { s -> [String] in
            [
                s.detector, "\(s.exact)", "\(s.lateByOne)", "\(s.lateByMore)", "\(s.early)", "\(s.neverRested)", String(format: "%.3f %%", s.withinOneFrame * 100),
                String(format: "%g / %g / %g / %g", s.latencyFrames.p50, s.latencyFrames.p90, s.latencyFrames.p99, s.latencyFrames.max),
                String(format: "%.0f / %.0f / %.0f / %.0f", s.latencyMilliseconds.p50, s.latencyMilliseconds.p90, s.latencyMilliseconds.p99, s.latencyMilliseconds.max),
            ]
        }
        let cases = results.settle.first?.cases ?? 0
        return [
            "## Settle detection against the exact rest frame", "",
            "R is the first frame after which the exact trajectory never leaves its tolerance band (0.5 for positions, 1/256 for opacities), found by brute force in Float64. `ours` is the kernel's prediction; `velocity-threshold-rebound` is Rebound's |v| <= 0.005 and |x - end| <= 0.005 and `velocity-threshold-pop` POP's isDone (threshold 1.0 for points, 0.01 for opacity), each on its own library's RK4 trajectory; `frame-watcher` is the \"Detecting Pauses\" chapter's watcher (unchanged within the tolerance for 0.1 s) on the exact trajectory.", "",
            "The peers' reference cases (ANCHORS: a spring released at rest, 60 Hz; POP's threshold 0.005 for 0->1, 1.0 for 0->100), D (D - R):", "",
        ] + markdownTable(["case", "tolerance", "POP t", "R"] + detectors, reference) + [
            "", "The corpus: \(cases) seeded cases over damping ratio 0.01-30, distances 0.01-3000, velocities to ±8000/s, 30-240 Hz. Latency D - R, p50 / p90 / p99 / max:", "",
        ] + markdownTable(["detector", "D = R", "D = R + 1", "D > R + 1", "early (D < R)", "never", "within [R, R + 1]", "frames", "ms"], summary)
            + ["", "![Settle latency per detector](\(plotFolder)/settle-latency.svg)", ""]
    }

    /// The seed scenario's table.
    static func seedScenario(_ report: SeedScenario.Report) -> [String] {
        let rows = report.rows.map { row -> [String] in
            [
                row.detector, row.restSeconds.map { String(format: "%.2f s", $0) } ?? "never", row.restFrame.map(String.init) ?? "-",
                row.afterVisibleStopSeconds.map { String(format: "%+.2f s", $0) } ?? "-", row.rule,
            ]
        } + [
            ["chapter: looks settled", String(format: "%.2f s", report.chapterLoggedVisibleStopSeconds), "-", "-", "the chapter's logged frames (UIKit)"],
            ["chapter: frame watcher", String(format: "%.2f s", report.chapterWatcherSeconds), "-", "-", "as the chapter reports it"],
            ["chapter: UIKit's animator", String(format: "%.2f s", report.chapterAnimatorSeconds), "-", "-", "as the chapter reports it"],
        ]
        return [
            "## The seed scenario: the chapter's snapping view", "",
            "The view's frame as a 4-component rect spring from the chapter's first logged frame (t = 0.03 s) toward {50, 222, 60, 60}, stepped at 60 Hz; times on the chapter's clock. " + SeedScenario.fitDescription(report.fit), "",
        ] + markdownTable(["detector", "rests at", "frame", "vs visibly stops", "rule"], rows) + [""]
    }

    /// The interaction layer's figures.
    static func interactions(_ i: InteractionsReport) -> [String] {
        func row(_ name: String, _ p: Percentiles, per moving: Bool = false) -> [String] {
            let perMoving = moving && i.movingInteractions.p50 > 0 ? String(format: "%.0f", p.p50 / i.movingInteractions.p50) : ""
            return [name, String(format: "%.0f", p.p50), String(format: "%.0f", p.p90), perMoving]
        }
        let rows = [
            ["moving interactions", String(format: "%.0f", i.movingInteractions.p50), String(format: "%.0f", i.movingInteractions.p90), ""],
            row("runtime frame, advance(by:) (ns)", i.frameNs, per: true),
            row("kernel step (ns)", i.kernelStepNs, per: true),
            row("delivery (ns)", i.deliveryNs, per: true),
            ["above the kernel step, per moving interaction (ns)", String(format: "%.1f", i.overheadNsPerMovingInteractionPercentiles.p50), String(format: "%.1f", i.overheadNsPerMovingInteractionPercentiles.p90), ""],
            ["gesture events handled", String(format: "%.0f", i.gestureEventsPerFrame.p50), String(format: "%.0f", i.gestureEventsPerFrame.p90), ""],
            row("gesture input (ns)", i.inputNs, per: true),
            ["gesture input per event (ns)", String(format: "%.0f", i.inputNsPerGestureEvent), "", ""],
            ["above the kernel step with the gesture input, per moving interaction (ns)", String(format: "%.1f", i.overheadWithInputNsPerMovingInteraction), "", ""],
            ["heap bytes per Tossable (objects, tables, lanes)", String(format: "%.0f", i.heapBytesPerTossable ?? 0), "", ""],
            ["heap allocations per frame", String(format: "%.3f", i.allocationsPerFrame), "", "\(i.allocations) in \(i.frames) frames"],
        ]
        return [
            "## Overheads: the interaction layer", "",
            "`interactions`: \(i.count) Tossables (\(i.springs) kernel springs) in one MotionRuntime at 60 Hz, each dragged by scripted gesture events for 5 frames, released at 500-2000 pt/s, tossed and settled, then dragged again; \(i.frames) frames timed after \(i.warmUpFrames) warm-up frames\(i.repeats.map { ", in \($0) repeats of \(i.framesPerRepeat ?? 0) frames on this thread's CPU time (figures: medians of the repeats' figures)" } ?? ""). The runtime's frame is `advance(by:)`: the kernel step (`stepSprings`) and the delivery (`deliverFrame`), so its overhead above the step is the delivery; moving interactions are the spring streams delivered to. The gesture events (the engine's input, handled between frames by the recognizers and everything they drive: positions, pauses and restarts in the kernel) are timed apart, per event, and also added to the overhead in a row of their own. Allocations are counted by a malloc interposer linked into spring-bench\(i.allocationCounterVerified ? ", checked to count Swift allocations first" : " (**not verified**)").", "",
        ] + markdownTable(["figure", "p50", "p90", "p50 per moving interaction (ns)"], rows) + [""] + attachFollow(i.attachFollow)
    }

    /// The AttachWithSpring figures: targets moving every frame against still targets (issue 33).
    static func attachFollow(_ a: AttachFollowReport?) -> [String] {
        guard let a else { return [] }
        func bounds(_ interval: Interval?, _ format: String) -> String {
            interval.map { String(format: "[\(format), \(format)]", $0.low, $0.high) } ?? ""
        }
        let rows = [
            ["targets moving every frame: above the kernel step, per element-frame (ns)", String(format: "%.1f", a.movingNsPerElementFrame),
             bounds(a.movingInterval, "%.1f"),
             String(format: "target writes %.1f, delivery %.1f; kernel step %.1f", a.movingTargetWritesNsPerElementFrame, a.movingDeliveryNsPerElementFrame,
                    a.movingStepNsPerElementFrame)],
            ["targets still: above the kernel step, per element-frame (ns)", String(format: "%.1f", a.stillNsPerElementFrame), bounds(a.stillInterval, "%.1f"),
             String(format: "kernel step %.1f", a.stillStepNsPerElementFrame)],
            ["moving over still (bound 2.0x)", String(format: "%.2fx", a.movingOverStill), bounds(a.movingOverStillInterval, "%.2f"),
             "\(a.repeats) repeats of \(a.movingFramesPerRepeat) and \(a.stillFramesPerRepeat) frames"],
        ]
        return [
            "`interactions`, AttachWithSpring: \(a.elements) elements in a runtime of their own, each following a target element of its own. Moving: every target's position written every frame along a pointer's path (a circle of 10-160 pt at 1 Hz, 16 phases), the default spring; still: no target written, the elements started away from their targets on lightly damped springs (decay time 200 s), so every spring moves on every frame in both. Above the step: the target writes (everything the layer does for a new destination, its retargets made before the lap ends) and the delivery; interleaved repeats on this thread's CPU time, medians with 95 % intervals.", "",
        ] + markdownTable(["figure", "median", "95 % interval", "parts"], rows) + [""]
    }

    /// A Markdown table (pipes in cells escaped).
    /// The kernel's rest under each frame clock.
    static func settleClocks(_ summaries: [ClockSummary]?) -> [String] {
        guard let summaries, !summaries.isEmpty else { return [] }
        return [
            "## Rest under real frame clocks", "",
            "`spring-bench settle --clocks`: the corpus (\(summaries[0].cases + summaries[0].saturated) cases) stepped with each clock's frame durations. "
                + "R: the rest frame of the frames actually taken; R_c: the first frame that reaches T*, the last time the exact continuous motion is outside the band "
                + "(both from Float64 oracles that share nothing with the kernel's predictor). Early: D < R_c (the motion would still leave its band on a frame of some duration). "
                + "Bound: R ≤ D ≤ max(R_c, R + 1) for the variable clocks; R ≤ D ≤ R + 1 for the steady clock, which the bank declares (`FrameClock.fixed`). "
                + "Q16.16 cases the format clamps leave the exact motion and are not judged. "
                + "The peers' detectors (float32 rows) take the same frame durations as their frame time.", "",
        ] + markdownTable(
            ["detector", "kernel", "clock", "bank clock", "cases judged", "early (D < R_c)", "D < R", "within bound", "never", "latency vs R p50 / p99 / max"],
            summaries.map {
                [$0.detector ?? "ours", $0.kernel, $0.clock, $0.frameClock, "\($0.cases)", "\($0.early)", "\($0.earlySampled)", String(format: "%.2f %%", $0.withinBound * 100),
                 "\($0.neverRested)", String(format: "%.0f / %.0f / %.0f", $0.latencyFrames.p50, $0.latencyFrames.p99, $0.latencyFrames.max)]
            }) + [""]
    }

    /// Events per kind, one call per spring or in bulk, and a new frame duration every frame.
    static func events(_ rows: [EventsCommand.Row]?) -> [String] {
        guard let rows, !rows.isEmpty else { return [] }
        var lines = [
            "## Events and frame clocks", "",
            "`spring-bench events`: N default springs (342/30, started again before each repeat) all moving at 60 Hz; each frame a share of them gets one event, "
                + "one call per spring (single) or one call for all (bulk). ns per event = (frame with the events − the plain step of as many lightly damped springs, all moving) / events, "
                + "the following step's share included. Issue 10's bound: 25 ns (float32), 50 ns (Q16.16) at 100 % of 100K springs. "
                + "`new-dt`: every frame lasts 1/60 s ± 15 % (a measured frame time), as a frame cost over a steady frame's (bound: 1.1x). "
                + "Rows marked light: lightly damped springs (120/0.02) that never come to rest, not judged.", "",
        ]
        let shares = Array(Set(rows.filter { $0.event != "new-dt" }.map(\.fraction))).sorted()
        var table: [[String]] = []
        for kernel in ["float32", "q16.16"] {
            for springs in Array(Set(rows.map(\.springs))).sorted() {
                for kind in EventsCommand.EventKind.allCases where kind != .newDuration {
                    for form in kind.forms {
                        for springKind in ["default", "light"] {
                            let cells = shares.map { share in
                                rows.first {
                                    $0.kernel == kernel && $0.springs == springs && $0.event == kind.rawValue && $0.form == form && $0.fraction == share
                                        && ($0.springKind ?? "default") == springKind
                                }.map { String(format: "%.0f", $0.nanosecondsPerEvent) } ?? "-"
                            }
                            guard cells.contains(where: { $0 != "-" }) else { continue }
                            table.append([kernel, springCountLabel(springs), kind.rawValue + (springKind == "light" ? " (light)" : ""), form] + cells)
                        }
                    }
                }
            }
        }
        lines += markdownTable(["kernel", "springs", "event", "form"] + shares.map { String(format: "ns/event at %g %%", $0 * 100) }, table)
        let clock = rows.filter { $0.event == "new-dt" }
        if !clock.isEmpty {
            lines += ["", "A new frame duration every frame:", ""]
            lines += markdownTable(["kernel", "springs", "steady frame (µs)", "new dt every frame (µs)", "ratio"], clock.map {
                [$0.kernel, springCountLabel($0.springs), String(format: "%.1f", $0.baseFrameNanoseconds / 1000),
                 String(format: "%.1f", $0.eventFrameNanoseconds / 1000), String(format: "%.2fx", $0.frameRatio)]
            })
        }
        return lines + [""]
    }

    /// Springs whose targets move every frame, against the plain step.
    static func drag(_ rows: [DragCommand.Row]?) -> [String] {
        guard let rows, !rows.isEmpty else { return [] }
        let lines = [
            "## Springs that follow moving targets", "",
            "`spring-bench drag`: every spring's target moved every frame along a pointer's path (`drag`: 40-190 pt swings at 1 Hz in 16 phases; "
                + "`slow`: 10-160 pt, whose slowest springs rest near the turns and are woken by the next retarget; "
                + "`hold`: 1-4 pt, a finger held on the glass, each frame's move within the tolerance; both reported and not judged), "
                + "tolerance 0.5, 60 Hz, against the plain step of as many moving springs, in interleaved repeats. "
                + "Issue 33's bounds: storage order 2.0x the plain step; by handle 5 ns a spring-frame; half and 1 % by handle 5 ns, "
                + "one call a spring 10 ns, above the plain step per retargeted spring. Rests a frame: springs the drag carries into "
                + "their band slowly enough to rest (and woken by the next retarget).", "",
        ]
        return lines + markdownTable(
            ["path", "kernel", "springs", "kind", "mode", "plain (ns/spring)", "drag (ns/spring)", "ratio", "ns/retarget above plain", "rests/frame"],
            rows.map {
                [$0.path ?? "drag", $0.kernel, "\($0.springs)", $0.springKind, $0.mode, String(format: "%.3f", $0.plainNanosecondsPerSpring),
                 String(format: "%.3f", $0.nanosecondsPerSpring), String(format: "%.2fx", $0.ratio), String(format: "%.2f", $0.nanosecondsPerRetarget),
                 String(format: "%.1f", $0.restsPerFrame)]
            }) + [""]
    }

    static func markdownTable(_ header: [String], _ rows: [[String]]) -> [String] {
        ["| " + header.joined(separator: " | ") + " |", "|" + header.map { _ in "---" }.joined(separator: "|") + "|"]
            + rows.map { "| " + $0.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |" }
    }
}
