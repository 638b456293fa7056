/// A Q16.16 fixed-point number: `raw / 65536`, from −32768 to 32768 − 2⁻¹⁶ in steps of 2⁻¹⁶.
///
/// The values, targets, velocities and tolerances of a ``SpringBank`` of ``Q16Lanes``. Integer
/// literals are whole units (`let x: Q16 = 120`), limited by the compiler to −32768...32767.
///
/// <!-- fragment: kernel -->
/// ```swift
/// let half = Q16(raw: 1 << 15)          // 0.5
/// let third = Q16(1.0 / 3)!              // nearest: 21845 / 65536
/// ```
@frozen
public struct Q16: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The number times 65536.
    public var raw: Int32

    /// Units per raw step: 65536.
    public static let scale: Double = 65536
    /// The smallest positive number, 2⁻¹⁶.
    public static let resolution = Q16(raw: 1)
    /// The largest number, 32768 − 2⁻¹⁶.
    public static let max = Q16(raw: .max)
    /// The smallest number, −32768.
    public static let min = Q16(raw: .min)
    /// Zero.
    public static let zero = Q16(raw: 0)

    /// The number `raw / 65536`.
    @inlinable
    public init(raw: Int32) { self.raw = raw }

    /// A whole number of units.
    @inlinable
    public init(integerLiteral value: Int16) { raw = Int32(value) << 16 }

    /// The Q16.16 number nearest to `value` (ties to even), or nil if `value` is not finite or that
    /// number lies outside [−32768, 32768 − 2⁻¹⁶] (so a value within half a step of 32768 is nil,
    /// and one within half a step below −32768 gives −32768).
    @inlinable
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        let scaled = (value * Self.scale).rounded(.toNearestOrEven)
        guard scaled >= Double(Int32.min), scaled <= Double(Int32.max) else { return nil }
        raw = Int32(scaled)
    }

    /// The exact value as a `Double`.
    @inlinable
    public var doubleValue: Double { Double(raw) / Self.scale }

    @inlinable
    public static func < (a: Q16, b: Q16) -> Bool { a.raw < b.raw }

    public var description: String { "\(doubleValue)" }
}
