/// Q16.16 fixed-point lanes: the same bits on every machine, and springs that come exactly to rest.
///
/// **Format.** Displacement, velocity and target are ``Q16`` (`Int32`, 16 fractional bits):
/// about ±32768 units and units per second, in steps of 2⁻¹⁶. A spring's value and target must
/// lie in that range and so must their distance (value − target); the API refuses anything else
/// with ``SpringKernelError/outOfRange(_:)``.
///
/// **Step.** Each row of the propagator is stored as two `Int32` coefficients sharing a shift F:
/// a = raw / 2^F, with F chosen per row (per configuration and frame duration) as large as keeps
/// |raw| below 2³⁰. a21 is −4.4 for the default spring at 1/60 s, so that row is Q4.27 and the
/// displacement row Q1.30. Products are widened to `Int64` and summed, a11·d + a12·v, which cannot
/// overflow (|sum| < 2⁶²), then shifted right by F **rounding toward zero**.
///
/// **Rounding toward zero comes to rest.** Rounding to nearest leaves limit cycles of up to 21 LSB
/// at 1/60 s (53 at 1/120 s) that never settle. Truncation makes every component of the new state
/// no larger in magnitude than the exact product's, so the energy k·d² + m·v² falls strictly at
/// every step of a damped spring (friction > 0) and, on the integer lattice, reaches exactly
/// d = 0, v = 0: the spring comes exactly to rest, and stays there.
///
/// **Overflow.** A result outside `Int32` saturates to `Int32.min` or `Int32.max` and the step
/// reports it; the bank marks the spring (``SpringBank/wasSaturated(_:)``) and counts the event
/// (``SpringBank/saturationCount``). Nothing wraps. Coefficients larger than 2³⁰ (stiffness over
/// mass times the frame duration beyond about 10⁹) are clamped, and such springs saturate.
///
/// **Determinism.** The step is integer arithmetic and the coefficients come from
/// ``DeterministicMath``, so a bank gives the same bits on every machine, for the SIMD and scalar
/// loops and any number of threads.
public enum Q16Lanes: SpringLaneArithmetic {
    public typealias Value = Q16

    /// Coefficients stay below this many bits of magnitude, so that two products sum within `Int64`.
    static let coefficientBits = 30

    public static var formatName: String { "q16.16" }

    public static func lanePattern(of value: Q16, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32 {
        UInt32(bitPattern: value.raw)
    }

    public static func lanePattern(adding delta: Q16, to pattern: UInt32, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32 {
        let (sum, overflow) = Int32(bitPattern: pattern).addingReportingOverflow(delta.raw)
        guard !overflow else { throw .outOfRange(quantity) }
        return UInt32(bitPattern: sum)
    }

    public static func displacementPattern(value: UInt32, target: UInt32) throws(SpringKernelError) -> UInt32 {
        let (difference, overflow) = Int32(bitPattern: value).subtractingReportingOverflow(Int32(bitPattern: target))
        guard !overflow else { throw .outOfRange(.displacement) }
        return UInt32(bitPattern: difference)
    }

    /// target + displacement, saturated to the format's range (a saturated spring may sit past it).
    public static func valuePattern(displacement: UInt32, target: UInt32) -> UInt32 {
        UInt32(bitPattern: saturated(Int64(Int32(bitPattern: target)) + Int64(Int32(bitPattern: displacement))))
    }

    public static func value(ofLanePattern pattern: UInt32) -> Q16 { Q16(raw: Int32(bitPattern: pattern)) }

    public static func double(ofLanePattern pattern: UInt32) -> Double { Double(Int32(bitPattern: pattern)) / Q16.scale }

    public static func tolerance(_ value: Q16) throws(SpringKernelError) -> Double {
        guard value.raw > 0 else { throw .nonPositiveTolerance }
        return value.doubleValue
    }

    public static func isSaturated(lanePattern pattern: UInt32) -> Bool {
        let raw = Int32(bitPattern: pattern)
        return raw == .max || raw == .min
    }

    public static func nearestValue(to double: Double) -> Q16 {
        guard !double.isNaN else { return .zero }
        return Q16(raw: Int32(saturated((Swift.min(Swift.max(double, -1e12), 1e12) * Q16.scale).rounded(.toNearestOrEven))))
    }

    /// a11, a12, a21, a22 as `Int32` bit patterns, then the displacement row's shift and the
    /// velocity row's shift.
    public static func coefficients(of propagator: SpringPropagator) -> SIMD8<UInt32> {
        let displacementRow = fixedRow(propagator.a11, propagator.a12)
        let velocityRow = fixedRow(propagator.a21, propagator.a22)
        return SIMD8(
            UInt32(bitPattern: displacementRow.first), UInt32(bitPattern: displacementRow.second),
            UInt32(bitPattern: velocityRow.first), UInt32(bitPattern: velocityRow.second),
            UInt32(displacementRow.shift), UInt32(velocityRow.shift), 0, 0)
    }

    /// Two coefficients of one row as raw / 2^shift, the shift as large as keeps |raw| < 2³⁰.
    static func fixedRow(_ a: Double, _ b: Double) -> (first: Int32, second: Int32, shift: Int) {
        let magnitude = Swift.max(a.isFinite ? abs(a) : 0, b.isFinite ? abs(b) : 0)
        var integerBits = 0
        while integerBits < coefficientBits && magnitude >= Double(1 << integerBits) { integerBits += 1 }
        let shift = coefficientBits - integerBits
        let limit = Double(1 << coefficientBits)
        func raw(_ x: Double) -> Int32 {
            // The propagator is finite for every valid configuration and duration; were it not,
            // a zero coefficient is the safe reading (the spring stops), never a trap.
            guard x.isFinite else { return 0 }
            let scaled = (x * Double(1 << shift)).rounded(.toNearestOrEven)
            return Int32(Swift.min(Swift.max(scaled, -limit), limit))
        }
        return (raw(a), raw(b), shift)
    }

    /// Clamps to the `Int32` range.
    @inlinable @inline(__always)
    static func saturated(_ x: Int64) -> Int32 { Int32(Swift.min(Swift.max(x, Int64(Int32.min)), Int64(Int32.max))) }

    @inlinable @inline(__always)
    static func saturated(_ x: Double) -> Int64 { Int64(Swift.min(Swift.max(x, Double(Int32.min)), Double(Int32.max))) }

    /// One row's result: `sum / 2^shift` rounded toward zero (an arithmetic shift after biasing a
    /// negative sum by 2^shift − 1), saturated to `Int32`. `outside` becomes non-zero when it saturated.
    ///
    /// Written branch-free on scalars so that LLVM's loop vectorizer, not Swift's per-lane SIMD
    /// shift and widening (which come out as split 128/256-bit pieces), builds the vector code:
    /// `vpmovsxdq`, `vpmullq`, a masked bias add, `vpsravq` and a saturating `vpmovsqd`, as clang
    /// does for the same C.
    @inlinable @inline(__always)
    static func row(_ sum: Int64, shift: Int64, bias: Int64, outside: inout Int64) -> Int32 {
        let quotient = (sum &+ ((sum &>> 63) & bias)) &>> shift
        // quotient + 2³¹ has its high 32 bits clear exactly when the quotient fits in Int32, and
        // OR keeps any high bit set: the accumulator is tested once, by `saturated(_:)`, after the
        // loop (two vector operations a row instead of four).
        outside |= quotient &+ 0x8000_0000
        let low = quotient < -0x8000_0000 ? -0x8000_0000 : quotient
        return Int32(truncatingIfNeeded: low > 0x7FFF_FFFF ? 0x7FFF_FFFF : low)
    }

    /// Whether a step's `outside` accumulator (see ``row(_:shift:bias:outside:)``) saw a result
    /// that did not fit in `Int32`.
    @inlinable @inline(__always)
    static func saturated(_ outside: Int64) -> Bool { outside &>> 32 != 0 }

    /// The step's parameters unpacked for a lane loop.
    @usableFromInline
    struct Step {
        @usableFromInline let a11, a12, a21, a22, shiftD, shiftV, biasD, biasV: Int64

        @inlinable @inline(__always)
        init(_ c: SIMD8<UInt32>) {
            a11 = Int64(Int32(bitPattern: c[0]))
            a12 = Int64(Int32(bitPattern: c[1]))
            a21 = Int64(Int32(bitPattern: c[2]))
            a22 = Int64(Int32(bitPattern: c[3]))
            shiftD = Int64(c[4])
            shiftV = Int64(c[5])
            biasD = (1 &<< shiftD) &- 1
            biasV = (1 &<< shiftV) &- 1
        }

        /// One spring: the arithmetic every loop shares.
        @inlinable @inline(__always)
        func callAsFunction(_ d: Int32, _ v: Int32, outside: inout Int64) -> (Int32, Int32) {
            let d64 = Int64(d), v64 = Int64(v)
            return (
                row(a11 &* d64 &+ a12 &* v64, shift: shiftD, bias: biasD, outside: &outside),
                row(a21 &* d64 &+ a22 &* v64, shift: shiftV, bias: biasV, outside: &outside))
        }
    }

    /// One step of one spring, reporting whether it saturated.
    @inlinable
    public static func step(
        displacement d: Int32, velocity v: Int32, coefficients c: SIMD8<UInt32>
    ) -> (displacement: Int32, velocity: Int32, saturated: Bool) {
        var outside: Int64 = 0
        let (newD, newV) = Step(c)(d, v, outside: &outside)
        return (newD, newV, saturated(outside))
    }

    /// Advances the lanes with a plain loop that LLVM vectorizes (see ``row(_:shift:bias:outside:)``);
    /// bundles with paused lanes store lane by lane.
    @inlinable @inline(__always)
    public static func advance(_ work: LaneWork, bundles: Range<Int>) -> Int {
        let step = Step(work.coefficients)
        var outside: Int64 = 0
        let capacity = work.bundleCount * BundleIndexing.laneCount
        work.displacements.withMemoryRebound(to: Int32.self, capacity: capacity) { d in
            work.velocities.withMemoryRebound(to: Int32.self, capacity: capacity) { v in
                if !work.hasPausedLanes {
                    // Every live lane of the range, as one contiguous run.
                    let first = bundles.lowerBound * BundleIndexing.laneCount
                    var end = bundles.upperBound * BundleIndexing.laneCount
                    if bundles.upperBound == work.bundleCount {
                        end -= BundleIndexing.laneCount - work.finalBundleLanes.nonzeroBitCount
                    }
                    for i in first..<end { (d[i], v[i]) = step(d[i], v[i], outside: &outside) }
                    return
                }
                for b in bundles {
                    let stored = work.storedLanes(bundle: b)
                    for lane in 0..<BundleIndexing.laneCount where stored & (1 &<< UInt16(lane)) != 0 {
                        let i = b * BundleIndexing.laneCount + lane
                        (d[i], v[i]) = step(d[i], v[i], outside: &outside)
                    }
                }
            }
        }
        return saturated(outside) ? 1 : 0
    }

    @inlinable
    public static func advanceScalar(_ work: LaneWork, bundles: Range<Int>) -> Int {
        let step = Step(work.coefficients)
        var outside: Int64 = 0
        for b in bundles {
            let stored = work.storedLanes(bundle: b)
            for lane in 0..<BundleIndexing.laneCount where stored & (1 &<< UInt16(lane)) != 0 {
                let offset = (b * BundleIndexing.laneCount + lane) * 4
                let (d, v) = step(
                    work.displacements.load(fromByteOffset: offset, as: Int32.self),
                    work.velocities.load(fromByteOffset: offset, as: Int32.self), outside: &outside)
                work.displacements.storeBytes(of: d, toByteOffset: offset, as: Int32.self)
                work.velocities.storeBytes(of: v, toByteOffset: offset, as: Int32.self)
            }
        }
        return saturated(outside) ? 1 : 0
    }
}
