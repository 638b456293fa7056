import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

/// PausesSpring's "performer considerations": an element that stops moving while it is dragged,
/// rotated or scaled, one property held by three recognizers.
@Suite("DirectlyManipulable: three recognizers on one spring")
struct DirectlyManipulableTests {
    struct Scene {
        let runtime = MotionRuntime()
        let element = MotionElement(position: CGPoint(x: 0, y: 0))
        let manipulable = DirectlyManipulable()
        let x: SpringHandle, y: SpringHandle, rotation: SpringHandle, scale: SpringHandle

        init() throws {
            runtime.addPlan(SpringTo(.position, destination: .zero), to: element)
            runtime.addPlan(SpringTo(.rotation, destination: 0), to: element)
            runtime.addPlan(SpringTo(.scale, destination: 1), to: element)
            runtime.addPlan(manipulable, to: element)
            let position = try #require(runtime.propertySpring(for: element.position)?.springs)
            x = position[0]
            y = position[1]
            rotation = try #require(runtime.propertySpring(for: element.rotation)?.springs.first)
            scale = try #require(runtime.propertySpring(for: element.scale)?.springs.first)
        }

        /// All three gestures begin, then move together for six 60 Hz frames.
        func manipulate() throws -> Double {
            var time = 0.0
            manipulable.dragGestureRecognizer.handle(.began(timestamp: time))
            manipulable.rotationGestureRecognizer.handle(.began(timestamp: time))
            manipulable.pinchGestureRecognizer.handle(.began(timestamp: time))
            for step in 1...6 {
                time += frame60
                let s = Double(step)
                manipulable.dragGestureRecognizer.handle(.changed(translation: CGPoint(x: 10 * s, y: 20 * s), timestamp: time))
                manipulable.rotationGestureRecognizer.handle(.changed(rotation: 0.05 * s, timestamp: time))
                manipulable.pinchGestureRecognizer.handle(.changed(scale: 1 + 0.04 * s, timestamp: time))
                try runtime.advance(by: frame60)
                // The fingers own every property; the held springs write nothing.
                #expect(element.position.value == CGPoint(x: 10 * s, y: 20 * s))
                #expect(abs(element.rotation.value - 0.05 * s) < 1e-12)
                #expect(abs(element.scale.value - (1 + 0.04 * s)) < 1e-12)
                #expect(runtime.lastFrameDeliveryCount == 0)
            }
            return time
        }
    }

    @Test("held by all three; each spring resumes with its own gesture's velocity, the position with none when a pinch lets go last")
    func pinchLetsGoLast() throws {
        let scene = try Scene()
        let (runtime, bank, m) = (scene.runtime, scene.runtime.kernel, scene.manipulable)
        var time = try scene.manipulate()
        #expect(try bank.pauseDepth(of: scene.x) == 3 && bank.pauseDepth(of: scene.y) == 3)
        #expect(try bank.pauseDepth(of: scene.rotation) == 1 && bank.pauseDepth(of: scene.scale) == 1)

        // The rotation lets go first: its spring restarts from the angle with the rotation's
        // velocity; the position stays held by the drag and the pinch.
        time += frame60
        m.rotationGestureRecognizer.handle(.ended(rotation: 0.35, timestamp: time))
        #expect(abs(m.rotationGestureRecognizer.velocity - 3) < 1e-6)
        #expect(try bank.velocity(of: scene.rotation) == Float(m.rotationGestureRecognizer.velocity))
        #expect(try abs(bank.value(of: scene.rotation) - 0.35) < 1e-6)
        #expect(try bank.pauseDepth(of: scene.x) == 2)

        // The drag lets go: the pinch still holds the position where the finger left it.
        time += frame60
        m.dragGestureRecognizer.handle(.ended(translation: CGPoint(x: 70, y: 140), timestamp: time))
        #expect(m.dragGestureRecognizer.velocity.y > 1000)
        #expect(try bank.pauseDepth(of: scene.x) == 1 && bank.isPaused(scene.y))
        try runtime.advance(by: frame60)
        #expect(scene.element.position.value == CGPoint(x: 70, y: 140))
        #expect(scene.element.rotation.value < 0.35 + 3 * frame60)

        // The pinch lets go last: the scale restarts with the pinch's velocity, the position from
        // where it is with none (the drag ended a frame ago).
        time += frame60
        m.pinchGestureRecognizer.handle(.ended(scale: 1.32, timestamp: time))
        #expect(m.pinchGestureRecognizer.velocity > 1)
        #expect(try bank.velocity(of: scene.scale) == Float(m.pinchGestureRecognizer.velocity))
        #expect(try !bank.isPaused(scene.x) && !bank.isPaused(scene.y))
        #expect(try bank.value(of: scene.x) == 70 && bank.value(of: scene.y) == 140)
        #expect(try bank.velocity(of: scene.x) == 0 && bank.velocity(of: scene.y) == 0)

        try runtime.advanceUntilAllAtRest()
        #expect(scene.element.position.value == .zero && scene.element.rotation.value == 0 && scene.element.scale.value == 1)
    }

    @Test("when the drag lets go last, the position resumes with the drag's release velocity")
    func dragLetsGoLast() throws {
        let scene = try Scene()
        let (runtime, bank, m) = (scene.runtime, scene.runtime.kernel, scene.manipulable)
        var time = try scene.manipulate()
        time += frame60
        m.rotationGestureRecognizer.handle(.cancelled(timestamp: time))
        m.pinchGestureRecognizer.handle(.ended(scale: 1.28, timestamp: time))
        #expect(try bank.velocity(of: scene.rotation) == 0)  // a cancelled rotation has no velocity
        #expect(try bank.pauseDepth(of: scene.x) == 1)
        m.dragGestureRecognizer.handle(.ended(translation: CGPoint(x: 70, y: 140), timestamp: time))
        let release = m.dragGestureRecognizer.velocity
        #expect(release.x > 500 && release.y > 1000)
        #expect(try bank.velocity(of: scene.x) == Float(release.x) && bank.velocity(of: scene.y) == Float(release.y))
        #expect(try bank.value(of: scene.x) == 70 && bank.value(of: scene.y) == 140)
        try runtime.advance(by: frame60)
        // Tossed onward first, then home.
        #expect(scene.element.position.value.y > 140)
        try runtime.advanceUntilAllAtRest()
        #expect(scene.element.position.value == .zero && scene.element.rotation.value == 0 && scene.element.scale.value == 1)
    }
}
