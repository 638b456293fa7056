import Foundation
@testable import MotionInteractions
@_spi(KernelInternals) @testable import SpringKernel

/// A broken promise of the interaction layer, found by a randomized script.
struct ScriptViolation: Error, CustomStringConvertible {
    let description: String
}

/// One randomized script against one ``MotionRuntime``: spring streams of several value types,
/// AttachWithSpring and Tossable interactions, an element driven by plans (SpringTo,
/// Draggable, PausesSpring held by two recognizers), and a DirectlyManipulable element (position,
/// rotation and scale springs; a drag, a rotation and a pinch), fed timestamped gesture events (bursts with
/// one timestamp, events out of time order, non-finite ones, events that do not fit the state),
/// retargets, configuration changes, pauses, cancellations, interaction additions and removals
/// (also from inside the streams' own callbacks), and frames of every kind (valid, refused,
/// display-link timestamps, split step and delivery).
///
/// The expected output is the layer's contract, checked as it happens and after every call:
/// - every stream: its first event is its state, sent while subscribing; states alternate (no
///   `.atRest` or `.active` twice in a row); values come only while it is `.active`, at most one
///   per frame, all finite, equal to its kernel springs' values, and the value before a frame's
///   `.atRest` is its destination; nothing at all after it is cancelled;
/// - every stream, interaction and plan-driven property is `.active` exactly while one of its
///   kernel springs is awake (or, for a Tossable, while its drag is in progress): so no `.atRest`
///   is missed or sent early;
/// - a released drag restarts its spring from the position the drag left and the gesture's
///   velocity; a held spring is paused in the kernel exactly while a recognizer holds it (the
///   manipulated position as deep as the drag, rotation and pinch in progress); a released
///   rotation or pinch restarts its rotation or scale spring from the element's value with the
///   gesture's velocity, and the position, once nothing holds it, from where the fingers left it;
/// - the kernel holds exactly the springs of the connected streams, its invariants hold,
///   `isAllAtRest` agrees with it, and `whenAllAtRest` actions run once, when nothing moves;
/// - a refused frame (bad duration or timestamp, or an advance from inside a callback) throws
///   its error and delivers nothing.
final class InteractionModelRun {
    /// A springSource subscription and everything it received.
    final class StreamProbe {
        let name: String
        var componentCount = 1
        /// The stream's kernel springs, in component order.
        var handles: [SpringHandle] = []
        var subscription: Subscription?
        var setDestination: (SIMD4<Float>) -> Void = { _ in }
        var setInitial: (SIMD4<Float>, SIMD4<Float>) -> Void = { _, _ in }
        var setConfiguration: (SpringConfiguration) -> Void = { _ in }
        var isCancelled = false
        var isPaused = false
        var states: [MotionState] = []
        var lastValue: SIMD4<Float>?
        var lastValueFrame = -1
        var valueCount = 0
        /// Something a callback did this frame may have changed the stream after its delivery.
        var touchedFrame = -1
        /// A one-shot action to run inside the stream's next callback.
        var armed: ((StreamProbe) -> Void)?
        unowned let run: InteractionModelRun

        init(name: String, run: InteractionModelRun) {
            self.name = name
            self.run = run
        }

        func receive(value: SIMD4<Float>) {
            run.check(!isCancelled, "\(name) received a value after its cancellation")
            run.check(states.last == .active, "\(name) received a value while \(String(describing: states.last))")
            for c in 0..<componentCount { run.check(value[c].isFinite, "\(name) received a non-finite value \(value)") }
            let frame = run.runtime.kernel.frame
            run.check(lastValueFrame != frame, "\(name) received two values in frame \(frame)")
            lastValue = value
            lastValueFrame = frame
            valueCount += 1
            fire()
        }

        func receive(state: MotionState) {
            run.check(!isCancelled, "\(name) received \(state) after its cancellation")
            run.check(states.last != state, "\(name) received \(state) twice in a row")
            if state == .atRest, run.isDelivering, lastValueFrame == run.runtime.kernel.frame, touchedFrame != run.runtime.kernel.frame {
                // Rested in this frame: its last value is exactly where its springs rest.
                for (c, handle) in handles.enumerated() {
                    let target = (try? run.runtime.kernel.target(of: handle)) ?? .nan
                    run.check(lastValue![c] == target, "\(name) rested at \(lastValue!), component \(c) heads for \(target)")
                }
            }
            states.append(state)
            fire()
        }

        private func fire() {
            guard let action = armed else { return }
            armed = nil
            action(self)
        }
    }

    /// An AttachWithSpring or Tossable and what it wrote.
    final class InteractionProbe {
        let name: String
        let interaction: AttachWithSpring
        let element: MotionElement
        let recognizer: GestureRecognizer?
        var handles: [SpringHandle] = []
        var isRemoved = false
        var states: [MotionState] = []
        var observations: [Subscription] = []
        /// The script itself is writing the position (a bad input), not the interaction.
        var scriptWrites = false
        /// The script wrote a NaN position and nothing finite has been written since: a drag
        /// anchored there moves NaN (garbage in, garbage out; springs never take it, see Spring).
        var poisoned = false
        unowned let run: InteractionModelRun

        init(name: String, interaction: AttachWithSpring, element: MotionElement, recognizer: GestureRecognizer?, run: InteractionModelRun) {
            self.name = name
            self.interaction = interaction
            self.element = element
            self.recognizer = recognizer
            self.run = run
        }
    }

    let seed: UInt64
    let operationCount: Int
    var generator: SplitMix64
    let runtime: MotionRuntime
    var streams: [StreamProbe] = []
    var interactions: [InteractionProbe] = []
    /// The plan-driven element: SpringTo, Draggable by `drag`, PausesSpring by `drag` and `hold`.
    let planElement = MotionElement(position: CGPoint(x: 10, y: 20))
    let drag = GestureRecognizer()
    let hold = GestureRecognizer()
    /// Dragged, rotated and pinched at once (DirectlyManipulable), springing home meanwhile.
    let manipulated = MotionElement(position: CGPoint(x: -40, y: 60))
    let manipulable = DirectlyManipulable()
    var isManipulableAdded = false
    var planStates: [MotionState] = []
    var gestureClocks: [ObjectIdentifier: Double] = [:]
    /// The recognizer that let the manipulated position go last while the drag was in progress
    /// (it restarts with the drag's velocity only if that was the drag).
    var clock = 0.0
    var isDelivering = false
    var waiters: [(id: Int, ran: Int, cancelled: Bool, subscription: Subscription)] = []
    var waiterRuns: [Int: Int] = [:]
    var violations: [String] = []
    var log: [String] = []
    let keepsLog: Bool
    var tally = (operations: 0, frames: 0, values: 0, rests: 0, gestureEvents: 0, callbackActions: 0, refusals: 0)
    var nextName = 0

    init(seed: UInt64, operations: Int, keepsLog: Bool = false) {
        self.seed = seed
        self.operationCount = operations
        self.keepsLog = keepsLog
        generator = SplitMix64(seed: seed &* 0x2545_F491 &+ 99)
        runtime = MotionRuntime(threading: Bool.random(using: &generator) ? .single : .fixed(2))
        planElement.addGestureRecognizer(drag)
        planElement.addGestureRecognizer(hold)
    }

    func note(_ line: @autoclosure () -> String) {
        if keepsLog { log.append("[frame \(runtime.kernel.frame)] " + line()) }
    }

    func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { violations.append("\(message()) [frame \(runtime.kernel.frame)]") }
    }

    func stopOnViolation() throws {
        if let first = violations.first { throw ScriptViolation(description: first) }
    }

    // MARK: Running

    func run() throws {
        runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 300, y: -200)), to: planElement)
        runtime.addPlan(Draggable(withGestureRecognizer: drag), to: planElement)
        runtime.addPlan(PausesSpring(.position, whileActive: drag), to: planElement)
        runtime.addPlan(PausesSpring(.position, whileActive: hold), to: planElement)
        runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 120, y: 80)), to: manipulated)
        runtime.addPlan(SpringTo(.rotation, destination: 0.5), to: manipulated)
        runtime.addPlan(SpringTo(.scale, destination: 1.5), to: manipulated)
        runtime.addPlan(manipulable, to: manipulated)
        isManipulableAdded = true
        if let property = runtime.propertySpring(for: planElement.position) {
            _ = property.state.observe { [unowned self] state in
                check(planStates.last != state, "plan spring sent \(state) twice")
                planStates.append(state)
            }
        }
        for _ in 0..<3 { addStream() }
        try addInteraction(tossable: false)
        try addInteraction(tossable: true)
        try verify()
        for _ in 0..<operationCount {
            tally.operations += 1
            let frame = runtime.kernel.frame
            _ = try operation()
            try verify(afterFrame: runtime.kernel.frame != frame)
        }
        // Let go of every gesture and pause, and run until everything rests: nothing may be left
        // moving. (Callbacks are disarmed first: one could pause a stream again.)
        for probe in streams { probe.armed = nil }
        for recognizer in [drag, hold, manipulable.dragGestureRecognizer] + interactions.compactMap(\.recognizer) where recognizer.isActive {
            gesture(recognizer, .ended(translation: recognizer.translation, timestamp: nextTime(recognizer)))
        }
        let (rotation, pinch) = (manipulable.rotationGestureRecognizer, manipulable.pinchGestureRecognizer)
        if rotation.isActive { oneAxisGesture(.rotation, .ended(rotation.rotation, timestamp: nextTime(rotation))) }
        if pinch.isActive { oneAxisGesture(.pinch, .ended(pinch.scale, timestamp: nextTime(pinch))) }
        for probe in streams where probe.isPaused && !probe.isCancelled {
            probe.isPaused = false
            probe.subscription?.resume()
        }
        try verify()
        var frames = 0
        while !runtime.isAllAtRest {
            try frame(dt: 1.0 / 60)
            try verify(afterFrame: true)
            frames += 1
            guard frames < 3000 else {
                let moving = runtime.springHandles.filter { (try? runtime.kernel.isAtRest($0)) == false }.map { handle in
                    "\(handle): paused \(String(describing: try? runtime.kernel.isPaused(handle))) depth \(String(describing: try? runtime.kernel.pauseDepth(of: handle))) value \(String(describing: try? runtime.kernel.value(of: handle))) target \(String(describing: try? runtime.kernel.target(of: handle))) velocity \(String(describing: try? runtime.kernel.velocity(of: handle))) config \(String(describing: try? runtime.kernel.configuration(of: handle)))"
                }
                throw ScriptViolation(description: "still moving after 3000 settling frames: \(moving)")
            }
        }
    }

    /// One random call; returns whether it was a frame.
    func operation() throws -> Bool {
        switch Int.random(in: 0..<100, using: &generator) {
        case 0..<30: try frame(dt: frameDuration()); return true
        case 30..<34: try refusedFrame()
        case 34..<38: try timestampFrame(); return true
        case 38..<40: try splitFrame(); return true
        case 40..<52: randomGesture()
        case 52..<57: addStream()
        case 57..<61: cancelStream()
        case 61..<68: retargetStream()
        case 68..<71: pauseOrResumeStream()
        case 71..<73: reconfigureStream()
        case 73..<82: armCallback()
        case 82..<85: try addInteraction(tossable: Bool.random(using: &generator))
        case 85..<87: removeInteraction()
        case 87..<89: retargetInteraction()
        case 89..<91: springToPlan()
        case 91..<93: writeNaNPosition()
        case 93..<96: registerWaiter()
        default: try addInteractionTwice()
        }
        return false
    }

    // MARK: Frames

    func frameDuration() -> Double {
        switch Int.random(in: 0..<30, using: &generator) {
        case 0: return 2.0
        case 1: return 1.0 / 120
        case 2: return Double.random(in: 0.001...0.05, using: &generator)
        default: return 1.0 / 60
        }
    }

    func frame(dt: Double) throws {
        note("advance(by: \(dt))")
        isDelivering = true
        defer { isDelivering = false }
        try runtime.advance(by: dt)
        tally.frames += 1
        tally.rests += runtime.kernel.restedInLastStep.count
    }

    func refusedFrame() throws {
        let dt = [0, -1.0 / 60, .nan, .infinity, -.infinity].randomElement(using: &generator)!
        note("advance(by: \(dt)) (refused)")
        let frame = runtime.kernel.frame, values = streams.map(\.valueCount)
        do throws(MotionRuntimeError) {
            try runtime.advance(by: dt)
            check(false, "advance(by: \(dt)) was not refused")
        } catch {
            if case .invalidFrameDuration(let refused) = error {
                check(refused.bitPattern == dt.bitPattern || (refused.isNaN && dt.isNaN), "refused with \(refused), not \(dt)")
            } else {
                check(false, "advance(by: \(dt)) threw \(error)")
            }
        }
        check(runtime.kernel.frame == frame && streams.map(\.valueCount) == values, "a refused frame delivered something")
        tally.refusals += 1
    }

    /// Display-link timestamps: steady with jitter, repeated, earlier, a long gap, or NaN.
    func timestampFrame() throws {
        let timestamp: Double
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: timestamp = clock  // repeated: steps nothing
        case 1: timestamp = clock - 0.5  // earlier: a clock reset, one frame of the last duration
        case 2: timestamp = .nan
        case 3: timestamp = clock + 1.5
        default: timestamp = clock + 1.0 / 60 + Double.random(in: -0.0002...0.0002, using: &generator)
        }
        note("advance(toTimestamp: \(timestamp))")
        isDelivering = true
        defer { isDelivering = false }
        do throws(MotionRuntimeError) {
            try runtime.advance(toTimestamp: timestamp)
            check(timestamp.isFinite, "advance(toTimestamp: \(timestamp)) was not refused")
        } catch {
            check(error == .invalidTimestamp(timestamp) || (timestamp.isNaN && !timestamp.isFinite), "advance(toTimestamp:) threw \(error)")
            tally.refusals += 1
        }
        if timestamp.isFinite { clock = timestamp }
    }

    /// The two phases apart, sometimes two steps before one delivery (the first is delivered by
    /// the second step, so no rest event is lost).
    func splitFrame() throws {
        note("stepSprings + deliverFrame")
        isDelivering = true
        defer { isDelivering = false }
        try runtime.stepSprings(by: 1.0 / 60)
        tally.rests += runtime.kernel.restedInLastStep.count
        if Bool.random(using: &generator) {
            try runtime.stepSprings(by: 1.0 / 60)
            tally.rests += runtime.kernel.restedInLastStep.count
        }
        runtime.deliverFrame()
        runtime.deliverFrame()
        tally.frames += 1
    }

    // MARK: Gestures

    func nextTime(_ recognizer: AnyObject) -> Double {
        let key = ObjectIdentifier(recognizer)
        let time = (gestureClocks[key] ?? 0) + Double.random(in: 0.004...0.03, using: &generator)
        gestureClocks[key] = time
        return time
    }

    func gesture(_ recognizer: GestureRecognizer, _ event: GestureEvent) {
        note("gesture \(ObjectIdentifier(recognizer).hashValue % 1000): \(event)")
        let fits: Bool
        switch event {
        case .began: fits = !recognizer.isActive
        default: fits = recognizer.isActive
        }
        let ignored = recognizer.ignoredEventCount
        let accepted = recognizer.handle(event)
        tally.gestureEvents += 1
        check(accepted == fits, "an event that \(fits ? "fits" : "does not fit") the state was \(accepted ? "accepted" : "ignored"): \(event)")
        check(recognizer.ignoredEventCount == ignored + (fits ? 0 : 1), "ignoredEventCount")
        let velocity = recognizer.velocity
        check(velocity.x.isFinite && velocity.y.isFinite, "a recognizer's velocity is not finite: \(velocity)")
        check(recognizer.translation.x.isFinite && recognizer.translation.y.isFinite, "a recognizer's translation is not finite")
        if accepted, case .ended = event { checkRelease(of: recognizer) }
        if accepted, case .cancelled = event { checkRelease(of: recognizer) }
    }

    /// A random event for a random recognizer: a drag's next move, a burst with one timestamp,
    /// an event out of time order, a non-finite one, or one that does not fit.
    func randomGesture() {
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return randomOneAxisGesture(.rotation)
        case 1: return randomOneAxisGesture(.pinch)
        default: break
        }
        let recognizers = [drag, hold, manipulable.dragGestureRecognizer] + interactions.filter { !$0.isRemoved }.compactMap(\.recognizer)
        let recognizer = recognizers.randomElement(using: &generator)!
        let key = ObjectIdentifier(recognizer)
        func translation() -> CGPoint {
            CGPoint(x: recognizer.translation.x + CGFloat(Double.random(in: -40...40, using: &generator)),
                    y: recognizer.translation.y + CGFloat(Double.random(in: -40...40, using: &generator)))
        }
        guard recognizer.isActive else {
            if Int.random(in: 0..<5, using: &generator) == 0 {
                gesture(recognizer, .changed(translation: translation(), timestamp: nextTime(recognizer)))  // ignored
            } else {
                gesture(recognizer, .began(timestamp: nextTime(recognizer)))
            }
            return
        }
        switch Int.random(in: 0..<12, using: &generator) {
        case 0:  // a burst: several events with one timestamp
            let time = nextTime(recognizer)
            for _ in 0..<Int.random(in: 2...4, using: &generator) { gesture(recognizer, .changed(translation: translation(), timestamp: time)) }
        case 1:  // out of time order
            let time = (gestureClocks[key] ?? 0) - Double.random(in: 0.001...0.2, using: &generator)
            gesture(recognizer, .changed(translation: translation(), timestamp: time))
        case 2:  // non-finite
            gesture(recognizer, .changed(translation: CGPoint(x: CGFloat.nan, y: 3), timestamp: .nan))
        case 3:  // does not fit: ignored
            gesture(recognizer, .began(timestamp: nextTime(recognizer)))
        case 4, 5: gesture(recognizer, .ended(translation: translation(), timestamp: nextTime(recognizer)))
        case 6: gesture(recognizer, .cancelled(timestamp: nextTime(recognizer)))
        default: gesture(recognizer, .changed(translation: translation(), timestamp: nextTime(recognizer)))
        }
    }

    /// After a drag ends or is cancelled: the spring it held restarts from the position the drag
    /// left, with the gesture's release velocity, unless something else still holds it.
    func checkRelease(of recognizer: GestureRecognizer) {
        if recognizer === manipulable.dragGestureRecognizer {
            return checkManipulatedPosition(releasedBy: recognizer, velocity: recognizer.velocity(in: nil))
        }
        if recognizer === drag || recognizer === hold {
            guard let property = runtime.propertySpring(for: planElement.position), !drag.isActive, !hold.isActive else { return }
            let position = planElement.position.value
            let velocity = recognizer.velocity(in: recognizer.view)
            let expected = [(Float(position.x), Float(velocity.x)), (Float(position.y), Float(velocity.y))]
            for (c, handle) in property.springs.enumerated() where expected[c].0.isFinite {
                let value = (try? runtime.kernel.value(of: handle)) ?? .nan, speed = (try? runtime.kernel.velocity(of: handle)) ?? .nan
                let target = (try? runtime.kernel.target(of: handle)) ?? .nan
                check(isStored(value, expected[c].0, target: target) && speed == expected[c].1, "plan spring released at \(value), \(speed); expected \(expected[c])")
            }
            return
        }
        guard let probe = interactions.first(where: { $0.recognizer === recognizer }), !probe.isRemoved,
            let tossable = probe.interaction as? Tossable
        else { return }
        let position = probe.element.position.value, velocity = tossable.initialVelocity.value
        check(velocity == recognizer.velocity(in: tossable.containerView), "\(probe.name) tossed with \(velocity), the gesture's is \(recognizer.velocity(in: tossable.containerView))")
        let expected = [(Float(position.x), Float(velocity.x)), (Float(position.y), Float(velocity.y))]
        for (c, handle) in probe.handles.enumerated() where expected[c].0.isFinite {
            let value = (try? runtime.kernel.value(of: handle)) ?? .nan, speed = (try? runtime.kernel.velocity(of: handle)) ?? .nan
            let target = (try? runtime.kernel.target(of: handle)) ?? .nan
            check(isStored(value, expected[c].0, target: target) && speed == expected[c].1, "\(probe.name) released at \(value), \(speed); expected \(expected[c])")
        }
    }

    // MARK: Rotation and pinch

    /// The manipulation's one-axis gestures: the rotation (an angle) and the pinch (a scale).
    enum OneAxisGesture: String { case rotation, pinch }

    /// An event of either, before it becomes a ``RotationGestureEvent`` or a ``PinchGestureEvent``.
    enum OneAxisEvent {
        case began(timestamp: Double)
        case changed(CGFloat, timestamp: Double)
        case ended(CGFloat, timestamp: Double)
        case cancelled(timestamp: Double)
    }

    func recognizer(_ gesture: OneAxisGesture) -> AnyObject {
        switch gesture {
        case .rotation: manipulable.rotationGestureRecognizer
        case .pinch: manipulable.pinchGestureRecognizer
        }
    }

    func isActive(_ gesture: OneAxisGesture) -> Bool {
        switch gesture {
        case .rotation: manipulable.rotationGestureRecognizer.isActive
        case .pinch: manipulable.pinchGestureRecognizer.isActive
        }
    }

    /// The gesture's angle or scale, and its velocity.
    func reading(_ gesture: OneAxisGesture) -> (value: CGFloat, velocity: CGFloat) {
        switch gesture {
        case .rotation: (manipulable.rotationGestureRecognizer.rotation, manipulable.rotationGestureRecognizer.velocity)
        case .pinch: (manipulable.pinchGestureRecognizer.scale, manipulable.pinchGestureRecognizer.velocity)
        }
    }

    /// A random event for the manipulated element's rotation or pinch: a move, a burst with one
    /// timestamp, one out of time order, a non-finite one, a release, a cancel, or one that does
    /// not fit.
    func randomOneAxisGesture(_ gesture: OneAxisGesture) {
        let recognizer = recognizer(gesture)
        let next: () -> CGFloat = switch gesture {
        case .rotation: { self.reading(.rotation).value + CGFloat(Double.random(in: -0.4...0.4, using: &self.generator)) }
        case .pinch: { max(0.05, self.reading(.pinch).value + CGFloat(Double.random(in: -0.3...0.3, using: &self.generator))) }
        }
        guard isActive(gesture) else {
            if Int.random(in: 0..<5, using: &generator) == 0 {
                oneAxisGesture(gesture, .changed(next(), timestamp: nextTime(recognizer)))  // ignored
            } else {
                oneAxisGesture(gesture, .began(timestamp: nextTime(recognizer)))
            }
            return
        }
        switch Int.random(in: 0..<10, using: &generator) {
        case 0:
            let time = nextTime(recognizer)
            for _ in 0..<Int.random(in: 2...4, using: &generator) { oneAxisGesture(gesture, .changed(next(), timestamp: time)) }
        case 1:
            let time = (gestureClocks[ObjectIdentifier(recognizer)] ?? 0) - Double.random(in: 0.001...0.2, using: &generator)
            oneAxisGesture(gesture, .changed(next(), timestamp: time))
        case 2: oneAxisGesture(gesture, .changed(gesture == .rotation ? .nan : .infinity, timestamp: .nan))
        case 3: oneAxisGesture(gesture, .began(timestamp: nextTime(recognizer)))  // does not fit: ignored
        case 4, 5: oneAxisGesture(gesture, .ended(next(), timestamp: nextTime(recognizer)))
        case 6: oneAxisGesture(gesture, .cancelled(timestamp: nextTime(recognizer)))
        default: oneAxisGesture(gesture, .changed(next(), timestamp: nextTime(recognizer)))
        }
    }

    /// Sends `event` to the gesture's recognizer and checks what it did: accepted exactly when it
    /// fits, finite readings, and after a release the restart of the property it held (the
    /// rotation's or the scale's spring with the gesture's velocity) and of the position.
    func oneAxisGesture(_ gesture: OneAxisGesture, _ event: OneAxisEvent) {
        let fits: Bool
        if case .began = event { fits = !isActive(gesture) } else { fits = isActive(gesture) }
        let accepted: Bool
        switch gesture {
        case .rotation:
            let rotation: RotationGestureEvent = switch event {
            case .began(let time): .began(timestamp: time)
            case .changed(let angle, let time): .changed(rotation: angle, timestamp: time)
            case .ended(let angle, let time): .ended(rotation: angle, timestamp: time)
            case .cancelled(let time): .cancelled(timestamp: time)
            }
            note("rotation: \(rotation)")
            accepted = manipulable.rotationGestureRecognizer.handle(rotation)
        case .pinch:
            let pinch: PinchGestureEvent = switch event {
            case .began(let time): .began(timestamp: time)
            case .changed(let scale, let time): .changed(scale: scale, timestamp: time)
            case .ended(let scale, let time): .ended(scale: scale, timestamp: time)
            case .cancelled(let time): .cancelled(timestamp: time)
            }
            note("pinch: \(pinch)")
            accepted = manipulable.pinchGestureRecognizer.handle(pinch)
        }
        tally.gestureEvents += 1
        check(accepted == fits, "a \(gesture) event that \(fits ? "fits" : "does not fit") the state was \(accepted ? "accepted" : "ignored"): \(event)")
        let (value, velocity) = reading(gesture)
        check(value.isFinite && velocity.isFinite, "the \(gesture)'s reading or velocity is not finite")
        switch event {
        case .ended where accepted, .cancelled where accepted:
            let property = gesture == .rotation ? manipulated.rotation : manipulated.scale
            checkReleased(runtime.propertySpring(for: property)?.springs, value: Float(property.value), velocity: Float(velocity), gesture == .rotation ? "rotation" : "scale")
            checkManipulatedPosition(releasedBy: recognizer(gesture), velocity: .zero)
        default: break
        }
    }

    /// A one-component spring its gesture let go: restarted from the property's value with the
    /// gesture's velocity.
    func checkReleased(_ springs: [SpringHandle]?, value: Float, velocity: Float, _ name: String) {
        guard let handle = springs?.first, value.isFinite else { return }
        let kernel = (try? runtime.kernel.value(of: handle)) ?? .nan, speed = (try? runtime.kernel.velocity(of: handle)) ?? .nan
        let target = (try? runtime.kernel.target(of: handle)) ?? .nan
        check(isStored(kernel, value, target: target) && speed == velocity, "the \(name) spring released at \(kernel), \(speed); expected \(value), \(velocity)")
    }

    /// After one of the manipulation's gestures lets go: once none holds the position, its springs
    /// restart from where the fingers left it, with the drag's velocity if the drag let go last
    /// (a rotation or a pinch letting go last gives none).
    func checkManipulatedPosition(releasedBy recognizer: AnyObject, velocity: CGPoint) {
        let m = manipulable
        guard !m.dragGestureRecognizer.isActive, !m.rotationGestureRecognizer.isActive, !m.pinchGestureRecognizer.isActive,
            let springs = runtime.propertySpring(for: manipulated.position)?.springs
        else { return }
        let position = manipulated.position.value
        let expected = [(Float(position.x), Float(velocity.x)), (Float(position.y), Float(velocity.y))]
        for (c, handle) in springs.enumerated() where expected[c].0.isFinite {
            let value = (try? runtime.kernel.value(of: handle)) ?? .nan, speed = (try? runtime.kernel.velocity(of: handle)) ?? .nan
            let target = (try? runtime.kernel.target(of: handle)) ?? .nan
            let restart = expected[c].1.isFinite ? expected[c].1 : 0
            check(isStored(value, expected[c].0, target: target) && speed == restart,
                  "the manipulated position released at \(value), \(speed); expected \(expected[c].0), \(restart)")
        }
    }

    // MARK: Streams

    func randomComponents(_ count: Int, spread: Double = 500) -> SIMD4<Float> {
        var result = SIMD4<Float>.zero
        for c in 0..<count { result[c] = Float(Double.random(in: -spread...spread, using: &generator)) + Float(c) * 0.125 }
        return result
    }

    @discardableResult
    func addStream() -> StreamProbe {
        nextName += 1
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: return addStream(Float.self)
        case 1: return addStream(CGPoint.self)
        default: return addStream(SIMD3<Float>.self)
        }
    }

    func addStream<T: SpringAnimatable>(_: T.Type) -> StreamProbe {
        let probe = StreamProbe(name: "stream \(nextName) (\(T.self))", run: self)
        probe.componentCount = T.springComponentCount
        let start = randomComponents(probe.componentCount)
        // Sometimes it starts where it is going: at rest.
        let destination = Int.random(in: 0..<6, using: &generator) == 0 ? start : randomComponents(probe.componentCount)
        let spring = Spring(to: ReactiveProperty(T(springComponents: destination)), initialValue: ReactiveProperty(T(springComponents: start)),
                            threshold: [0.5, 0.01, 1].randomElement(using: &generator)!)
        spring.initialVelocity.value = T(springComponents: Bool.random(using: &generator) ? .zero : randomComponents(probe.componentCount, spread: 3000))
        probe.setDestination = { spring.destination.value = T(springComponents: $0) }
        probe.setInitial = { value, velocity in
            spring.initialValue.value = T(springComponents: value)
            spring.initialVelocity.value = T(springComponents: velocity)
        }
        probe.setConfiguration = { spring.configuration.value = $0 }
        note("subscribe \(probe.name): \(start) → \(destination)")
        let before = Set(runtime.springHandles)
        probe.subscription = springSource(spring).subscribe(
            in: runtime, next: { [unowned probe] (value: T) in probe.receive(value: value.springComponents) },
            state: { [unowned probe] (state: MotionState) in probe.receive(state: state) })
        check(probe.states.count == 1, "\(probe.name) was not sent its state while subscribing: \(probe.states)")
        // The stream's springs, in component order: each starts at its own distinct value.
        probe.handles = matchComponents(runtime.springHandles.filter { !before.contains($0) }, to: (0..<probe.componentCount).map { start[$0] })
        check(probe.handles.count == probe.componentCount, "\(probe.name) has springs \(probe.handles)")
        streams.append(probe)
        return probe
    }

    var liveStreams: [StreamProbe] { streams.filter { !$0.isCancelled } }

    /// Which new kernel spring is which component: each starts at its component's start value
    /// (to within the one rounding of storing it as a displacement from its target).
    func matchComponents(_ added: [SpringHandle], to starts: [Float]) -> [SpringHandle] {
        var free = added
        var result: [SpringHandle] = []
        for start in starts {
            guard let best = free.min(by: { abs(((try? runtime.kernel.value(of: $0)) ?? .infinity) - start) < abs(((try? runtime.kernel.value(of: $1)) ?? .infinity) - start) }) else { return result }
            result.append(best)
            free.removeAll { $0 == best }
        }
        return result
    }

    /// Whether a kernel value is `expected`, to within the rounding of storing a value as a
    /// float32 displacement from its target and reading it back.
    func isStored(_ value: Float, _ expected: Float, target: Float) -> Bool {
        abs(value - expected) <= (abs(expected) + abs(target)) * 0x1p-23
    }

    func cancel(_ probe: StreamProbe) {
        note("cancel \(probe.name)")
        probe.isCancelled = true
        probe.subscription?.cancel()
    }

    func cancelStream() {
        guard let probe = liveStreams.randomElement(using: &generator) else { return }
        cancel(probe)
        for handle in probe.handles { check(!runtime.kernel.contains(handle), "\(probe.name)'s springs stayed in the kernel after its cancellation") }
    }

    func retarget(_ probe: StreamProbe) {
        var destination = randomComponents(probe.componentCount)
        switch Int.random(in: 0..<8, using: &generator) {
        case 0: destination[0] = .nan  // ignored, component by component
        case 1: destination[0] = 1e30  // beyond the kernel's range: ignored
        case 2: if let last = probe.lastValue { destination = last }  // where it is
        default: break
        }
        note("retarget \(probe.name) to \(destination)")
        probe.setDestination(destination)
    }

    func retargetStream() {
        guard let probe = liveStreams.randomElement(using: &generator) else { return }
        retarget(probe)
    }

    func pauseOrResume(_ probe: StreamProbe) {
        if Int.random(in: 0..<3, using: &generator) == 0 {
            probe.setInitial(randomComponents(probe.componentCount), Bool.random(using: &generator) ? .zero : randomComponents(probe.componentCount, spread: 1000))
        }
        note("\(probe.isPaused ? "resume" : "pause") \(probe.name)")
        probe.isPaused.toggle()
        if probe.isPaused { probe.subscription?.pause() } else { probe.subscription?.resume() }
        // A callback that the pause or resume ran may have cancelled the stream: its springs are
        // then gone from the kernel (seed 1015 does this).
        let expected: Bool? = probe.isCancelled ? nil : probe.isPaused
        for handle in probe.handles {
            check((try? runtime.kernel.isPaused(handle)) == expected, "\(probe.name)'s springs paused: \(String(describing: try? runtime.kernel.isPaused(handle))), expected \(String(describing: expected))")
        }
    }

    func pauseOrResumeStream() {
        guard let probe = liveStreams.randomElement(using: &generator) else { return }
        pauseOrResume(probe)
    }

    func reconfigureStream() {
        guard let probe = liveStreams.randomElement(using: &generator) else { return }
        // Valid by construction: the kernel's configuration refuses bad parameters when it is made.
        let configuration = [
            try? SpringConfiguration(tension: 1323, friction: 91), .default,
            try? SpringConfiguration(tension: 200, friction: 8), try? SpringConfiguration(duration: 0.3, bounce: 0.4),
            try? SpringConfiguration(dampingRatio: 0.2, stiffness: 400),
        ].compactMap { $0 }.randomElement(using: &generator)!
        note("configure \(probe.name): \(configuration)")
        probe.setConfiguration(configuration)
    }

    /// Arms a stream with an action to run inside its next callback (a value or a state).
    func armCallback() {
        guard let probe = liveStreams.randomElement(using: &generator) else { return }
        let choice = Int.random(in: 0..<9, using: &generator)
        note("arm \(probe.name) with action \(choice)")
        probe.armed = { [unowned self] probe in
            guard !probe.isCancelled else { return }
            tally.callbackActions += 1
            let frame = runtime.kernel.frame
            note("  inside \(probe.name)'s callback: action \(choice)")
            switch choice {
            case 0: cancel(probe)
            case 1:
                if let other = liveStreams.randomElement(using: &generator) {
                    other.touchedFrame = frame
                    cancel(other)
                }
            case 2:
                if let other = liveStreams.randomElement(using: &generator) {
                    other.touchedFrame = frame
                    retarget(other)
                }
            case 3:
                if let other = liveStreams.randomElement(using: &generator) {
                    other.touchedFrame = frame
                    pauseOrResume(other)
                }
            case 4: addStream().touchedFrame = frame
            case 5: removeInteraction()
            case 6: try? addInteraction(tossable: Bool.random(using: &generator))
            case 7:
                // Advancing from inside a delivery is refused, and the frame carries on.
                if isDelivering {
                    do throws(MotionRuntimeError) {
                        try runtime.advance(by: 1.0 / 60)
                        check(false, "advance from inside a callback was not refused")
                    } catch {
                        check(error == .reentrantAdvance, "advance from inside a callback threw \(error)")
                    }
                }
            default: registerWaiter()
            }
        }
    }

    // MARK: Interactions

    func addInteraction(tossable: Bool) throws {
        nextName += 1
        let element = MotionElement(position: CGPoint(x: Double.random(in: -300...300, using: &generator), y: Double.random(in: -300...300, using: &generator) + 0.5))
        let destination = ReactiveProperty(CGPoint(x: Double.random(in: -300...300, using: &generator), y: Double.random(in: -300...300, using: &generator)))
        let interaction: AttachWithSpring
        var recognizer: GestureRecognizer?
        if tossable {
            let container = MotionElement(coordinateScale: [1, 2, 0.5].randomElement(using: &generator)!)
            let toss = Tossable(position: element.position, to: destination, containerView: container, springSource: springSource)
            recognizer = toss.panGestureRecognizer
            interaction = toss
        } else {
            interaction = AttachWithSpring(position: element.position, to: destination, springSource: springSource)
        }
        let probe = InteractionProbe(name: "\(tossable ? "tossable" : "attach") \(nextName)", interaction: interaction, element: element, recognizer: recognizer, run: self)
        probe.observations = [
            element.position.observe { [unowned self, unowned probe] position in
                check(!probe.isRemoved || probe.scriptWrites, "\(probe.name) wrote its position after its removal")
                let finite = position.x.isFinite && position.y.isFinite
                if finite { probe.poisoned = false }
                check(finite || probe.scriptWrites || probe.poisoned, "\(probe.name) wrote a non-finite position \(position)")
            },
            interaction.state.observe { [unowned self, unowned probe] state in
                check(!probe.isRemoved, "\(probe.name) changed state after its removal")
                check(probe.states.last != state, "\(probe.name) sent \(state) twice in a row")
                probe.states.append(state)
            },
        ]
        note("add \(probe.name)")
        let before = Set(runtime.springHandles)
        let start = element.position.value
        try runtime.add(interaction)
        probe.handles = matchComponents(runtime.springHandles.filter { !before.contains($0) }, to: [Float(start.x), Float(start.y)])
        check(probe.handles.count == 2, "\(probe.name) has springs \(probe.handles)")
        interactions.append(probe)
    }

    func removeInteraction() {
        guard let probe = interactions.filter({ !$0.isRemoved }).randomElement(using: &generator) else { return }
        note("remove \(probe.name)")
        probe.isRemoved = true
        runtime.remove(probe.interaction)
        check(!runtime.contains(probe.interaction), "\(probe.name) is still in the runtime")
        for handle in probe.handles { check(!runtime.kernel.contains(handle), "\(probe.name)'s springs stayed in the kernel after its removal") }
        // Its recognizer moves nothing any more.
        if let recognizer = probe.recognizer, Bool.random(using: &generator) {
            if !recognizer.isActive { gesture(recognizer, .began(timestamp: nextTime(recognizer))) }
            gesture(recognizer, .changed(translation: CGPoint(x: 5, y: 5), timestamp: nextTime(recognizer)))
            gesture(recognizer, .ended(translation: CGPoint(x: 9, y: 9), timestamp: nextTime(recognizer)))
        }
    }

    func retargetInteraction() {
        guard let probe = interactions.filter({ !$0.isRemoved }).randomElement(using: &generator) else { return }
        let destination = Int.random(in: 0..<6, using: &generator) == 0
            ? CGPoint(x: CGFloat.infinity, y: 4)
            : CGPoint(x: Double.random(in: -300...300, using: &generator), y: Double.random(in: -300...300, using: &generator))
        note("retarget \(probe.name) to \(destination)")
        probe.interaction.destination.value = destination
    }

    /// Adding an interaction again does nothing; adding it to another runtime is refused.
    func addInteractionTwice() throws {
        guard let probe = interactions.filter({ !$0.isRemoved }).randomElement(using: &generator) else { return }
        let count = runtime.kernel.count
        try runtime.add(probe.interaction)
        check(runtime.kernel.count == count, "adding \(probe.name) again changed the kernel")
        let other = MotionRuntime()
        do throws(MotionRuntimeError) {
            try other.add(probe.interaction)
            check(false, "\(probe.name) was added to a second runtime")
        } catch {
            check(error == .interactionBelongsToAnotherRuntime && other.kernel.count == 0, "a second runtime: \(error)")
        }
    }

    func springToPlan() {
        let destination = CGPoint(x: Double.random(in: -300...300, using: &generator), y: Double.random(in: -300...300, using: &generator))
        note("SpringTo \(destination)")
        runtime.addPlan(SpringTo(.position, destination: destination), to: planElement)
    }

    /// A NaN written to a position a spring drives: overwritten by the next frame's value.
    func writeNaNPosition() {
        if let probe = interactions.filter({ !$0.isRemoved }).randomElement(using: &generator) {
            note("write NaN to \(probe.name)'s position")
            probe.scriptWrites = true
            probe.poisoned = true
            probe.element.position.value = CGPoint(x: CGFloat.nan, y: probe.element.position.value.y)
            probe.scriptWrites = false
        }
    }

    func registerWaiter() {
        let id = waiters.count
        let immediate = runtime.isAllAtRest
        note("whenAllAtRest #\(id)")
        let subscription = runtime.whenAllAtRest { [unowned self] in
            check(runtime.isAllAtRest, "whenAllAtRest #\(id) ran while springs move")
            waiterRuns[id, default: 0] += 1
        }
        waiters.append((id, 0, false, subscription))
        if immediate { check(waiterRuns[id] == 1, "whenAllAtRest #\(id) did not run at once with nothing moving") }
        if Int.random(in: 0..<5, using: &generator) == 0, !immediate {
            waiters[id].cancelled = true
            subscription.cancel()
        }
    }

    // MARK: After every call

    func verify(afterFrame: Bool = false) throws {
        try stopOnViolation()
        let bank = runtime.kernel
        do { try runtime.bank._checkInvariants() } catch { throw ScriptViolation(description: "kernel invariant: \(error)") }
        var expected: Set<SpringHandle> = []
        for probe in liveStreams {
            expected.formUnion(probe.handles)
            let awake = probe.handles.contains { (try? bank.isAtRest($0)) == false }
            check(probe.states.last == (awake ? .active : .atRest), "\(probe.name) says \(String(describing: probe.states.last)), its springs are \(awake ? "awake" : "at rest")")
            // The last frame's value is the kernel's, unless a callback changed the stream after it.
            if afterFrame, probe.lastValueFrame == bank.frame, probe.touchedFrame != bank.frame, let value = probe.lastValue {
                for (c, handle) in probe.handles.enumerated() {
                    let kernel = (try? bank.value(of: handle)) ?? .nan
                    check(value[c] == kernel, "\(probe.name) was sent \(value[c]) for component \(c); the kernel has \(kernel)")
                }
            }
        }
        for probe in interactions where !probe.isRemoved {
            expected.formUnion(probe.handles)
            let awake = probe.handles.contains { (try? bank.isAtRest($0)) == false }
            let dragging = probe.recognizer?.isActive ?? false
            let state: MotionState = awake || dragging ? .active : .atRest
            check(probe.interaction.state.value == state, "\(probe.name) is \(probe.interaction.state.value); springs \(awake ? "awake" : "at rest"), drag \(dragging)")
        }
        if let property = runtime.propertySpring(for: planElement.position) {
            expected.formUnion(property.springs)
            let awake = property.springs.contains { (try? bank.isAtRest($0)) == false }
            check(property.state.value == (awake ? .active : .atRest), "the plan spring is \(property.state.value), its springs \(awake ? "awake" : "at rest")")
            let held = drag.isActive || hold.isActive
            for handle in property.springs { check((try? bank.isPaused(handle)) == held, "the plan spring's pause: kernel \(String(describing: try? bank.isPaused(handle))), recognizers \(held)") }
        }
        if isManipulableAdded {
            // The manipulated element: each spring paused as deep as the gestures holding it.
            let m = manipulable
            let holds = [m.dragGestureRecognizer.isActive, m.rotationGestureRecognizer.isActive, m.pinchGestureRecognizer.isActive]
            let depths: [([SpringHandle]?, Int, String)] = [
                (runtime.propertySpring(for: manipulated.position)?.springs, holds.filter { $0 }.count, "position"),
                (runtime.propertySpring(for: manipulated.rotation)?.springs, holds[1] ? 1 : 0, "rotation"),
                (runtime.propertySpring(for: manipulated.scale)?.springs, holds[2] ? 1 : 0, "scale"),
            ]
            for (springs, depth, name) in depths {
                check(springs?.isEmpty == false, "the manipulated \(name) has no spring")
                expected.formUnion(springs ?? [])
                for handle in springs ?? [] {
                    let kernel = try? bank.pauseDepth(of: handle)
                    check(kernel == depth, "the manipulated \(name) is paused \(String(describing: kernel)) deep, its gestures hold it \(depth) deep")
                }
            }
        }
        check(Set(runtime.springHandles) == expected && bank.count == expected.count, "the kernel holds \(bank.count) springs, the connected streams \(expected.count)")
        check(runtime.isAllAtRest == (bank.awakeCount == 0), "isAllAtRest \(runtime.isAllAtRest), kernel awake \(bank.awakeCount)")
        for waiter in waiters {
            let runs = waiterRuns[waiter.id, default: 0]
            check(runs <= 1, "whenAllAtRest #\(waiter.id) ran \(runs) times")
            if waiter.cancelled {
                check(runs == 0, "the cancelled whenAllAtRest #\(waiter.id) ran")
            } else if runtime.isAllAtRest {
                check(runs == 1, "whenAllAtRest #\(waiter.id) has not run though nothing moves")
            }
        }
        tally.values = streams.map(\.valueCount).reduce(0, +)
        try stopOnViolation()
    }
}
