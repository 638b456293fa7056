import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

/// The defects that porting the Material Motion projects' own unit tests found (issue 13), each
/// written to fail on the layer as it was and kept here so they stay fixed.
@Suite("Defects a peer's test suite found")
struct PeerSuiteDefectTests {
    /// Was: `toggled(with:)` connected the original stream before the preferred one, so the value a
    /// property's stream sends as it connects went out while the drag was active.
    @Test("toggled(with:) connects the preferred stream first, the original once the preferred is at rest")
    func toggledConnectsThePreferredFirst() throws {
        let runtime = MotionRuntime()
        let position = ReactiveProperty(CGPoint.zero)
        let drag = GestureRecognizer()
        var script = ScriptedDrag(drag)
        script.begin()
        script.move(to: CGPoint(x: 10, y: 20))

        let stale = ReactiveProperty(CGPoint(x: 100, y: 100))
        let recorder = StreamRecorder<CGPoint>()
        recorder.record(stale.stream.toggled(with: gestureSource(drag).translated(from: position, in: nil)), in: runtime)
        #expect(recorder.values.isEmpty)
        #expect(recorder.states == [.active])

        script.move(to: CGPoint(x: 30, y: 40))
        script.end(at: CGPoint(x: 35, y: 45))
        // The drag's values, then the original's, connected only once the drag is at rest.
        #expect(recorder.values == [CGPoint(x: 30, y: 40), CGPoint(x: 35, y: 45), CGPoint(x: 100, y: 100)])
        #expect(recorder.states == [.active, .atRest])
    }

    /// Was: a spring at rest kept the kernel's stale value, so a write to its property was ignored
    /// by the next SpringTo (a 10-point jump), and the same destination again started nothing.
    @Test("a spring at rest starts from its property's current value")
    func restingSpringStartsFromItsProperty() throws {
        let runtime = MotionRuntime()
        let element = MotionElement()
        runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 10, y: 10)), to: element)
        try #require(try runtime.advanceUntilAllAtRest() != nil)
        #expect(element.position.value == CGPoint(x: 10, y: 10))

        // The first frame of a spring from 0 to 20, as the kernel steps it.
        let reference = SpringBank<Float32Lanes>()
        let x = try reference.add(value: 0, target: 20, tolerance: 0.5)
        try reference.step(dt: frame60)
        let first = CGFloat(try reference.value(of: x))
        #expect(first > 0 && first < 2)

        element.position.value = .zero
        runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 20, y: 20)), to: element)
        try runtime.advance(by: frame60)
        #expect(element.position.value == CGPoint(x: first, y: first))
        try runtime.advanceUntilAllAtRest()
        #expect(element.position.value == CGPoint(x: 20, y: 20))

        // The same destination again, after a write: the spring starts again from the write.
        element.position.value = .zero
        runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 20, y: 20)), to: element)
        #expect(runtime.propertySpring(for: element.position)?.state.value == .active)
        try runtime.advance(by: frame60)
        #expect(element.position.value == CGPoint(x: first, y: first))
        try runtime.advanceUntilAllAtRest()
        #expect(element.position.value == CGPoint(x: 20, y: 20))
    }

    /// Was: SpringTo and PausesSpring used 0.5 for every property, so an opacity came to rest
    /// (and snapped onto its destination) on the fourth frame, while its motion was still 0.5
    /// away from it.
    @Test("an opacity spring rests within 1/256 of its destination: no pop")
    func opacityDoesNotPop() throws {
        let runtime = MotionRuntime()
        let element = MotionElement(opacity: 1)
        var values: [Float] = []
        let observation = element.opacity.observe { values.append($0) }
        runtime.addPlan(SpringTo(.opacity, destination: 0.2), to: element)
        try runtime.advanceUntilAllAtRest()
        observation.cancel()
        #expect(values.last == 0.2)
        // The same motion with no snap (a tolerance of 10⁻⁶): the snap onto 0.2 at rest is the
        // only difference, and it moves the opacity by at most 1/256.
        let reference = SpringBank<Float32Lanes>()
        let unsnapped = try reference.add(value: 1, target: 0.2, tolerance: 1e-6)
        var motion: [Float] = []
        for _ in values.indices {
            try reference.step(dt: frame60)
            motion.append(try reference.value(of: unsnapped))
        }
        #expect(values.count > 10)
        #expect(Array(values.dropLast()) == Array(motion.dropLast()))
        #expect(try abs(#require(motion.last) - 0.2) <= 1.0 / 256)
        let spring = try #require(runtime.propertySpring(for: element.opacity)?.springs.first)
        #expect(try runtime.kernel.tolerance(of: spring) == Double(Float(1.0 / 256)))

        // PausesSpring makes the spring with the same default.
        let paused = MotionElement(opacity: 0.5)
        runtime.addPlan(PausesSpring(.opacity, whileActive: GestureRecognizer()), to: paused)
        let pausedSpring = try #require(runtime.propertySpring(for: paused.opacity)?.springs.first)
        #expect(try runtime.kernel.tolerance(of: pausedSpring) == Double(Float(1.0 / 256)))
    }

    @Test("each property's springs default to a threshold in its own units; a plan's own threshold wins")
    func thresholdsPerProperty() throws {
        let runtime = MotionRuntime()
        let element = MotionElement(scale: 2, rotation: 1, size: CGSize(width: 10, height: 20))
        func tolerances<T: SpringAnimatable>(_ property: ElementProperty<T>) throws -> [Double] {
            try #require(runtime.propertySpring(for: property.of(element))).springs.map { try runtime.kernel.tolerance(of: $0) }
        }
        runtime.addPlan(SpringTo(.position, destination: CGPoint(x: 1, y: 1)), to: element)
        runtime.addPlan(SpringTo(.scale, destination: 1), to: element)
        runtime.addPlan(SpringTo(.rotation, destination: 0), to: element)
        runtime.addPlan(SpringTo(.size, destination: CGSize(width: 30, height: 40), threshold: 2), to: element)
        runtime.addPlan(SpringTo(.opacity, destination: 0, threshold: -1), to: element)
        #expect(try tolerances(.position) == [0.5, 0.5])
        #expect(try tolerances(.scale) == [Double(Float(0.001))])
        #expect(try tolerances(.rotation) == [Double(Float(0.001))])
        #expect(try tolerances(.size) == [2, 2])
        #expect(try tolerances(.opacity) == [Double(Float(1.0 / 256))])
        #expect(ElementProperty(\.opacity, defaultThreshold: .nan).defaultThreshold == 0.5)
        try runtime.advanceUntilAllAtRest()
        #expect(element.scale.value == 1 && element.rotation.value == 0 && element.size.value == CGSize(width: 30, height: 40))
    }

    /// Tossable's own streams, subscribed in the reverse of the order its set-up uses: the
    /// position first, the velocity second, so the velocity's subscriber runs last at release.
    final class ReversedTossable: Interaction {
        let tossable: Tossable
        init(_ tossable: Tossable) { self.tossable = tossable }
        override func setUp(in runtime: MotionRuntime) {
            let position = tossable.position
            tossable.positionStream.subscribe(in: runtime, next: { position.value = $0 })
            runtime.write(tossable.initialVelocityStream, to: tossable.initialVelocity)
        }
    }

    /// Was: the toss restarted the spring from `initialVelocity`, written by another subscriber of
    /// the recognizer, so it tossed with the release velocity only if that subscriber ran first.
    @Test("a toss starts with the release velocity whatever order the recognizer's subscribers run in")
    func tossVelocityWhateverTheSubscriberOrder() throws {
        let runtime = MotionRuntime()
        let view = MotionElement()
        let tossable = Tossable(position: view.position, to: ReactiveProperty(CGPoint(x: 0, y: 300)),
                                containerView: MotionElement(), springSource: springSource)
        try runtime.add(ReversedTossable(tossable))
        let springs = runtime.springHandles
        try #require(springs.count == 2)

        var script = ScriptedDrag(tossable.panGestureRecognizer)
        script.begin()
        for step in 1...4 { script.move(to: CGPoint(x: 5 * Double(step), y: 20 * Double(step))) }
        script.end(at: CGPoint(x: 25, y: 100))
        let release = tossable.panGestureRecognizer.velocity
        #expect(release.y > 1000)
        #expect(try runtime.kernel.value(of: springs[1]) == 100)
        #expect(try runtime.kernel.velocity(of: springs[0]) == Float(release.x))
        #expect(try runtime.kernel.velocity(of: springs[1]) == Float(release.y))
        #expect(tossable.initialVelocity.value == release)
    }
}
