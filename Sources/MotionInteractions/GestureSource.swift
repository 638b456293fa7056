/// A stream of a recognizer's events: each accepted event sends the recognizer itself on the value
/// channel; the state channel is `.active` while the gesture is in progress and `.atRest`
/// otherwise (sent once when subscribed, then on every change).
///
/// When a gesture begins, `.active` is sent before the value; when it ends or is cancelled, the
/// value is sent before `.atRest`, so a subscriber sees the final translation while the gesture
/// still counts as active.
public func gestureSource<Recognizer: ContinuousGestureRecognizer>(_ recognizer: Recognizer) -> MotionObservable<Recognizer> {
    MotionObservable { observer in
        var wasActive = recognizer.isActive
        observer.state(wasActive ? .active : .atRest)
        return recognizer.observe { recognizer in
            let isActive = recognizer.isActive
            if isActive, !wasActive {
                wasActive = true
                observer.state(.active)
                observer.next(recognizer)
            } else if !isActive, wasActive {
                wasActive = false
                observer.next(recognizer)
                observer.state(.atRest)
            } else {
                observer.next(recognizer)
            }
        }
    }
}
