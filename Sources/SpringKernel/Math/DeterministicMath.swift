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
    /// ln 2 / 2: below it x · (1 / ln 2) rounds to at most ½, so `exp`'s reduction gives k = 0.
    private static let halfLn2 = 0.34657359027997264


    // 1/n! for n = 0...18, each the correctly rounded Double (as 1 / n! computed in Double is:
    // n! is exact up to 18!), written out so the polynomials below are straight-line code.
    private static let f0 = 0x1.0000000000000p+0
    private static let f1 = 0x1.0000000000000p+0
    private static let f2 = 0x1.0000000000000p-1
    private static let f3 = 0x1.5555555555555p-3
    private static let f4 = 0x1.5555555555555p-5
    private static let f5 = 0x1.1111111111111p-7
    private static let f6 = 0x1.6c16c16c16c17p-10
    private static let f7 = 0x1.a01a01a01a01ap-13
    private static let f8 = 0x1.a01a01a01a01ap-16
    private static let f9 = 0x1.71de3a556c734p-19
    private static let f10 = 0x1.27e4fb7789f5cp-22
    private static let f11 = 0x1.ae64567f544e4p-26
    private static let f12 = 0x1.1eed8eff8d898p-29
    private static let f13 = 0x1.6124613a86d09p-33
    private static let f14 = 0x1.93974a8c07c9dp-37
    private static let f15 = 0x1.ae7f3e733b81fp-41
    private static let f16 = 0x1.ae7f3e733b81fp-45
    private static let f17 = 0x1.952c77030ad4ap-49
    private static let f18 = 0x1.6827863b97d97p-53

    /// e^x. Underflows to 0 below −745 and overflows to +∞ above 709.78, like libm.
    static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.78 { return .infinity }
        if x < -745.2 { return 0 }
        // x = k ln 2 + r, |r| <= ln 2 / 2; ln 2 split in two so that k·ln2Hi is exact. A short
        // frame's decay (|x| < ln 2 / 2) has k = 0 and r = x: the same bits without the reduction.
        let k = x.magnitude < halfLn2 ? 0 : nearestInteger(x * inverseLn2)
        let r = k == 0 ? x : (x - k * ln2Hi) - k * ln2Lo
        // e^r by its Taylor series to r^13/13! (remainder < 1e-17 for |r| <= 0.35), in Estrin's
        // form: a new frame duration waits on this, and pairs of terms combined by powers of r
        // form a tree four operations deep where Horner's chain is thirteen.
        let r2 = r * r
        let r4 = r2 * r2
        let r8 = r4 * r4
        let low = ((f0 + f1 * r) + (f2 + f3 * r) * r2) + ((f4 + f5 * r) + (f6 + f7 * r) * r2) * r4
        let high = ((f8 + f9 * r) + (f10 + f11 * r) * r2) + (f12 + f13 * r) * r4
        let p = low + high * r8
        return k == 0 ? p : scaled(p, byPowerOfTwo: Int(k))
    }

    /// x rounded to the nearest integer, ties to even, for |x| < 2^51: adding and subtracting
    /// 1.5·2^52 leaves no fraction bits (IEEE-754's default rounding does the rounding), where
    /// `rounded(.toNearestOrEven)` is a call to libm's rint.
    @inline(__always)
    private static func nearestInteger(_ x: Double) -> Double {
        (x + 0x1.8p52) - 0x1.8p52
    }

    /// p · 2^k, exactly (in two factors so that neither overflows or goes subnormal early).
    private static func scaled(_ p: Double, byPowerOfTwo k: Int) -> Double {
        let half = k / 2
        return p * powerOfTwo(half) * powerOfTwo(k - half)
    }

    /// 2^e for a normal exponent (−1022...1023), built from its bits: the standard library's
    /// `Double(sign:exponent:significand:)` is a call, and a new frame duration takes this path.
    @inline(__always)
    static func powerOfTwo(_ e: Int) -> Double {
        Double(bitPattern: UInt64(truncatingIfNeeded: e + 1023) << 52)
    }

    /// `x.truncatingRemainder(dividingBy: y)` for finite x and y > 0, exactly, so the same bits
    /// as libm's fmod: |x| less y·2^k for falling k, where y·2^k has |x|'s exponent (or one less
    /// when that overshoots), so the remainder lies between it and twice it and each subtraction
    /// is exact (Sterbenz). At most |x|'s exponent less y's steps. In Swift, not a call: newlib's
    /// fmod was 0.9 KB of a microcontroller's flash, for paths no ordinary spring takes.
    static func truncatingRemainder(_ x: Double, dividingBy y: Double) -> Double {
        var r = abs(x)
        while r >= y {
            var step = scaled(y, byPowerOfTwo: Int(r.exponent - y.exponent))
            if step > r { step *= 0.5 }
            r -= step
        }
        return Double(signOf: x, magnitudeOf: r)
    }

    // π/2 as three 33-bit parts and a tail (fdlibm's pio2_1, pio2_2, pio2_3, pio2_3t):
    // k·part is exact for |k| < 2^20, so the reduction loses nothing to rounding there.
    private static let halfPi1 = 1.57079632673412561417e+00
    private static let halfPi2 = 6.07710050630396597660e-11
    private static let halfPi3 = 2.02226624871116645580e-21
    private static let halfPi4 = 8.47842766036889956997e-32
    private static let inverseHalfPi = 6.36619772367581382433e-01
    /// A little below π/4, where x · (2/π) still rounds to k = 0 in `sinCos`'s reduction.
    private static let quarterPiBelow = 0.78

    /// (sin x, cos x). Accurate while |x| < 2^20 · π/2 (about 1.6 million radians). Beyond that the
    /// argument is first reduced modulo the Double nearest 2π
    /// (``truncatingRemainder(_:dividingBy:)``, which is exact and so the same everywhere): the
    /// phase is lost, as any float phase that far out is, but the result is finite, deterministic
    /// and a rotation (sin² + cos² = 1 to rounding).
    static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        if !x.isFinite { return (.nan, .nan) }
        let x = abs(x) < 1_600_000 ? x : truncatingRemainder(x, dividingBy: 2 * .pi)
        // A frame's phase is mostly below π/4: k = 0 and r = x, the same bits without the reduction.
        let k = x.magnitude < quarterPiBelow ? 0 : nearestInteger(x * inverseHalfPi)
        let r = k == 0 ? x : (((x - k * halfPi1) - k * halfPi2) - k * halfPi3) - k * halfPi4
        // Taylor series on |r| <= π/4, to r^17 for sin and r^18 for cos (remainder < 1e-18):
        // sin r = r (1 − r²/3! + r⁴/5! − …), cos r = 1 − r²/2! + r⁴/4! − …, polynomials in
        // m = −r² in Estrin's form (see `exp`).
        let m = -(r * r)
        let m2 = m * m
        let m4 = m2 * m2
        let m8 = m4 * m4
        let s = (((f1 + f3 * m) + (f5 + f7 * m) * m2) + ((f9 + f11 * m) + (f13 + f15 * m) * m2) * m4) + f17 * m8
        let c = (((f0 + f2 * m) + (f4 + f6 * m) * m2) + ((f8 + f10 * m) + (f12 + f14 * m) * m2) * m4) + (f16 + f18 * m) * m8
        let sine = r * s
        let cosine = c
        // k is an integer below 2^20 in magnitude: its quadrant from its two's-complement bits
        // (the same as ((k mod 4) + 4) mod 4, without a call to fmod).
        switch Int(k) & 3 {
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
    @inline(__always)
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
            let p = (((((((f15) * x2 + f13) * x2 + f11) * x2 + f9) * x2 + f7) * x2 + f5) * x2 + f3) * x2 + f1
            return x * p
        }
        let e = exp(x)
        return (e - 1 / e) / 2
    }
}
