import BenchStatistics
import CBoundaryCaller
import Foundation
@_spi(KernelInternals) import SpringKernel
import SpringKernelC

/// `spring-bench c-boundary`: what the C interface costs over the Swift API.
///
/// Two banks of the same springs, one made through the Swift API and stepped with
/// `SpringBank.step`, one made through `sk_bank_create` and stepped from C (`CBoundaryCaller`,
/// compiled by clang, calls `sk_bank_step` through the C ABI), timed in interleaved repeats; and
/// the bulk calls (`sk_bank_read_f32`, `sk_bank_set_state_f32`, `sk_bank_retarget_f32` over every
/// spring) against `memcpy` of the bytes the engine's arrays hold.
///
/// The step is inlined into whichever module calls it, so compare builds where SpringKernelC and
/// spring-bench are compiled for the same CPU: `SPRING_BENCH_CPU=baseline` (both plain x86-64, as
/// .ci/run builds it), or any build with `-Xcc -march=...` on the command line.
struct CBoundaryCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench c-boundary [--springs N] [--frames F] [--repeats R] [--library PATH] [--format table|json]

          A frame of N springs (default 1M, float32, one thread, all moving) stepped through the C
          interface from C against the same frame stepped through the Swift API, F frames (default
          20) per call, calls for about 20 ms a repeat, R interleaved repeats (default 15), timed as
          `throughput` times its groups: ns per frame (median, min) and the ratio C / Swift with its
          95 % interval. Then the bulk calls over all N springs, by handle (read values, set
          state, retarget) and in storage order (read values, user values, handles; set state;
          retarget with every target unchanged, then every target moved; float32 and Q16.16), in
          GB/s of the bytes the engine's arrays hold (written by a read, read by a write), against
          memcpy of those bytes (or of the bytes a call must move, where the row says so),
          interleaved on the same timer (medians of R repeats; the ratio with its 95 % interval).
          Below 1M springs each call is repeated to cover 1M.
          Last, ns a call of calls that do almost nothing (sk_bank_counts; sk_bank_step with nothing
          moving), from C, median of R: the registry lookup and the bank's in-use flag.
          Compare builds where SpringKernelC and spring-bench share a CPU (SPRING_BENCH_CPU=baseline).
          --library PATH: every C call goes to the shared library at PATH (dlopen), e.g. the CMake
          build's Embedded Swift libSpringKernelC.so, instead of the SpringKernelC linked in.
        """

    var springs: Int
    var frames: Int
    var repeats: Int
    /// The shared library the C calls go to (nil: the SpringKernelC linked into spring-bench).
    var library: String?
    var format: OutputFormat

    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        springs = try arguments.int("springs", in: 1...(1 << 26)) ?? (1 << 20)
        frames = try arguments.int("frames", in: 1...100_000) ?? 20
        repeats = try arguments.int("repeats", in: 1...10_000) ?? 15
        library = arguments.string("library")
        format = try outputFormat(&arguments)
        try arguments.rejectUnread()
    }

    /// The figures, for `--format json`.
    struct Report: Codable {
        var springs: Int
        /// The library the C calls went to: "linked" (SwiftPM's SpringKernelC) or the path loaded.
        var library: String
        var swiftFrameNanoseconds: Summary
        var cFrameNanoseconds: Summary
        /// Median over repeats of (C frame / Swift frame) within the repeat.
        var frameRatio: Double
        /// Its 95 % interval, a bootstrap over the repeats' pairs.
        var frameRatioInterval: Interval?
        var bulk: [Bulk]
        /// Calls by handle that change every spring, from C against the same call in Swift.
        var byHandle: [ByHandle]
        /// What the next step spends on a write's changes: (write + step) − step − write, ns a spring.
        var deferredNanosecondsPerSpring: [String: Double]
        /// What a call that does almost nothing costs from C, ns a call (median of the repeats): the
        /// registry lookup and the bank's in-use flag, beside the call's own work.
        var callNanoseconds: [String: Double]
    }

    struct Summary: Codable {
        var median: Double
        var min: Double
    }

    /// A call by handle that changes every spring, through the C interface against the Swift
    /// API's buffer form on a bank of the same springs: ns a spring (medians of the interleaved
    /// repeats) and the C / Swift ratio, the boundary's own cost (unpacking and checking the
    /// handles) over the kernel's work.
    struct ByHandle: Codable {
        var call: String
        var swiftNanosecondsPerSpring: Double
        var cNanosecondsPerSpring: Double
        /// The median of the repeats' paired ratios C / Swift.
        var ratio: Double
        /// Its 95 % interval, a bootstrap over the repeats' pairs.
        var ratioInterval: Interval?
    }

    /// One bulk call against memcpy of the same bytes: the bytes the engine's arrays hold (written
    /// by a read, read by a write), GB/s, medians of the interleaved repeats.
    struct Bulk: Codable {
        var call: String
        var bytes: Int
        var gigabytesPerSecond: Double
        var memcpyGigabytesPerSecond: Double
        /// The call's speed over memcpy's: the median of the repeats' paired ratios.
        var ratio: Double
        /// Its 95 % interval, a bootstrap over the repeats' pairs.
        var ratioInterval: Interval?
    }

    func run() throws {
        if let library {
            var error = [CChar](repeating: 0, count: 512)
            guard boundary_load(library, &error, error.count) == 0 else {
                throw BenchError.failed("c-boundary --library: \(error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
            }
        }
        let n = springs
        let dt = 1.0 / 60
        // Friction 0: an undamped spring swinging beyond its band never rests, so every frame
        // steps all N springs and no repeat is cheaper than another.
        let values = (0..<n).map { Float($0 % 1000) + 1 }
        let zeros = [Float](repeating: 0, count: n)
        let swiftBank = try SpringBank<Float32Lanes>(threading: .single, capacity: n)
        let undamped = try SpringConfiguration(tension: 342, friction: 0)
        for value in values { try swiftBank.add(value: value, target: 0, configuration: undamped, tolerance: 0.5) }
        var cBank: UInt64 = 0
        var handles = [UInt64](repeating: 0, count: n)
        try check(boundary_bank_create(sk_format._float32.rawValue, n, &cBank))
        try check(boundary_bank_add_f32(cBank, n, values, zeros, 342, 0, 0.5, &handles))
        defer { _ = boundary_bank_destroy(cBank) }
        // The first step predicts every spring; it is not what a frame costs.
        try swiftBank.step(dt: dt)
        try check(boundary_step_frames(cBank, dt, 1))

        let progress = Progress()
        // The same timer, interleaving and statistics as `throughput`: F frames a call, calibrated
        // calls a repeat, R rounds of (Swift, C), the ratio of each round a pair.
        progress.note("c-boundary: \(repeats) interleaved repeats of the Swift and the C frame")
        let timing = try FrameTimer(repeats: repeats, secondsPerRepeat: 0.02).measure([
            Contender(frame: { for _ in 0..<frames { try swiftBank.step(dt: dt) } }),
            Contender(frame: {
                let status = boundary_step_frames(cBank, dt, Int32(frames))
                try check(status)
            }),
        ], clock: .threadCPU)  // both step on this thread
        let swiftTimes = timing.samples[0].map { $0 / Double(frames) * 1e9 }
        let cTimes = timing.samples[1].map { $0 / Double(frames) * 1e9 }
        let ratios = Bootstrap.pairedRatios(cTimes, swiftTimes)

        var bulk: [Bulk] = []
        var out = [Float](repeating: 0, count: n)
        var ids = [UInt64](repeating: 0, count: n)
        var scratch = [Float](repeating: 0, count: 3 * n)
        let source = values + values + values
        // Small banks repeat each call so that one frame covers at least ~4 MB of traffic.
        let calls = max(1, (1 << 20) / n)
        // One frame of `calls` calls a repeat, as many repeats as the frames' (a bank whose
        // springs come to rest must not be stepped past it by a calibration).
        var bulkTimer = FrameTimer(repeats: repeats, secondsPerRepeat: 0)
        bulkTimer.framesPerRepeat = 1
        /// Times `body` (called `calls` times a frame) against memcpy of `bytes` (as many times), on
        /// the same timer as the frames: R interleaved repeats of a calibrated number of frames.
        func measure(_ name: String, bytes: Int, _ body: (Int) throws -> Void) throws {
            try withoutActuallyEscaping(body) { body in
                let timing = try bulkTimer.measure([
                    Contender(frame: { for call in 0..<calls { try body(call) } }),
                    Contender(frame: {
                        scratch.withUnsafeMutableBytes { to in
                            source.withUnsafeBytes { from in
                                for _ in 0..<calls { boundary_memcpy(to.baseAddress, from.baseAddress, bytes) }
                            }
                        }
                    }),
                ], warmUpFrames: 0, clock: .threadCPU)  // both on this thread
                bulk.append(Self.bulk(name, bytes: bytes, calls: calls, timing: timing))
            }
            progress.update("c-boundary: \(name)")
        }
        func checked(_ status: Int32) throws { try check(status) }

        // By handle: a lookup per spring (handle, record, batch, slot).
        try measure("read values by handle (sk_bank_read_f32)", bytes: 4 * n) { _ in try checked(boundary_read_values(cBank, handles, n, &out)) }
        try measure("set state by handle (sk_bank_set_state_f32)", bytes: 8 * n) { _ in
            try checked(boundary_set_state(cBank, handles, values, zeros, n))
        }
        try measure("retarget by handle (sk_bank_retarget_f32)", bytes: 4 * n) { _ in try checked(boundary_retarget(cBank, handles, zeros, n)) }
        let swiftHandles = (0..<UInt32(n)).compactMap { swiftBank.spring(atIndex: $0) }
        try measure("read values by handle (Swift value(of:) loop)", bytes: 4 * n) { _ in
            for (i, spring) in swiftHandles.enumerated() { out[i] = try swiftBank.value(of: spring) }
        }

        // In storage order: each batch's lanes streamed to and from the engine's arrays.
        var version: UInt64 = 0, count = 0
        try checked(boundary_layout(cBank, &version, &count))
        precondition(count == n)
        try measure("read values in storage order (sk_layout_read_f32)", bytes: 4 * n) { _ in
            try checked(boundary_layout_read_values(cBank, version, &out, n))
        }
        try measure("read targets in storage order (sk_layout_read_f32)", bytes: 4 * n) { _ in
            try checked(boundary_layout_read_targets(cBank, version, &out, n))
        }
        try measure("read user values in storage order (sk_layout_read_user_values)", bytes: 8 * n) { _ in
            try checked(boundary_layout_read_user_values(cBank, version, &ids, n))
        }
        try measure("read handles in storage order (sk_layout_read_springs)", bytes: 8 * n) { _ in
            try checked(boundary_layout_read_springs(cBank, version, &ids, n))
        }
        // What an engine reads after a step: every spring's value with its own id (Box2D's move
        // events), two calls, 12 bytes a spring.
        try measure("values + user values in storage order (two sk_layout_ calls)", bytes: 12 * n) { _ in
            try checked(boundary_layout_read_user_values(cBank, version, &ids, n))
            try checked(boundary_layout_read_values(cBank, version, &out, n))
        }
        // Q16.16 lanes at a finer scale than the API's (a 1/256 band: displacements in steps of
        // 2^-22), rounded back to Q16.16 on the way out.
        var fixedBank: UInt64 = 0
        try check(boundary_bank_create(sk_format._q16.rawValue, n, &fixedBank))
        defer { _ = boundary_bank_destroy(fixedBank) }
        let fixedValues = (0..<n).map { Int32($0 % 100 + 1) << 16 }
        var fixedOut = [Int32](repeating: 0, count: n), fixedHandles = handles
        try checked(boundary_bank_add_q16(fixedBank, n, fixedValues, [Int32](repeating: 0, count: n), 342, 30, 256, &fixedHandles))
        var fixedVersion: UInt64 = 0, fixedCount = 0
        try checked(boundary_layout(fixedBank, &fixedVersion, &fixedCount))
        try measure("Q16.16 values in storage order, lanes at 2^-22 (sk_layout_read_q16)", bytes: 4 * n) { _ in
            try checked(boundary_layout_read_q16(fixedBank, fixedVersion, &fixedOut, n))
        }
        let layout = swiftBank.storageLayout()
        try measure("read values in storage order (Swift values(in:into:))", bytes: 4 * n) { _ in
            try out.withUnsafeMutableBufferPointer { try swiftBank.values(in: layout, into: $0) }
        }
        // A value read moves three arrays (displacement and target lanes read, the engine's
        // array written: 12 bytes a spring) where memcpy of the engine's 4 bytes moves two (8):
        // the same reads against memcpy of 6 bytes a spring, which moves the same 12 bytes.
        try measure("read values in storage order (sk_layout_read_f32), against memcpy moving the same 12 B a spring", bytes: 6 * n) { _ in
            try checked(boundary_layout_read_values(cBank, version, &out, n))
        }
        try measure("Q16.16 values in storage order (sk_layout_read_q16), against memcpy moving the same 12 B a spring", bytes: 6 * n) { _ in
            try checked(boundary_layout_read_q16(fixedBank, fixedVersion, &fixedOut, n))
        }
        // Q16.16 writes that change every spring, against memcpy moving the bytes each must move:
        // a state set 20 B a spring, as float32's; a retarget 24 (its check reads the velocity
        // lanes too: the motion must still fit the format).
        let fixedVelocities = (0..<n).map { Int32($0 % 7 - 3) << 16 }, fixedGoals = [fixedValues, fixedValues.map { $0 &+ (1 << 16) }]
        try measure("Q16.16 set state in storage order (sk_layout_set_state_q16), against memcpy moving the same 20 B a spring", bytes: 10 * n) { _ in
            try checked(boundary_layout_set_state_q16(fixedBank, fixedVersion, fixedValues, fixedVelocities, n))
        }
        var fixedWrites = 0
        try measure("Q16.16 retarget in storage order, every target moved (sk_layout_retarget_q16), against memcpy moving the same 24 B a spring", bytes: 12 * n) { _ in
            fixedWrites += 1
            try checked(boundary_layout_retarget_q16(fixedBank, fixedVersion, fixedGoals[fixedWrites % 2], n))
        }
        try measure("set state in storage order (sk_layout_set_state_f32)", bytes: 8 * n) { _ in
            try checked(boundary_layout_set_state(cBank, version, values, zeros, n))
        }
        // Every target written back unchanged (an engine that writes all its targets each frame),
        // then every target moved (each spring re-predicted at the next step).
        try checked(boundary_layout_retarget(cBank, version, values, n))
        try checked(boundary_layout(cBank, &version, &count))
        try measure("retarget in storage order, targets unchanged (sk_layout_retarget_f32)", bytes: 4 * n) { _ in
            try checked(boundary_layout_retarget(cBank, version, values, n))
        }
        let shifted = values.map { $0 + 1 }
        var writes = 0
        try measure("retarget in storage order, every target moved (sk_layout_retarget_f32)", bytes: 4 * n) { _ in
            writes += 1
            try checked(boundary_layout_retarget(cBank, version, writes % 2 == 0 ? values : shifted, n))
        }

        // By handle, every target moved (two sets of targets in turn: each call changes every
        // spring), through C against Swift on banks of the same springs.
        var byHandle: [ByHandle] = []
        func compare(_ call: String, swift: @escaping (Int) throws -> Void, c: @escaping (Int) throws -> Void) throws {
            var swiftCalls = 0, cCalls = 0
            let timing = try bulkTimer.measure([
                Contender(frame: { for _ in 0..<calls { swiftCalls += 1; try swift(swiftCalls) } }, isOurs: true),
                Contender(frame: { for _ in 0..<calls { cCalls += 1; try c(cCalls) } }, isOurs: true),
            ], warmUpFrames: 0, clock: .threadCPU)  // both on this thread
            let perSpring = timing.samples.map { Bootstrap.median($0)! / Double(calls * n) * 1e9 }
            let ratios = Bootstrap.pairedRatios(timing.samples[1], timing.samples[0])
            byHandle.append(ByHandle(
                call: call, swiftNanosecondsPerSpring: perSpring[0], cNanosecondsPerSpring: perSpring[1],
                ratio: Bootstrap.median(ratios)!, ratioInterval: Bootstrap.medianInterval(ratios)))
            progress.update("c-boundary: \(call)")
        }
        // Fresh banks of the default spring (tension 342, friction 30), every spring moving toward
        // 0 from its value, made alike through each API: every call below moves every target.
        let defaultSpring = try SpringConfiguration(tension: 342, friction: 30)
        let floatSwift = try SpringBank<Float32Lanes>(threading: .single, capacity: n)
        let floatSwiftHandles = try values.map { try floatSwift.add(value: $0, target: 0, configuration: defaultSpring, tolerance: 0.5) }
        var floatC: UInt64 = 0
        var floatCHandles = [UInt64](repeating: 0, count: n)
        try check(boundary_bank_create(sk_format._float32.rawValue, n, &floatC))
        defer { _ = boundary_bank_destroy(floatC) }
        try check(boundary_bank_add_f32(floatC, n, values, zeros, 342, 30, 0.5, &floatCHandles))
        let moved = [values, shifted]
        try compare("float32 retarget by handle, every target moved (sk_bank_retarget_f32 / retarget(_:to:))",
                    swift: { call in
                        try floatSwiftHandles.withUnsafeBufferPointer { springs in
                            try moved[call % 2].withUnsafeBufferPointer { try floatSwift.retarget(springs, to: $0) }
                        }
                    },
                    c: { try checked(boundary_retarget(floatC, floatCHandles, moved[$0 % 2], n)) })
        var swiftOut = [Float](repeating: 0, count: n)
        try compare("float32 read values by handle (sk_bank_read_f32 / values(of:into:))",
                    swift: { _ in
                        try floatSwiftHandles.withUnsafeBufferPointer { springs in
                            try swiftOut.withUnsafeMutableBufferPointer { try floatSwift.values(of: springs, into: $0) }
                        }
                    },
                    c: { _ in try checked(boundary_read_values(floatC, floatCHandles, n, &out)) })
        let fixedSwift = try SpringBank<Q16Lanes>(threading: .single, capacity: n)
        let fixedSwiftHandles = try fixedValues.map {
            try fixedSwift.add(value: Q16(raw: $0), target: 0, configuration: defaultSpring, tolerance: Q16(raw: 256))
        }
        var fixedC: UInt64 = 0
        var fixedCHandles = [UInt64](repeating: 0, count: n)
        try check(boundary_bank_create(sk_format._q16.rawValue, n, &fixedC))
        defer { _ = boundary_bank_destroy(fixedC) }
        try checked(boundary_bank_add_q16(fixedC, n, fixedValues, [Int32](repeating: 0, count: n), 342, 30, 256, &fixedCHandles))
        let fixedMoved = fixedGoals.map { $0.map(Q16.init(raw:)) }
        try compare("Q16.16 retarget by handle, every target moved (sk_bank_retarget_q16 / retarget(_:to:))",
                    swift: { call in
                        try fixedSwiftHandles.withUnsafeBufferPointer { springs in
                            try fixedMoved[call % 2].withUnsafeBufferPointer { try fixedSwift.retarget(springs, to: $0) }
                        }
                    },
                    c: { try checked(boundary_retarget_q16(fixedC, fixedCHandles, fixedGoals[$0 % 2], n)) })

        try measureWritesWithSteps(n: n, dt: dt, progress: progress, measure: measure)
        let callCosts = try measureCalls(progress: progress)

        let report = Report(
            springs: n, library: library ?? "linked", swiftFrameNanoseconds: Summary(median: Bootstrap.median(swiftTimes)!, min: swiftTimes.min()!),
            cFrameNanoseconds: Summary(median: Bootstrap.median(cTimes)!, min: cTimes.min()!), frameRatio: Bootstrap.median(ratios)!,
            frameRatioInterval: Bootstrap.medianInterval(ratios), bulk: bulk, byHandle: byHandle,
            deferredNanosecondsPerSpring: Self.deferred(bulk, springs: n), callNanoseconds: callCosts)
        switch format {
        case .json:
            print(try jsonText(report), terminator: "")
        case .table, .csv:
            print("\(n) springs, float32, one thread, \(frames) frames x \(repeats) interleaved repeats; C calls to \(report.library)")
            print(String(format: "frame through the Swift API: %.0f ns (min %.0f)", report.swiftFrameNanoseconds.median, report.swiftFrameNanoseconds.min))
            print(String(format: "frame through the C interface: %.0f ns (min %.0f)", report.cFrameNanoseconds.median, report.cFrameNanoseconds.min))
            print(String(format: "C / Swift: %.3fx [%.3f, %.3f] (median of the repeats' ratios, 95 %% interval)", report.frameRatio,
                         report.frameRatioInterval?.low ?? report.frameRatio, report.frameRatioInterval?.high ?? report.frameRatio))
            for row in bulk {
                print(String(format: "%@: %.2f GB/s (%.2f ns a spring), memcpy of the same %d bytes %.2f GB/s: %.3fx [%.3f, %.3f]",
                             row.call, row.gigabytesPerSecond, Double(row.bytes) / row.gigabytesPerSecond / Double(n), row.bytes,
                             row.memcpyGigabytesPerSecond, row.ratio, row.ratioInterval?.low ?? row.ratio, row.ratioInterval?.high ?? row.ratio))
            }
            for row in byHandle {
                print(String(format: "%@: Swift %.2f ns a spring, C %.2f ns a spring, C / Swift %.3fx [%.3f, %.3f]",
                             row.call, row.swiftNanosecondsPerSpring, row.cNanosecondsPerSpring, row.ratio,
                             row.ratioInterval?.low ?? row.ratio, row.ratioInterval?.high ?? row.ratio))
            }
            for (call, nanoseconds) in report.deferredNanosecondsPerSpring.sorted(by: { $0.key < $1.key }) {
                print(String(format: "%@: the next step spends %.2f ns a spring on the write's changes ((write + step) - step - write)",
                             call, nanoseconds))
            }
            for (call, nanoseconds) in report.callNanoseconds.sorted(by: { $0.key < $1.key }) {
                print(String(format: "%@: %.2f ns a call", call, nanoseconds))
            }
        }
    }

    /// The cost of crossing the boundary itself: calls that do almost nothing, from C, 10,000 a
    /// frame, on the same timer as the frames (the median of R interleaved repeats):
    /// `sk_bank_counts` (the registry lookup, the in-use flag taken and let go, three counts read)
    /// and `sk_bank_step` on a bank with nothing moving.
    private func measureCalls(progress: Progress) throws -> [String: Double] {
        var bank: UInt64 = 0
        try check(boundary_bank_create(sk_format._float32.rawValue, 0, &bank))
        defer { _ = boundary_bank_destroy(bank) }
        let calls: Int64 = 10_000
        let names = ["sk_bank_counts", "sk_bank_step, nothing moving"]
        let timing = try FrameTimer(repeats: repeats, secondsPerRepeat: 0.01).measure(names.indices.map { which in
            Contender(frame: { try check(boundary_calls(bank, Int32(which), calls)) })
        }, clock: .threadCPU)
        progress.update("c-boundary: calls")
        return Dictionary(uniqueKeysWithValues: zip(names, timing.samples.map { Bootstrap.median($0)! / Double(calls) * 1e9 }))
    }

    /// A storage-order write that changes every spring leaves their rest predictions to the next
    /// step: the write alone, then each frame's write with its step, against the step alone, on a
    /// bank of lightly damped springs (tension 120, friction 2: they keep moving through the run,
    /// and each change costs a real lower bound and schedule entry, where an undamped spring's
    /// costs nothing). The step's share is (write + step) − step − write.
    private func measureWritesWithSteps(
        n: Int, dt: Double, progress: Progress, measure: (String, Int, (Int) throws -> Void) throws -> Void
    ) throws {
        func checked(_ status: Int32) throws { try check(status) }
        var bank: UInt64 = 0
        try check(boundary_bank_create(sk_format._float32.rawValue, n, &bank))
        defer { _ = boundary_bank_destroy(bank) }
        let values = (0..<n).map { Float($0 % 1000) + 500 }, zeros = [Float](repeating: 0, count: n)
        var handles = [UInt64](repeating: 0, count: n)
        try check(boundary_bank_add_f32(bank, n, values, zeros, 120, 2, 0.5, &handles))
        try checked(boundary_step_frames(bank, dt, 1))
        let targets = [zeros, zeros.map { $0 + 1 }]
        var writes = 0
        /// The layout now (a spring that came to rest changed it), and the next frame's targets.
        func write(state: Bool) throws {
            var version: UInt64 = 0, count = 0
            try checked(boundary_layout(bank, &version, &count))
            writes += 1
            let goals = targets[writes % 2]
            if state {
                try checked(boundary_layout_set_state(bank, version, values, goals, count))
            } else {
                try checked(boundary_layout_retarget(bank, version, goals, count))
            }
        }
        try measure("step alone, 1M lightly damped moving springs (sk_bank_step; per call, memcpy of 4 B a spring beside it)", 4 * n) { _ in
            try checked(boundary_step_frames(bank, dt, 1))
        }
        for state in [false, true] {
            let name = state ? "set state in storage order (sk_layout_set_state_f32)" : "retarget in storage order (sk_layout_retarget_f32)"
            let bytes = (state ? 8 : 4) * n
            try measure("\(name), every spring changed, write alone", bytes) { _ in try write(state: state) }
            // A changing write moves five arrays: the engine's (one, or two for a state) and the
            // lanes it changes (targets or velocities, and displacements: read and written). That
            // is 20 B a spring either way, where memcpy of the engine's bytes moves 8 or 16: the
            // same write against memcpy of 10 B a spring, which moves the same 20 bytes.
            try measure("\(name), every spring changed, write alone, against memcpy moving the same 20 B a spring", 10 * n) { _ in
                try write(state: state)
            }
            try measure("\(name), every spring changed, write + the next step", bytes) { _ in
                try write(state: state)
                try checked(boundary_step_frames(bank, dt, 1))
            }
        }
        _ = progress
    }

    /// For each write measured with its step: (write + step) − step − write, in ns a spring.
    static func deferred(_ rows: [Bulk], springs: Int) -> [String: Double] {
        func nanoseconds(_ call: String) -> Double? {
            rows.first { $0.call == call }.map { Double($0.bytes) / $0.gigabytesPerSecond }
        }
        guard let step = rows.first(where: { $0.call.hasPrefix("step alone") }).map({ Double($0.bytes) / $0.gigabytesPerSecond }) else { return [:] }
        var result: [String: Double] = [:]
        for row in rows where row.call.hasSuffix(", write + the next step") {
            let call = String(row.call.dropLast(", write + the next step".count))
            guard let alone = nanoseconds(call + ", write alone") else { continue }
            result[call] = (Double(row.bytes) / row.gigabytesPerSecond - step - alone) / Double(springs)
        }
        return result
    }

    /// A bulk row from the interleaved timing of the call (contender 0) and memcpy (1), `calls` of
    /// each a frame.
    static func bulk(_ call: String, bytes: Int, calls: Int, timing: GroupTiming) -> Bulk {
        let seconds = Bootstrap.median(timing.samples[0])! / Double(calls), memcpy = Bootstrap.median(timing.samples[1])! / Double(calls)
        let ratios = Bootstrap.pairedRatios(timing.samples[1], timing.samples[0])
        return Bulk(call: call, bytes: bytes, gigabytesPerSecond: Double(bytes) / seconds / 1e9,
                    memcpyGigabytesPerSecond: Double(bytes) / memcpy / 1e9, ratio: Bootstrap.median(ratios)!,
                    ratioInterval: Bootstrap.medianInterval(ratios))
    }

    private func check(_ status: Int32) throws {
        guard status == sk_status._ok.rawValue else { throw BenchError.failed("C interface: \(String(cString: sk_status_name(status)))") }
    }
}
