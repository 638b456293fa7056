// Where Foundation exists (Linux, Apple platforms) the layer speaks its CGFloat, CGPoint, CGSize
// and CGRect, so Material Motion code ports unchanged. Built as Embedded Swift (a microcontroller,
// WebAssembly without an operating system) there is no Foundation: these stand-ins have the same
// names, fields and initializers, and CGFloat is Double, as it is on every 64-bit platform.
#if $Embedded
/// A coordinate: Double, as Foundation's CGFloat is on 64-bit platforms.
public typealias CGFloat = Double

/// A point in a two-dimensional coordinate space (Foundation's CGPoint, for Embedded Swift).
public struct CGPoint: Hashable, Sendable {
    /// The x coordinate.
    public var x: CGFloat
    /// The y coordinate.
    public var y: CGFloat
    /// The point (x, y).
    public init(x: CGFloat, y: CGFloat) {
        self.x = x
        self.y = y
    }
    /// The point (0, 0).
    public init() { self.init(x: 0, y: 0) }
    /// The point (0, 0).
    public static var zero: CGPoint { CGPoint() }
}

/// A width and a height (Foundation's CGSize, for Embedded Swift).
public struct CGSize: Hashable, Sendable {
    /// The width.
    public var width: CGFloat
    /// The height.
    public var height: CGFloat
    /// The size (width, height).
    public init(width: CGFloat, height: CGFloat) {
        self.width = width
        self.height = height
    }
    /// The size (0, 0).
    public init() { self.init(width: 0, height: 0) }
    /// The size (0, 0).
    public static var zero: CGSize { CGSize() }
}

/// A rectangle: an origin and a size (Foundation's CGRect, for Embedded Swift).
public struct CGRect: Hashable, Sendable {
    /// The corner with the smallest coordinates when the size is positive.
    public var origin: CGPoint
    /// The width and height (negative for a rectangle that extends the other way).
    public var size: CGSize
    /// The rectangle at `origin` of `size`.
    public init(origin: CGPoint, size: CGSize) {
        self.origin = origin
        self.size = size
    }
    /// The rectangle at (x, y) of width × height.
    public init(x: CGFloat, y: CGFloat, width: CGFloat, height: CGFloat) {
        self.init(origin: CGPoint(x: x, y: y), size: CGSize(width: width, height: height))
    }
    /// The empty rectangle at (0, 0).
    public static var zero: CGRect { CGRect(origin: .zero, size: .zero) }
    /// The smallest x of the rectangle.
    public var minX: CGFloat { min(origin.x, origin.x + size.width) }
    /// The largest x of the rectangle.
    public var maxX: CGFloat { max(origin.x, origin.x + size.width) }
    /// The smallest y of the rectangle.
    public var minY: CGFloat { min(origin.y, origin.y + size.height) }
    /// The largest y of the rectangle.
    public var maxY: CGFloat { max(origin.y, origin.y + size.height) }
}
#endif
