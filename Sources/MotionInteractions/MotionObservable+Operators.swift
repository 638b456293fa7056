#if !$Embedded
import Foundation
#endif

/// The operators every reactive motion layer has. Each makes a new stream; subscribing to it
/// connects the upstream once, the state channel passes through unchanged, and delivering a value
/// allocates nothing.
extension MotionObservable {
    /// Each value transformed by `transform`.
    ///
    /// <!-- fragment: layer -->
    /// ```swift
    /// let angle = ReactiveProperty(CGFloat(0.5))
    /// let degrees = angle.stream.map { $0 * 180 / .pi }
    /// ```
    public func map<U>(_ transform: @escaping (T) -> U) -> MotionObservable<U> {
        MotionObservable<U> { observer in
            self.connect(MotionObserver(runtime: observer.runtime, next: { observer.next(transform($0)) }, state: observer.state))
        }
    }

    /// The values for which `isIncluded` is true; the others are dropped.
    public func filter(_ isIncluded: @escaping (T) -> Bool) -> MotionObservable<T> {
        MotionObservable { observer in
            self.connect(MotionObserver(runtime: observer.runtime, next: { if isIncluded($0) { observer.next($0) } }, state: observer.state))
        }
    }
}

extension MotionObservable where T: Equatable {
    /// Each value that differs from the one this connection sent before it (the first always
    /// goes out): a property written with an unchanged value, for instance, notifies no further.
    public func dedupe() -> MotionObservable<T> {
        MotionObservable { observer in
            var last: T?
            return self.connect(MotionObserver(runtime: observer.runtime, next: { value in
                guard value != last else { return }
                last = value
                observer.next(value)
            }, state: observer.state))
        }
    }
}

extension MotionObservable where T == CGPoint {
    /// Each point's x.
    public func x() -> MotionObservable<CGFloat> { map { $0.x } }

    /// Each point's y.
    public func y() -> MotionObservable<CGFloat> { map { $0.y } }

    /// Each point with its x replaced by `x`: a drag that moves only vertically.
    public func xLocked(to x: CGFloat) -> MotionObservable<CGPoint> { map { CGPoint(x: x, y: $0.y) } }

    /// Each point with its y replaced by `y`: a drag that moves only horizontally.
    public func yLocked(to y: CGFloat) -> MotionObservable<CGPoint> { map { CGPoint(x: $0.x, y: y) } }

    /// Each point resisted past the edges of `rect`, never more than `maxLength` beyond them (see
    /// ``RubberBand``): a drag held in a region, as a scroll view's edge resists.
    public func rubberBanded(outsideOf rect: CGRect, maxLength: CGFloat) -> MotionObservable<CGPoint> {
        let band = RubberBand(bounds: rect, maximumOverflow: maxLength)
        return map { band.apply(to: $0) }
    }
}
