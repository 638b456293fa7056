@_spi(KernelInternals) import SpringKernel
import _SpringOracles

/// A plain Float64 model of every spring of the soak's float32 bank, told of every call the bank
/// accepted (``SoakBankObserver``) and compared with the bank's lanes.
///
/// Each spring is its target, its displacement d and velocity v in Double, stepped by the exact
/// closed form (`ExactSpring`, from the oracle module, which shares no code with the kernel, so an
/// error in the kernel's coefficients shows as drift) whenever it is awake and no mask holds it;
/// paused springs stay frozen, a resume's restart values replace value and velocity, and a spring the bank lists
/// in `restedInLastStep` must be within its tolerance of its target (plus the drift bound) and is
/// snapped onto it, as the bank does. The model also keeps which masks list each spring and how
/// many pause it, and checks what the bank reports about both.
///
/// ``compare()`` reads every live spring back from the bank: lost handles, NaN or infinite
/// numbers, disagreements about target, configuration, rest and pause depth, and the drift of
/// (d, v) against ``SoakDriftBound``.
final class SoakSpringModel: SoakBankObserver {
    /// What the checks found: every count of a problem must end at 0 to pass.
    struct Findings {
        /// Full comparisons of every live spring.
        var comparisons = 0
        /// Spring reads compared (one per spring per comparison).
        var springChecks = 0
        /// Rest events checked against the model.
        var restChecks = 0
        /// The largest drift relative to the spring's motion scale, and in value units.
        var maxDrift = 0.0
        var maxDriftAbsolute = 0.0
        /// The configuration of the spring with the largest relative drift.
        var maxDriftConfiguration = ""
        /// Spring reads whose drift exceeded the bound.
        var driftViolations = 0
        /// NaN or infinite numbers read from the bank.
        var nonFiniteValues = 0
        /// Live handles the bank no longer knew (or could not read), and a count that disagreed.
        var lostHandles = 0
        /// Removed handles the bank still accepted.
        var staleHandlesAccepted = 0
        /// Disagreements about target, configuration, rest, pause depth or awake count.
        var stateMismatches = 0
        /// Rest events for a spring that was not moving, or outside its band, or not snapped.
        var restViolations = 0
        /// The farthest outside its tolerance band the model was at a rest event, in value units
        /// (0 when always inside); the band allows the drift bound on top.
        var maxRestExcess = 0.0
        /// Resumes that restarted other springs than the ones the model had freed.
        var pauseMismatches = 0
        /// The first few problems, described, for the report.
        var examples: [String] = []
    }

    /// One spring's bookkeeping, apart from the hot numbers the step reads.
    private struct Record {
        var handle: SpringHandle
        var target = 0.0
        var configuration = 0
        var tolerance = 0.0
        var awake = false
        var pauseDepth = 0
        /// S: |target| + ‖(d, v)‖, the largest this episode (see ``SoakDriftBound``).
        var scale = 0.0
        /// A moving spring changed configuration this episode (allowed once).
        var reconfiguredInEpisode = false
        /// The masks listing the spring, by mask index.
        var masks: [Int32] = []
    }

    /// One pause mask: its members by record index, and whether it pauses them.
    private struct Mask {
        var id: PauseMaskID
        var members: Set<Int32> = []
        var isPausing = false
    }

    let bank: SpringBank<Float32Lanes>
    let configurations: [SoakConfiguration]
    let bound: SoakDriftBound
    private(set) var findings = Findings()
    /// Springs the model steps per frame (awake, not paused), summed over frames.
    private(set) var movingSpringFrames = 0

    // By record index. `d`, `v`, `stepConfiguration` and `changedSinceStep` are what the step
    // reads, kept apart from the records so the loop streams through plain numbers.
    private var records: [Record?] = []
    private var d: [Double] = []
    private var v: [Double] = []
    /// The configuration a spring steps with, or −1 when it does not move (gone, resting, paused).
    private var stepConfiguration: [Int32] = []
    /// A retarget, impulse or state set since the spring's last step (one rounding of the state is
    /// allowed between two steps; setting a state is allowed anyway, as it replaces the old error).
    private var changedSinceStep: [Bool] = []
    private var masks: [Mask?] = []
    private var liveCount = 0
    private var awakeCount = 0
    /// Handles removed lately: the bank must refuse every one.
    private var removedHandles: [SpringHandle] = []
    private var removedCursor = 0
    private let naturalFrequency: [Double]
    private var coefficients: [ExactPropagator] = []
    private var coefficientDuration = -1.0

    init(bank: SpringBank<Float32Lanes>, configurations: [SoakConfiguration], bound: SoakDriftBound) {
        self.bank = bank
        self.configurations = configurations
        self.bound = bound
        naturalFrequency = configurations.map(\.configuration.naturalFrequency)
    }

    // MARK: Rules the workload follows

    func allowsChange(of spring: SpringHandle) -> Bool {
        !changedSinceStep[Int(spring.index)]
    }

    func allowsReconfiguration(of spring: SpringHandle) -> Bool {
        guard let record = records[Int(spring.index)] else { return false }
        return !(record.awake && record.reconfiguredInEpisode)
    }

    // MARK: Springs

    func added(_ spring: SpringHandle, value: Double, target: Double, velocity: Double, configuration: Int, tolerance: Double) {
        let i = Int(spring.index)
        if i >= records.count {
            let grown = max(i + 1, records.count * 2)
            records.append(contentsOf: repeatElement(nil, count: grown - records.count))
            d.append(contentsOf: repeatElement(0, count: grown - d.count))
            v.append(contentsOf: repeatElement(0, count: grown - v.count))
            stepConfiguration.append(contentsOf: repeatElement(-1, count: grown - stepConfiguration.count))
            changedSinceStep.append(contentsOf: repeatElement(false, count: grown - changedSinceStep.count))
        }
        if records[i] != nil { note("record \(i) reused while the model holds it") }
        records[i] = Record(handle: spring, target: target, configuration: configuration, tolerance: tolerance)
        liveCount += 1
        d[i] = value - target
        v[i] = velocity
        // Setting d rounds once: that is this step's change (see ``SoakDriftBound``).
        changedSinceStep[i] = true
        // The bank stores a state of rest (exactly on target, no velocity) as resting.
        setAwake(i, d[i] != 0 || v[i] != 0)
        startEpisode(i)
    }

    func removed(_ spring: SpringHandle) {
        let i = Int(spring.index)
        guard let record = records[i] else { return }
        for mask in record.masks { masks[Int(mask)]?.members.remove(Int32(i)) }
        setAwake(i, false)
        records[i] = nil
        stepConfiguration[i] = -1
        liveCount -= 1
        if removedHandles.count < 1024 {
            removedHandles.append(spring)
        } else {
            removedHandles[removedCursor] = spring
            removedCursor = (removedCursor + 1) % removedHandles.count
        }
    }

    func retargeted(_ spring: SpringHandle, to target: Double) {
        let i = Int(spring.index)
        guard let record = records[i] else { return }
        d[i] = record.target + d[i] - target
        records[i]!.target = target
        changedSinceStep[i] = true
        // A resting spring whose new target is within its tolerance of where it is stays at
        // rest, snapped onto it: still, its exact motion never leaves the band. On the band's edge
        // (within the lanes' rounding of it) the kernel's answer is taken.
        if !record.awake, v[i] == 0, d[i] != 0 {
            let edge = 1e-6 * (abs(record.target) + abs(target) + record.tolerance)
            let rests = abs(abs(d[i]) - record.tolerance) <= edge
                ? ((try? bank.isAtRest(spring)) ?? false) : abs(d[i]) <= record.tolerance
            if rests {
                d[i] = 0
                growScale(i)
                return
            }
        }
        if d[i] != 0 || v[i] != 0 || record.awake { setAwake(i, true) }
        growScale(i)
    }

    func pushed(_ spring: SpringHandle, by velocity: Double) {
        let i = Int(spring.index)
        guard let record = records[i] else { return }
        v[i] += velocity
        changedSinceStep[i] = true
        if d[i] != 0 || v[i] != 0 || record.awake { setAwake(i, true) }
        growScale(i)
    }

    func stateSet(_ spring: SpringHandle, value: Double, velocity: Double) {
        let i = Int(spring.index)
        guard let record = records[i] else { return }
        setState(i, value: value, velocity: velocity, wasAwake: record.awake)
    }

    func reconfigured(_ spring: SpringHandle, to configuration: Int) {
        let i = Int(spring.index)
        guard let record = records[i], record.configuration != configuration else { return }
        // The energy norm changes with ω₀: error and motion grow in it by at most ω₀ / ω₀'.
        let ratio = max(1, naturalFrequency[record.configuration] / naturalFrequency[configuration])
        records[i]!.configuration = configuration
        records[i]!.scale *= ratio
        if record.awake { records[i]!.reconfiguredInEpisode = true }
        refreshStepConfiguration(i)
        growScale(i)
    }

    // MARK: Masks

    func maskMade(_ mask: PauseMaskID, springs: [SpringHandle]) {
        let m = Int(mask.index)
        if m >= masks.count { masks.append(contentsOf: repeatElement(nil, count: m + 1 - masks.count)) }
        if masks[m] != nil { note("mask index \(m) reused while the model holds it") }
        masks[m] = Mask(id: mask)
        for spring in springs { inserted(spring, into: mask) }
    }

    func inserted(_ spring: SpringHandle, into mask: PauseMaskID) {
        let i = Int(spring.index), m = Int(mask.index)
        guard records[i] != nil, let isPausing = masks[m]?.isPausing,
            masks[m]!.members.insert(Int32(i)).inserted
        else { return }
        records[i]!.masks.append(Int32(m))
        if isPausing { changeDepth(i, by: 1) }
    }

    func removed(_ spring: SpringHandle, from mask: PauseMaskID) {
        let i = Int(spring.index), m = Int(mask.index)
        guard records[i] != nil, let isPausing = masks[m]?.isPausing, masks[m]!.members.remove(Int32(i)) != nil else { return }
        records[i]!.masks.removeAll { $0 == Int32(m) }
        if isPausing { changeDepth(i, by: -1) }
    }

    func maskRemoved(_ mask: PauseMaskID) {
        let m = Int(mask.index)
        guard let record = masks[m] else { return }
        if record.isPausing { resumed(mask, restarts: freedSprings(of: m).map { (Int32($0), nil) }) }
        for i in masks[m]!.members { records[Int(i)]?.masks.removeAll { $0 == Int32(m) } }
        masks[m] = nil
    }

    func paused(_ mask: PauseMaskID) {
        let m = Int(mask.index)
        guard let record = masks[m], !record.isPausing else { return }
        masks[m]!.isPausing = true
        for i in record.members { changeDepth(Int(i), by: 1) }
    }

    func resumed(_ mask: PauseMaskID, restarts: [(spring: SpringHandle, state: (value: Double, velocity: Double)?)]) {
        resumed(mask, restarts: restarts.map { (Int32($0.spring.index), $0.state) })
    }

    /// The springs only this mask holds: the ones a resume frees, in record order.
    private func freedSprings(of m: Int) -> [Int] {
        masks[m]!.members.map(Int.init).filter { records[$0]!.pauseDepth == 1 }.sorted()
    }

    private func resumed(_ mask: PauseMaskID, restarts: [(spring: Int32, state: (value: Double, velocity: Double)?)]) {
        let m = Int(mask.index)
        guard let record = masks[m], record.isPausing else { return }
        let freed = freedSprings(of: m)
        if freed != restarts.map({ Int($0.spring) }) {
            findings.pauseMismatches += 1
            note("resume of \(mask) restarted \(restarts.count) springs, the model freed \(freed.count)")
        }
        masks[m]!.isPausing = false
        for i in record.members { changeDepth(Int(i), by: -1) }
        for (spring, state) in restarts {
            let i = Int(spring)
            guard let state, let record = records[i] else { continue }
            setState(i, value: state.value, velocity: state.velocity, wasAwake: record.awake)
        }
    }

    // MARK: Steps

    func stepped(dt: Double, rested: [SpringHandle]) {
        if dt != coefficientDuration {
            coefficients = configurations.map { ExactSpring($0.configuration).propagator(over: dt) }
            coefficientDuration = dt
        }
        var moving = 0
        coefficients.withUnsafeBufferPointer { steps in
            d.withUnsafeMutableBufferPointer { d in
                v.withUnsafeMutableBufferPointer { v in
                    changedSinceStep.withUnsafeMutableBufferPointer { changed in
                        for (i, c) in stepConfiguration.enumerated() where c >= 0 {
                            let a = steps[Int(c)]
                            let (d0, v0) = (d[i], v[i])
                            d[i] = a.a11 * d0 + a.a12 * v0
                            v[i] = a.a21 * d0 + a.a22 * v0
                            changed[i] = false
                            moving += 1
                        }
                    }
                }
            }
        }
        movingSpringFrames += moving
        for spring in rested { rest(spring) }
    }

    /// The bank says the spring came to rest: it must have been moving, within its band (by the
    /// model, give or take the drift bound), and snapped exactly onto its target.
    private func rest(_ spring: SpringHandle) {
        findings.restChecks += 1
        let i = Int(spring.index)
        guard let record = records[i], record.handle == spring, stepConfiguration[i] >= 0 else {
            findings.restViolations += 1
            note("rest event for \(spring), which the model does not have moving")
            return
        }
        let band = record.tolerance + bound.relative * record.scale + bound.absolute
        findings.maxRestExcess = max(findings.maxRestExcess, abs(d[i]) - record.tolerance)
        if !(abs(d[i]) <= band) {
            findings.restViolations += 1
            note("\(spring) rested \(abs(d[i])) from its target, outside its band \(record.tolerance) (+ drift bound)")
        }
        if (try? bank.displacement(of: spring)) != 0 || (try? bank.velocity(of: spring)) != 0 {
            findings.restViolations += 1
            note("\(spring) rested but is not exactly on its target at rest")
        }
        d[i] = 0
        v[i] = 0
        setAwake(i, false)
        startEpisode(i)
    }

    // MARK: Comparing

    /// Reads every live spring back from the bank and compares it with the model.
    func compare() {
        findings.comparisons += 1
        if bank.count != liveCount {
            findings.lostHandles += abs(bank.count - liveCount)
            note("the bank holds \(bank.count) springs, the model \(liveCount)")
        }
        if bank.awakeCount != awakeCount {
            findings.stateMismatches += 1
            note("the bank has \(bank.awakeCount) springs awake, the model \(awakeCount)")
        }
        for spring in removedHandles where bank.contains(spring) {
            findings.staleHandlesAccepted += 1
            note("the bank still accepts removed \(spring)")
        }
        for i in records.indices {
            guard let record = records[i] else { continue }
            compare(i, record)
        }
    }

    private func compare(_ i: Int, _ record: Record) {
        findings.springChecks += 1
        let spring = record.handle
        guard bank.contains(spring), let kd = try? bank.displacement(of: spring), let kv = try? bank.velocity(of: spring),
            let target = try? bank.target(of: spring), let value = try? bank.value(of: spring),
            let resting = try? bank.isAtRest(spring), let depth = try? bank.pauseDepth(of: spring),
            let configuration = try? bank.configuration(of: spring)
        else {
            findings.lostHandles += 1
            note("lost \(spring)")
            return
        }
        for number in [kd, kv, target, value] where !number.isFinite {
            findings.nonFiniteValues += 1
            note("\(spring) reads \(number)")
        }
        if Double(target) != record.target || configuration != configurations[record.configuration].configuration
            || resting == record.awake || depth != record.pauseDepth
        {
            findings.stateMismatches += 1
            note("\(spring): bank target \(target), resting \(resting), depth \(depth); model \(record.target), \(!record.awake), \(record.pauseDepth)")
        }
        let dd = Double(kd) - d[i], dv = (Double(kv) - v[i]) / naturalFrequency[record.configuration]
        let drift = (dd * dd + dv * dv).squareRoot()
        let relative = record.scale > 0 ? drift / record.scale : (drift == 0 ? 0 : .infinity)
        if drift > findings.maxDriftAbsolute { findings.maxDriftAbsolute = drift }
        if relative > findings.maxDrift || relative.isNaN {
            findings.maxDrift = relative
            findings.maxDriftConfiguration = configurations[record.configuration].name
        }
        if !(drift <= bound.relative * record.scale + bound.absolute) {
            findings.driftViolations += 1
            note("\(spring) (\(configurations[record.configuration].name)) drifted \(drift) (\(relative) of its scale \(record.scale)): bank d \(kd) v \(kv), model d \(d[i]) v \(v[i])")
        }
    }

    // MARK: Helpers

    /// Sets a state (setState, a restart): a new episode, whose one rounding of d is this step's change.
    private func setState(_ i: Int, value: Double, velocity: Double, wasAwake: Bool) {
        d[i] = value - records[i]!.target
        v[i] = velocity
        changedSinceStep[i] = true
        if d[i] != 0 || v[i] != 0 || wasAwake { setAwake(i, true) }
        startEpisode(i)
    }

    private func startEpisode(_ i: Int) {
        records[i]!.reconfiguredInEpisode = false
        records[i]!.scale = 0
        growScale(i)
    }

    private func growScale(_ i: Int) {
        let record = records[i]!
        let omega0 = naturalFrequency[record.configuration]
        let norm = (d[i] * d[i] + (v[i] / omega0) * (v[i] / omega0)).squareRoot()
        records[i]!.scale = max(record.scale, abs(record.target) + norm)
    }

    private func setAwake(_ i: Int, _ awake: Bool) {
        guard let record = records[i] else { return }
        if record.awake != awake {
            awakeCount += awake ? 1 : -1
            records[i]!.awake = awake
        }
        refreshStepConfiguration(i)
    }

    private func changeDepth(_ i: Int, by change: Int) {
        guard records[i] != nil else { return }
        records[i]!.pauseDepth += change
        refreshStepConfiguration(i)
    }

    private func refreshStepConfiguration(_ i: Int) {
        guard let record = records[i] else { return }
        stepConfiguration[i] = record.awake && record.pauseDepth == 0 ? Int32(record.configuration) : -1
    }

    private func note(_ message: String) {
        if findings.examples.count < 10 { findings.examples.append("frame \(bank.frame): \(message)") }
    }
}
