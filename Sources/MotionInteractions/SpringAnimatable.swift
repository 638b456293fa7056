/// A value a spring can animate: one that decomposes into one to four `Float` components.
///
/// Each component gets its own kernel spring; all of them share the spring's configuration and
/// threshold, and the value is at rest when every component is. The kernel stores float32 lanes,
/// so a `Double` or `CGFloat` value moves with float32 precision (relative to its target: a spring
/// stores its displacement, so positions near 10⁶ still settle to a fraction of a point).
///
/// Conforming types: `Float`, `Double`, `CGFloat`, `CGPoint`, `CGSize`, `CGRect` and
/// `SIMD2/3/4<Float>`.
public protocol SpringAnimatable {
    /// How many components a value has, 1 to 4.
    static var springComponentCount: Int { get }
    /// The value made of the first ``springComponentCount`` lanes of `components`.
    init(springComponents components: SIMD4<Float>)
    /// The value's components in the first ``springComponentCount`` lanes; the others are zero.
    var springComponents: SIMD4<Float> { get }
}

extension SpringAnimatable {
    /// The value whose components are all zero (the velocity of a value at rest).
    static var springZero: Self { Self(springComponents: .zero) }
}
