import Foundation

extension MotionObservable where T == GestureRecognizer {
    /// The recognizer's events in any of `states` (the state channel is passed through).
    ///
    /// ```swift
    /// let releases = gestureSource(drag).onRecognitionState(.ended)
    /// ```
    public func onRecognitionState(_ states: GestureRecognitionState...) -> MotionObservable<GestureRecognizer> {
        // A bit per state, captured by value: no array to reach on every event.
        let wanted = states.reduce(0 as UInt8) { $0 | $1.bit }
        return MotionObservable<GestureRecognizer> { observer in
            self.connect(MotionObserver(runtime: observer.runtime, next: { recognizer in
                if wanted & recognizer.state.bit != 0 { observer.next(recognizer) }
            }, state: observer.state))
        }
    }

    /// The position `position` had when the gesture began, plus the gesture's translation in
    /// `space`: the point that follows the finger. Sent for `began`, `changed` and `ended` events
    /// (not for a cancellation); the state channel is passed through.
    ///
    /// The start is read once per gesture, when it begins (or at the first event seen, if the
    /// gesture was already in progress when subscribed), so writes to `position` during the
    /// drag do not move the finger's anchor.
    public func translated(from position: ReactiveProperty<CGPoint>, in space: MotionElement?) -> MotionObservable<CGPoint> {
        MotionObservable<CGPoint> { observer in
            var start: CGPoint?
            return self.connect(MotionObserver(runtime: observer.runtime, next: { recognizer in
                switch recognizer.state {
                case .began:
                    start = position.value
                case .changed, .ended:
                    if start == nil { start = position.value }
                case .possible, .cancelled:
                    start = nil
                    return
                }
                let anchor = start ?? position.value
                let moved = recognizer.translation(in: space)
                observer.next(CGPoint(x: anchor.x + moved.x, y: anchor.y + moved.y))
                if recognizer.state == .ended { start = nil }
            }, state: observer.state))
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
