#if !$Embedded
import Foundation
#endif

extension Float: SpringAnimatable {
    /// One component.
    public static var springComponentCount: Int { 1 }
    /// The first component.
    public init(springComponents components: SIMD4<Float>) { self = components[0] }
    /// The value in the first lane.
    public var springComponents: SIMD4<Float> { SIMD4(self, 0, 0, 0) }
}

extension Double: SpringAnimatable {
    /// One component.
    public static var springComponentCount: Int { 1 }
    /// The first component.
    public init(springComponents components: SIMD4<Float>) { self = Double(components[0]) }
    /// The value, rounded to float32, in the first lane.
    public var springComponents: SIMD4<Float> { SIMD4(Float(self), 0, 0, 0) }
}

// Built as Embedded Swift, CGFloat is Double (see Geometry.swift), which conforms above.
#if !$Embedded
extension CGFloat: SpringAnimatable {
    /// One component.
    public static var springComponentCount: Int { 1 }
    /// The first component.
    public init(springComponents components: SIMD4<Float>) { self = CGFloat(components[0]) }
    /// The value, rounded to float32, in the first lane.
    public var springComponents: SIMD4<Float> { SIMD4(Float(self), 0, 0, 0) }
}
#endif

extension CGPoint: SpringAnimatable {
    /// Two components: x, y.
    public static var springComponentCount: Int { 2 }
    /// The point (x, y) of the first two lanes.
    public init(springComponents components: SIMD4<Float>) {
        self.init(x: CGFloat(components[0]), y: CGFloat(components[1]))
    }
    /// x, y.
    public var springComponents: SIMD4<Float> { SIMD4(Float(x), Float(y), 0, 0) }
}

extension CGSize: SpringAnimatable {
    /// Two components: width, height.
    public static var springComponentCount: Int { 2 }
    /// The size (width, height) of the first two lanes.
    public init(springComponents components: SIMD4<Float>) {
        self.init(width: CGFloat(components[0]), height: CGFloat(components[1]))
    }
    /// width, height.
    public var springComponents: SIMD4<Float> { SIMD4(Float(width), Float(height), 0, 0) }
}

extension CGRect: SpringAnimatable {
    /// Four components: origin x, origin y, width, height.
    public static var springComponentCount: Int { 4 }
    /// The rectangle (x, y, width, height) of the four lanes.
    public init(springComponents components: SIMD4<Float>) {
        self.init(
            x: CGFloat(components[0]), y: CGFloat(components[1]),
            width: CGFloat(components[2]), height: CGFloat(components[3]))
    }
    /// origin x, origin y, width, height (as stored, not standardized).
    public var springComponents: SIMD4<Float> {
        SIMD4(Float(origin.x), Float(origin.y), Float(size.width), Float(size.height))
    }
}

extension SIMD2: SpringAnimatable where Scalar == Float {
    /// Two components.
    public static var springComponentCount: Int { 2 }
    /// The first two lanes.
    public init(springComponents components: SIMD4<Float>) { self.init(components[0], components[1]) }
    /// The two lanes, then zeros.
    public var springComponents: SIMD4<Float> { SIMD4(x, y, 0, 0) }
}

extension SIMD3: SpringAnimatable where Scalar == Float {
    /// Three components.
    public static var springComponentCount: Int { 3 }
    /// The first three lanes.
    public init(springComponents components: SIMD4<Float>) {
        self.init(components[0], components[1], components[2])
    }
    /// The three lanes, then zero.
    public var springComponents: SIMD4<Float> { SIMD4(x, y, z, 0) }
}

extension SIMD4: SpringAnimatable where Scalar == Float {
    /// Four components.
    public static var springComponentCount: Int { 4 }
    /// The four lanes.
    public init(springComponents components: SIMD4<Float>) { self = components }
    /// The four lanes.
    public var springComponents: SIMD4<Float> { self }
}
