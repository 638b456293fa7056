import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

@Suite("AttachWithSpring")
struct AttachWithSpringTests {
    @Test("pulls the position to the destination and rests on the kernel's frame")
    func attach() throws {
        let runtime = MotionRuntime()
        let view = MotionElement(position: CGPoint(x: 0, y: 0))
        let targetView = MotionElement(position: CGPoint(x: 120, y: -80))

        let attach = AttachWithSpring(position: view.position,
                                      to: targetView.position,
                                      springSource: springSource)
        #expect(attach.springConfiguration.value == (try SpringConfiguration(tension: 342, friction: 30)))
        #expect(attach.initialVelocity.value == .zero)
        try runtime.add(attach)
        #expect(attach.state.value == .active)

        var restFrames: [Int] = []
        let observation = attach.state.observe { [unowned runtime] state in
            if state == .atRest { restFrames.append(runtime.kernel.frame) }
        }
        try runtime.advance(by: frame60)
        let expected = try #require(try runtime.springHandles.compactMap { try runtime.kernel.restFrame(of: $0) }.max())
        try runtime.advanceUntilAllAtRest()
        #expect(restFrames == [expected])
        #expect(view.position.value == CGPoint(x: 120, y: -80))
        for handle in runtime.springHandles { #expect(try runtime.kernel.tolerance(of: handle) == 1) }
        observation.cancel()
    }

    @Test("follows a destination that moves, keeping its velocity")
    func movingDestination() throws {
        let runtime = MotionRuntime()
        let view = MotionElement()
        let targetView = MotionElement(position: CGPoint(x: 100, y: 100))
        try runtime.add(AttachWithSpring(position: view.position, to: targetView.position, springSource: springSource))
        try runtime.advanceFrames(4)
        let velocities = try runtime.springHandles.map { try runtime.kernel.velocity(of: $0) }
        targetView.position.value = CGPoint(x: -50, y: 300)
        #expect(try runtime.springHandles.map { try runtime.kernel.velocity(of: $0) } == velocities)
        try runtime.advanceUntilAllAtRest()
        #expect(view.position.value == CGPoint(x: -50, y: 300))
    }

    @Test("the initial velocity and configuration are read-only properties with settable values")
    func configurable() throws {
        let runtime = MotionRuntime()
        let view = MotionElement()
        let attach = AttachWithSpring(position: view.position, to: ReactiveProperty(CGPoint(x: 0, y: 100)), springSource: springSource)
        attach.initialVelocity.value = CGPoint(x: 0, y: -4000)
        attach.springConfiguration.value = try SpringConfiguration(tension: 1323, friction: 91)
        try runtime.add(attach)
        let y = runtime.springHandles[1]
        #expect(try runtime.kernel.velocity(of: y) == -4000)
        #expect(try runtime.kernel.configuration(of: y).tension == 1323)
        var minimum = CGFloat.infinity
        let observation = view.position.observe { minimum = min(minimum, $0.y) }
        try runtime.advanceUntilAllAtRest()
        #expect(minimum < 0)
        #expect(view.position.value == CGPoint(x: 0, y: 100))
        observation.cancel()
    }

    @Test("a settable position stream replaces the spring before the interaction is added")
    func settableStream() throws {
        let runtime = MotionRuntime()
        let view = MotionElement()
        let attach = AttachWithSpring(position: view.position, to: ReactiveProperty(CGPoint(x: 10, y: 10)), springSource: springSource)
        attach.positionStream = ReactiveProperty(CGPoint(x: 7, y: 7)).stream
        try runtime.add(attach)
        #expect(view.position.value == CGPoint(x: 7, y: 7))
        #expect(runtime.kernel.count == 0)
    }
}

@Suite("Tossable")
struct TossableTests {
    @Test("the drag follows the finger; the release tosses with the gesture's velocity")
    func dragAndToss() throws {
        let runtime = MotionRuntime()
        let view = MotionElement(position: CGPoint(x: 0, y: 0))
        let targetView = MotionElement(position: CGPoint(x: 0, y: 0))
        let container = MotionElement()

        let tossable = Tossable(position: view.position,
                                to: targetView.position,
                                containerView: container,
                                springSource: springSource)
        try runtime.add(tossable)
        #expect(tossable.panGestureRecognizer.view === container)
        #expect(tossable.state.value == .atRest)
        let springs = runtime.springHandles
        try #require(springs.count == 2)

        var script = ScriptedDrag(tossable.panGestureRecognizer)
        script.begin()
        #expect(tossable.state.value == .active)
        #expect(try runtime.kernel.isPaused(springs[0]))
        for step in 1...8 {
            script.move(to: CGPoint(x: 10 * Double(step), y: 25 * Double(step)))
            try runtime.advance(by: frame60)
            #expect(view.position.value == CGPoint(x: 10 * Double(step), y: 25 * Double(step)))
        }
        script.end(at: CGPoint(x: 90, y: 225))
        let velocity = tossable.panGestureRecognizer.velocity
        #expect(abs(velocity.x - 600) < 1e-6 && abs(velocity.y - 1500) < 1e-6)
        #expect(tossable.initialVelocity.value == velocity)
        #expect(view.position.value == CGPoint(x: 90, y: 225))
        #expect(try runtime.kernel.value(of: springs[0]) == 90)
        #expect(try runtime.kernel.velocity(of: springs[0]) == Float(velocity.x))
        #expect(try runtime.kernel.velocity(of: springs[1]) == Float(velocity.y))

        try runtime.advance(by: frame60)
        // Tossed onward first: the release velocity carries it further from the destination.
        #expect(view.position.value.y > 225)
        let expected = try #require(try springs.compactMap { try runtime.kernel.restFrame(of: $0) }.max())
        var restFrames: [Int] = []
        let observation = tossable.state.observe { [unowned runtime] state in
            if state == .atRest { restFrames.append(runtime.kernel.frame) }
        }
        try runtime.advanceUntilAllAtRest()
        #expect(restFrames == [expected])
        #expect(view.position.value == .zero)
        observation.cancel()
    }

    @Test("a drag released past ±1e15 restarts from ±1e15 with its release velocity (clamped, not dropped)")
    func dragPastTheKernelRange() throws {
        let runtime = MotionRuntime()
        let view = MotionElement()
        let tossable = Tossable(position: view.position, to: ReactiveProperty(CGPoint.zero), containerView: MotionElement(), springSource: springSource)
        try runtime.add(tossable)
        let springs = runtime.springHandles
        var script = ScriptedDrag(tossable.panGestureRecognizer)
        script.begin()
        script.move(to: CGPoint(x: 1.5e15, y: -3e15))
        script.move(to: CGPoint(x: 2e15, y: -4e15))
        try runtime.advance(by: frame60)
        script.end(at: CGPoint(x: 2e15, y: -4e15))
        let velocity = tossable.panGestureRecognizer.velocity
        #expect(velocity.x > 0 && velocity.y < 0)
        #expect(try runtime.kernel.value(of: springs[0]) == 1e15)
        #expect(try runtime.kernel.value(of: springs[1]) == -1e15)
        #expect(try runtime.kernel.velocity(of: springs[0]) == Float(velocity.x))
        #expect(try runtime.kernel.velocity(of: springs[1]) == Float(velocity.y))
        #expect(tossable.state.value == .active)
        try runtime.advance(by: frame60)
        #expect(tossable.state.value == .active)
        #expect(view.position.value.x > 1e15 * 0.5 && view.position.value.x < 1e15 * 1.01)
    }

    @Test("a flick of 1e160 pt/s (its speed squared overflows) is capped at maximumSpeed in its direction, not zero")
    func hugeFlick() {
        for (dx, dy) in [(1e160, 0.0), (-3e160, 4e160), (Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude)] {
            let recognizer = GestureRecognizer()
            recognizer.handle(.began(timestamp: 0))
            recognizer.handle(.changed(translation: CGPoint(x: 0, y: 0), timestamp: 0.01))
            recognizer.handle(.changed(translation: CGPoint(x: dx * 0.01, y: dy * 0.01), timestamp: 0.02))
            recognizer.handle(.ended(translation: CGPoint(x: dx * 0.01, y: dy * 0.01), timestamp: 0.03))
            let velocity = recognizer.velocity
            let speed = (velocity.x * velocity.x + velocity.y * velocity.y).squareRoot()
            #expect(abs(speed - recognizer.maximumSpeed) < 1e-6 * recognizer.maximumSpeed, "\(dx), \(dy): \(velocity)")
            #expect(velocity.x.sign == dx.sign || dx == 0)
        }
    }

    @Test("a cancelled drag restarts the spring with no velocity, never an earlier toss's")
    func cancelledDrag() throws {
        let runtime = MotionRuntime()
        let view = MotionElement()
        let tossable = Tossable(position: view.position, to: ReactiveProperty(CGPoint.zero),
                                containerView: MotionElement(), springSource: springSource)
        try runtime.add(tossable)
        var script = ScriptedDrag(tossable.panGestureRecognizer)
        script.begin()
        script.move(to: CGPoint(x: 0, y: 50))
        script.end(at: CGPoint(x: 0, y: 100))
        #expect(tossable.initialVelocity.value.y > 0)
        try runtime.advanceUntilAllAtRest()

        script.time += 1
        script.begin()
        script.move(to: CGPoint(x: 0, y: 40))
        tossable.panGestureRecognizer.handle(.cancelled(timestamp: script.time + frame60))
        #expect(tossable.initialVelocity.value == .zero)
        #expect(try runtime.kernel.velocity(of: runtime.springHandles[1]) == 0)
        #expect(try runtime.kernel.value(of: runtime.springHandles[1]) == 40)
        try runtime.advanceUntilAllAtRest()
        #expect(view.position.value == .zero)
    }

    @Test("uses a given recognizer, measuring the drag in the container's coordinates")
    func givenRecognizer() throws {
        let runtime = MotionRuntime()
        let view = MotionElement(position: CGPoint(x: 10, y: 10))
        let elsewhere = MotionElement()
        let pan = GestureRecognizer()
        elsewhere.addGestureRecognizer(pan)
        let container = MotionElement(coordinateScale: 2)
        let tossable = Tossable(position: view.position, to: ReactiveProperty(CGPoint(x: 10, y: 10)),
                                containerView: container, springSource: springSource, panGestureRecognizer: pan)
        #expect(tossable.panGestureRecognizer === pan)
        #expect(pan.view === elsewhere)
        try runtime.add(tossable)
        pan.handle(.began(timestamp: 0))
        pan.handle(.changed(translation: CGPoint(x: 40, y: 20), timestamp: 0.1))
        #expect(view.position.value == CGPoint(x: 30, y: 20))
        pan.handle(.ended(translation: CGPoint(x: 50, y: 25), timestamp: 0.15))
        // 200 input points per second in a container zoomed by 2: 100 per second.
        #expect(abs(tossable.initialVelocity.value.x - 100) < 1e-9)
        try runtime.advanceUntilAllAtRest()
        #expect(view.position.value == CGPoint(x: 10, y: 10))
    }

    @Test("a recognizer the Tossable attached leaves the container when the Tossable is removed; a given one stays")
    func recognizerFollowsTheInteraction() throws {
        let runtime = MotionRuntime()
        let container = MotionElement()
        let tossables = (0..<3).map { _ in
            Tossable(position: MotionElement().position, to: ReactiveProperty(CGPoint.zero), containerView: container, springSource: springSource)
        }
        let elsewhere = MotionElement()
        let given = GestureRecognizer()
        elsewhere.addGestureRecognizer(given)
        let withGiven = Tossable(position: MotionElement().position, to: ReactiveProperty(CGPoint.zero), containerView: container,
                                 springSource: springSource, panGestureRecognizer: given)
        for tossable in tossables + [withGiven] { try runtime.add(tossable) }
        #expect(container.gestureRecognizers.map(ObjectIdentifier.init) == tossables.map { ObjectIdentifier($0.panGestureRecognizer) })
        runtime.remove(tossables[1])
        #expect(tossables[1].panGestureRecognizer.view == nil)
        #expect(container.gestureRecognizers.map(ObjectIdentifier.init) == [tossables[0], tossables[2]].map { ObjectIdentifier($0.panGestureRecognizer) })
        runtime.remove(withGiven)
        #expect(given.view === elsewhere && elsewhere.gestureRecognizers.count == 1)
        // Added back, it attaches its recognizer again and tosses as before.
        try runtime.add(tossables[1])
        #expect(tossables[1].panGestureRecognizer.view === container && container.gestureRecognizers.count == 3)
        let pan = tossables[1].panGestureRecognizer
        pan.handle(.began(timestamp: 0))
        pan.handle(.changed(translation: CGPoint(x: 0, y: 30), timestamp: 0.05))
        pan.handle(.ended(translation: CGPoint(x: 0, y: 60), timestamp: 0.1))
        #expect(tossables[1].position.value == CGPoint(x: 0, y: 60))
        try runtime.advanceUntilAllAtRest()
        #expect(tossables[1].position.value == .zero)
    }

    @Test("many tossables share one kernel and settle independently")
    func sharedKernel() throws {
        let runtime = MotionRuntime()
        var tossables: [Tossable] = []
        var views: [MotionElement] = []
        for index in 0..<20 {
            let view = MotionElement(position: CGPoint(x: Double(index) * 10, y: 0))
            views.append(view)
            let tossable = Tossable(position: view.position, to: ReactiveProperty(CGPoint(x: 0, y: Double(index))),
                                    containerView: MotionElement(), springSource: springSource)
            tossables.append(tossable)
            try runtime.add(tossable)
        }
        #expect(runtime.kernel.count == 40)
        try runtime.advance(by: frame60)
        // The first one starts on its destination: it is at rest and sent nothing.
        #expect(runtime.lastFrameDeliveryCount == 19)
        try runtime.advanceUntilAllAtRest()
        for (index, view) in views.enumerated() {
            #expect(view.position.value == CGPoint(x: 0, y: Double(index)))
        }
    }
}
