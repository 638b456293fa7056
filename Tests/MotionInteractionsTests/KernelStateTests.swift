import CompilerCheck
import Foundation
@testable import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

/// The layer keeps no copy of what the kernel knows: which streams move, rest or are held, and
/// which get values on a frame, come from the kernel's moving springs, rest events, layout version
/// and state. These tests hold every stream's state and every frame's deliveries to the kernel's
/// own answers, through random retargets, restarts, pauses, reconfigurations, cancellations and
/// steps, some of them made from inside a delivery.
@Suite("The layer's state is the kernel's")
struct KernelStateTests {
    /// One subscribed stream and what it received.
    final class Probe {
        let index: Int
        let spring: Spring<CGPoint>?
        let scalar: Spring<Float>?
        var subscription = Subscription()
        var handles: [SpringHandle] = []
        var states: [MotionState] = []
        var valueFrames: [Int] = []
        var isCancelled = false
        var isPaused = false

        init(index: Int, point: Bool, rng: inout SplitMix64) {
            self.index = index
            func random() -> Float { Float(rng.integer(in: -4...4) * 50) }
            if point {
                spring = Spring(to: ReactiveProperty(CGPoint(x: CGFloat(random()), y: CGFloat(random()))),
                                initialValue: ReactiveProperty(CGPoint(x: CGFloat(random()), y: CGFloat(random()))))
                scalar = nil
            } else {
                scalar = Spring(to: ReactiveProperty(random()), initialValue: ReactiveProperty(random()))
                spring = nil
            }
        }
    }

    /// Streams in one runtime, a script of changes, and the checks run after each.
    final class Run {
        let runtime = MotionRuntime()
        var rng: SplitMix64
        var probes: [Probe] = []
        var violations: [String] = []
        /// A change to make from inside the next delivery, from the first value callback.
        var changeDuringDelivery: (() -> Void)?

        init(seed: UInt64) {
            rng = SplitMix64(seed: seed)
            for i in 0..<12 { connect(Probe(index: i, point: i % 3 == 0, rng: &rng)) }
        }

        func connect(_ probe: Probe) {
            let before = Set(runtime.springHandles)
            let kernel = runtime.kernel
            let state: (MotionState) -> Void = { [unowned probe] in probe.states.append($0) }
            if let spring = probe.spring {
                probe.subscription = springSource(spring).subscribe(in: runtime, next: { [unowned self, unowned probe] value in
                    self.received(probe, [Float(value.x), Float(value.y)], kernel)
                }, state: state)
            } else if let scalar = probe.scalar {
                probe.subscription = springSource(scalar).subscribe(in: runtime, next: { [unowned self, unowned probe] value in
                    self.received(probe, [value], kernel)
                }, state: state)
            }
            // The stream's springs, in component order (each spring's user value ends in its component).
            probe.handles = runtime.springHandles.filter { !before.contains($0) }
                .sorted { ((try? runtime.bank.userValue(of: $0)) ?? 0) & 3 < ((try? runtime.bank.userValue(of: $1)) ?? 0) & 3 }
            if probe.index < probes.count { probes[probe.index] = probe } else { probes.append(probe) }
        }

        func received(_ probe: Probe, _ components: [Float], _ kernel: SpringBankReader) {
            for (component, handle) in probe.handles.enumerated() {
                let value = try? kernel.value(of: handle)
                if value?.bitPattern != components[component].bitPattern {
                    violations.append("stream \(probe.index) was sent \(components[component]) for component \(component); the kernel has \(String(describing: value)) [frame \(kernel.frame)]")
                }
            }
            if probe.isPaused { violations.append("stream \(probe.index) was sent a value while paused [frame \(kernel.frame)]") }
            probe.valueFrames.append(kernel.frame)
            if let change = changeDuringDelivery {
                changeDuringDelivery = nil
                change()
            }
        }

        /// Whether any of the probe's springs is awake (moving, or held mid-motion).
        func isAwake(_ probe: Probe) -> Bool {
            probe.handles.contains { runtime.kernel.state(of: $0)?.isAtRest == false }
        }

        /// Whether the kernel's next step moves the probe's springs: awake and not held.
        func isMoving(_ probe: Probe) -> Bool {
            probe.handles.contains { runtime.kernel.state(of: $0).map { !$0.isAtRest && !$0.isPaused } ?? false }
        }

        func check(_ when: @autoclosure () -> String) {
            var awake = 0
            for probe in probes where !probe.isCancelled {
                let isAwake = isAwake(probe)
                if isAwake { awake += 1 }
                if probe.states.last != (isAwake ? .active : .atRest) {
                    violations.append("\(when()): stream \(probe.index) last said \(String(describing: probe.states.last)), its springs are \(isAwake ? "awake" : "at rest")")
                }
                if zip(probe.states, probe.states.dropFirst()).contains(where: { $0 == $1 }) {
                    violations.append("\(when()): stream \(probe.index) repeated a state: \(probe.states)")
                }
            }
            if runtime.activeSpringStreamCount != awake {
                violations.append("\(when()): \(runtime.activeSpringStreamCount) active streams counted, \(awake) awake in the kernel")
            }
            if runtime.isAllAtRest != (runtime.kernel.awakeCount == 0) {
                violations.append("\(when()): isAllAtRest \(runtime.isAllAtRest), kernel awake \(runtime.kernel.awakeCount)")
            }
        }

        /// One random change to a random live stream (`duringDelivery`: from inside a callback).
        func change(_ probe: Probe, during phase: String) {
            let kind = rng.integer(in: 0...9)
            func random() -> Float { Float(rng.integer(in: -4...4) * 50) }
            switch kind {
            case 0...3:
                // A new destination (sometimes the same one): a retarget, or a start from rest.
                let x = random(), y = random()
                probe.spring?.destination.value = CGPoint(x: CGFloat(x), y: CGFloat(y))
                probe.scalar?.destination.value = x
            case 4:
                // Where the next start begins.
                probe.spring?.initialValue.value = CGPoint(x: CGFloat(random()), y: CGFloat(random()))
                probe.scalar?.initialValue.value = random()
            case 5, 6:
                if probe.isPaused {
                    probe.isPaused = false
                    probe.subscription.resume()
                } else {
                    probe.isPaused = true
                    probe.subscription.pause()
                }
            case 7, 8:
                let configuration = try! SpringConfiguration(tension: Double(rng.integer(in: 1...40) * 25), friction: Double(rng.integer(in: 4...40)))
                probe.spring?.configuration.value = configuration
                probe.scalar?.configuration.value = configuration
            default:
                probe.subscription.cancel()
                probe.isCancelled = true
                // A new stream takes the slot as soon as no delivery holds it.
                if phase != "delivery" { connect(Probe(index: probe.index, point: probe.spring != nil, rng: &rng)) }
            }
        }

        func randomLiveProbe() -> Probe? {
            let live = probes.filter { !$0.isCancelled }
            return live.isEmpty ? nil : live[rng.integer(in: 0...(live.count - 1))]
        }

        func run(rounds: Int) throws {
            check("after connecting")
            for round in 0..<rounds {
                for _ in 0..<rng.integer(in: 0...3) {
                    guard let probe = randomLiveProbe() else { break }
                    change(probe, during: "input")
                    check("round \(round), after a change to stream \(probe.index)")
                }
                let moving = Set(probes.filter { !$0.isCancelled && isMoving($0) }.map(\.index))
                let counts = probes.map(\.valueFrames.count)
                let mode = rng.integer(in: 0...5)
                if mode == 0, let probe = randomLiveProbe() {
                    // A change from inside the delivery: no claim on which streams are sent values.
                    changeDuringDelivery = { [unowned self] in change(probe, during: "delivery") }
                    try runtime.advance(by: frame60)
                    changeDuringDelivery = nil
                } else if mode == 1, let probe = randomLiveProbe() {
                    // A change between the step and its delivery.
                    try runtime.stepSprings(by: frame60)
                    change(probe, during: "step")
                    runtime.deliverFrame()
                } else {
                    try runtime.advance(by: frame60)
                    // Sent values: exactly the streams the kernel moved in the step.
                    let sent = Set(probes.filter { $0.index < counts.count && $0.valueFrames.count > counts[$0.index] }.map(\.index))
                    if sent != moving || runtime.lastFrameDeliveryCount != moving.count {
                        violations.append("round \(round): values sent to \(sent.sorted()) (\(runtime.lastFrameDeliveryCount) counted), the kernel moved \(moving.sorted())")
                    }
                }
                check("round \(round), after the frame")
                if violations.count > 5 { return }
            }
        }
    }

    @Test("states, counts and deliveries match the kernel through random retargets, pauses, reconfigurations, cancellations and steps",
          arguments: [1, 2, 3, 4] as [UInt64])
    func randomScripts(seed: UInt64) throws {
        let run = Run(seed: seed)
        try run.run(rounds: 400)
        #expect(run.violations.isEmpty, "\(run.violations.prefix(5))")
        for probe in run.probes where !probe.isCancelled { probe.subscription.cancel() }
        #expect(run.runtime.kernel.count == 0 && run.runtime.isAllAtRest)
    }

    @Test("a frame sends values for exactly the springs the kernel moved: the runtime keeps no list of its own")
    func deliveryFollowsTheKernel() throws {
        let runtime = MotionRuntime()
        let recorder = StreamRecorder<Float>()
        let subscription = recorder.record(springSource(Spring(to: ReactiveProperty(Float(10)), initialValue: ReactiveProperty(Float(10)))), in: runtime)
        #expect(recorder.states == [.atRest])
        // Started in the kernel behind the runtime's back (only the layer's own code can).
        let spring = try #require(runtime.springHandles.first)
        try runtime.bank.setState(of: spring, value: 0, velocity: 0)
        try runtime.advanceFrames(3)
        #expect(recorder.values.count == 3)
        #expect(try recorder.values.last == runtime.kernel.value(of: spring))
        subscription.cancel()
    }
}

/// The runtime's kernel is its own: outside code reads it and cannot change it.
@Suite("The runtime's kernel is read-only outside the layer (compile time)", .enabled(if: CompilerCheck.isAvailable(for: "MotionInteractions"), "needs swiftc on PATH and the build's Modules directory"))
struct KernelAccessTests {
    @Test("the bank cannot be reached, and the reader has no call that changes it")
    func noWayToChangeTheKernel() throws {
        let errors = try CompilerCheck.errors(importing: "MotionInteractions", in: """
            import MotionInteractions
            import SpringKernel
            func meddle(_ runtime: MotionRuntime, _ spring: SpringHandle) throws {
                _ = try runtime.bank.add(value: 0, target: 1, tolerance: 0.5)
                try runtime.kernel.retarget(spring, to: 1)
            }
            """)
        #expect(errors.count == 2, "\(errors)")
        #expect(errors.contains { $0.contains("'bank' is inaccessible due to 'internal' protection level") }, "\(errors)")
        #expect(errors.contains { $0.contains("has no member 'retarget'") }, "\(errors)")
    }

    @Test("the reader reads: values, states, rest events and counts")
    func reading() throws {
        let errors = try CompilerCheck.errors(importing: "MotionInteractions", in: """
            import MotionInteractions
            import SpringKernel
            func inspect(_ runtime: MotionRuntime) throws -> Double {
                let kernel = runtime.kernel
                var sum = Double(kernel.frame + kernel.count + kernel.awakeCount + kernel.restedInLastStep.count) + kernel.time
                for spring in runtime.springHandles where kernel.contains(spring) {
                    sum += Double(try kernel.value(of: spring) + kernel.velocity(of: spring) + kernel.target(of: spring))
                    sum += try kernel.tolerance(of: spring) + kernel.restTime(of: spring) + kernel.configuration(of: spring).tension
                    sum += try kernel.isAtRest(spring) || kernel.isPaused(spring) ? Double(kernel.pauseDepth(of: spring)) : 0
                    sum += kernel.state(of: spring)?.isAtRest == true ? 1 : 0
                }
                return sum
            }
            """)
        #expect(errors.isEmpty, "\(errors)")
    }
}
