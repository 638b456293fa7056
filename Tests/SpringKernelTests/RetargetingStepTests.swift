import Foundation
import Testing
import _SpringOracles
@testable @_spi(KernelInternals) import SpringKernel

/// `step(dt:retargetingIn:to:)`: the retarget applied by the step itself. Its oracle is the two
/// calls it stands for, `retarget(in:to:)` then `step(dt:)` (judged against the exact motion by
/// `DragRestTests` and the settle corpora): the same lanes, rests and events, to the bit, on
/// every path, clock and thread split, through everything a drag meets (springs that stop and
/// rest, resting springs woken by a goal, paused springs, layouts of the moving springs only).
@Suite("A step that retargets")
struct RetargetingStepTests {
    @Test("one pass gives the bits and events of retarget(in:to:) then step(dt:)", arguments: [
        (StepThreading.single, StepPath.simd, false), (.single, .scalar, false), (.fixed(3), .simd, false), (.fixed(3), .scalar, true),
        (.single, .simd, true),
    ])
    func sameAsTwoCalls(threading: StepThreading, path: StepPath, fixedClock: Bool) throws {
        try compare(Float32Lanes.self, threading: threading, path: path, fixedClock: fixedClock, value: { Float($0) })
        try compare(Q16Lanes.self, threading: threading, path: path, fixedClock: fixedClock, value: { Q16($0)! })
    }

    private func compare<Lanes: SpringLaneArithmetic>(
        _: Lanes.Type, threading: StepThreading, path: StepPath, fixedClock: Bool, value: (Double) -> Lanes.Value
    ) throws {
        let dt = 1.0 / 60
        var fusedFrames = 0
        func run(fused: Bool) throws -> (events: [[UInt64]], hash: UInt64, hashes: [UInt64]) {
            var generator = SeededGenerator(seed: 3301)
            let bank = SpringBank<Lanes>(threading: threading)
            if fixedClock { try bank.setFrameClock(.fixed(frameDuration: dt)) }
            var configurations: [SpringConfiguration] = []
            for _ in 0..<3 {
                let zeta = generator.logUniform(0.3, 3), tension = generator.logUniform(50, 2000)
                configurations.append(try SpringConfiguration(tension: tension, friction: zeta * 2 * tension.squareRoot()))
            }
            // Three batches, the largest over a block of the watch (64 bundles); the count leaves
            // partial last bundles.
            let count = 2500
            var handles: [SpringHandle] = [], anchors: [Double] = [], amplitudes: [Double] = []
            for i in 0..<count {
                anchors.append((generator.unit() * 400 - 200).rounded())
                amplitudes.append(generator.logUniform(0.3, 200))
                handles.append(try bank.add(
                    value: value(anchors[i]), target: value(anchors[i]), configuration: configurations[i % 7 == 0 ? 2 : i % 2],
                    tolerance: value(0.5), userValue: UInt64(i)))
            }
            let paused = try bank.makePauseMask(handles.indices.filter { $0 % 11 == 5 }.map { handles[$0] })
            var jitter = SeededGenerator(seed: 77)
            var events: [[UInt64]] = [], hashes: [UInt64] = []
            for frame in 0..<160 {
                if frame == 20 { try bank.pause(paused) }
                if frame == 70 { try bank.resume(paused) }
                if frame == 80 {
                    // A storage-order write earlier in the frame (its predictions wait for the step).
                    let moving = bank.storageLayout(of: .moving)
                    var velocities = [Lanes.Value](repeating: value(0), count: moving.count)
                    var values = velocities
                    try values.withUnsafeMutableBufferPointer { try bank.values(in: moving, into: $0) }
                    try velocities.withUnsafeMutableBufferPointer { try bank.velocities(in: moving, into: $0) }
                    for j in stride(from: 0, to: values.count, by: 3) { velocities[j] = value(0) }
                    try values.withUnsafeBufferPointer { v in
                        try velocities.withUnsafeBufferPointer { try bank.setState(in: moving, values: v, velocities: $0) }
                    }
                }
                // Dragged for 30 to 90 frames each, then left to settle; from frame 120 a tenth
                // (resting by then) is dragged again, so a goal wakes them (the two calls).
                let region: StorageRegion = frame % 3 == 1 ? .moving : .all
                let layout = bank.storageLayout(of: region)
                var ids = [UInt64](repeating: 0, count: layout.count), goals = [Lanes.Value](repeating: value(0), count: layout.count)
                try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: layout, into: $0) }
                try goals.withUnsafeMutableBufferPointer { try bank.targets(in: layout, into: $0) }
                for j in ids.indices {
                    let i = Int(ids[j])
                    guard frame < 30 + i % 60 || (frame >= 120 && i % 10 == 3) else { continue }
                    goals[j] = value(anchors[i] + amplitudes[i] * sin(2 * Double.pi * Double(frame) / 50 + Double(i)))
                }
                let duration = fixedClock ? dt : dt * (1 + (jitter.unit() * 2 - 1) * 0.4)
                if fused {
                    try goals.withUnsafeBufferPointer { try bank.step(dt: duration, retargetingIn: layout, to: $0, path: path) }
                } else {
                    try goals.withUnsafeBufferPointer { try bank.retarget(in: layout, to: $0) }
                    try bank.step(dt: duration, path: path)
                }
                events.append(try bank.restedInLastStep.map { try bank.userValue(of: $0) })
                if frame % 10 == 0 { hashes.append(bank.stateHash()) }
            }
            try bank._checkInvariants()
            fusedFrames = bank.core.retargetingStepsInOnePass
            return (events, bank.stateHash(), hashes)
        }
        let reference = try run(fused: false)
        #expect(reference.events.joined().count > 500, "\(Lanes.formatName): the drag rested too few springs to judge")
        let fused = try run(fused: true)
        let differs = fused.events.indices.first { fused.events[$0] != reference.events[$0] }
        #expect(differs == nil, "\(Lanes.formatName) \(threading) \(path): other rests than the two calls from frame \(differs ?? 0)")
        #expect(fused.hashes == reference.hashes, "\(Lanes.formatName) \(threading) \(path): other bits than the two calls")
        #expect(fused.hash == reference.hash, "\(Lanes.formatName) \(threading) \(path): other final bits than the two calls")
        if Lanes.retargetsInStep {
            #expect(fusedFrames >= 40, "float32: only \(fusedFrames) frames took the one pass")
        } else {
            #expect(fusedFrames == 0)
        }
    }

    @Test("a refused call changes nothing: a NaN or out-of-range goal, a bad frame duration, a stale layout or a short buffer")
    func refusals() throws {
        let bank = SpringBank<Float32Lanes>(threading: .single)
        var handles: [SpringHandle] = []
        for i in 0..<100 { handles.append(try bank.add(value: Float(i), target: Float(i), configuration: .default, tolerance: 0.5)) }
        let layout = bank.storageLayout()
        var goals = (0..<100).map { Float($0) + 50 }
        try goals.withUnsafeBufferPointer { try bank.step(dt: 1.0 / 60, retargetingIn: bank.storageLayout(), to: $0) }
        let moving = bank.storageLayout()
        #expect(moving.count == 100)
        for _ in 0..<3 {
            goals = goals.map { $0 + 1 }
            try goals.withUnsafeBufferPointer { try bank.step(dt: 1.0 / 60, retargetingIn: moving, to: $0) }
        }
        let hash = bank.stateHash(), frame = bank.core.frame
        func expectUnchanged(_ what: String) {
            #expect(bank.stateHash() == hash, "\(what) changed the bank")
            #expect(bank.core.frame == frame, "\(what) stepped")
        }
        for (bad, error) in [(Float.nan, SpringKernelError.nonFinite(.target)), (.infinity, .nonFinite(.target)), (2e15, .outOfRange(.target))] {
            var refused = goals.map { $0 + 1 }
            refused[57] = bad
            #expect(throws: error) { try refused.withUnsafeBufferPointer { try bank.step(dt: 1.0 / 60, retargetingIn: moving, to: $0) } }
            expectUnchanged("a goal \(bad)")
        }
        let next = goals.map { $0 + 1 }
        for dt in [0, -1, .nan, .infinity] {
            do {
                try next.withUnsafeBufferPointer { try bank.step(dt: dt, retargetingIn: moving, to: $0) }
                Issue.record("dt \(dt) was accepted")
            } catch {
                if case .invalidTimeStep? = error as? SpringKernelError {} else { Issue.record("dt \(dt): \(error)") }
            }
            expectUnchanged("dt \(dt)")
        }
        #expect(throws: SpringKernelError.countMismatch(expected: 100, given: 99)) {
            try next.dropLast().withUnsafeBufferPointer { try bank.step(dt: 1.0 / 60, retargetingIn: moving, to: $0) }
        }
        expectUnchanged("a short buffer")
        #expect(throws: SpringKernelError.staleLayout) {
            try next.withUnsafeBufferPointer { try bank.step(dt: 1.0 / 60, retargetingIn: layout, to: $0) }
        }
        _ = layout
        expectUnchanged("a stale layout")
        try next.withUnsafeBufferPointer { try bank.step(dt: 1.0 / 60, retargetingIn: moving, to: $0) }
        #expect(try bank.target(of: handles[57]) == next[57])
    }
}
