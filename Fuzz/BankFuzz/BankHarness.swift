import Foundation
@_spi(KernelInternals) @testable import SpringKernel

/// Values of a lane format the fuzzer can make from a number or from raw lane bits.
protocol FuzzLanes: SpringLaneArithmetic {
    /// `value` as this format's value type, without the bank's checks (NaN, out of range and all).
    static func fuzzValue(_ value: Double) -> Value
    /// Typical tolerances of this format, and bad ones.
    static var tolerances: [Double] { get }
}

extension Float32Lanes: FuzzLanes {
    static func fuzzValue(_ value: Double) -> Float { Float(value) }
    static let tolerances: [Double] = [0.5, 1.0 / 256, 0.001, 1e-30, 0, -0.0, -1, .nan, .infinity, 1e15, 2e15, 1e-45]
}

extension Q16Lanes: FuzzLanes {
    static func fuzzValue(_ value: Double) -> Q16 { Q16(value) ?? Q16Lanes.nearestValue(to: value) }
    static let tolerances: [Double] = [0.5, 1.0 / 256, 1.0 / 65536, 1, 0, -1, 100, 32767]
}

/// A byte stream decoded into calls on one bank, checked after each against the kernel's promises:
/// no crash, no trap, no NaN in a lane, every invariant; a refused call changes nothing (the state
/// hash); a paused spring's lanes stay bit-identical; and no spring is ever snapped at rest while
/// its exact motion (``ExactMotion``, from the state its trajectory last changed at) would still
/// leave its band later (on a frame end, under a fixed frame clock).
final class BankHarness<Lanes: FuzzLanes> {
    let bank = SpringBank<Lanes>(threading: .single)
    var input: FuzzInput
    var springs: [SpringHandle] = []
    var removed: [SpringHandle] = []
    var masks: [PauseMaskID] = []
    var removedMasks: [PauseMaskID] = []
    let foreign = SpringBank<Lanes>()

    /// Where each spring's trajectory last changed: its lanes then, and the time and frames since.
    struct Track {
        var displacement: Double
        var velocity: Double
        var elapsed = 0.0
        var frames = 0
        var snapshot: Snapshot
    }

    /// What a call can change about a spring.
    struct Snapshot: Equatable {
        var lanes: (UInt32, UInt32, UInt32)
        var configuration: SpringConfiguration
        var tolerance: Double
        var paused: Bool
        var awake: Bool

        static func == (a: Snapshot, b: Snapshot) -> Bool {
            a.lanes == b.lanes && a.configuration == b.configuration && a.tolerance.bitPattern == b.tolerance.bitPattern
                && a.paused == b.paused && a.awake == b.awake
        }
    }

    var tracks: [SpringHandle: Track] = [:]
    /// FUZZ_TRACE=1 prints every call (to replay a crash input by hand).
    static var tracing: Bool { getenv("FUZZ_TRACE") != nil }
    func trace(_ line: String) { FileHandle.standardError.write(Data("\(Lanes.self) \(line)\n".utf8)) }

    static var configurations: [SpringConfiguration] {
        [
            .default, try! SpringConfiguration(tension: 1323, friction: 91), try! SpringConfiguration(tension: 342, friction: 0),
            try! SpringConfiguration(tension: 1e6, friction: 0, mass: 1e-6), try! SpringConfiguration(tension: 1e6, friction: 1e6, mass: 1e-6),
            try! SpringConfiguration(tension: 1e-34, friction: 0, mass: 1e6), try! SpringConfiguration(tension: 1e-34, friction: 2e-8 * (1 - 1e-9), mass: 1e6),
            try! SpringConfiguration(tension: 1e-40, friction: 1e-40, mass: 1), try! SpringConfiguration(tension: 1e-46, friction: 1e-20, mass: 1e-6), try! SpringConfiguration(tension: 1e6, friction: 2000, mass: 1),
            try! SpringConfiguration(tension: 100, friction: 20), try! SpringConfiguration(tension: 0.01, friction: 0),
            try! SpringConfiguration(tension: 1e-6, friction: 1e6, mass: 1e6), try! SpringConfiguration(tension: 0.25, friction: 1e6 * (1 - 1e-12)), try! SpringConfiguration(tension: 120, friction: 6, mass: 2),
        ]
    }

    static var values: [Double] {
        [0, 1, -1, 100, -100, 0.5, 1e-3, 1000, 32767, -32768, 32768, 1e15, -1e15, 2e15, .nan, .infinity, -.infinity, 1e-45, 3.4e38, 1e300]
    }

    static var durations: [Double] {
        [1.0 / 60, 1.0 / 120, 1.0 / 30, 1.0 / 144, 0.25, 2, 1e-9, .leastNonzeroMagnitude, 0, -0.0, -1, .nan, .infinity, 3600, 1e6, 1e17, 1e300,
         1e307, .greatestFiniteMagnitude, 1.0 / 60 * 1.1, 1.0 / 60 * 0.9]
    }

    /// The caller's environment every bank call is made in (nil: the default, nearest).
    let environment: CallerEnvironment?
    /// Whether each call was accepted, in order: compared between runs in two environments.
    var outcomes: [Bool] = []

    init(input: FuzzInput, environment: CallerEnvironment? = nil) {
        self.input = input
        self.environment = environment
    }

    // MARK: Decoding

    func value() -> Lanes.Value { Lanes.fuzzValue(input.double(Self.values)) }

    func tolerance() -> Lanes.Value { Lanes.fuzzValue(input.double(Lanes.tolerances, low: 0, high: 10)) }

    func configuration() -> SpringConfiguration? {
        if input.byte() % 4 != 0 { return Self.configurations[input.index(Self.configurations.count)] }
        let k = input.double([1, 342, 1e6, 1e-40, 1e-34, 1e-46, 1e-300, .leastNonzeroMagnitude, 0, -1, 1e-6], low: 0, high: 5000)
        let c = input.double([0, 30, 1e6, 1e-9, -1, .nan], low: 0, high: 200)
        let m = input.double([1, 1e-6, 1e6, 0.5, 0, 2e6], low: 0, high: 10)
        return try? SpringConfiguration(tension: k, friction: c, mass: m)
    }

    /// A handle to call with: a live spring, now and then a removed or another bank's one.
    func handle() -> SpringHandle? {
        switch input.byte() % 16 {
        case 0: return removed.isEmpty ? nil : removed[input.index(removed.count)]
        case 1: return try? foreign.add(value: Lanes.fuzzValue(0), target: Lanes.fuzzValue(1), tolerance: Lanes.fuzzValue(0.5))
        default: return springs.isEmpty ? nil : springs[input.index(springs.count)]
        }
    }

    func mask() -> PauseMaskID? {
        switch input.byte() % 16 {
        case 0: return removedMasks.isEmpty ? nil : removedMasks[input.index(removedMasks.count)]
        case 1: return try? foreign.makePauseMask()
        default: return masks.isEmpty ? nil : masks[input.index(masks.count)]
        }
    }

    // MARK: Running

    func run() {
        var operations = 0
        while !input.isExhausted, operations < 200 {
            operations += 1
            perform(input.byte())
            guard bank.count == springs.count else { violated("count \(bank.count), harness \(springs.count)") }
        }
    }

    /// Runs `body`, which calls the bank; a refusal must leave the state hash as it was.
    @discardableResult
    func call(_ name: String, touching touched: [SpringHandle] = [], _ body: () throws(SpringKernelError) -> Void) -> Bool {
        if Self.tracing { trace("call \(name) \(touched)") }
        let before = bank.stateHash()
        let clock = bank.frameClock
        do {
            try inEnvironment(name, body)
        } catch {
            guard bank.stateHash() == before else { violated("\(name) threw \(error) and changed the bank") }
            checkInvariants(name)
            outcomes.append(false)
            return false
        }
        outcomes.append(true)
        checkInvariants(name)
        refreshTracks(touched: touched, all: bank.frameClock != clock)
        return true
    }

    /// Runs a bank call in the harness's caller environment, checking the call gives it back.
    func inEnvironment(_ name: String, _ body: () throws(SpringKernelError) -> Void) throws(SpringKernelError) {
        guard let environment else { return try body() }
        let saved = environment.enter()
        var set = fenv_t()
        fegetenv(&set)
        defer {
            var after = fenv_t()
            fegetenv(&after)
            var saved = saved
            fesetenv(&saved)
            // The control bits (modes, masks, FTZ, DAZ), not the exception flags a call may raise.
            #if arch(x86_64)
            let same = after.__mxcsr & 0xFFC0 == set.__mxcsr & 0xFFC0 && after.__control_word == set.__control_word
            #else
            let same = true
            #endif
            guard same else { violated("\(name) did not give the caller's environment back") }
        }
        try body()
    }

    func checkInvariants(_ name: String) {
        do { try bank._checkInvariants() } catch { violated("after \(name): \(error)") }
    }

    /// A spring's displacement and velocity in value units: its lanes read at its batch's scale
    /// (fixed-point lanes are stored finer than the API's patterns).
    func exactState(of spring: SpringHandle, _ lanes: (UInt32, UInt32, UInt32)) -> (displacement: Double, velocity: Double) {
        let scale = bank.core.storage(ofRecord: try! bank.core.recordIndex(spring)).scale
        return (Lanes.double(ofLanePattern: lanes.0) * scale.displacementFactor, Lanes.double(ofLanePattern: lanes.1) * scale.velocityFactor)
    }

    func lanes(of spring: SpringHandle) -> (UInt32, UInt32, UInt32) {
        let index = try! bank.core.recordIndex(spring)
        let lanes = bank.core.lanePatterns(ofRecord: index)
        return (lanes.displacement, lanes.velocity, lanes.target)
    }

    func snapshot(of spring: SpringHandle) -> Snapshot {
        Snapshot(
            lanes: lanes(of: spring), configuration: try! bank.configuration(of: spring), tolerance: try! bank.tolerance(of: spring),
            paused: try! bank.isPaused(spring), awake: !(try! bank.isAtRest(spring)))
    }

    /// A new trajectory for every spring a call touched or changed (or all, after a clock change):
    /// the bank predicts those again from their lanes now. `touched` lists only the springs a call
    /// always predicts again (retarget, impulse, setState, setTolerance); any other change is
    /// seen in the snapshot (a resume that frees a spring, a new configuration). A call that
    /// changes nothing keeps the trajectory: Q16 lanes drift from the exact motion, and the bank
    /// keeps judging rest by the motion from its last change.
    func refreshTracks(touched: [SpringHandle], all: Bool = false) {
        for spring in springs where bank.contains(spring) {
            let now = snapshot(of: spring)
            if !all, !touched.contains(spring), let track = tracks[spring], track.snapshot == now { continue }
            if Self.tracing { trace("  new trajectory of \(spring) at frame \(bank.frame): lanes \(now.lanes), awake \(now.awake), paused \(now.paused)") }
            tracks[spring] = Track(
                displacement: exactState(of: spring, now.lanes).displacement, velocity: exactState(of: spring, now.lanes).velocity, snapshot: now)
        }
    }

    func perform(_ operation: UInt8) {
        switch operation % 20 {
        case 0, 1:
            let v = value(), t = value(), speed: Lanes.Value? = input.bool() ? value() : nil, tol = tolerance()
            guard let configuration = configuration() else { return }
            var added: SpringHandle?
            call("add(value: \(v), target: \(t), velocity: \(String(describing: speed)), \(configuration), tolerance: \(tol))") { () throws(SpringKernelError) in
                added = try bank.add(value: v, target: t, velocity: speed, configuration: configuration, tolerance: tol)
            }
            if let added {
                springs.append(added)
                refreshTracks(touched: [added])
            }
        case 2:
            guard let spring = handle() else { return }
            if call("remove", { () throws(SpringKernelError) in try bank.remove(spring) }) {
                springs.removeAll { $0 == spring }
                removed.append(spring)
                tracks[spring] = nil
            }
        case 3, 4:
            guard let spring = handle() else { return }
            let target = value()
            call("retarget(to: \(target))", touching: [spring]) { () throws(SpringKernelError) in try bank.retarget(spring, to: target) }
        case 5:
            guard let spring = handle() else { return }
            let impulse = value()
            call("addVelocity(\(impulse))", touching: [spring]) { () throws(SpringKernelError) in try bank.addVelocity(impulse, to: spring) }
        case 6:
            guard let spring = handle() else { return }
            let v = value(), speed = value()
            call("setState(value: \(v), velocity: \(speed))", touching: [spring]) { () throws(SpringKernelError) in try bank.setState(of: spring, value: v, velocity: speed) }
        case 7:
            guard let spring = handle(), let configuration = configuration() else { return }
            call("setConfiguration(\(configuration))") { () throws(SpringKernelError) in try bank.setConfiguration(of: spring, to: configuration) }
        case 8:
            guard let spring = handle() else { return }
            let tol = tolerance()
            call("setTolerance(\(tol))", touching: [spring]) { () throws(SpringKernelError) in try bank.setTolerance(of: spring, to: tol) }
        case 9:
            let members = (0..<input.index(4)).compactMap { _ in handle() }
            var made: PauseMaskID?
            call("makePauseMask") { () throws(SpringKernelError) in made = try bank.makePauseMask(members) }
            if let made { masks.append(made) }
        case 10:
            guard let spring = handle(), let mask = mask() else { return }
            call("insert") { () throws(SpringKernelError) in try bank.insert(spring, into: mask) }
        case 11:
            guard let spring = handle(), let mask = mask() else { return }
            call("remove(from:)") { () throws(SpringKernelError) in try bank.remove(spring, from: mask) }
        case 12:
            guard let mask = mask() else { return }
            call("pause") { () throws(SpringKernelError) in try bank.pause(mask) }
        case 13:
            guard let mask = mask() else { return }
            resume(mask)
        case 14:
            guard let mask = mask() else { return }
            if call("removePauseMask", { () throws(SpringKernelError) in try bank.removePauseMask(mask) }) {
                masks.removeAll { $0 == mask }
                removedMasks.append(mask)
            }
        case 15:
            let clock: FrameClock = input.bool() ? .variable : .fixed(frameDuration: input.double(Self.durations))
            call("setFrameClock(\(clock))") { () throws(SpringKernelError) in try bank.setFrameClock(clock) }
        case 16:
            let count = input.index(4)
            let handles = (0..<count).compactMap { _ in handle() }
            let targets = (0..<(input.index(8) == 0 ? count + 1 : handles.count)).map { _ in value() }
            call("retarget(batch)", touching: handles) { () throws(SpringKernelError) in try bank.retarget(handles, to: targets) }
        case 17:
            readEverything()
        case 18:
            guard let spring = handle() else { return }
            if input.bool() {
                call("clearSaturation") { () throws(SpringKernelError) in try bank.clearSaturation(of: spring) }
            } else {
                let threading: StepThreading = [.single, .fixed(2), .automatic][input.index(3)]
                call("setThreading") { () throws(SpringKernelError) in try bank.setThreading(threading) }
            }
        default:
            let dt = input.double(Self.durations)
            let repeats = 1 + input.index(input.bool() ? 60 : 4)
            for _ in 0..<repeats { step(dt: dt, path: input.byte() % 8 == 0 ? .scalar : .simd) }
        }
    }

    /// Resume with restart values, some the format cannot hold; the closure also tries to change
    /// the bank (refused) and reads it (allowed).
    func resume(_ mask: PauseMaskID) {
        let restart = input.byte() % 3
        let values = (value(), value())
        let attempt = input.byte()
        var inside: [SpringKernelError?] = []
        call("resume") { () throws(SpringKernelError) in
            try bank.resume(mask) { spring in
                _ = try? self.bank.value(of: spring)
                inside.append(self.mutationInsideCallback(attempt, spring: spring, mask: mask))
                switch restart {
                case 0: return nil
                case 1: return values
                default: return (value: values.0, velocity: Lanes.fuzzValue(0))
                }
            }
        }
        for error in inside where error != .reentrantMutation {
            violated("a change inside a restart closure gave \(String(describing: error)), not .reentrantMutation")
        }
    }

    /// One change attempted from inside a callback; returns its error (nil: it was allowed).
    func mutationInsideCallback(_ choice: UInt8, spring: SpringHandle, mask: PauseMaskID) -> SpringKernelError? {
        let zero = Lanes.fuzzValue(0)
        do {
            switch choice % 12 {
            case 0: try bank.step(dt: 1.0 / 60)
            case 1: try bank.retarget(spring, to: zero)
            case 2: try bank.addVelocity(zero, to: spring)
            case 3: try bank.setState(of: spring, value: zero, velocity: zero)
            case 4: try bank.remove(spring)
            case 5: _ = try bank.add(value: zero, target: zero, tolerance: Lanes.fuzzValue(1))
            case 6: try bank.pause(mask)
            case 7: try bank.removePauseMask(mask)
            case 8: try bank.clearSaturation(of: spring)
            case 9: try bank.setThreading(.fixed(2))
            case 10: try bank.setFrameClock(.fixed(frameDuration: 1.0 / 60))
            default: try bank.setTolerance(of: spring, to: Lanes.fuzzValue(1))
            }
        } catch {
            return error
        }
        return nil
    }

    /// Every read, on every spring: none may trap; restTime is never NaN or negative.
    func readEverything() {
        for spring in springs {
            let rest = try! bank.restTime(of: spring)
            guard !rest.isNaN, rest >= 0 else { violated("restTime(of:) is \(rest)") }
            _ = try! bank.predictRest(of: spring, dt: 1.0 / 60)
            _ = try! bank.wasSaturated(spring)
            _ = try! bank.pauseDepth(of: spring)
        }
        for mask in masks { _ = try! bank.springs(in: mask) }
        _ = bank.awakeCount
        checkStorageOrder()
    }

    /// A value's bits (both formats' values are 32 bits: a `Float`, a ``Q16``).
    func bits(_ value: Lanes.Value) -> UInt32 { withUnsafeBytes(of: value) { $0.load(as: UInt32.self) } }

    /// The layout taken by the last ``checkStorageOrder()``: stale by now if a spring moved since.
    var lastLayout: StorageLayout?

    /// Reads in storage order give the per-handle reads bit for bit, for every spring and the
    /// moving ones, and name every spring of the region once; a write through the last layout is
    /// refused with nothing changed if it is stale, and through a fresh one a NaN target refuses
    /// the whole write while the targets as they are change nothing. Consumes no input, so the
    /// corpus decodes as before.
    func checkStorageOrder() {
        for region in [StorageRegion.all, .moving] {
            let layout = bank.storageLayout(of: region)
            let zero = Lanes.fuzzValue(0)
            var handles = [SpringHandle](repeating: springs.first ?? SpringHandle(index: 0, generation: 0, bankTag: 0), count: layout.count)
            var values = [Lanes.Value](repeating: zero, count: layout.count), velocities = values, targets = values
            do {
                try handles.withUnsafeMutableBufferPointer { try bank.springs(in: layout, into: $0) }
                try values.withUnsafeMutableBufferPointer { try bank.values(in: layout, into: $0) }
                try velocities.withUnsafeMutableBufferPointer { try bank.velocities(in: layout, into: $0) }
                try targets.withUnsafeMutableBufferPointer { try bank.targets(in: layout, into: $0) }
            } catch {
                violated("a fresh layout of \(region) refused a read: \(error)")
            }
            let expected = region == .all ? springs : springs.filter { !(try! bank.isAtRest($0)) && !(try! bank.isPaused($0)) }
            guard Set(handles) == Set(expected), handles.count == expected.count else { violated("layout of \(region) names other springs") }
            for (i, spring) in handles.enumerated() {
                let value = try! bank.value(of: spring), velocity = try! bank.velocity(of: spring), target = try! bank.target(of: spring)
                guard bits(values[i]) == bits(value), bits(velocities[i]) == bits(velocity), bits(targets[i]) == bits(target)
                else { violated("\(spring) reads otherwise in storage order (\(region))") }
            }
            guard region == .all else { continue }
            if let stale = lastLayout, stale.version != layout.version {
                let written = [Lanes.Value](repeating: zero, count: stale.count)
                let refused = written.withUnsafeBufferPointer { written in
                    !call("retarget(in: stale layout)") { () throws(SpringKernelError) in try bank.retarget(in: stale, to: written) }
                }
                guard refused else { violated("a stale layout was accepted") }
            }
            if !targets.isEmpty, Lanes.self == Float32Lanes.self {
                var poisoned = targets
                poisoned[poisoned.count / 2] = Lanes.fuzzValue(.nan)
                let refused = poisoned.withUnsafeBufferPointer { poisoned in
                    !call("retarget(in: layout, NaN)") { () throws(SpringKernelError) in try bank.retarget(in: layout, to: poisoned) }
                }
                guard refused else { violated("a NaN target was accepted in storage order") }
            }
            let before = bank.stateHash()
            _ = targets.withUnsafeBufferPointer { targets in
                call("retarget(in: layout, unchanged)") { () throws(SpringKernelError) in try bank.retarget(in: layout, to: targets) }
            }
            guard bank.stateHash() == before, bank.layoutVersion == layout.version else { violated("unchanged targets changed the bank") }
            lastLayout = layout
        }
    }

    func step(dt: Double, path: StepPath) {
        let clock = bank.frameClock
        var pausedLanes: [SpringHandle: (UInt32, UInt32, UInt32)] = [:]
        var moving: Set<SpringHandle> = []
        for spring in springs {
            if try! bank.isPaused(spring) { pausedLanes[spring] = lanes(of: spring) }
            else if !(try! bank.isAtRest(spring)) { moving.insert(spring) }
        }
        let frame = bank.frame
        let before = bank.stateHash()
        if Self.tracing {
            trace("step(dt: \(dt), path: \(path)) at time \(bank.time), frame \(bank.frame)")
            for spring in moving {
                let record = bank.core.records[try! bank.core.recordIndex(spring)]
                trace("  \(spring): due \(record.due) rest \(record.dueIsRest) queued \(record.queuedDue) changed at \(record.changeTime) from \(record.changeDisplacement), \(record.changeVelocity); lanes \(lanes(of: spring))")
            }
        }
        do {
            try inEnvironment("step(dt: \(dt))") { () throws(SpringKernelError) in try bank.step(dt: dt, path: path) }
        } catch {
            guard bank.stateHash() == before, bank.frame == frame else { violated("a refused step(dt: \(dt)) changed the bank") }
            outcomes.append(false)
            return
        }
        outcomes.append(true)
        checkInvariants("step(dt: \(dt))")
        guard bank.frame == frame + 1 else { violated("step did not advance the frame") }
        for spring in springs {
            let now = lanes(of: spring)
            guard Lanes.double(ofLanePattern: now.0).isFinite, Lanes.double(ofLanePattern: now.1).isFinite else {
                violated("\(spring) has a non-finite lane after step(dt: \(dt))")
            }
            if let held = pausedLanes[spring], held != now { violated("paused \(spring) moved in step(dt: \(dt))") }
            if moving.contains(spring) {
                tracks[spring]!.elapsed += dt
                tracks[spring]!.frames += 1
            }
        }
        for spring in bank.restedInLastStep {
            guard moving.contains(spring) else { violated("\(spring) rested but was not moving") }
            let lanes = lanes(of: spring)
            guard Lanes.double(ofLanePattern: lanes.0) == 0, Lanes.double(ofLanePattern: lanes.1) == 0 else { violated("\(spring) rested off target") }
            // A spring clamped in this step is predicted again from its clamped lanes (documented),
            // which the snap overwrote: its rest is the clamped motion's, not checked here.
            if bank.saturatedInLastStep.contains(spring) { continue }
            checkNotEarly(spring, clock: clock)
        }
        // Rested, saturated (predicted again from the clamped lanes) or not: a new reference state
        // where the bank takes one.
        for spring in springs {
            let now = snapshot(of: spring)
            if bank.restedInLastStep.contains(spring) || bank.saturatedInLastStep.contains(spring) {
                tracks[spring] = Track(
                    displacement: exactState(of: spring, now.lanes).displacement, velocity: exactState(of: spring, now.lanes).velocity, snapshot: now)
            } else {
                tracks[spring]!.snapshot = now
            }
        }
    }

    /// The spring was snapped at rest now: its exact motion from where its trajectory last changed
    /// must stay within its band from now on (at frame ends, under a fixed clock).
    func checkNotEarly(_ spring: SpringHandle, clock: FrameClock) {
        let track = tracks[spring]!
        let configuration = try! bank.configuration(of: spring)
        let band = try! bank.tolerance(of: spring)
        let motion = ExactMotion(
            displacement: track.displacement, velocity: track.velocity,
            tension: configuration.tension, friction: configuration.friction, mass: configuration.mass)
        let found: Double?
        switch clock {
        case .variable:
            // The bank's clock and this elapsed time round differently: a few parts in 10¹² of it.
            found = motion.excursion(from: track.elapsed * (1 + 1e-12), band: band)
        case .fixed(let frameDuration):
            found = motion.excursion(from: Double(track.frames) * frameDuration, band: band, frameDuration: frameDuration)
        }
        if let found {
            violated("""
                \(spring) rested early (\(clock), frame \(bank.frame), bank time \(bank.time)): from d \(track.displacement), \
                v \(track.velocity), \(configuration), band \(band), its exact motion is outside the band at \(found) s \
                after the change; it rested \(track.elapsed) s (\(track.frames) frames) after it
                """)
        }
    }
}
