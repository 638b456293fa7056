import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

@Suite("Rotation and pinch recognizers")
struct RotationAndPinchTests {
    @Test("a rotation's angle and velocity in radians per second; the drag's bad-input policy")
    func rotation() {
        let twist = RotationGestureRecognizer()
        var events = 0
        let observation = twist.observe { _ in events += 1 }
        #expect(!twist.handle(.changed(rotation: 1, timestamp: 0)))
        #expect(twist.ignoredEventCount == 1 && twist.state == .possible)
        twist.handle(.began(timestamp: 0))
        for step in 1...5 { twist.handle(.changed(rotation: 0.1 * Double(step), timestamp: Double(step) / 60)) }
        #expect(twist.isActive && abs(twist.rotation - 0.5) < 1e-12)
        #expect(abs(twist.velocity - 6) < 1e-9)
        twist.handle(.changed(rotation: .nan, timestamp: 6.0 / 60))  // replaced by the last rotation
        #expect(abs(twist.rotation - 0.5) < 1e-12)
        twist.handle(.ended(rotation: 0.7, timestamp: 7.0 / 60))
        #expect(twist.state == .ended && abs(twist.rotation - 0.7) < 1e-12 && twist.velocity > 0)
        #expect(events == 8)
        // A flick faster than the limit is capped; a cancelled one has no velocity.
        twist.handle(.began(timestamp: 1))
        twist.handle(.changed(rotation: 50, timestamp: 1.01))
        #expect(twist.velocity == 60)
        twist.handle(.cancelled(timestamp: 1.02))
        #expect(twist.velocity == 0)
        observation.cancel()
    }

    @Test("a pinch's scale starts at 1; velocity in scale per second")
    func pinch() {
        let pinch = PinchGestureRecognizer()
        pinch.handle(.began(timestamp: 0))
        #expect(pinch.scale == 1)
        for step in 1...4 { pinch.handle(.changed(scale: 1 + 0.05 * Double(step), timestamp: Double(step) / 60)) }
        #expect(abs(pinch.scale - 1.2) < 1e-12 && abs(pinch.velocity - 3) < 1e-9)
        pinch.handle(.ended(scale: .infinity, timestamp: 5.0 / 60))
        #expect(abs(pinch.scale - 1.2) < 1e-12 && pinch.state == .ended)
        #expect(!pinch.handle(.ended(scale: 2, timestamp: 1)))
    }

    @Test("rotated(from:) and scaled(from:) anchor where the property was when the gesture began")
    func anchoredStreams() {
        let runtime = MotionRuntime()
        let element = MotionElement(scale: 2, rotation: 1)
        let twist = RotationGestureRecognizer(), pinch = PinchGestureRecognizer()
        runtime.addPlan(Rotatable(withGestureRecognizer: twist), to: element)
        runtime.addPlan(Scalable(withGestureRecognizer: pinch), to: element)
        let states = StreamRecorder<CGFloat>()
        states.record(gestureSource(pinch).scaled(from: ReactiveProperty(1)), in: runtime)
        twist.handle(.began(timestamp: 0))
        pinch.handle(.began(timestamp: 0))
        twist.handle(.changed(rotation: 0.25, timestamp: 0.1))
        pinch.handle(.changed(scale: 1.5, timestamp: 0.1))
        #expect(element.rotation.value == 1.25 && element.scale.value == 3)
        twist.handle(.ended(rotation: 0.5, timestamp: 0.2))
        pinch.handle(.cancelled(timestamp: 0.2))
        #expect(element.rotation.value == 1.5 && element.scale.value == 3)
        #expect(states.values == [1, 1.5] && states.states == [.atRest, .active, .atRest])
        // The next gesture anchors afresh.
        twist.handle(.began(timestamp: 1))
        twist.handle(.changed(rotation: -0.5, timestamp: 1.1))
        #expect(element.rotation.value == 1)
    }

    @Test("PausesSpring's release velocity: a rotation's for a rotation, none for a position")
    func releaseVelocities() throws {
        let runtime = MotionRuntime()
        let element = MotionElement()
        let twist = RotationGestureRecognizer()
        runtime.addPlan(PausesSpring(.rotation, whileActive: twist), to: element)
        runtime.addPlan(PausesSpring(.position, whileActive: twist), to: element)
        runtime.addPlan(SpringTo(.rotation, destination: 0), to: element)
        runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 0, y: 10)), to: element)
        let r = try #require(runtime.propertySpring(for: element.rotation)?.springs.first)
        let p = try #require(runtime.propertySpring(for: element.position)?.springs)
        twist.handle(.began(timestamp: 0))
        #expect(try runtime.kernel.isPaused(r) && runtime.kernel.isPaused(p[1]))
        twist.handle(.changed(rotation: 0.1, timestamp: 0.05))
        element.rotation.value = 0.2
        twist.handle(.ended(rotation: 0.2, timestamp: 0.1))
        #expect(try runtime.kernel.velocity(of: r) == Float(twist.velocity) && twist.velocity > 1)
        #expect(try runtime.kernel.velocity(of: p[0]) == 0 && runtime.kernel.velocity(of: p[1]) == 0)
        try runtime.advanceUntilAllAtRest()
        #expect(element.rotation.value == 0 && element.position.value == CGPoint(x: 0, y: 10))
    }
}
