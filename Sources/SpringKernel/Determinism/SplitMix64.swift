/// SplitMix64: a small, fast, seeded random number generator whose sequence is the same on every
/// machine. The ``DeterminismScene`` draws from it; tests and benchmarks use it for reproducible
/// corpora.
///
/// <!-- fragment: kernel-internals -->
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let x = Double.random(in: 0..<1, using: &random)
/// ```
@frozen
@_spi(KernelInternals)
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's whole state.
    public var state: UInt64

    /// A generator that starts from `seed`.
    @inlinable
    public init(seed: UInt64) { state = seed }

    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits of the next draw.
    @inlinable
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in `range`, by the modulus of the next draw (its bias is negligible and fixed).
    @inlinable
    public mutating func integer(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
