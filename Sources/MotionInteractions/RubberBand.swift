#if !$Embedded
import Foundation
#endif

/// Resistance past the edges of a region, as a scroll view's edge resists: inside `bounds` a
/// point is unchanged; past an edge, the overflow d becomes L (1 − 1 / (0.55 d / L + 1)), which
/// starts at the finger's pace and never exceeds L = ``maximumOverflow``.
public struct RubberBand: Hashable, Sendable {
    /// The region a point moves in freely.
    public var bounds: CGRect
    /// The furthest past an edge a point can be pulled.
    public var maximumOverflow: CGFloat

    /// Resistance past the edges of `bounds`, never more than `maximumOverflow` past them.
    public init(bounds: CGRect, maximumOverflow: CGFloat = 100) {
        self.bounds = bounds
        self.maximumOverflow = maximumOverflow
    }

    /// `point` with each coordinate past an edge pulled back toward it.
    public func apply(to point: CGPoint) -> CGPoint {
        CGPoint(
            x: band(point.x, bounds.minX, bounds.maxX),
            y: band(point.y, bounds.minY, bounds.maxY))
    }

    private func band(_ value: CGFloat, _ low: CGFloat, _ high: CGFloat) -> CGFloat {
        guard maximumOverflow > 0, maximumOverflow.isFinite else { return min(max(value, low), high) }
        if value < low { return low - overflow(low - value) }
        if value > high { return high + overflow(value - high) }
        return value
    }

    private func overflow(_ distance: CGFloat) -> CGFloat {
        maximumOverflow * (1 - 1 / (distance * 0.55 / maximumOverflow + 1))
    }
}
