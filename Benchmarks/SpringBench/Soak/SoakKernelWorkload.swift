import Foundation
@_spi(KernelInternals) import SpringKernel

/// A named spring configuration of the soak.
struct SoakConfiguration: Hashable {
    var name: String
    var configuration: SpringConfiguration

    /// UI springs and extreme ones, damping ratio 0.02 to 20, all damped (an undamped spring's
    /// rounding errors never fade, so no drift bound holds for it: see ``SoakDriftBound``).
    static let all: [SoakConfiguration] = {
        let criticalFriction = 2 * 342.0.squareRoot()
        // Every one of these is a valid configuration, so `try!` cannot fail.
        return try! [
            SoakConfiguration(name: "default", configuration: .default),  // ζ 0.81
            SoakConfiguration(name: "snappy", configuration: SpringConfiguration(tension: 1323, friction: 91)),  // ζ 1.25
            SoakConfiguration(name: "gentle", configuration: SpringConfiguration(tension: 120, friction: 14, mass: 2)),  // ζ 0.45
            SoakConfiguration(name: "critical", configuration: SpringConfiguration(tension: 400, friction: 40)),  // ζ exactly 1
            SoakConfiguration(name: "heavy", configuration: SpringConfiguration(tension: 400, friction: 48, mass: 4)),  // ζ 0.6
            SoakConfiguration(name: "wobbly", configuration: SpringConfiguration(tension: 90_000, friction: 12)),  // ζ 0.02, 5 rad a frame
            SoakConfiguration(name: "stiff", configuration: SpringConfiguration(tension: 100_000, friction: 400)),  // ζ 0.63
            SoakConfiguration(name: "sluggish", configuration: SpringConfiguration(tension: 40_000, friction: 8_000)),  // ζ 20
            SoakConfiguration(name: "soft", configuration: SpringConfiguration(tension: 20, friction: 9)),  // ζ 1.006
            SoakConfiguration(
                name: "just-under", configuration: SpringConfiguration(tension: 342, friction: criticalFriction * (1 - 1e-6))),
            SoakConfiguration(
                name: "just-over", configuration: SpringConfiguration(tension: 342, friction: criticalFriction * (1 + 1e-6))),
        ]
    }()
}

/// What a ``SoakKernelWorkload`` tells its model about every call the bank accepted, with the
/// exact numbers the bank stored (the workload's values are rounded to the lane format first).
protocol SoakBankObserver: AnyObject {
    /// Whether the spring may be retargeted or pushed now (the model's error analysis allows one
    /// rounding of its state between two of its steps).
    func allowsChange(of spring: SpringHandle) -> Bool
    /// Whether the spring may change configuration now.
    func allowsReconfiguration(of spring: SpringHandle) -> Bool
    func added(_ spring: SpringHandle, value: Double, target: Double, velocity: Double, configuration: Int, tolerance: Double)
    func removed(_ spring: SpringHandle)
    func retargeted(_ spring: SpringHandle, to target: Double)
    func pushed(_ spring: SpringHandle, by velocity: Double)
    func stateSet(_ spring: SpringHandle, value: Double, velocity: Double)
    func reconfigured(_ spring: SpringHandle, to configuration: Int)
    func maskMade(_ mask: PauseMaskID, springs: [SpringHandle])
    func inserted(_ spring: SpringHandle, into mask: PauseMaskID)
    func removed(_ spring: SpringHandle, from mask: PauseMaskID)
    func maskRemoved(_ mask: PauseMaskID)
    func paused(_ mask: PauseMaskID)
    /// The springs the bank asked restart values for, in the order it asked, and the answers.
    func resumed(_ mask: PauseMaskID, restarts: [(spring: SpringHandle, state: (value: Double, velocity: Double)?)])
    /// A step of `dt`, and the springs the bank listed in `restedInLastStep`.
    func stepped(dt: Double, rested: [SpringHandle])
}

/// The kernel part of the soak: a bank driven frame after frame by a seeded random mix of every
/// call an engine makes, its spring count held near steady so memory use can be judged flat.
///
/// Each frame, before the step: retargets, impulses, states set, configuration changes, removals
/// and additions (the count swings ±20 % over ``period`` frames, so records are reused and
/// batches grow and shrink), and pause masks, one per imagined gesture source, made and removed,
/// overlapping, with springs inserted and taken out, paused and resumed (half the resumes with
/// restart values). The workload is generic over the lane format, so the same calls drive the
/// float32 bank and its model, and the fixed-point twins, which have no model.
final class SoakKernelWorkload<Lanes: SpringLaneArithmetic> {
    /// Calls made, by kind.
    struct Tally: Codable, Hashable {
        var adds = 0
        var removes = 0
        var retargets = 0
        var impulses = 0
        var statesSet = 0
        var reconfigurations = 0
        var masksMade = 0
        var masksRemoved = 0
        var maskInserts = 0
        var maskRemovals = 0
        var pauses = 0
        var resumes = 0
        /// Springs a resume restarted with new values.
        var restarts = 0
        /// Calls the bank refused (for the float32 bank, each is a failure: the workload only
        /// makes valid calls; the fixed-point twins may push a velocity past Q16.16's range).
        var refusals = 0
        var steps = 0
        /// Rest events (`restedInLastStep`).
        var restEvents = 0
        /// Springs in the bank, summed over frames.
        var springFrames = 0
        /// The fewest and most springs the bank held after a frame's calls.
        var fewestSprings = Int.max
        var mostSprings = 0
    }

    let bank: SpringBank<Lanes>
    let configurations: [SoakConfiguration]
    /// The spring count the workload swings around.
    let nominalSprings: Int
    /// Frames of one swing of the spring count.
    let period: Int
    let path: StepPath
    let observer: SoakBankObserver?
    private(set) var tally = Tally()
    /// The first refusal, described.
    private(set) var firstRefusal: String?

    private var random: SplitMix64
    /// Targets up to ±500,000 for 3 % of springs (float32 only: far beyond Q16.16's range).
    private let extremeTargets: Bool
    /// Live springs, and each one's position in `live` by record index (swap-remove in O(1)).
    private var live: [SpringHandle] = []
    private var livePosition: [Int32] = []
    private var masks: [(id: PauseMaskID, isPausing: Bool)] = []
    private let maskCount: Int
    private var restartScratch: [(spring: SpringHandle, state: (value: Double, velocity: Double)?)] = []
    private var frame = 0

    /// A bank of `springs` springs (made with room for a quarter of them, so it grows), and its masks.
    init(
        bank: SpringBank<Lanes>, springs: Int, period: Int, seed: UInt64, configurations: [SoakConfiguration] = SoakConfiguration.all,
        observer: SoakBankObserver?, extremeTargets: Bool, path: StepPath = .simd
    ) {
        self.bank = bank
        self.nominalSprings = springs
        self.period = max(2, period)
        self.configurations = configurations
        self.observer = observer
        self.extremeTargets = extremeTargets
        self.path = path
        random = SplitMix64(seed: seed)
        maskCount = max(4, springs / 400)
        live.reserveCapacity(springs * 2)
        for _ in 0..<springs { add() }
        for _ in 0..<maskCount { makeMask() }
    }

    /// One frame: the calls, then the step of `dt`.
    func advance(dt: Double) throws(SpringKernelError) {
        let n = Double(live.count)
        // Steer the count toward the swing, with churn on top.
        let goal = Double(nominalSprings) * (1 + 0.2 * sin(2 * Double.pi * Double(frame) / Double(period)))
        let churn = draws(n / 2000)
        let cap = max(1, nominalSprings / 50)
        for _ in 0..<(churn + min(cap, max(0, Int(goal - n)))) { add() }
        for _ in 0..<(churn + min(cap, max(0, Int(n - goal)))) { removeSpring() }
        for _ in 0..<draws(n / 300) { retarget() }
        for _ in 0..<draws(n / 600) { push() }
        for _ in 0..<draws(n / 1200) { setState() }
        for _ in 0..<draws(n / 2000) { reconfigure() }
        maskCalls()
        tally.fewestSprings = min(tally.fewestSprings, bank.count)
        tally.mostSprings = max(tally.mostSprings, bank.count)

        try step(dt: dt)
    }

    /// After the run: removes every mask (its springs move on from where they were held), then
    /// steps at 60 Hz, with no more calls, until no spring is awake or `limit` frames have passed.
    /// Returns the frames stepped.
    func drain(limit: Int) throws(SpringKernelError) -> Int {
        while !masks.isEmpty { removeMask(masks.count - 1) }
        var frames = 0
        while bank.awakeCount > 0 && frames < limit {
            try step(dt: 1.0 / 60)
            frames += 1
        }
        return frames
    }

    private func step(dt: Double) throws(SpringKernelError) {
        try bank.step(dt: dt, path: path)
        let rested = bank.restedInLastStep
        observer?.stepped(dt: dt, rested: rested)
        tally.steps += 1
        tally.restEvents += rested.count
        tally.springFrames += bank.count
        frame += 1
    }

    // MARK: Springs

    private func add() {
        let configuration = random.integer(in: 0...(configurations.count - 1))
        let isOpacity = random.unit() < 0.1
        let target = isOpacity ? number(random.unit()) : randomTarget()
        let distance = (random.unit() < 0.5 ? -1 : 1) * (isOpacity ? random.logUniform(0.004, 1) : random.logUniform(0.01, 3000))
        let value = number(target.exact + distance)
        let velocity = number(random.unit() < 0.5 ? 0 : randomVelocity())
        let tolerance = number(isOpacity ? 1.0 / 256 : [0.5, 0.01, 1, 0.1][random.integer(in: 0...3)])
        guard let band = try? Lanes.tolerance(tolerance.value) else { return }
        do {
            let spring = try bank.add(
                value: value.value, target: target.value, velocity: velocity.value,
                configuration: configurations[configuration].configuration, tolerance: tolerance.value)
            let index = Int(spring.index)
            if index >= livePosition.count { livePosition.append(contentsOf: repeatElement(-1, count: index + 1 - livePosition.count)) }
            livePosition[index] = Int32(live.count)
            live.append(spring)
            tally.adds += 1
            observer?.added(spring, value: value.exact, target: target.exact, velocity: velocity.exact, configuration: configuration, tolerance: band)
        } catch {
            refused("add", error)
        }
    }

    private func removeSpring() {
        guard let spring = anySpring() else { return }
        do {
            try bank.remove(spring)
            let position = Int(livePosition[Int(spring.index)])
            live[position] = live[live.count - 1]
            livePosition[Int(live[position].index)] = Int32(position)
            live.removeLast()
            livePosition[Int(spring.index)] = -1
            tally.removes += 1
            observer?.removed(spring)
        } catch {
            refused("remove", error)
        }
    }

    private func retarget() {
        guard let spring = anySpring(), observer?.allowsChange(of: spring) ?? true else { return }
        let target = random.unit() < 0.1 ? number(random.unit()) : randomTarget()
        do {
            try bank.retarget(spring, to: target.value)
            tally.retargets += 1
            observer?.retargeted(spring, to: target.exact)
        } catch {
            refused("retarget", error)
        }
    }

    private func push() {
        guard let spring = anySpring(), observer?.allowsChange(of: spring) ?? true else { return }
        let impulse = number((random.unit() < 0.5 ? -1 : 1) * random.logUniform(1, 4000))
        do {
            try bank.addVelocity(impulse.value, to: spring)
            tally.impulses += 1
            observer?.pushed(spring, by: impulse.exact)
        } catch {
            refused("addVelocity", error)
        }
    }

    private func setState() {
        guard let spring = anySpring() else { return }
        let (value, velocity) = randomState()
        do {
            try bank.setState(of: spring, value: value.value, velocity: velocity.value)
            tally.statesSet += 1
            observer?.stateSet(spring, value: value.exact, velocity: velocity.exact)
        } catch {
            refused("setState", error)
        }
    }

    private func reconfigure() {
        guard let spring = anySpring(), observer?.allowsReconfiguration(of: spring) ?? true else { return }
        let configuration = random.integer(in: 0...(configurations.count - 1))
        do {
            try bank.setConfiguration(of: spring, to: configurations[configuration].configuration)
            tally.reconfigurations += 1
            observer?.reconfigured(spring, to: configuration)
        } catch {
            refused("setConfiguration", error)
        }
    }

    // MARK: Pause masks

    /// Each mask is a gesture source: one pauses now and then and holds for about half a second;
    /// masks are replaced, and springs join and leave them.
    private func maskCalls() {
        for m in masks.indices {
            if masks[m].isPausing {
                if random.unit() < 1.0 / 30 { resume(m) }
            } else if random.unit() < 1.0 / 90 {
                pause(m)
            }
        }
        if random.unit() < 1.0 / 20, !masks.isEmpty {
            removeMask(random.integer(in: 0...(masks.count - 1)))
            makeMask()
        }
        for _ in 0..<draws(Double(masks.count) / 10) { insertIntoMask() }
        for _ in 0..<draws(Double(masks.count) / 10) { removeFromMask() }
    }

    private func makeMask() {
        let size = Int(random.logUniform(1, 257))
        var springs: [SpringHandle] = []
        for _ in 0..<size { if let spring = anySpring() { springs.append(spring) } }
        do {
            let mask = try bank.makePauseMask(springs)
            masks.append((mask, false))
            tally.masksMade += 1
            observer?.maskMade(mask, springs: springs)
        } catch {
            refused("makePauseMask", error)
        }
    }

    private func removeMask(_ m: Int) {
        let mask = masks[m].id
        do {
            try bank.removePauseMask(mask)
            masks.remove(at: m)
            tally.masksRemoved += 1
            observer?.maskRemoved(mask)
        } catch {
            refused("removePauseMask", error)
        }
    }

    private func pause(_ m: Int) {
        do {
            try bank.pause(masks[m].id)
            masks[m].isPausing = true
            tally.pauses += 1
            observer?.paused(masks[m].id)
        } catch {
            refused("pause", error)
        }
    }

    /// Resumes a mask; half the time each freed spring restarts from a new value and velocity
    /// (PausesSpring's hand-off from a gesture).
    private func resume(_ m: Int) {
        let withRestart = random.unit() < 0.5
        restartScratch.removeAll(keepingCapacity: true)
        do {
            try bank.resume(masks[m].id) { spring in
                guard withRestart else {
                    self.restartScratch.append((spring, nil))
                    return nil
                }
                let (value, velocity) = self.randomState()
                self.restartScratch.append((spring, (value.exact, velocity.exact)))
                return (value.value, velocity.value)
            }
            masks[m].isPausing = false
            tally.resumes += 1
            if withRestart { tally.restarts += restartScratch.count }
            observer?.resumed(masks[m].id, restarts: restartScratch)
        } catch {
            refused("resume", error)
        }
    }

    private func insertIntoMask() {
        guard !masks.isEmpty, let spring = anySpring() else { return }
        let mask = masks[random.integer(in: 0...(masks.count - 1))].id
        do {
            try bank.insert(spring, into: mask)
            tally.maskInserts += 1
            observer?.inserted(spring, into: mask)
        } catch {
            refused("insert", error)
        }
    }

    private func removeFromMask() {
        guard !masks.isEmpty else { return }
        let mask = masks[random.integer(in: 0...(masks.count - 1))].id
        guard let members = try? bank.springs(in: mask), !members.isEmpty else { return }
        let spring = members[random.integer(in: 0...(members.count - 1))]
        do {
            try bank.remove(spring, from: mask)
            tally.maskRemovals += 1
            observer?.removed(spring, from: mask)
        } catch {
            refused("remove(from:)", error)
        }
    }

    // MARK: Random choices

    private func anySpring() -> SpringHandle? {
        live.isEmpty ? nil : live[random.integer(in: 0...(live.count - 1))]
    }

    /// How many times to do something expected `mean` times a frame: its whole part, and one more
    /// with the probability of its fraction.
    private func draws(_ mean: Double) -> Int {
        let whole = mean.rounded(.down)
        return Int(whole) + (random.unit() < mean - whole ? 1 : 0)
    }

    /// A target on a 1/64 grid within ±2000, or (3 %, float32 only) a whole number up to ±500,000.
    private func randomTarget() -> (value: Lanes.Value, exact: Double) {
        let sign: Double = random.unit() < 0.5 ? -1 : 1
        if extremeTargets, random.unit() < 0.03 { return number(sign * random.logUniform(2000, 500_000).rounded()) }
        return number(sign * (random.unit() * 2000 * 64).rounded() / 64)
    }

    private func randomVelocity() -> Double {
        (random.unit() < 0.5 ? -1 : 1) * random.logUniform(1, 8000)
    }

    private func randomState() -> (value: (value: Lanes.Value, exact: Double), velocity: (value: Lanes.Value, exact: Double)) {
        (number((2 * random.unit() - 1) * 2000), number(random.unit() < 0.3 ? 0 : randomVelocity()))
    }

    /// The lane format's number nearest `x`, and the same number exactly as a Double.
    private func number(_ x: Double) -> (value: Lanes.Value, exact: Double) {
        let value = Lanes.nearestValue(to: x)
        let exact = (try? Lanes.lanePattern(of: value, as: .value)).map { Lanes.double(ofLanePattern: $0) } ?? x
        return (value, exact)
    }

    private func refused(_ call: String, _ error: SpringKernelError) {
        tally.refusals += 1
        if firstRefusal == nil { firstRefusal = "frame \(frame): \(call) refused: \(error)" }
    }
}
