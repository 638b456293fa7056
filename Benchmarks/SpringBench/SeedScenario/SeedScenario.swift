import Foundation
@_spi(KernelInternals) import SpringKernel

/// The "Detecting Pauses" chapter's own case: a view snapped by UIKit Dynamics to {50, 222, 60, 60},
/// whose frame (x, y, width, height) the chapter logs every 1/30 s. It looks settled at 0.50 s;
/// the chapter's frame watcher stops it at 0.60 s; UIKit's animator pauses at 1.17 s.
///
/// Here the frame is a 4-component rect spring started from the first logged frame (t = 1/30 s)
/// and stepped at 60 Hz. Its configuration is fitted to the log: the natural frequency and damping
/// ratio (one configuration for all four components, as a composite value has) and each
/// component's initial velocity that best reproduce the unrounded logged frames (to 0.37 s), by
/// least squares. (The width and height move because UISnapBehavior also rotates the view and the
/// frame is its bounding box; a spring per component follows that too.)
enum SeedScenario {
    /// The chapter's log: time (s), then x, y, width, height.
    static let logged: [(time: Double, frame: SIMD4<Double>)] = [
        (1.0 / 30, [121.55639, 217.55638, 66.88723, 66.88723]),
        (2.0 / 30, [91.418655, 206.41866, 81.162689, 81.162689]),
        (3.0 / 30, [60.333874, 201.33388, 83.332253, 83.332253]),
        (4.0 / 30, [44.293236, 204.29323, 79.413528, 79.413528]),
        (5.0 / 30, [42.394054, 213.39406, 68.211891, 68.211891]),
        (6.0 / 30, [44.46402, 221.46402, 60.071957, 60.071957]),
        (7.0 / 30, [44.94722, 222.94722, 61.105556, 61.105556]),
        (8.0 / 30, [47.207447, 223.70744, 60.58511, 60.58511]),
        (9.0 / 30, [49.458027, 223.45802, 60.083942, 60.083942]),
        (10.0 / 30, [50.481998, 222.48199, 60.035999, 60.035999]),
        (11.0 / 30, [50.987999, 221.98801, 60.023998, 60.023998]),
        (12.0 / 30, [51, 221.5, 60, 60]),
        (13.0 / 30, [50.5, 221.5, 60, 60]),
        (14.0 / 30, [50, 221.5, 60, 60]),
        (15.0 / 30, [50, 222, 60, 60]),
        (16.0 / 30, [50, 222, 60, 60]),
        (17.0 / 30, [50, 222, 60, 60]),
        // ... the chapter snips 0.60 to 1.10; the frame stays put ...
        (34.0 / 30, [50, 222, 60, 60]),
        (35.0 / 30, [50, 222, 60, 60]),
    ]
    /// Logged frames up to here are unrounded; later ones sit on the half-point pixel grid.
    static let unroundedLogCount = 11
    /// Where the snap takes the frame.
    static let destination: SIMD4<Double> = [50, 222, 60, 60]
    /// What the chapter reports, in its text: the watcher stops the animation at 0.60 s (Listing
    /// 6-2) and UIKit's dynamic animator pauses at 1.17 s (its own rest test, on velocities).
    static let chapterWatcherSeconds = 0.60
    static let chapterAnimatorSeconds = 1.17

    /// The animator's tick rate.
    static let hz = 60.0
    /// The first logged frame's time: frame 0 of the simulation.
    static var startTime: Double { logged[0].time }
    /// Half a point: the band within which a component looks settled, and the tolerance of the
    /// kernel's springs. A 2x screen shows half-point pixels.
    static let tolerance: Float = 0.5
    /// A pixel of a 2x screen, in points.
    static let pixel = 0.5
    /// The chapter's `pointLaxity` (an area, in square points) and Listing 6-2's threshold: rest
    /// once `count > 5` steady animator ticks.
    static let watcherAreaLaxity = 10.0
    static let watcherTicks = 6
    /// kPOPViewFrame's threshold (kPOPThresholdPoint).
    static let popThreshold = 1.0

    /// The configuration and initial velocities fitted to the log.
    struct Fit: Codable {
        var tension: Double
        var friction: Double
        var dampingRatio: Double
        var naturalFrequency: Double
        /// x, y, width, height, points per second.
        var initialVelocity: [Double]
        /// Root-mean-square distance of the fitted frames from the logged ones, in points.
        var rmsError: Double
        var samples: Int
    }

    /// Least squares over the unrounded logged frames after the first: a grid over the natural
    /// frequency and damping ratio, refined twice; each component's initial velocity, for a given
    /// configuration, is linear least squares (the trajectory is linear in it).
    static func fit() throws -> Fit {
        let start = logged[0]
        let samples = logged[1..<unroundedLogCount]
        func evaluate(_ omega: Double, _ zeta: Double) throws -> (error: Double, velocity: SIMD4<Double>) {
            let motion = SpringMotion(try SpringConfiguration(tension: omega * omega, friction: 2 * zeta * omega))
            let d0 = start.frame - destination
            var bb = 0.0, ab = SIMD4<Double>.zero
            var rows: [(a: Double, b: Double, observed: SIMD4<Double>)] = []
            for sample in samples {
                let p = motion.propagator(over: sample.time - start.time)
                // Displacement after t: a11 d0 + a12 v0, so the residual is linear in v0.
                rows.append((p.a11, p.a12, sample.frame - destination))
                bb += p.a12 * p.a12
                ab += (sample.frame - destination - p.a11 * d0) * p.a12
            }
            let v0 = ab / bb
            var error = 0.0
            for row in rows {
                let residual = row.observed - (row.a * d0 + row.b * v0)
                error += (residual * residual).sum()
            }
            return (error, v0)
        }
        var best = (omega: 20.0, zeta: 0.5, error: Double.infinity, velocity: SIMD4<Double>.zero)
        var omegaRange = (low: 4.0, high: 60.0), zetaRange = (low: 0.05, high: 2.0)
        for _ in 0..<3 {
            let steps = 120
            for i in 0...steps {
                let omega = omegaRange.low + (omegaRange.high - omegaRange.low) * Double(i) / Double(steps)
                for j in 0...steps {
                    let zeta = zetaRange.low + (zetaRange.high - zetaRange.low) * Double(j) / Double(steps)
                    let (error, velocity) = try evaluate(omega, zeta)
                    if error < best.error { best = (omega, zeta, error, velocity) }
                }
            }
            let omegaSpan = (omegaRange.high - omegaRange.low) / 10, zetaSpan = (zetaRange.high - zetaRange.low) / 10
            omegaRange = (max(0.5, best.omega - omegaSpan), best.omega + omegaSpan)
            zetaRange = (max(0.01, best.zeta - zetaSpan), best.zeta + zetaSpan)
        }
        return Fit(
            tension: best.omega * best.omega, friction: 2 * best.zeta * best.omega, dampingRatio: best.zeta,
            naturalFrequency: best.omega, initialVelocity: (0..<4).map { best.velocity[$0] },
            rmsError: (best.error / Double(samples.count * 4)).squareRoot(), samples: samples.count)
    }

    /// When one detector reports the rect at rest.
    struct Row: Codable {
        var detector: String
        var rule: String
        /// Frames after the first logged frame, at 60 Hz (nil: never, within the horizon).
        var restFrame: Int?
        /// On the chapter's clock.
        var restSeconds: Double?
        /// Seconds after the frame visibly stops (negative: before it).
        var afterVisibleStopSeconds: Double?
    }

    /// The scenario's measured table.
    struct Report: Codable {
        var fit: Fit
        var hz: Double
        var tolerance: Float
        var rows: [Row]
        /// From the chapter's log: the first logged frame after which it shows the final frame.
        var chapterLoggedVisibleStopSeconds: Double
        var chapterWatcherSeconds: Double
        var chapterAnimatorSeconds: Double
    }

    /// The chapter's clock at a frame of the simulation.
    static func seconds(frame: Int) -> Double { startTime + Double(frame) / hz }

    /// Fits the configuration, runs every detector on the scenario, and tabulates.
    static func run() throws -> Report {
        let fit = try fit()
        let configuration = try SpringConfiguration(tension: fit.tension, friction: fit.friction)
        let start = logged[0].frame
        let velocity = SIMD4<Double>(fit.initialVelocity)
        func component(_ i: Int, tolerance: Float) -> SettleCase {
            SettleCase(
                id: ["x", "y", "width", "height"][i], tension: fit.tension, friction: fit.friction, mass: 1,
                from: Float(start[i]), to: Float(destination[i]), velocity: Float(velocity[i]), tolerance: tolerance, hz: hz)
        }
        func latest(_ frames: [Int?]) -> Int? { frames.contains { $0 == nil } ? nil : frames.compactMap { $0 }.max() }

        // Looks settled: every component rounds to the half-point pixel of its destination for good,
        // i.e. stays within a quarter point (a brute-force rest frame with that band).
        let visible = latest((0..<4).map { component($0, tolerance: Float(pixel / 2)).exactRestFrame() })
        let exact = latest((0..<4).map { component($0, tolerance: tolerance).exactRestFrame() })
        let ours = latest(try KernelRestFrames.restFrames((0..<4).map { component($0, tolerance: tolerance) }))
        let rebound = latest((0..<4).map { PeerRestFrames.restFrame(component($0, tolerance: tolerance), detector: .rebound) })
        let pop = popRestFrame(configuration: configuration, velocity: velocity)
        let watcher = watcherRestFrame(configuration: configuration, velocity: velocity)

        func row(_ detector: String, _ rule: String, _ frame: Int?) -> Row {
            Row(
                detector: detector, rule: rule, restFrame: frame, restSeconds: frame.map(seconds(frame:)),
                afterVisibleStopSeconds: frame.flatMap { f in visible.map { Double(f - $0) / hz } })
        }
        let rows = [
            row("visibly stops", "every component rounds to its destination's half-point pixel from here on", visible),
            row("exact R", "every component within 0.5 pt of its destination from here on (brute force)", exact),
            row("ours", "the kernel: 4 springs, tolerance 0.5 pt, rest predicted in closed form", ours),
            row(PeerDetector.rebound.rawValue, "Rebound, a spring per component: |v| <= 0.005, |x - end| <= 0.005", rebound),
            row(PeerDetector.pop.rawValue, "POP kPOPViewFrame, one 4-vector animation, threshold 1.0", pop),
            row(PeerDetector.frameWatcher.rawValue, "chapter's Listing 6-2 on the displayed frame: area laxity 10, 6 steady ticks", watcher),
        ]
        let loggedStop = logged.indices.first { i in logged[i...].allSatisfy { $0.frame == destination } }.map { logged[$0].time } ?? .nan
        return Report(
            fit: fit, hz: hz, tolerance: tolerance, rows: rows, chapterLoggedVisibleStopSeconds: loggedStop,
            chapterWatcherSeconds: chapterWatcherSeconds, chapterAnimatorSeconds: chapterAnimatorSeconds)
    }

    /// POP animating the frame as one 4-vector (kPOPViewFrame).
    static func popRestFrame(configuration: SpringConfiguration, velocity: SIMD4<Double>, limit: Int = 100_000) -> Int? {
        var spring = POPSpring(from: logged[0].frame, to: destination, velocity: velocity, configuration: configuration, threshold: popThreshold)
        for frame in 1...limit where spring.advance(1 / hz) { return frame }
        return nil
    }

    /// The chapter's WatcherBehavior on the frame as the screen shows it (on half-point pixels):
    /// steady when `CompareFrames` finds the intersection within the laxity of both areas.
    static func watcherRestFrame(configuration: SpringConfiguration, velocity: SIMD4<Double>, limit: Int = 100_000) -> Int? {
        let step = SpringMotion(configuration).propagator(over: 1 / hz)
        var d = logged[0].frame - destination, v = velocity
        func shown(_ d: SIMD4<Double>) -> SIMD4<Double> { ((destination + d) / pixel).rounded(.toNearestOrAwayFromZero) * pixel }
        var reference = shown(d)
        var count = 0
        for frame in 1...limit {
            (d, v) = (step.a11 * d + step.a12 * v, step.a21 * d + step.a22 * v)
            let current = shown(d)
            guard framesMatch(current, reference) else {
                reference = current
                count = 0
                continue
            }
            count += 1
            if count >= watcherTicks { return frame }
        }
        return nil
    }

    /// The chapter's `CompareFrames`: equal, or the intersection's area within the laxity of both.
    static func framesMatch(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Bool {
        if a == b { return true }
        let width = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
        let height = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
        let intersection = width * height
        return abs(intersection - a[2] * a[3]) < watcherAreaLaxity && abs(intersection - b[2] * b[3]) < watcherAreaLaxity
    }

    /// The scenario's table, with the chapter's own times.
    static func table(_ report: Report) -> TextTable {
        var table = TextTable(header: ["detector", "rests at", "frame", "vs visibly stops", "rule"], leftAligned: [0, 4])
        func time(_ s: Double?) -> String { s.map { String(format: "%.2f s", $0) } ?? "never" }
        for row in report.rows {
            table.rows.append([
                row.detector, time(row.restSeconds), row.restFrame.map(String.init) ?? "-",
                row.afterVisibleStopSeconds.map { String(format: "%+.2f s", $0) } ?? "-", row.rule,
            ])
        }
        table.rows.append(["chapter: looks settled", time(report.chapterLoggedVisibleStopSeconds), "-", "-", "from the chapter's logged frames (UIKit)"])
        table.rows.append(["chapter: frame watcher", time(report.chapterWatcherSeconds), "-", "-", "as the chapter reports it"])
        table.rows.append(["chapter: UIKit animator", time(report.chapterAnimatorSeconds), "-", "-", "as the chapter reports it (velocities reach 0)"])
        return table
    }

    /// One sentence on the fitted configuration.
    static func fitDescription(_ fit: Fit) -> String {
        String(
            format: "Configuration fitted to the chapter's log (%d frames x 4 components): natural frequency %.2f rad/s, damping ratio %.3f "
                + "(tension %.1f, friction %.2f, mass 1); initial velocity (%.0f, %.0f, %.0f, %.0f) pt/s; RMS error %.2f pt.",
            fit.samples, fit.naturalFrequency, fit.dampingRatio, fit.tension, fit.friction,
            fit.initialVelocity[0], fit.initialVelocity[1], fit.initialVelocity[2], fit.initialVelocity[3], fit.rmsError)
    }
}

/// `spring-bench seed-scenario`: the chapter's snapping view, detector by detector.
struct SeedScenarioCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench seed-scenario [--quick] [--format table|json|csv] [--output DIR]

          The "Detecting Pauses" chapter's snapping view: its frame as a 4-component rect spring from
          the first logged frame toward {50, 222, 60, 60}, at 60 Hz, with a configuration fitted to the
          chapter's log (UISnapBehavior's spring: the fit finds its damping ratio and frequency). A
          table of when each detector reports rest against when the frame visibly stops (rounds to its
          final half-point pixels for good), beside the chapter's 0.50 s / 0.60 s / 1.17 s.
          (--quick changes nothing: the scenario takes milliseconds.)
        """

    var format: OutputFormat
    var output: String?

    /// Reads the options.
    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        _ = arguments.flag("quick")
        format = try outputFormat(&arguments)
        output = arguments.string("output")
        try arguments.rejectUnread()
        if let output { try FileAccess.prepareFolder(output) }  // refused before the run, not after it
    }

    /// Runs the scenario and prints (and writes) its table.
    func run() throws {
        let report = try SeedScenario.run()
        if let output {
            try writeFile(try jsonText(report), to: "\(output)/seed-scenario.json")
            try writeFile(Self.csv(report), to: "\(output)/seed-scenario.csv")
        }
        switch format {
        case .table: print(SeedScenario.fitDescription(report.fit) + "\n\n" + SeedScenario.table(report).render())
        case .json: print(try jsonText(report), terminator: "")
        case .csv: print(Self.csv(report), terminator: "")
        }
    }

    /// The detectors' rows as CSV.
    static func csv(_ report: SeedScenario.Report) -> String {
        CSVText.text(header: ["detector", "rest_frame", "rest_seconds", "after_visible_stop_seconds"], rows: report.rows.map { row in
            [row.detector, row.restFrame.map(String.init) ?? "", row.restSeconds.map { "\($0)" } ?? "", row.afterVisibleStopSeconds.map { "\($0)" } ?? ""]
        })
    }
}
