import Foundation
@_spi(KernelInternals) @testable import SpringKernel

/// A difference between the kernel and the model: the test fails with it.
struct ModelMismatch: Error, CustomStringConvertible {
    let description: String
}

/// One randomized sequence of public operations, applied to a ``SpringBank`` and to a plain model
/// of what the bank must do, compared after every operation.
///
/// The model keeps, for every spring, its numbers (``ReferenceArithmetic``), configuration,
/// tolerance, whether it rests, the masks that list it and how many of them pause it, whether its
/// trajectory changed since the kernel last predicted it, and the frames on which it may come to
/// rest; and for every mask, its members and whether it pauses them. From that alone it knows the
/// outcome of each call (including the exact error of a refused one), the rest events of each
/// step, and which springs must not move.
///
/// Checked after every call: the bank's count, awake count and structural invariants
/// (`_checkInvariants()`), and each spring the call could have changed (after a step, every
/// spring): its lanes against the model (``ReferenceArithmetic/mismatch``), target,
/// configuration, tolerance, rest, pause depth and scheduled rest frame; paused springs bit for
/// bit; every mask's members; removed springs' handles stay stale. A refused call must throw the
/// model's error and leave ``SpringBank/stateHash()`` as it was.
final class KernelModelRun<Reference: ReferenceArithmetic> {
    typealias Value = Reference.Lanes.Value

    struct Spring {
        let handle: SpringHandle
        var state: Reference.State
        var configuration: SpringConfiguration
        var tolerance: Double
        var awake: Bool
        var masks: Set<PauseMaskID> = []
        var depth = 0
        /// The trajectory changed since the kernel last predicted it.
        var pending: Bool
        /// The trajectory the kernel predicts the spring's rest from, since it last changed.
        var change: RestTrack?
        /// The lanes (displacement, velocity, target bits) a paused spring must keep.
        var frozen: [UInt32]?
        var wasSaturated = false
    }

    /// A trajectory as the kernel scheduled it (at the first step after a change): the bank time
    /// and the model's state then. The kernel predicts the rest later, from its own lanes, which
    /// stay within `deviation` of the exact trajectory from this state; so its rest time lies
    /// between the oracle's rest times for the band widened and narrowed by `deviation`.
    struct RestTrack {
        var time: Double
        var displacement: Double
        var velocity: Double
        /// The exact motion from (displacement, velocity) now, advanced by the exact propagator.
        var exact: (d: Double, v: Double)
        /// The largest distance, in displacement, between the kernel's lanes and the exact
        /// trajectory seen since (the format's rounding).
        var deviation = 0.0
        /// The latest the rest may come, computed for a deviation up to `bound`.
        var latest: (bound: Double, time: Double)?
    }

    struct Mask {
        var members: Set<SpringHandle> = []
        var isPausing = false
    }

    /// What one run did, for the test's summary.
    struct Tally {
        var operations = 0
        var steps = 0
        var restEvents = 0
        var refusals = 0
        var saturations = 0

        mutating func add(_ other: Tally) {
            operations += other.operations
            steps += other.steps
            restEvents += other.restEvents
            refusals += other.refusals
            saturations += other.saturations
        }
    }

    let seed: UInt64
    let operationCount: Int
    var generator: SeededGenerator
    let reference = Reference()
    let bank: SpringBank<Reference.Lanes>
    /// Another bank, whose handle and mask this bank must refuse.
    let foreignBank: SpringBank<Reference.Lanes>
    let foreignSpring: SpringHandle
    let foreignMask: PauseMaskID

    var springs: [SpringHandle: Spring] = [:]
    var removed: [SpringHandle] = []
    var masks: [PauseMaskID: Mask] = [:]
    var removedMasks: [PauseMaskID] = []
    var frame = 0
    /// Seconds stepped, summed in the kernel's order.
    var time = 0.0
    var steadyDuration = 1.0 / 60
    var configurations: [SpringConfiguration]
    var log: [String] = []
    let keepsLog: Bool
    var tally = Tally()

    init(seed: UInt64, operations: Int, keepsLog: Bool = false) throws {
        self.seed = seed
        self.operationCount = operations
        self.keepsLog = keepsLog
        generator = SeededGenerator(seed: seed &* 0x9E37_79B9 &+ 17)
        let threading: StepThreading = Bool.random(using: &generator) ? .single : .fixed(2)
        bank = try SpringBank(threading: threading, capacity: Int.random(in: 0...4, using: &generator))
        foreignBank = SpringBank()
        foreignSpring = try foreignBank.add(value: reference.zero(), target: reference.zero(), tolerance: reference.tolerance(&generator, extreme: false))
        foreignMask = try foreignBank.makePauseMask([foreignSpring])
        // Damped springs that settle within seconds: under-, critically and over-damped.
        configurations = try [
            .default, SpringConfiguration(tension: 1323, friction: 91), SpringConfiguration(tension: 120, friction: 6, mass: 2),
            SpringConfiguration(tension: 400, friction: 40), SpringConfiguration(tension: 100, friction: 80),
            SpringConfiguration(tension: 700, friction: 12),
        ]
        for _ in 0..<3 {
            let zeta = generator.logUniform(0.15, 3), omega = generator.logUniform(8, 60), mass = generator.logUniform(0.5, 3)
            configurations.append(try SpringConfiguration(tension: omega * omega * mass, friction: 2 * zeta * omega * mass, mass: mass))
        }
        note("seed \(seed): \(Reference.formatName), threading \(threading), configurations \(configurations)")
    }

    // MARK: Running

    func run() throws {
        for _ in 0..<Int.random(in: 4...18, using: &generator) { try add() }
        try checkAll()
        for index in 0..<operationCount {
            tally.operations += 1
            try operation(index)
        }
        try settle()
    }

    func note(_ line: @autoclosure () -> String) {
        if keepsLog { log.append(line()) }
    }

    func fail(_ message: String) -> ModelMismatch {
        ModelMismatch(description: "\(message) [frame \(frame)]")
    }

    /// One random operation.
    func operation(_ index: Int) throws {
        let roll = Int.random(in: 0..<100, using: &generator)
        switch roll {
        case 0..<30:
            for _ in 0..<Int.random(in: 1...6, using: &generator) { try step() }
        case 30..<37:
            if Int.random(in: 0..<10, using: &generator) == 0 {
                // A burst of one configuration: its batch grows past its 16 lanes (the buffers
                // move), and the records table past its capacity.
                let configuration = configurations.randomElement(using: &generator)!
                for _ in 0..<17 { try add(configuration: configuration) }
            } else {
                try add()
            }
        case 37..<40: try remove()
        case 40..<49: try retarget()
        case 49..<54: try addVelocity()
        case 54..<59: try setState()
        case 59..<62: try makeMask()
        case 62..<67: try insertIntoMask()
        case 67..<71: try removeFromMask()
        case 71..<77: try pause()
        case 77..<84: try resume()
        case 84..<86: try removeMask()
        case 86..<90: try setConfiguration()
        case 90..<93: try setTolerance()
        case 93..<96: try invalidStep()
        case 96..<98: try staleAndForeign()
        case 98: try clearSaturation()
        default: try predictRest()
        }
    }

    /// Resumes and removes every mask, then steps at 60 Hz until every spring has rested on its
    /// frame: no spring is left moving, and none is lost.
    func settle() throws {
        for mask in masks.keys.sorted(by: { $0.index < $1.index }) { try removeMask(mask) }
        var frames = 0
        while springs.values.contains(where: \.awake) {
            // Rest events every frame; the full comparison every eighth (the lanes of a steady
            // decay change little between).
            try step(dt: 1.0 / 60, path: .simd, checkingAll: frames % 8 == 7)
            frames += 1
            guard frames < 20_000 else { throw fail("springs still awake after 20,000 frames of settling") }
        }
        guard bank.awakeCount == 0 else { throw fail("the model rests everything, the bank has \(bank.awakeCount) awake") }
        try checkAll()
    }

    // MARK: Picking

    var liveHandles: [SpringHandle] { springs.keys.sorted { $0.index < $1.index } }

    func anySpring() -> SpringHandle? { liveHandles.randomElement(using: &generator) }

    func anyMask() -> PauseMaskID? { masks.keys.sorted { $0.index < $1.index }.randomElement(using: &generator) }

    func extreme() -> Bool { Int.random(in: 0..<8, using: &generator) == 0 }

    // MARK: Calls

    /// Runs `call`, which the model expects to succeed with `expected` or to throw its error.
    /// A refused call must throw exactly that error and change nothing.
    func perform<T>(_ what: String, _ expected: Result<T, SpringKernelError>, _ call: () throws(SpringKernelError) -> Void) throws -> T? {
        note(what)
        let before = bank.stateHash()
        var thrown: SpringKernelError?
        do { try call() } catch { thrown = error }
        switch (expected, thrown) {
        case (.success(let value), nil):
            return value
        case (.success, let error?):
            throw fail("\(what) threw \(error); the model expected success")
        case (.failure(let error), nil):
            throw fail("\(what) succeeded; the model expected \(error)")
        case (.failure(let error), let actual?):
            guard Self.same(error, actual) else { throw fail("\(what) threw \(actual); the model expected \(error)") }
            guard bank.stateHash() == before else { throw fail("\(what) was refused but changed the bank") }
            try bank._checkInvariants()
            tally.refusals += 1
            return nil
        }
    }

    static func same(_ a: SpringKernelError, _ b: SpringKernelError) -> Bool {
        if case .invalidTimeStep(let x) = a, case .invalidTimeStep(let y) = b { return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN) }
        return a == b
    }

    func result<T>(_ body: () throws(SpringKernelError) -> T) -> Result<T, SpringKernelError> {
        do { return .success(try body()) } catch { return .failure(error) }
    }

    /// The error a call naming `handle` throws before looking at anything else, if any.
    func handleError(_ handle: SpringHandle) -> SpringKernelError? {
        if handle == foreignSpring { return .foreignHandle }
        return springs[handle] == nil ? .staleHandle(handle) : nil
    }

    func maskError(_ mask: PauseMaskID) -> SpringKernelError? {
        if mask == foreignMask { return .foreignHandle }
        return masks[mask] == nil ? .stalePauseMask(mask) : nil
    }

    /// A handle to call with: usually a live spring, sometimes a removed or foreign one.
    func target() -> SpringHandle? {
        switch Int.random(in: 0..<24, using: &generator) {
        case 0 where !removed.isEmpty: return removed.randomElement(using: &generator)
        case 1: return foreignSpring
        default: return anySpring()
        }
    }

    func add(configuration chosen: SpringConfiguration? = nil) throws {
        // A burst (a configuration given) adds only springs the format holds.
        func extreme() -> Bool { chosen == nil && self.extreme() }
        let value = reference.position(&generator, extreme: extreme())
        let target = Int.random(in: 0..<5, using: &generator) == 0 ? value : reference.position(&generator, extreme: extreme())
        let velocity: Value? = Bool.random(using: &generator) ? nil : reference.velocity(&generator, extreme: extreme())
        let tolerance = reference.tolerance(&generator, extreme: extreme())
        let configuration = chosen ?? configurations.randomElement(using: &generator)!
        let expected = result { () throws(SpringKernelError) -> (Reference.State, Double) in
            let started = try reference.start(value: value, target: target, velocity: velocity)
            let band = try reference.toleranceValue(tolerance)
            return (try reference.stored(started, configuration: configuration, tolerance: band), band)
        }
        var handle: SpringHandle?
        // Sometimes through the bulk form, as a list of one.
        let inBulk = Int.random(in: 0..<3, using: &generator) == 0
        guard let (state, band) = try perform("add(value: \(value), target: \(target), velocity: \(String(describing: velocity)), tolerance: \(tolerance), \(configuration), inBulk: \(inBulk))", expected, {
            () throws(SpringKernelError) in
            if inBulk {
                handle = try bank.add(
                    values: [value], targets: [target], velocities: velocity.map { [$0] }, configuration: configuration, tolerance: tolerance
                ).first
            } else {
                handle = try bank.add(value: value, target: target, velocity: velocity, configuration: configuration, tolerance: tolerance)
            }
        }) else { return }
        let spring = handle!
        if springs[spring] != nil { throw fail("add returned the live handle \(spring) again") }
        if removed.contains(spring) { throw fail("add returned the removed handle \(spring) again") }
        let atRest = reference.isRestState(state, configuration: configuration)!
        springs[spring] = Spring(
            handle: spring, state: atRest ? reference.atRest(state) : state, configuration: configuration, tolerance: band,
            awake: !atRest, pending: !atRest)
        note("  -> \(spring)")
        try check([spring])
    }

    func remove() throws {
        guard let spring = target() else { return }
        let inBulk = Int.random(in: 0..<3, using: &generator) == 0
        guard try perform("remove(\(spring), inBulk: \(inBulk))", result { () throws(SpringKernelError) -> Void in if let error = handleError(spring) { throw error } }, {
            () throws(SpringKernelError) in if inBulk { try bank.remove([spring]) } else { try bank.remove(spring) }
        }) != nil else { return }
        for mask in springs[spring]!.masks { masks[mask]!.members.remove(spring) }
        springs[spring] = nil
        removed.append(spring)
        try check([])
        guard !bank.contains(spring) else { throw fail("\(spring) is still in the bank after its removal") }
    }

    /// The model's side of any call that sets a spring's numbers: the kernel wakes a resting
    /// spring unless the new state is still a state of rest, and predicts a moving one again.
    func stateChanged(_ spring: SpringHandle, to state: Reference.State) {
        var model = springs[spring]!
        model.state = state
        if model.depth > 0 { model.frozen = nil }
        if model.awake {
            model.pending = true
            model.change = nil
        } else if reference.isRestState(state, configuration: model.configuration)! {
            model.state = reference.atRest(state)
        } else {
            model.awake = true
            model.pending = true
        }
        springs[spring] = model
    }

    func retarget() throws {
        guard let spring = target() else { return }
        let goal: Value
        switch Int.random(in: 0..<8, using: &generator) {
        case 0 where springs[spring] != nil: goal = reference.target(springs[spring]!.state)  // where it already heads
        case 1 where springs[spring] != nil: goal = reference.value(springs[spring]!.state)   // where it is
        default: goal = reference.position(&generator, extreme: extreme())
        }
        let expected = result { () throws(SpringKernelError) in
            if let error = handleError(spring) { throw error }
            let model = springs[spring]!
            return try reference.retargeted(model.state, to: goal, configuration: model.configuration)
        }
        guard let state = try perform("retarget(\(spring), to: \(goal))", expected, { () throws(SpringKernelError) in
            try bank.retarget(spring, to: goal)
        }) else { return }
        // A resting spring whose new target is within its tolerance of where it is stays at rest,
        // snapped onto it: its exact motion from there never leaves the band (the oracle's rest
        // time is 0). On the band's edge itself the kernel's exact search decides.
        let model = springs[spring]!
        if !model.awake, reference.isRestState(state, configuration: model.configuration) == false {
            let (d, v) = reference.doubleState(state)
            let rests = abs(abs(d) - model.tolerance) <= 1e-9 * model.tolerance
                ? try bank.isAtRest(spring)
                : ReferenceRest.restTime(displacement: d, velocity: v, tolerance: model.tolerance, configuration: model.configuration) <= 0
            if rests {
                springs[spring]!.state = reference.atRest(state)
                if model.depth > 0 { springs[spring]!.frozen = nil }
                try check([spring])
                return
            }
        }
        stateChanged(spring, to: state)
        try check([spring])
    }

    func addVelocity() throws {
        guard let spring = target() else { return }
        let impulse = Int.random(in: 0..<6, using: &generator) == 0 ? reference.zero() : reference.velocity(&generator, extreme: extreme())
        let expected = result { () throws(SpringKernelError) in
            if let error = handleError(spring) { throw error }
            let model = springs[spring]!
            return try reference.pushed(model.state, by: impulse, configuration: model.configuration)
        }
        guard let state = try perform("addVelocity(\(impulse), to: \(spring))", expected, { () throws(SpringKernelError) in
            try bank.addVelocity(impulse, to: spring)
        }) else { return }
        stateChanged(spring, to: state)
        try check([spring])
    }

    func setState() throws {
        guard let spring = target() else { return }
        let onTarget = Int.random(in: 0..<4, using: &generator) == 0 && springs[spring] != nil
        let value = onTarget ? reference.target(springs[spring]!.state) : reference.position(&generator, extreme: extreme())
        let velocity = onTarget ? reference.zero() : reference.velocity(&generator, extreme: extreme())
        let expected = result { () throws(SpringKernelError) in
            if let error = handleError(spring) { throw error }
            return try reference.teleported(springs[spring]!.state, value: value, velocity: velocity, configuration: springs[spring]!.configuration)
        }
        guard let state = try perform("setState(of: \(spring), value: \(value), velocity: \(velocity))", expected, {
            () throws(SpringKernelError) in try bank.setState(of: spring, value: value, velocity: velocity)
        }) else { return }
        stateChanged(spring, to: state)
        try check([spring])
    }

    func setConfiguration() throws {
        guard let spring = target() else { return }
        let configuration = configurations.randomElement(using: &generator)!
        let expected = result { () throws(SpringKernelError) -> Reference.State in
            if let error = handleError(spring) { throw error }
            let model = springs[spring]!
            return try reference.reconfigured(model.state, from: model.configuration, to: configuration, tolerance: model.tolerance)
        }
        let inBulk = Int.random(in: 0..<3, using: &generator) == 0
        guard let state = try perform("setConfiguration(of: \(spring), to: \(configuration), inBulk: \(inBulk))", expected, { () throws(SpringKernelError) in
            if inBulk { try bank.setConfiguration(of: [spring], to: configuration) } else { try bank.setConfiguration(of: spring, to: configuration) }
        }) else { return }
        var model = springs[spring]!
        guard model.configuration != configuration else { return try check([spring]) }
        model.state = state
        // A paused spring moved to another lane scale reads back at the new scale's rounding.
        model.frozen = nil
        model.configuration = configuration
        if model.awake {
            // A moving spring stays awake through a reconfiguration, even one set exactly onto its
            // target: it is predicted again and rests, with its rest event, at the next step.
            model.pending = model.awake
            model.change = nil
        }
        springs[spring] = model
        try check([spring])
    }

    func setTolerance() throws {
        guard let spring = target() else { return }
        let tolerance = reference.tolerance(&generator, extreme: extreme())
        let expected = result { () throws(SpringKernelError) -> (Double, Reference.State) in
            if let error = handleError(spring) { throw error }
            let band = try reference.toleranceValue(tolerance)
            let model = springs[spring]!
            return (band, try reference.reconfigured(model.state, from: model.configuration, to: model.configuration, tolerance: band))
        }
        guard let (band, state) = try perform("setTolerance(of: \(spring), to: \(tolerance))", expected, { () throws(SpringKernelError) in
            try bank.setTolerance(of: spring, to: tolerance)
        }) else { return }
        springs[spring]!.tolerance = band
        springs[spring]!.state = state
        springs[spring]!.frozen = nil
        if springs[spring]!.awake {
            springs[spring]!.pending = true
            springs[spring]!.change = nil
        }
        try check([spring])
    }

    // MARK: Masks

    func makeMask() throws {
        var members: [SpringHandle] = []
        for _ in 0..<Int.random(in: 0...8, using: &generator) { if let spring = target() { members.append(spring) } }
        let expected = result { () throws(SpringKernelError) -> Void in
            for spring in members { if let error = handleError(spring) { throw error } }
        }
        var id: PauseMaskID?
        guard try perform("makePauseMask(\(members))", expected, { () throws(SpringKernelError) in
            id = try bank.makePauseMask(members)
        }) != nil else { return }
        let mask = id!
        if masks[mask] != nil || removedMasks.contains(mask) { throw fail("makePauseMask returned \(mask) again") }
        masks[mask] = Mask(members: Set(members))
        for spring in members { springs[spring]!.masks.insert(mask) }
        note("  -> \(mask)")
        try check(members)
    }

    /// A mask to call with: usually a live one, sometimes a removed or foreign one.
    func maskTarget() -> PauseMaskID? {
        switch Int.random(in: 0..<20, using: &generator) {
        case 0 where !removedMasks.isEmpty: return removedMasks.randomElement(using: &generator)
        case 1: return foreignMask
        default: return anyMask()
        }
    }

    func hold(_ spring: SpringHandle) {
        springs[spring]!.depth += 1
        if springs[spring]!.depth == 1 {
            springs[spring]!.change = nil
            springs[spring]!.frozen = nil
        }
    }

    func release(_ spring: SpringHandle) {
        springs[spring]!.depth -= 1
        if springs[spring]!.depth == 0 {
            springs[spring]!.frozen = nil
            if springs[spring]!.awake { springs[spring]!.pending = true }
        }
    }

    func insertIntoMask() throws {
        guard let spring = target(), let mask = maskTarget() else { return }
        let expected = result { () throws(SpringKernelError) -> Void in
            if let error = handleError(spring) { throw error }
            if let error = maskError(mask) { throw error }
            if masks[mask]!.isPausing, !masks[mask]!.members.contains(spring), springs[spring]!.depth == SpringBank<Reference.Lanes>.maximumPauseDepth {
                throw .pauseDepthExceeded(spring)
            }
        }
        guard try perform("insert(\(spring), into: \(mask))", expected, { () throws(SpringKernelError) in
            try bank.insert(spring, into: mask)
        }) != nil else { return }
        if masks[mask]!.members.insert(spring).inserted {
            springs[spring]!.masks.insert(mask)
            if masks[mask]!.isPausing { hold(spring) }
        }
        try check([spring])
    }

    func removeFromMask() throws {
        guard let spring = target(), let mask = maskTarget() else { return }
        let expected = result { () throws(SpringKernelError) -> Void in
            if let error = handleError(spring) { throw error }
            if let error = maskError(mask) { throw error }
            if masks[mask]?.members.contains(spring) == false { throw .notInMask(spring, mask) }
        }
        guard try perform("remove(\(spring), from: \(mask))", expected, { () throws(SpringKernelError) in
            try bank.remove(spring, from: mask)
        }) != nil else { return }
        masks[mask]!.members.remove(spring)
        springs[spring]!.masks.remove(mask)
        if masks[mask]!.isPausing { release(spring) }
        try check([spring])
    }

    func pause() throws {
        guard let mask = maskTarget() else { return }
        let expected = result { () throws(SpringKernelError) -> Void in if let error = maskError(mask) { throw error } }
        guard try perform("pause(\(mask))", expected, { () throws(SpringKernelError) in try bank.pause(mask) }) != nil else { return }
        if !masks[mask]!.isPausing {
            masks[mask]!.isPausing = true
            for spring in masks[mask]!.members { hold(spring) }
        }
        try check(Array(masks[mask]!.members))
    }

    /// Resumes a mask with restart values for some of the springs it frees: sometimes one the
    /// format refuses (the whole call is refused), and sometimes the closure tries to change the
    /// bank (which the bank refuses with `.reentrantMutation`).
    func resume() throws {
        guard let mask = maskTarget() else { return }
        var restarts: [SpringHandle: (value: Value, velocity: Value)] = [:]
        var freed: [SpringHandle] = []
        if let model = masks[mask], model.isPausing {
            freed = model.members.filter { springs[$0]!.depth == 1 }.sorted { $0.index < $1.index }
            for spring in freed where Bool.random(using: &generator) {
                let state = springs[spring]!.state
                switch Int.random(in: 0..<6, using: &generator) {
                case 0: restarts[spring] = (reference.target(state), reference.zero())
                case 1: restarts[spring] = (reference.value(state), reference.zero())
                default: restarts[spring] = (reference.position(&generator, extreme: extreme()), reference.velocity(&generator, extreme: extreme()))
                }
            }
        }
        let meddles = Int.random(in: 0..<4, using: &generator) == 0
        // The model: every freed spring is asked, in handle order, until one's restart is refused.
        var expectedCalls: [SpringHandle] = []
        var newStates: [SpringHandle: Reference.State] = [:]
        let expected = result { () throws(SpringKernelError) -> Void in
            if let error = maskError(mask) { throw error }
            for spring in freed {
                expectedCalls.append(spring)
                if let restart = restarts[spring] {
                    newStates[spring] = try reference.teleported(
                        springs[spring]!.state, value: restart.value, velocity: restart.velocity, configuration: springs[spring]!.configuration)
                }
            }
        }
        var calls: [SpringHandle] = []
        var meddling: [String] = []
        let probe = anySpring()
        // Sometimes the restart states come in buffers instead (listed in handle order, so the
        // first refused state is the one the closure form would meet first).
        let inBulk = !meddles && Int.random(in: 0..<3, using: &generator) == 0
        let listed = restarts.keys.sorted { $0.index < $1.index }
        guard try perform("resume(\(mask), restarts: \(restarts), meddles: \(meddles), inBulk: \(inBulk))", expected, { () throws(SpringKernelError) in
            if inBulk {
                try bank.resume(mask, restarting: listed, values: listed.map { restarts[$0]!.value }, velocities: listed.map { restarts[$0]!.velocity })
                calls = expectedCalls
                return
            }
            try bank.resume(mask) { spring in
                calls.append(spring)
                if meddles { meddling += self.meddle(probe) }
                return restarts[spring]
            }
        }) != nil else {
            guard inBulk || calls == expectedCalls else { throw fail("a refused resume asked \(calls), expected \(expectedCalls)") }
            return
        }
        guard calls == expectedCalls else { throw fail("resume asked for restart values of \(calls), expected \(expectedCalls) (handle order)") }
        guard meddling.isEmpty else { throw fail("inside a resume's restart: \(meddling.joined(separator: "; "))") }
        if masks[mask]!.isPausing {
            masks[mask]!.isPausing = false
            for spring in masks[mask]!.members { release(spring) }
            for spring in freed { if let state = newStates[spring] { stateChanged(spring, to: state) } }
        }
        try check(Array(masks[mask]!.members))
    }

    /// Tries to change the bank from inside one of its callbacks; returns what was not refused.
    func meddle(_ spring: SpringHandle?) -> [String] {
        var failures: [String] = []
        func expectRefused(_ what: String, _ body: () throws(SpringKernelError) -> Void) {
            do {
                try body()
                failures.append("\(what) was allowed")
            } catch {
                if error != .reentrantMutation { failures.append("\(what) threw \(error), not reentrantMutation") }
            }
        }
        expectRefused("step") { () throws(SpringKernelError) in try bank.step(dt: 1.0 / 60) }
        expectRefused("add") { () throws(SpringKernelError) in _ = try bank.add(value: reference.zero(), target: reference.zero(), tolerance: reference.tolerance(&generator, extreme: false)) }
        expectRefused("makePauseMask") { () throws(SpringKernelError) in _ = try bank.makePauseMask() }
        if let spring {
            expectRefused("remove") { () throws(SpringKernelError) in try bank.remove(spring) }
            expectRefused("retarget") { () throws(SpringKernelError) in try bank.retarget(spring, to: reference.zero()) }
            expectRefused("setTolerance") { () throws(SpringKernelError) in try bank.setTolerance(of: spring, to: reference.tolerance(&generator, extreme: false)) }
            // Reading is allowed.
            if (try? bank.value(of: spring)) == nil { failures.append("reading a value was refused") }
        }
        return failures
    }

    func removeMask() throws {
        guard let mask = maskTarget() else { return }
        try removeMask(mask)
    }

    func removeMask(_ mask: PauseMaskID) throws {
        let expected = result { () throws(SpringKernelError) -> Void in if let error = maskError(mask) { throw error } }
        guard try perform("removePauseMask(\(mask))", expected, { () throws(SpringKernelError) in
            try bank.removePauseMask(mask)
        }) != nil else { return }
        let model = masks[mask]!
        for spring in model.members {
            if model.isPausing { release(spring) }
            springs[spring]!.masks.remove(mask)
        }
        masks[mask] = nil
        removedMasks.append(mask)
        try check(Array(model.members))
        guard (try? bank.isPausing(mask)) == nil else { throw fail("\(mask) still answers after its removal") }
    }

    // MARK: Steps

    /// A frame duration: usually the steady one; sometimes a new steady rate, a one-off hitch of
    /// seconds, or a sliver.
    let steadyRates: [Double] = [1.0 / 60, 1.0 / 120, 1.0 / 30, 1.0 / 144, 1.0 / 240, 1.0 / 90]
    let hitches: [Double] = [2.0, 5.0, 0.25]

    func frameDuration() -> Double {
        switch Int.random(in: 0..<120, using: &generator) {
        case 0: steadyDuration = steadyRates.randomElement(using: &generator)!
        case 1: return hitches.randomElement(using: &generator)!
        case 2: return Double.random(in: 1e-3...0.1, using: &generator)
        case 3 where !Reference.tinyFrameDurations.isEmpty: return Reference.tinyFrameDurations.randomElement(using: &generator)!
        default: break
        }
        return steadyDuration
    }

    func step() throws {
        try step(dt: frameDuration(), path: Int.random(in: 0..<5, using: &generator) == 0 ? .scalar : .simd)
    }

    func step(dt: Double, path: StepPath, checkingAll: Bool = true) throws {
        note("step(dt: \(dt), path: \(path))")
        // The kernel schedules every spring that changed, from its state now.
        for (handle, model) in springs where model.pending {
            var model = model
            if model.awake, model.depth == 0 {
                let (d, v) = reference.doubleState(model.state)
                model.change = RestTrack(time: time, displacement: d, velocity: v, exact: (d, v))
            }
            model.pending = false
            springs[handle] = model
        }
        do {
            try bank.step(dt: dt, path: path)
        } catch {
            throw fail("step(dt: \(dt)) threw \(error)")
        }
        let checksBound = Q16Lanes.checksBound(frame: frame)
        frame += 1
        time += dt
        tally.steps += 1
        guard bank.frame == frame else { throw fail("bank.frame \(bank.frame), model \(frame)") }
        guard bank.time == time else { throw fail("bank.time \(bank.time), model \(time)") }

        // Advance the model.
        var anySaturated = false
        for (handle, model) in springs where model.awake && model.depth == 0 {
            let next = reference.stepped(model.state, configuration: model.configuration, dt: dt, checksBound: checksBound)
            springs[handle]!.state = next.state
            anySaturated = anySaturated || next.saturated
            if var change = model.change {
                let exact = SpringMotion(model.configuration).propagator(over: dt).apply(displacement: change.exact.d, velocity: change.exact.v)
                change.exact = (exact.displacement, exact.velocity)
                change.deviation = max(change.deviation, reference.deviation(next.state, configuration: model.configuration, exact: change.exact))
                springs[handle]!.change = change
            }
        }
        // Saturation: when a lane saturated, the kernel marks the moving springs left at the bounds.
        let saturated = anySaturated
            ? Set(springs.values.filter { $0.awake && $0.depth == 0 && reference.isAtBounds($0.state) }.map(\.handle)) : []
        guard Set(bank.saturatedInLastStep) == saturated, bank.saturatedInLastStep.count == saturated.count else {
            throw fail("saturated \(bank.saturatedInLastStep), model \(saturated.sorted { $0.index < $1.index })")
        }
        for spring in saturated {
            springs[spring]!.wasSaturated = true
            // The clamp left the exact motion: the kernel predicts the spring again.
            springs[spring]!.pending = true
        }
        tally.saturations += saturated.count

        // Rest events: never before the exact motion (of the band widened by the lanes' deviation)
        // has left the band for the last time, and never after it has (of the narrowed band): the
        // oracle is ReferenceRest.restTime, which shares nothing with the kernel's predictor.
        let rested = bank.restedInLastStep
        guard Set(rested).count == rested.count else { throw fail("a rest event is listed twice: \(rested)") }
        guard zip(rested, rested.dropFirst()).allSatisfy({ $0.index < $1.index }) else { throw fail("rest events out of handle order: \(rested)") }
        let slack = 1e-9 * max(1, time)
        for spring in rested {
            guard let model = springs[spring] else { throw fail("rest event for \(spring), which the model does not hold") }
            guard model.awake, model.depth == 0, let change = model.change else {
                throw fail("rest event for \(spring), which is \(model.awake ? "" : "not ")awake, held \(model.depth) times, tracked \(model.change != nil)")
            }
            let earliest = change.time + ReferenceRest.restTime(
                displacement: change.displacement, velocity: change.velocity, tolerance: model.tolerance + change.deviation,
                configuration: model.configuration)
            guard time >= earliest - slack else {
                throw fail("\(spring) rested at \(time) s; its exact motion leaves the band until \(earliest) s (from d \(change.displacement), v \(change.velocity) at \(change.time) s, deviation \(change.deviation))")
            }
            springs[spring]!.awake = false
            springs[spring]!.change = nil
            springs[spring]!.state = reference.atRest(model.state)
        }
        tally.restEvents += rested.count
        for (handle, model) in springs where model.awake && model.depth == 0 {
            guard var change = model.change else { continue }
            if change.latest == nil || change.deviation > change.latest!.bound {
                let bound = 2 * change.deviation + 1e-12 * model.tolerance
                let narrowed = model.tolerance - bound
                let latest = narrowed > 0
                    ? change.time + ReferenceRest.restTime(
                        displacement: change.displacement, velocity: change.velocity, tolerance: narrowed,
                        configuration: model.configuration)
                    : .infinity
                change.latest = (bound, latest)
                springs[handle]!.change = change
            }
            if time > change.latest!.time + slack {
                throw fail("\(handle) did not rest by \(change.latest!.time) s (now \(time) s; from d \(change.displacement), v \(change.velocity) at \(change.time) s; \(model.state))")
            }
        }
        if checkingAll { try checkAll() }
    }

    /// A step the bank must refuse, changing nothing: not the frame, not the lanes, and not the
    /// last step's events (`+0` right after a change is where a stale plan once ran unchecked).
    func invalidStep() throws {
        let durations: [Double] = [0, -0.0, -1.0 / 60, -1e-300, .nan, -.nan, .infinity, -.infinity, -2.0, .signalingNaN]
        let dt = durations.randomElement(using: &generator)!
        let rested = bank.restedInLastStep, saturated = bank.saturatedInLastStep
        _ = try perform("step(dt: \(dt))", Result<Void, SpringKernelError>.failure(.invalidTimeStep(dt)), { () throws(SpringKernelError) in
            try bank.step(dt: dt)
        })
        guard bank.frame == frame else { throw fail("a refused step moved the frame to \(bank.frame)") }
        guard bank.restedInLastStep == rested, bank.saturatedInLastStep == saturated else {
            throw fail("a refused step changed the last step's events")
        }
    }

    /// Calls that name removed or foreign springs and masks, and reads of them.
    func staleAndForeign() throws {
        for spring in removed.suffix(3) + [foreignSpring] {
            let error = handleError(spring)!
            for (what, call) in [
                ("value(of:)", { () throws(SpringKernelError) in _ = try self.bank.value(of: spring) }),
                ("isAtRest", { () throws(SpringKernelError) in _ = try self.bank.isAtRest(spring) }),
                ("restTime", { () throws(SpringKernelError) in _ = try self.bank.restTime(of: spring) }),
                ("pauseDepth", { () throws(SpringKernelError) in _ = try self.bank.pauseDepth(of: spring) }),
                ("setConfiguration", { () throws(SpringKernelError) in try self.bank.setConfiguration(of: spring, to: .default) }),
            ] as [(String, () throws(SpringKernelError) -> Void)] {
                _ = try perform("\(what) \(spring)", Result<Void, SpringKernelError>.failure(error), call)
            }
            guard !bank.contains(spring) else { throw fail("contains(\(spring)) is true") }
        }
        for mask in removedMasks.suffix(2) + [foreignMask] {
            let error = maskError(mask)!
            _ = try perform("springs(in: \(mask))", Result<Void, SpringKernelError>.failure(error), { () throws(SpringKernelError) in
                _ = try bank.springs(in: mask)
            })
            _ = try perform("pause(\(mask))", Result<Void, SpringKernelError>.failure(error), { () throws(SpringKernelError) in try bank.pause(mask) })
        }
    }

    func clearSaturation() throws {
        guard let spring = target() else { return }
        let expected = result { () throws(SpringKernelError) -> Void in if let error = handleError(spring) { throw error } }
        guard try perform("clearSaturation(of: \(spring))", expected, { () throws(SpringKernelError) in
            try bank.clearSaturation(of: spring)
        }) != nil else { return }
        springs[spring]!.wasSaturated = false
        try check([spring])
    }

    func predictRest() throws {
        guard let spring = anySpring() else { return }
        let dt = Int.random(in: 0..<6, using: &generator) == 0 ? -1.0 : steadyDuration
        let expected = result { () throws(SpringKernelError) -> Int in
            guard dt > 0 else { throw .invalidTimeStep(dt) }
            return 0
        }
        var prediction: RestPrediction?
        guard try perform("predictRest(of: \(spring), dt: \(dt))", expected, { () throws(SpringKernelError) in
            prediction = try bank.predictRest(of: spring, dt: dt)
        }) != nil else { return }
        let model = springs[spring]!
        let frames = reference.restFrames(model.state, configuration: model.configuration, tolerance: model.tolerance, dt: dt)
        guard let prediction, prediction.frames >= frames.first, prediction.frames <= frames.last ?? .max else {
            throw fail("predictRest(of: \(spring)) is \(String(describing: prediction)); the model allows \(frames.first)...\(String(describing: frames.last))")
        }
        // The rest time in seconds, against the oracle for the band widened and narrowed by the
        // lanes' deviation from the model.
        let restTime = try bank.restTime(of: spring)
        guard model.awake else {
            guard restTime == 0 else { throw fail("restTime(of: \(spring)) is \(restTime) at rest") }
            return
        }
        let (d, v) = reference.doubleState(model.state)
        let deviation = reference.deviation(model.state, configuration: model.configuration, exact: (d, v))
        let earliest = ReferenceRest.restTime(
            displacement: d, velocity: v, tolerance: model.tolerance + deviation, configuration: model.configuration)
        let narrowed = model.tolerance - 2 * deviation - 1e-12 * model.tolerance
        let latest = narrowed > 0
            ? ReferenceRest.restTime(displacement: d, velocity: v, tolerance: narrowed, configuration: model.configuration) : .infinity
        guard restTime >= earliest - 1e-9, restTime <= latest + 1e-9 else {
            throw fail("restTime(of: \(spring)) is \(restTime); the model allows \(earliest)...\(latest)")
        }
    }

    // MARK: Checks

    func double(_ value: Value) -> Double { Reference.Lanes.double(ofLanePattern: reference.bits(value)) }

    func isZero(_ value: Value) -> Bool { double(value) == 0 }

    func checkAll() throws { try check(liveHandles, everything: true) }

    /// Checks the bank's totals and invariants, the given springs and every mask.
    func check(_ touched: [SpringHandle], everything: Bool = false) throws {
        do { try bank._checkInvariants() } catch { throw fail("invariant broken: \(error)") }
        guard bank.count == springs.count else { throw fail("bank.count \(bank.count), model \(springs.count)") }
        let awake = springs.values.filter(\.awake).count
        guard bank.awakeCount == awake else { throw fail("bank.awakeCount \(bank.awakeCount), model \(awake)") }
        for spring in Set(touched) where springs[spring] != nil { try check(spring) }
        for (id, mask) in masks {
            guard try bank.isPausing(id) == mask.isPausing else { throw fail("\(id) pausing: model \(mask.isPausing)") }
            let members = try bank.springs(in: id)
            guard members == mask.members.sorted(by: { $0.index < $1.index }) else { throw fail("\(id) lists \(members), model \(mask.members)") }
        }
        if everything, let stale = removed.last {
            do {
                _ = try bank.value(of: stale)
                throw fail("the removed \(stale) still reads")
            } catch let error as SpringKernelError {
                guard error == .staleHandle(stale) else { throw fail("the removed \(stale) reads as \(error)") }
            }
        }
    }

    func check(_ spring: SpringHandle) throws {
        let model = springs[spring]!
        guard bank.contains(spring) else { throw fail("\(spring) is lost") }
        if let difference = try reference.mismatch(model.state, configuration: model.configuration, bank: bank, spring: spring) {
            throw fail("\(spring): \(difference)")
        }
        guard try bank.configuration(of: spring) == model.configuration else { throw fail("\(spring) configuration") }
        guard try bank.tolerance(of: spring) == model.tolerance else { throw fail("\(spring) tolerance \(try bank.tolerance(of: spring)), model \(model.tolerance)") }
        guard try bank.isAtRest(spring) == !model.awake else { throw fail("\(spring) isAtRest \(try bank.isAtRest(spring)), model \(!model.awake)") }
        guard try bank.pauseDepth(of: spring) == model.depth, try bank.isPaused(spring) == (model.depth > 0) else {
            throw fail("\(spring) pause depth \(try bank.pauseDepth(of: spring)), model \(model.depth)")
        }
        guard try bank.wasSaturated(spring) == model.wasSaturated else { throw fail("\(spring) wasSaturated") }
        if !model.awake {
            let lanes = [try bank.displacement(of: spring), try bank.velocity(of: spring)].map(reference.bits)
            let value = try bank.value(of: spring), target = reference.target(model.state)
            guard lanes == [0, 0], double(value) == double(target) else {
                throw fail("\(spring) rests but its lanes are \(lanes), its value \(value), its target \(target)")
            }
        }
        if model.depth > 0 {
            let lanes = [try bank.displacement(of: spring), try bank.velocity(of: spring), try bank.target(of: spring)].map(reference.bits)
            if let frozen = model.frozen {
                guard lanes == frozen else { throw fail("paused \(spring) moved: lanes \(lanes), paused at \(frozen)") }
            } else {
                springs[spring]!.frozen = lanes
            }
        }
    }
}
