#if !$Embedded
import Foundation
#endif

extension MotionObservable where T: ContinuousGestureRecognizer {
    /// The recognizer's events in any of `states` (the state channel is passed through).
    ///
    /// <!-- fragment: layer-runtime -->
    /// ```swift
    /// let releases = gestureSource(drag).onRecognitionState(.ended)
    /// ```
    public func onRecognitionState(_ states: GestureRecognitionState...) -> MotionObservable<T> {
        // A bit per state, captured by value: no array to reach on every event.
        let wanted = states.reduce(0 as UInt8) { $0 | $1.bit }
        return MotionObservable<T> { observer in
            self.connect(MotionObserver(runtime: observer.runtime, next: { recognizer in
                if wanted & recognizer.state.bit != 0 { observer.next(recognizer) }
            }, state: observer.state))
        }
    }

    /// For each `began`, `changed` and `ended` event (not a cancellation), `combine` of the value
    /// `property` had when the gesture began and the recognizer; the state channel is passed
    /// through. The start is read once per gesture, when it begins (or at the first event seen,
    /// if the gesture was already in progress when subscribed), so writes to `property` during
    /// the gesture do not move its anchor.
    fileprivate func anchored<Value, Result>(
        at property: ReactiveProperty<Value>, _ combine: @escaping (Value, T) -> Result
    ) -> MotionObservable<Result> {
        MotionObservable<Result> { observer in
            var anchor = GestureAnchor<Value>()
            return self.connect(MotionObserver(runtime: observer.runtime, next: { recognizer in
                guard let value = anchor.value(at: property, for: recognizer.state, combinedWith: { combine($0, recognizer) }) else { return }
                observer.next(value)
            }, state: observer.state))
        }
    }
}

/// Where a gesture's value is anchored: the value a property had when the gesture began (or at
/// the first event seen, if it was in progress already), read once per gesture so writes to the
/// property during the gesture do not move the anchor.
struct GestureAnchor<Value> {
    private var start: Value?

    /// `combine(anchor)` for a `began`, `changed` or `ended` event (the anchor read from `property`
    /// when the gesture begins, and forgotten once it ends); nil for any other state.
    mutating func value<Result>(
        at property: ReactiveProperty<Value>, for state: GestureRecognitionState, combinedWith combine: (Value) -> Result
    ) -> Result? {
        switch state {
        case .began:
            start = property.value
        case .changed, .ended:
            if start == nil { start = property.value }
        case .possible, .cancelled:
            start = nil
            return nil
        }
        let value = combine(start ?? property.value)
        if state == .ended { start = nil }
        return value
    }
}

extension MotionObservable where T == GestureRecognizer {

    /// The position `position` had when the gesture began, plus the gesture's translation in
    /// `space`: the point that follows the finger. Sent for `began`, `changed` and `ended` events
    /// (not for a cancellation); the state channel is passed through.
    ///
    /// The start is read once per gesture, when it begins (or at the first event seen, if the
    /// gesture was already in progress when subscribed), so writes to `position` during the
    /// drag do not move the finger's anchor.
    public func translated(from position: ReactiveProperty<CGPoint>, in space: MotionElement?) -> MotionObservable<CGPoint> {
        anchored(at: position) { anchor, recognizer in
            let moved = recognizer.translation(in: space)
            return CGPoint(x: anchor.x + moved.x, y: anchor.y + moved.y)
        }
    }

    /// The recognizer's ``GestureRecognizer/velocity`` in `space`, one value per event (the
    /// release velocity after `ended`, zero after a cancellation).
    public func velocity(in space: MotionElement?) -> MotionObservable<CGPoint> {
        MotionObservable<CGPoint> { observer in
            self.connect(MotionObserver(runtime: observer.runtime, next: { recognizer in
                observer.next(recognizer.velocity(in: space))
            }, state: observer.state))
        }
    }
}

extension MotionObservable where T == RotationGestureRecognizer {
    /// The rotation `rotation` had when the gesture began, plus the gesture's rotation: the angle
    /// that follows the fingers. Sent for `began`, `changed` and `ended` events; the start is read
    /// once per gesture, as ``translated(from:in:)`` reads its position.
    public func rotated(from rotation: ReactiveProperty<CGFloat>) -> MotionObservable<CGFloat> {
        anchored(at: rotation) { anchor, recognizer in anchor + recognizer.rotation }
    }
}

extension MotionObservable where T == PinchGestureRecognizer {
    /// The scale `scale` had when the gesture began, times the gesture's scale: the scale that
    /// follows the fingers. Sent for `began`, `changed` and `ended` events; the start is read once
    /// per gesture, as ``translated(from:in:)`` reads its position.
    public func scaled(from scale: ReactiveProperty<CGFloat>) -> MotionObservable<CGFloat> {
        anchored(at: scale) { anchor, recognizer in anchor * recognizer.scale }
    }
}

extension GestureRecognitionState {
    /// This state's bit in a set of states.
    fileprivate var bit: UInt8 {
        switch self {
        case .possible: 1
        case .began: 2
        case .changed: 4
        case .ended: 8
        case .cancelled: 16
        }
    }
}
