import Foundation
import MotionInteractions
import Testing

@Suite("Value operators")
struct ValueOperatorTests {
    @Test("map, filter and dedupe transform values and pass the state channel through")
    func mapFilterDedupe() {
        let runtime = MotionRuntime()
        let property = ReactiveProperty(1)
        let recorder = StreamRecorder<String>()
        let subscription = recorder.record(property.stream.filter { $0 != 3 }.dedupe().map { "\($0)" }, in: runtime)
        for value in [1, 2, 2, 3, 2, 4, 4] { property.value = value }
        #expect(recorder.values == ["1", "2", "4"])
        subscription.cancel()
        property.value = 5
        #expect(recorder.values == ["1", "2", "4"])

        // The state channel passes through every operator.
        let drag = GestureRecognizer()
        let states = StreamRecorder<CGFloat>()
        states.record(gestureSource(drag).translated(from: ReactiveProperty(.zero), in: nil).x().dedupe().filter { _ in true }, in: runtime)
        drag.handle(.began(timestamp: 0))
        drag.handle(.ended(translation: CGPoint(x: 3, y: 4), timestamp: 0.1))
        #expect(states.states == [.atRest, .active, .atRest])
        #expect(states.values == [0, 3])
    }

    @Test("x, y, xLocked, yLocked and rubberBanded shape points")
    func points() {
        let runtime = MotionRuntime()
        let point = ReactiveProperty(CGPoint(x: 10, y: 20))
        let xs = StreamRecorder<CGFloat>(), ys = StreamRecorder<CGFloat>()
        let vertical = StreamRecorder<CGPoint>(), horizontal = StreamRecorder<CGPoint>(), banded = StreamRecorder<CGPoint>()
        xs.record(point.stream.x(), in: runtime)
        ys.record(point.stream.y(), in: runtime)
        vertical.record(point.stream.xLocked(to: 5), in: runtime)
        horizontal.record(point.stream.yLocked(to: 7), in: runtime)
        let rect = CGRect(x: 0, y: 0, width: 100, height: 100)
        banded.record(point.stream.rubberBanded(outsideOf: rect, maxLength: 20), in: runtime)
        point.value = CGPoint(x: 150, y: -1_000)
        #expect(xs.values == [10, 150] && ys.values == [20, -1_000])
        #expect(vertical.values == [CGPoint(x: 5, y: 20), CGPoint(x: 5, y: -1_000)])
        #expect(horizontal.values == [CGPoint(x: 10, y: 7), CGPoint(x: 150, y: 7)])
        let band = RubberBand(bounds: rect, maximumOverflow: 20)
        #expect(banded.values == [CGPoint(x: 10, y: 20), band.apply(to: CGPoint(x: 150, y: -1_000))])
        #expect(banded.values[1].x > 100 && banded.values[1].x < 120 && banded.values[1].y > -20)
    }
}
