/// exp, log, sin, cos and atan in plain IEEE-754 Double arithmetic, so that a spring's step
/// coefficients and rest predictions are the same bits on every machine.
///
/// Platform math libraries (glibc, Apple's libm, musl, the MSVC CRT) round their last bit
/// differently, and glibc even picks an implementation by CPU at run time. The fixed-point kernel
/// promises the same bits everywhere, so its coefficients cannot come from libm. These functions
/// use only +, −, ×, ÷ and exact scaling by powers of two, each correctly rounded by IEEE-754, in
/// a fixed order (Swift never fuses a·b + c), so they give identical results on any conforming
/// machine. They are accurate to about 2 ulp (Cody–Waite range reduction and Taylor polynomials
/// of sufficient degree), plenty for a propagator that is then rounded to float32 or fixed point.
enum DeterministicMath {
    private static let ln2Hi = 6.93147180369123816490e-01  // the high 32 bits of ln 2
    private static let ln2Lo = 1.90821492927058770002e-10  // ln 2 − ln2Hi
    private static let inverseLn2 = 1.44269504088896338700e+00


    /// 1/n! for n = 0...18, each one correctly rounded division of exact integers.
    private static let inverseFactorials: [Double] = {
        var factorial = 1.0
        return (0...18).map { n in
            if n > 1 { factorial *= Double(n) }
            return 1 / factorial
        }
    }()

    /// e^x. Underflows to 0 below −745 and overflows to +∞ above 709.78, like libm.
    static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.78 { return .infinity }
        if x < -745.2 { return 0 }
        // x = k ln 2 + r, |r| <= ln 2 / 2; ln 2 split in two so that k·ln2Hi is exact.
        let k = (x * inverseLn2).rounded(.toNearestOrEven)
        let r = (x - k * ln2Hi) - k * ln2Lo
        // e^r by its Taylor series to r^13/13! (remainder < 1e-17 for |r| <= 0.35), Horner form.
        var p = inverseFactorials[13]
        for n in stride(from: 12, through: 0, by: -1) { p = p * r + inverseFactorials[n] }
        return scaled(p, byPowerOfTwo: Int(k))
    }

    /// p · 2^k, exactly (in two factors so that neither overflows or goes subnormal early).
    private static func scaled(_ p: Double, byPowerOfTwo k: Int) -> Double {
        let half = k / 2
        return p * Double(sign: .plus, exponent: half, significand: 1)
            * Double(sign: .plus, exponent: k - half, significand: 1)
    }

    // π/2 as three 33-bit parts and a tail (fdlibm's pio2_1, pio2_2, pio2_3, pio2_3t):
    // k·part is exact for |k| < 2^20, so the reduction loses nothing to rounding there.
    private static let halfPi1 = 1.57079632673412561417e+00
    private static let halfPi2 = 6.07710050630396597660e-11
    private static let halfPi3 = 2.02226624871116645580e-21
    private static let halfPi4 = 8.47842766036889956997e-32
    private static let inverseHalfPi = 6.36619772367581382433e-01

    /// (sin x, cos x). Accurate while |x| < 2^20 · π/2 (about 1.6 million radians). Beyond that the
    /// argument is first reduced modulo the Double nearest 2π (`truncatingRemainder`, which is
    /// exact and so the same everywhere): the phase is lost, as any float phase that far out is,
    /// but the result is finite, deterministic and a rotation (sin² + cos² = 1 to rounding).
    static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        if !x.isFinite { return (.nan, .nan) }
        let x = abs(x) < 1_600_000 ? x : x.truncatingRemainder(dividingBy: 2 * .pi)
        let k = (x * inverseHalfPi).rounded(.toNearestOrEven)
        let r = (((x - k * halfPi1) - k * halfPi2) - k * halfPi3) - k * halfPi4
        let r2 = r * r
        // Taylor series on |r| <= π/4, to r^17 for sin and r^18 for cos (remainder < 1e-18):
        // sin r = r (1 − r²/3! + r⁴/5! − …), cos r = 1 − r²/2! + r⁴/4! − …
        var s = inverseFactorials[17]
        for n in stride(from: 15, through: 1, by: -2) { s = s * -r2 + inverseFactorials[n] }
        var c = inverseFactorials[18]
        for n in stride(from: 16, through: 0, by: -2) { c = c * -r2 + inverseFactorials[n] }
        let sine = r * s
        let cosine = c
        switch Int(k.truncatingRemainder(dividingBy: 4) + 4) % 4 {
        case 0: return (sine, cosine)
        case 1: return (cosine, -sine)
        case 2: return (-sine, -cosine)
        default: return (-cosine, sine)
        }
    }

    /// The natural logarithm of a positive finite x (NaN for x ≤ 0 or NaN, +∞ for +∞).
    ///
    /// x = 2^e · m with m in [√½, √2), and ln m = 2 atanh(s) = 2 (s + s³/3 + s⁵/5 + …) with
    /// s = (m − 1)/(m + 1), |s| ≤ 0.172, summed to s²³ (remainder below 10⁻¹⁸).
    static func log(_ x: Double) -> Double {
        guard x > 0 else { return x == 0 ? -.infinity : .nan }
        guard x.isFinite else { return x }
        // Subnormals: scale into the normal range first (exact).
        let (y, extra) = x < .leastNormalMagnitude ? (x * 0x1p54, -54) : (x, 0)
        var e = Int(y.exponent) + extra
        var m = y.significand  // in [1, 2)
        if m > 1.4142135623730951 {
            m *= 0.5
            e += 1
        }
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var p = 1.0 / 23
        for n in stride(from: 21, through: 1, by: -2) { p = p * s2 + 1 / Double(n) }
        let k = Double(e)
        return k * ln2Hi + (k * ln2Lo + 2 * s * p)
    }

    /// A lower bound on ln x for x ≥ 1, from the bits alone: x = 2^e · m with m in [1, 2), and
    /// ln m ≥ (m − 1) ln 2 because ln is concave (its chord over [1, 2] lies below it). Too small by
    /// at most 0.06. For 0 < x < 1 it is still below ln x; 0 and NaN give −∞.
    static func logLowerBound(_ x: Double) -> Double {
        guard x >= .leastNormalMagnitude, x.isFinite else { return x == .infinity ? .infinity : x > 0 ? -745.2 : -.infinity }
        // The exponent and significand straight from the bits (the standard library's accessors
        // are calls, and this runs once per event).
        let bits = x.bitPattern
        let exponent = Double(Int((bits >> 52) & 0x7FF) - 1023)
        let significand = Double(bitPattern: (bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000)
        return (exponent + (significand - 1)) * 0.6931471805599453 * (1 - 0x1p-40)
    }

    private static let quarterPi = 7.85398163397448278999e-01

    /// atan x, in (−π/2, π/2). Two half-angle reductions, atan x = 2 atan(x / (1 + √(1 + x²))),
    /// bring |x| ≤ 1 below tan(π/16) ≈ 0.199, where the alternating series to x²⁵ converges to
    /// below 10⁻¹⁹; |x| > 1 uses atan x = π/2 − atan(1/x). √ is correctly rounded by IEEE-754.
    static func atan(_ x: Double) -> Double {
        if x.isNaN { return x }
        let a = abs(x)
        let result: Double
        if a > 1 {
            result = 2 * quarterPi - smallAtan(1 / a)
        } else {
            result = smallAtan(a)
        }
        return x < 0 ? -result : result
    }

    /// atan a for 0 ≤ a ≤ 1.
    private static func smallAtan(_ a: Double) -> Double {
        let once = a / (1 + (1 + a * a).squareRoot())
        let twice = once / (1 + (1 + once * once).squareRoot())
        let y2 = twice * twice
        var p = 1.0 / 25
        for n in stride(from: 23, through: 1, by: -2) { p = p * -y2 + 1 / Double(n) }
        // The series alternates: p = 1 − y²/3 + y⁴/5 − … written as Horner in −y².
        return 4 * (twice * p)
    }

    /// The angle of (x, y), in (−π, π]; atan2(0, 0) is 0.
    static func atan2(_ y: Double, _ x: Double) -> Double {
        if x.isNaN || y.isNaN { return .nan }
        if x > 0 { return atan(y / x) }
        if x < 0 { return y >= 0 ? atan(y / x) + 4 * quarterPi : atan(y / x) - 4 * quarterPi }
        if y > 0 { return 2 * quarterPi }
        if y < 0 { return -2 * quarterPi }
        return 0
    }

    /// atanh x for |x| < 1: ½ ln((1 + x)/(1 − x)), or its series x + x³/3 + x⁵/5 near 0, where the
    /// logarithm's argument would round.
    static func atanh(_ x: Double) -> Double {
        if abs(x) < 1e-3 {
            let x2 = x * x
            return x * (1 + x2 * (1.0 / 3 + x2 * (1.0 / 5 + x2 / 7)))
        }
        return 0.5 * log((1 + x) / (1 - x))
    }

    /// cosh x = (e^x + e^−x) / 2.
    static func cosh(_ x: Double) -> Double {
        let e = exp(x)
        return (e + 1 / e) / 2
    }

    /// sinh x, from its Taylor series near 0 (no cancellation) and from `exp` elsewhere.
    static func sinh(_ x: Double) -> Double {
        if abs(x) < 0.5 {
            let x2 = x * x
            var p = inverseFactorials[15]
            for n in stride(from: 13, through: 1, by: -2) { p = p * x2 + inverseFactorials[n] }
            return x * p
        }
        let e = exp(x)
        return (e - 1 / e) / 2
    }
}
