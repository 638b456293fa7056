import Foundation
import MotionInteractions
import SpringKernel
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
}
