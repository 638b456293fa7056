import Foundation
@testable import MotionInteractions
@_spi(KernelInternals) @testable import SpringKernel

/// libFuzzer's entry point for the interaction layer: a byte stream decoded into interactions,
/// plans and spring streams added to and removed from one runtime, gesture events (out of order,
/// non-finite, not fitting the recognizer's state), property writes (NaN included) and frames of
/// every kind. Checked after each call: no crash or trap; the kernel's invariants; every stream's
/// states alternate, its values are finite and come only while it is active, nothing after its
/// cancellation; `isAllAtRest` agrees with the kernel; a refused frame delivers nothing.
@_cdecl("LLVMFuzzerTestOneInput")
public func interactionFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    InteractionHarness(input: FuzzInput(data, size)).run()
    return 0
}

final class InteractionHarness {
    var input: FuzzInput
    let runtime = MotionRuntime(threading: .single)
    let container = MotionElement()
    var elements: [MotionElement] = []
    var recognizers: [GestureRecognizer] = []
    var rotations: [RotationGestureRecognizer] = []
    var pinches: [PinchGestureRecognizer] = []
    var interactions: [Interaction] = []
    var destinations: [ReactiveProperty<CGPoint>] = []
    var probes: [Probe] = []
    var timestamp = 0.0
    var delivering = false

    /// A subscribed spring stream and what it received.
    final class Probe {
        var subscription: Subscription?
        var cancelled = false
        var lastState: MotionState?
        let destination = ReactiveProperty(CGFloat(0))
        let spring: Spring<CGFloat>
        init(spring: Spring<CGFloat>) { self.spring = spring }
    }

    static let numbers: [Double] = [0, 1, -1, 40, 100, -250, 1e4, 1e15, 2e15, .nan, .infinity, -.infinity, 1e-300, 0.5]
    static let durations: [Double] = [1.0 / 60, 1.0 / 120, 0.25, 2, 0, -1, .nan, .infinity, 1e-9, 1e6, 1e300, 1.0 / 60 * 1.1]

    init(input: FuzzInput) {
        self.input = input
        elements = [MotionElement(), MotionElement(position: CGPoint(x: 100, y: 50))]
        destinations = [ReactiveProperty(CGPoint(x: 0, y: 200)), ReactiveProperty(CGPoint(x: -80, y: 0))]
    }

    func number() -> CGFloat { CGFloat(input.double(Self.numbers)) }
    func point() -> CGPoint { CGPoint(x: number(), y: number()) }

    /// Mostly forward in time, sometimes repeated, backward or not finite.
    func nextTimestamp() -> Double {
        switch input.byte() % 8 {
        case 0: return timestamp
        case 1: return timestamp - 0.05
        case 2: return .nan
        case 3: return input.double([.infinity, -.infinity, 1e300, -1e300])
        default:
            timestamp += Double(input.byte()) / 1000
            return timestamp
        }
    }

    func run() {
        var operations = 0
        while !input.isExhausted, operations < 200 {
            operations += 1
            perform(input.byte())
            check()
        }
        // Everything torn down: the kernel must be left empty of cancelled streams' springs.
        for probe in probes { cancel(probe) }
        for interaction in interactions { runtime.remove(interaction) }
        check()
    }

    func check() {
        do { try runtime.bank._checkInvariants() } catch { violated("kernel invariant: \(error)") }
        guard runtime.isAllAtRest == (runtime.kernel.awakeCount == 0) else {
            violated("isAllAtRest \(runtime.isAllAtRest), kernel awake \(runtime.kernel.awakeCount)")
        }
        for spring in runtime.springHandles {
            guard (try? runtime.kernel.value(of: spring))?.isFinite == true, (try? runtime.kernel.velocity(of: spring))?.isFinite == true else {
                violated("\(spring) is not finite")
            }
        }
    }

    func perform(_ operation: UInt8) {
        switch operation % 16 {
        case 0:
            let element = elements[input.index(elements.count)]
            let recognizer = GestureRecognizer(maximumSpeed: input.double([20_000, .nan, 0, -1, .infinity, 1]))
            recognizers.append(recognizer)
            let tossable = Tossable(
                position: element.position, to: destinations[input.index(destinations.count)], containerView: container,
                springSource: springSource, panGestureRecognizer: recognizer)
            add(tossable)
        case 1:
            let element = elements[input.index(elements.count)]
            add(AttachWithSpring(position: element.position, to: destinations[input.index(destinations.count)], springSource: springSource))
        case 2:
            guard !interactions.isEmpty else { return }
            let interaction = interactions.remove(at: input.index(interactions.count))
            runtime.remove(interaction)
        case 3, 4:
            guard !recognizers.isEmpty else { return }
            let recognizer = recognizers[input.index(recognizers.count)]
            let time = nextTimestamp(), translation = point()
            let event: GestureEvent
            switch input.byte() % 4 {
            case 0: event = .began(translation: translation, timestamp: time)
            case 1: event = .changed(translation: translation, timestamp: time)
            case 2: event = .ended(translation: translation, timestamp: time)
            default: event = .cancelled(timestamp: time)
            }
            _ = recognizer.handle(event)
            let velocity = recognizer.velocity
            guard velocity.x.isFinite, velocity.y.isFinite else { violated("a recognizer's velocity is \(velocity)") }
        case 5:
            guard !rotations.isEmpty || !pinches.isEmpty else { return }
            let time = nextTimestamp(), amount = number()
            if input.bool(), !rotations.isEmpty {
                let recognizer = rotations[input.index(rotations.count)]
                _ = recognizer.handle([RotationGestureEvent.began(rotation: amount, timestamp: time), .changed(rotation: amount, timestamp: time),
                                       .ended(rotation: amount, timestamp: time), .cancelled(timestamp: time)][input.index(4)])
            } else if !pinches.isEmpty {
                let recognizer = pinches[input.index(pinches.count)]
                _ = recognizer.handle([PinchGestureEvent.began(scale: amount, timestamp: time), .changed(scale: amount, timestamp: time),
                                       .ended(scale: amount, timestamp: time), .cancelled(timestamp: time)][input.index(4)])
            }
        case 6, 7, 8:
            frame()
        case 9:
            destinations[input.index(destinations.count)].value = point()
        case 10:
            elements[input.index(elements.count)].position.value = point()
        case 11:
            let element = elements[input.index(elements.count)]
            switch input.byte() % 4 {
            case 0: runtime.addPlan(SpringTo(.position, destination: point()), to: element)
            case 1:
                let recognizer = GestureRecognizer()
                recognizers.append(recognizer)
                runtime.addPlan(Draggable(withGestureRecognizer: recognizer), to: element)
                runtime.addPlan(PausesSpring(.position, whileActive: recognizer), to: element)
            case 2:
                let plan = DirectlyManipulable()
                recognizers.append(plan.dragGestureRecognizer)
                rotations.append(plan.rotationGestureRecognizer)
                pinches.append(plan.pinchGestureRecognizer)
                runtime.addPlan(plan, to: element)
            default: runtime.addPlan(SpringTo(.opacity, destination: Float(number())), to: element)
            }
        case 12:
            subscribeProbe()
        case 13:
            guard !probes.isEmpty else { return }
            let probe = probes[input.index(probes.count)]
            if input.bool() { cancel(probe) } else { probe.destination.value = number() }
        case 14:
            _ = runtime.whenAllAtRest { [unowned self] in
                guard self.runtime.isAllAtRest else { violated("whenAllAtRest ran while springs move") }
            }
        default:
            if elements.count < 6 { elements.append(MotionElement(position: point())) }
        }
    }

    func add(_ interaction: Interaction) {
        do {
            try runtime.add(interaction)
            interactions.append(interaction)
        } catch {
            violated("adding a new interaction threw \(error)")
        }
    }

    func subscribeProbe() {
        let spring = Spring(to: ReactiveProperty(CGFloat(0)), initialValue: ReactiveProperty(number()))
        let probe = Probe(spring: spring)
        spring.destination.value = number()
        let stream = springSource(spring)
        probe.subscription = stream.subscribe(in: runtime, next: { [unowned probe] value in
            guard !probe.cancelled else { violated("a value after cancellation") }
            guard probe.lastState == .active else { violated("a value while \(String(describing: probe.lastState))") }
            guard value.isFinite else { violated("a non-finite value \(value)") }
        }, state: { [unowned probe] state in
            guard !probe.cancelled else { violated("\(state) after cancellation") }
            guard probe.lastState != state else { violated("\(state) twice in a row") }
            probe.lastState = state
        })
        probes.append(probe)
    }

    func cancel(_ probe: Probe) {
        probe.subscription?.cancel()
        probe.subscription = nil
        probe.cancelled = true
    }

    func frame() {
        let before = runtime.kernel.frame
        do {
            switch input.byte() % 3 {
            case 0: try runtime.advance(by: input.double(Self.durations))
            case 1: try runtime.advance(toTimestamp: nextTimestamp())
            default:
                try runtime.stepSprings(by: input.double(Self.durations))
                runtime.deliverFrame()
            }
        } catch {
            guard runtime.kernel.frame == before else { violated("a refused frame (\(error)) stepped the kernel") }
        }
    }
}
