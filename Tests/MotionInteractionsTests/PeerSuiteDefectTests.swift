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
}
