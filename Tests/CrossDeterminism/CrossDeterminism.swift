// The program `.ci/cross check` builds for every architecture (aarch64, riscv64 and wasm32 under
// emulation, x86-64 for its baseline, AVX2 and AVX-512) and whose lines must be equal on all of
// them. It runs as Embedded Swift and prints integers and hashes only (a deviation in LSB, not a
// Double). Apart from the scene, which is the kernel's own (SPI), it uses the public API only.
//
// Lines:
// - the DeterminismScene's hash and rest frame, Q16.16 and float32 (the hashes the test suite
//   and `spring-bench determinism` pin on x86-64);
// - the fidelity sample: 256 Q16.16 springs against the exact motion over 240 frames of a
//   jittered clock, the worst deviation in LSB (2⁻¹⁶) and the frames compared;
// - the refusals of bad input (NaN, out-of-range Q16.16, an invalid configuration, dt ≤ 0), as
//   error names;
// - the storage-order streams (the shims' C loops: the portable code off x86-64) against the
//   one-spring calls, in both formats: reads, retargets and state writes, bit for bit;
// - a bank with a fixed frame clock in both formats (rests, frames, hash), and a checked 64-bit
//   multiply (on wasm32, compiler-rt's __multi3);
// - a finger held on the glass in both formats: springs at rest whose targets are nudged every
//   frame, within their tolerance or beyond it, beside dragged ones, streamed in storage order
//   against one call a spring (the streams' rest band, in each target's build of them).
@_spi(KernelInternals) import SpringKernel

@main
struct CrossDeterminism {
    static func main() {
        scene(Q16Lanes.self)
        scene(Float32Lanes.self)
        fidelity()
        refusals()
        streams(Float32Lanes.self, name: "float32", value: { Float($0) / 64 }, bits: { UInt64($0.bitPattern) })
        streams(Q16Lanes.self, name: "q16.16", value: { Q16(raw: Int32($0) << 10) }, bits: { UInt64(UInt32(bitPattern: $0.raw)) })
        fixedClock(Q16Lanes.self, value: { Q16(raw: Int32($0) << 12) })
        fixedClock(Float32Lanes.self, value: { Float($0) / 16 })
        retargetingStep(Float32Lanes.self, value: { Float($0) / 16 })
        retargetingStep(Q16Lanes.self, value: { Q16(raw: Int32($0) << 12) })
        hold(Float32Lanes.self, value: { Float($0) / 16 })
        hold(Q16Lanes.self, value: { Q16(raw: Int32($0) << 12) })
        checkedMultiply()
    }

    /// A drag of 700 springs in one call a frame (`step(dt:retargetingIn:to:)`: on float32 this
    /// target's build of `sk_advance_retargeting_f32`) beside `retarget(in:to:)` then `step(dt:)`:
    /// the frames whose bits or rests differ (0), the rests and the hash.
    static func retargetingStep<Lanes: SpringLaneArithmetic>(_ lanes: Lanes.Type, value: (Int) -> Lanes.Value) {
        let fused = SpringBank<Lanes>(threading: .single), twoCalls = SpringBank<Lanes>(threading: .single)
        do {
            for bank in [fused, twoCalls] {
                for i in 0..<700 {
                    let start = value((i * 37) % 6400 - 3200)
                    _ = try bank.add(value: start, target: start, configuration: .default, tolerance: value(8))
                }
            }
            var rests = 0, differing = 0
            for frame in 1...150 {
                for bank in [fused, twoCalls] {
                    let layout = bank.storageLayout()
                    var goals = [Lanes.Value](repeating: value(0), count: layout.count)
                    try goals.withUnsafeMutableBufferPointer { buffer throws(SpringKernelError) in try bank.targets(in: layout, into: buffer) }
                    // Slot j's goal: the banks stay equal, so their layouts hold the same springs.
                    for j in goals.indices where frame <= 60 + j % 40 { goals[j] = value((j * 37) % 6400 - 3200 + (frame * 7 + j * 3) % 961 - 480) }
                    if bank === fused {
                        try goals.withUnsafeBufferPointer { buffer throws(SpringKernelError) in
                            try bank.step(dt: 1.0 / 60, retargetingIn: layout, to: buffer)
                        }
                    } else {
                        try goals.withUnsafeBufferPointer { buffer throws(SpringKernelError) in try bank.retarget(in: layout, to: buffer) }
                        try bank.step(dt: 1.0 / 60)
                    }
                }
                rests += fused.restedInLastStep.count
                if fused.restedInLastStep.count != twoCalls.restedInLastStep.count || fused.stateHash() != twoCalls.stateHash() { differing += 1 }
            }
            print("retargeting step \(Lanes.formatName): \(rests) rests, \(differing) frames differing from two calls, hash \(hex(fused.stateHash()))")
        } catch {
            print("retargeting step \(Lanes.formatName): \(name(of: error))")
        }
    }

    /// A bank with a fixed frame clock (1/60 s), springs of assorted configurations stepped until
    /// every one rests: the frames and the hash. (wasm32 trapped at the first step: the rest
    /// predictor's horizon, 1 << 31, was negative in a 32-bit `Int`.)
    static func fixedClock<Lanes: SpringLaneArithmetic>(_ lanes: Lanes.Type, value: (Int) -> Lanes.Value) {
        var random = SplitMix64(seed: 0xF1C5_C10C)
        let bank = SpringBank<Lanes>(threading: .single)
        do throws(SpringKernelError) {
            try bank.setFrameClock(.fixed(frameDuration: 1.0 / 60))
            for _ in 0..<64 {
                let configuration = try SpringConfiguration(
                    tension: Double(40 + random.next(1500)), friction: Double(4 + random.next(60)), mass: 1)
                _ = try bank.add(
                    value: value(Int(random.next(4000)) - 2000), target: value(Int(random.next(4000)) - 2000),
                    velocity: value(Int(random.next(400)) - 200), configuration: configuration, tolerance: value(8))
            }
            var frames = 0, rested = 0
            while bank.awakeCount > 0, frames < 100_000 {
                try bank.step(dt: 1.0 / 60)
                frames += 1
                rested += bank.restedInLastStep.count
            }
            print("fixed clock \(Lanes.formatName): \(rested) rests in \(frames) frames, hash \(hex(bank.stateHash()))")
        } catch {
            print("fixed clock \(Lanes.formatName): \(name(of: error))")
        }
    }

    /// A checked 64-bit multiply, of numbers the program reads at run time: wasm32 lowers it to a
    /// 128-bit multiply (`__multi3`, compiler-rt's), which the link must bring.
    static func checkedMultiply() {
        let bank = SpringBank<Float32Lanes>(threading: .single)
        let a = Int64(bank.count) + 3_000_000_019, b = Int64(bank.awakeCount) + 2_000_000_011
        let (wrapped, overflow) = (a * 4).multipliedReportingOverflow(by: b)
        print("checked Int64 multiply: \(a * b), \(a * 4) x \(b) overflows: \(overflow) (wrapped \(wrapped))")
    }

    static func scene<Lanes: SpringLaneArithmetic>(_ lanes: Lanes.Type) {
        do throws(DeterminismScene.SceneError) {
            let result = try DeterminismScene.run(lanes)
            print("scene \(Lanes.formatName): hash \(hex(result.hash)), rest frame \(result.restFrame)")
        } catch {
            print("scene \(Lanes.formatName): \(name(of: error))")
        }
    }

    /// 256 Q16.16 springs of assorted configurations and moves, stepped under a jittered clock
    /// and compared each frame with the exact motion from their start (``SpringMotion``, whose
    /// closed form uses the kernel's deterministic exp, sin and cos, so this line is the same
    /// everywhere).
    static func fidelity() {
        var random = SplitMix64(seed: 0xF1DE_1171)
        let bank = SpringBank<Q16Lanes>(threading: .single)
        var cases: [(spring: SpringHandle, motion: SpringMotion, from: Double, to: Double, velocity: Double)] = []
        do throws(SpringKernelError) {
            for _ in 0..<256 {
                let configuration = try SpringConfiguration(
                    tension: Double(40 + random.next(1500)), friction: Double(4 + random.next(60)), mass: 1)
                let from = Double(Int(random.next(20_000)) - 10_000) / 16
                let to = Double(Int(random.next(20_000)) - 10_000) / 16
                let velocity = Double(Int(random.next(4000)) - 2000)
                guard let value = Q16(from), let target = Q16(to), let speed = Q16(velocity), let band = Q16(0.5) else { continue }
                let spring = try bank.add(value: value, target: target, velocity: speed, configuration: configuration, tolerance: band)
                cases.append((spring, SpringMotion(configuration), value.doubleValue, target.doubleValue, speed.doubleValue))
            }
            var time = 0.0, worst = 0.0, compared = 0
            for frame in 0..<240 {
                // 1/60 s ± 15 %, on a 1/2^20 grid so that the sum of frames is exact.
                let dt = Double((1 << 20) / 60 + Int(random.next(5000)) - 2500) / Double(1 << 20)
                try bank.step(dt: dt)
                time += dt
                // Until it rests: a spring at rest holds its target, within its tolerance of the motion.
                for c in cases where frame % 4 == 0 {
                    guard try !bank.isAtRest(c.spring) else { continue }
                    let exact = c.to + c.motion.displacement(after: time, from: c.from - c.to, velocity: c.velocity)
                    let deviation = abs(try bank.value(of: c.spring).doubleValue - exact) * Q16.scale
                    worst = max(worst, deviation)
                    compared += 1
                }
            }
            print("fidelity q16.16: \(cases.count) springs, \(compared) samples, worst deviation \(Int(worst.rounded(.up))) LSB")
        } catch {
            print("fidelity q16.16: \(name(of: error))")
        }
    }

    /// A finger held on the glass: 200 springs of the default configuration, started at rest, two
    /// tolerances in one batch (8 and 12 sixteenths: the band is the lesser's). Every frame each
    /// target moves by -14...14 sixteenths (within the band, between the two tolerances, or beyond
    /// both), and every fifth spring is dragged far for the first 45 frames, so resting and moving
    /// lanes share bundles. One bank takes the targets in storage order (`retarget(in:to:)`: the
    /// streams keep a spring at rest within the band in their SIMD pass), the other one call a
    /// spring; both step. The frames whose state or rests differ (0), the rests and the hash.
    static func hold<Lanes: SpringLaneArithmetic>(_ lanes: Lanes.Type, value: (Int) -> Lanes.Value) {
        var random = SplitMix64(seed: 0x401D_F1A5)
        let streamed = SpringBank<Lanes>(threading: .single), single = SpringBank<Lanes>(threading: .single)
        do {
            var twin: [SpringHandle: (single: SpringHandle, index: Int)] = [:]
            var goals: [Int] = [], anchors: [Int] = [], handles: [SpringHandle] = []
            for i in 0..<200 {
                let anchor = (i * 37) % 6400 - 3200, tolerance = value(i % 2 == 0 ? 8 : 12)
                let handle = try streamed.add(value: value(anchor), target: value(anchor), configuration: .default, tolerance: tolerance)
                twin[handle] = (try single.add(value: value(anchor), target: value(anchor), configuration: .default, tolerance: tolerance), i)
                handles.append(handle)
                goals.append(anchor)
                anchors.append(anchor)
            }
            var rests = 0, differing = 0
            for frame in 1...90 {
                for i in goals.indices {
                    goals[i] = i % 5 == 0 && frame <= 45
                        ? anchors[i] + (frame * 7 + i * 3) % 961 - 480 : goals[i] + Int(random.next(29)) - 14
                }
                let layout = streamed.storageLayout()
                var order = [SpringHandle](repeating: handles[0], count: layout.count)
                try order.withUnsafeMutableBufferPointer { buffer throws(SpringKernelError) in try streamed.springs(in: layout, into: buffer) }
                // Slot j's goal, given to the other bank's twin one call at a time (a slot whose
                // spring has no twin would be a kernel fault: the frame counts as differing).
                var targets = [Lanes.Value](repeating: value(0), count: layout.count)
                var unknown = false
                for j in 0..<layout.count {
                    guard let pair = twin[order[j]] else { unknown = true; continue }
                    targets[j] = value(goals[pair.index])
                    try single.retarget(pair.single, to: targets[j])
                }
                try targets.withUnsafeBufferPointer { buffer throws(SpringKernelError) in try streamed.retarget(in: layout, to: buffer) }
                try streamed.step(dt: 1.0 / 60)
                try single.step(dt: 1.0 / 60)
                rests += streamed.restedInLastStep.count
                if unknown || streamed.restedInLastStep.count != single.restedInLastStep.count || streamed.stateHash() != single.stateHash() {
                    differing += 1
                }
            }
            print("hold \(Lanes.formatName): \(rests) rests, \(differing) frames differing from one call a spring, hash \(hex(streamed.stateHash()))")
        } catch {
            print("hold \(Lanes.formatName): \(name(of: error))")
        }
    }

    /// Bad input, refused with the same error on every machine.
    static func refusals() {
        let float = SpringBank<Float32Lanes>(threading: .single)
        let fixed = SpringBank<Q16Lanes>(threading: .single)
        refusal("NaN value") { () throws(SpringKernelError) in _ = try float.add(value: .nan, target: 0, tolerance: 0.5) }
        refusal("infinite target") { () throws(SpringKernelError) in _ = try float.add(value: 0, target: .infinity, tolerance: 0.5) }
        refusal("Q16.16 motion out of range") { () throws(SpringKernelError) in _ = try fixed.add(value: .max, target: .min, tolerance: Q16(raw: 1 << 15)) }
        refusal("Q16.16 velocity out of range") { () throws(SpringKernelError) in
            _ = try fixed.add(value: 0, target: 1, velocity: Q16(raw: .max), tolerance: Q16(raw: 1 << 15))
        }
        refusal("negative tension") { () throws(SpringKernelError) in _ = try SpringConfiguration(tension: -1, friction: 30) }
        refusal("NaN friction") { () throws(SpringKernelError) in _ = try SpringConfiguration(tension: 342, friction: .nan) }
        refusal("zero tolerance") { () throws(SpringKernelError) in _ = try float.add(value: 0, target: 1, tolerance: 0) }
        refusal("dt 0") { () throws(SpringKernelError) in try float.step(dt: 0) }
        refusal("dt -1/60") { () throws(SpringKernelError) in try fixed.step(dt: -1.0 / 60) }
        refusal("dt NaN") { () throws(SpringKernelError) in try fixed.step(dt: .nan) }
        print("refusals: float32 hash \(hex(float.stateHash())), q16.16 hash \(hex(fixed.stateHash())) (unchanged by the refusals)")
    }

    static func refusal(_ what: String, _ body: () throws(SpringKernelError) -> Void) {
        do {
            try body()
            print("refused \(what): accepted (expected a refusal)")
        } catch {
            print("refused \(what): \(name(of: error))")
        }
    }

    /// Two banks of one format given the same springs: one read and written in storage order (the
    /// streams), the other one spring at a time; every read and the final state hashes must agree.
    static func streams<Lanes: SpringLaneArithmetic>(
        _ lanes: Lanes.Type, name format: String, value: (Int) -> Lanes.Value, bits: (Lanes.Value) -> UInt64
    ) {
        var random = SplitMix64(seed: 0x57AE_A115)
        let streamed = SpringBank<Lanes>(threading: .single), single = SpringBank<Lanes>(threading: .single)
        var checks = 0, mismatches = 0
        func check(_ equal: Bool) {
            checks += 1
            if !equal { mismatches += 1 }
        }
        do {
            // Several configurations and tolerances: Q16.16 batches at several lane scales.
            let configurations = [
                try SpringConfiguration(tension: 342, friction: 30), try SpringConfiguration(tension: 1323, friction: 91),
                try SpringConfiguration(tension: 20, friction: 2), try SpringConfiguration(tension: 900, friction: 10),
            ]
            let tolerances = [value(32), value(2), value(512)]
            var handles: [(streamed: SpringHandle, single: SpringHandle)] = []
            for i in 0..<1000 {
                let (v, t, w) = (value(Int(random.next(4000)) - 2000), value(Int(random.next(4000)) - 2000), value(Int(random.next(800)) - 400))
                let configuration = configurations[i % configurations.count], tolerance = tolerances[i % tolerances.count]
                handles.append((
                    try streamed.add(value: v, target: t, velocity: w, configuration: configuration, tolerance: tolerance),
                    try single.add(value: v, target: t, velocity: w, configuration: configuration, tolerance: tolerance)))
            }
            for round in 0..<12 {
                try streamed.step(dt: 1.0 / 60)
                try single.step(dt: 1.0 / 60)
                let layout = streamed.storageLayout()
                var order = [SpringHandle](repeating: handles[0].streamed, count: layout.count)
                var values = [Lanes.Value](repeating: value(0), count: layout.count)
                var velocities = values, targets = values
                try order.withUnsafeMutableBufferPointer { buffer throws(SpringKernelError) in try streamed.springs(in: layout, into: buffer) }
                try values.withUnsafeMutableBufferPointer { buffer throws(SpringKernelError) in try streamed.values(in: layout, into: buffer) }
                try velocities.withUnsafeMutableBufferPointer { buffer throws(SpringKernelError) in try streamed.velocities(in: layout, into: buffer) }
                try targets.withUnsafeMutableBufferPointer { buffer throws(SpringKernelError) in try streamed.targets(in: layout, into: buffer) }
                var twin: [SpringHandle: SpringHandle] = [:]
                for pair in handles { twin[pair.streamed] = pair.single }
                for i in 0..<layout.count {
                    guard let other = twin[order[i]] else { check(false); continue }
                    check(bits(values[i]) == bits(try single.value(of: other)))
                    check(bits(velocities[i]) == bits(try single.velocity(of: other)))
                    check(bits(targets[i]) == bits(try single.target(of: other)))
                }
                // Writes: every other round new targets, else new states, for every spring.
                for i in 0..<layout.count {
                    if round % 2 == 0 {
                        targets[i] = random.next(3) == 0 ? targets[i] : value(Int(random.next(4000)) - 2000)
                    } else {
                        values[i] = value(Int(random.next(4000)) - 2000)
                        velocities[i] = value(Int(random.next(800)) - 400)
                    }
                }
                if round % 2 == 0 {
                    try targets.withUnsafeBufferPointer { buffer throws(SpringKernelError) in try streamed.retarget(in: layout, to: buffer) }
                    for i in 0..<layout.count { if let other = twin[order[i]] { try single.retarget(other, to: targets[i]) } }
                } else {
                    try values.withUnsafeBufferPointer { v throws(SpringKernelError) in
                        try velocities.withUnsafeBufferPointer { w throws(SpringKernelError) in try streamed.setState(in: layout, values: v, velocities: w) }
                    }
                    for i in 0..<layout.count {
                        if let other = twin[order[i]] { try single.setState(of: other, value: values[i], velocity: velocities[i]) }
                    }
                }
                check(streamed.stateHash() == single.stateHash())
            }
            print("streams \(format): \(checks) checks, \(mismatches) mismatches, hash \(hex(streamed.stateHash()))")
        } catch {
            print("streams \(format): \(name(of: error))")
        }
    }

    /// The error's case name (its description would also print the refused numbers).
    static func name(of error: DeterminismScene.SceneError) -> String {
        switch error {
        case .didNotComeToRest: "didNotComeToRest"
        case .kernel(let error): name(of: error)
        }
    }

    static func name(of error: SpringKernelError) -> String {
        switch error {
        case .nonFinite(let quantity): "nonFinite(\(quantity.rawValue))"
        case .outOfRange(let quantity): "outOfRange(\(quantity.rawValue))"
        case .invalidConfiguration(let parameter): "invalidConfiguration(\(parameter.rawValue))"
        case .invalidTimeStep: "invalidTimeStep"
        case .timeStepMismatch: "timeStepMismatch"
        case .countMismatch: "countMismatch"
        case .nonPositiveTolerance: "nonPositiveTolerance"
        case .staleHandle: "staleHandle"
        case .foreignHandle: "foreignHandle"
        case .stalePauseMask: "stalePauseMask"
        case .pauseDepthExceeded: "pauseDepthExceeded"
        case .tooManyConfigurations: "tooManyConfigurations"
        case .tooManySprings: "tooManySprings"
        case .reentrantMutation: "reentrantMutation"
        case .invalidCapacity: "invalidCapacity"
        case .notInMask: "notInMask"
        case .staleLayout: "staleLayout"
        case .outOfMemory: "outOfMemory"
        @unknown default: "unknown"
        }
    }

    static func hex(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for shift in stride(from: 60, through: 0, by: -4) { text.append(digits[Int((value >> UInt64(shift)) & 15)]) }
        return String(decoding: text, as: UTF8.self)
    }
}

extension SplitMix64 {
    /// The next draw reduced modulo `bound` (the kernel's generator: the same numbers on every machine).
    mutating func next(_ bound: UInt64) -> UInt64 { next() % bound }
}
