import _SpringKernelShims

/// Q16.16 fixed-point lanes: the same bits on every machine, and motion that follows the exact
/// trajectory to within a small fraction of each spring's tolerance.
///
/// **At the API** values, targets, velocities and tolerances are ``Q16`` (`Int32`, 16 fractional
/// bits): about ±32768 units in steps of 2⁻¹⁶. Targets are stored as such.
///
/// **In the lanes** a spring's displacement from its target and its velocity are `Int32` at a
/// resolution that follows the spring (a `LaneScale` per batch, so per configuration and
/// tolerance class): the displacement in steps of 2⁻¹⁴ of the tolerance's power of two (2⁻²² for
/// a 1/256 opacity band, 2⁻²⁴ for a 0.001 band; Q16.16 itself for bands of 0.25 and more), the velocity
/// in steps that make it the same size as the displacement once divided by the natural
/// frequency ω (rounded to a power of two). In those coordinates the propagator is a
/// contraction (a damped spring's energy k·d² + m·v² never grows), so a motion whose energy fits
/// the lanes at its start fits them for good: the API refuses a state whose energy norm exceeds
/// 2³⁰ lane steps, or whose target ± that norm leaves the Q16.16 range
/// (``SpringKernelError/outOfRange(_:)``), instead of saturating later. Motions up to 2¹⁶ times
/// the tolerance's power of two are held (at most 16384 units; 256 for a 1/256 band, 64 for 0.001).
///
/// **Step.** Each lane moves by its increment: d' = d + ⌊c11·d + c12·v⌉, v' = v + ⌊c21·d + c22·v⌉
/// with c11 = a11 − 1, c22 = a22 − 1 and c12, c21 scaled to the lanes, evaluated in binary32
/// (`Step`) and rounded to the nearest integer, ties to even. Going through binary32 costs a
/// conversion each way (`vcvtdq2ps`, `vcvtps2dq`) but no 64-bit product, which AVX2 lacks; the
/// increment, not the new lane, is rounded to 24 bits, which keeps that rounding far below the
/// lane step where errors accumulate. Rounding to nearest has no bias, so slow motions do not
/// creep to their target ahead of the exact motion; its limit cycles do not matter because rest
/// is decided from the exact motion and the spring is then snapped exactly onto its target
/// (`SettlePredictor`).
///
/// **Overflow** cannot come from the motion itself; rounding could, in principle, pump an
/// undamped spring's energy past 2³⁰ lane steps after about 10⁹ steps. A lane found beyond that
/// bound is clamped to it and reported (``SpringBank/wasSaturated(_:)``,
/// ``SpringBank/saturationCount``). From lanes within ±2³⁰ every such lane is reported: a sum
/// past the `Int32` range wraps to beyond the bound on the other side, and an increment of 2³¹
/// or more (only from a state the API never admits) converts to `Int32.min`, which takes any lane
/// within the bound beyond it; such a lane is clamped on the side it lands on.
///
/// **Determinism.** The step is IEEE-754 binary32 arithmetic, each operation correctly rounded
/// to nearest even and none fused, on integer lanes; a bank's step pins round-to-nearest for the
/// frame (`NearestRounding`) and no subnormal occurs (`smallestCoefficient`). The
/// coefficients and scales come from `DeterministicMath` and IEEE operations on `Double`. So a
/// bank gives the same bits on every machine, for the SIMD and scalar loops and any number of
/// threads.
public enum Q16Lanes: SpringLaneArithmetic {
    public typealias Value = Q16

    /// The displacement lanes resolve 2^-toleranceResolutionBits of the tolerance (rounded down to
    /// a power of two). A Float64 model of this arithmetic over the settle corpus's range put the
    /// deviation from the exact motion at 0.8 % of the tolerance with 16 bits, 7 % with 12; 14
    /// keeps it within the 5 % promised and holds motions of 2¹⁶ tolerances.
    static let toleranceResolutionBits = 14
    /// The largest energy norm, in displacement lane steps, a motion may have.
    static let laneBound = Double(1 << 30)

    public static var formatName: String { "q16.16" }

    @_spi(KernelInternals)
    public static var hasScaledLanes: Bool { true }

    /// displacement + (old target − new target) at the lanes' scale: exact, so a spring retargeted
    /// every frame keeps its value to the bit.
    @_spi(KernelInternals)
    public static func retargetedDisplacement(
        _ displacement: UInt32, from oldTarget: UInt32, to newTarget: UInt32, scale: LaneScale
    ) throws(SpringKernelError) -> UInt32 {
        let shift = try rescaled(displacementPattern(value: oldTarget, target: newTarget), by: scale.displacementShift, as: .displacement)
        return try lanePattern(adding: Q16(raw: Int32(bitPattern: shift)), to: displacement, as: .displacement)
    }

    @_spi(KernelInternals)
    public static func lanePattern(of value: Q16, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32 {
        UInt32(bitPattern: value.raw)
    }

    @_spi(KernelInternals)
    public static func lanePattern(adding delta: Q16, to pattern: UInt32, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32 {
        let (sum, overflow) = Int32(bitPattern: pattern).addingReportingOverflow(delta.raw)
        guard !overflow else { throw .outOfRange(quantity) }
        return UInt32(bitPattern: sum)
    }

    @_spi(KernelInternals)
    public static func displacementPattern(value: UInt32, target: UInt32) throws(SpringKernelError) -> UInt32 {
        let (difference, overflow) = Int32(bitPattern: value).subtractingReportingOverflow(Int32(bitPattern: target))
        guard !overflow else { throw .outOfRange(.displacement) }
        return UInt32(bitPattern: difference)
    }

    /// target + displacement, saturated to the format's range.
    @_spi(KernelInternals)
    public static func valuePattern(displacement: UInt32, target: UInt32) -> UInt32 {
        UInt32(bitPattern: saturated(Int64(Int32(bitPattern: target)) + Int64(Int32(bitPattern: displacement))))
    }

    @_spi(KernelInternals)
    public static func value(ofLanePattern pattern: UInt32) -> Q16 { Q16(raw: Int32(bitPattern: pattern)) }

    @_spi(KernelInternals)
    public static func double(ofLanePattern pattern: UInt32) -> Double { Double(Int32(bitPattern: pattern)) / Q16.scale }

    /// 2⁻¹⁶: the lanes are `Int32` counts of it (at a batch's ``LaneScale``, of a power of two of it).
    @_spi(KernelInternals)
    public static var integerLaneUnit: Double? { 1 / Q16.scale }
    public static func tolerance(_ value: Q16) throws(SpringKernelError) -> Double {
        guard value.raw > 0 else { throw .nonPositiveTolerance }
        return value.doubleValue
    }

    /// A lane beyond the bound a motion is admitted with: only rounding drift over about 10⁹
    /// steps of an undamped spring gets there.
    @_spi(KernelInternals)
    public static func isSaturated(lanePattern pattern: UInt32) -> Bool {
        let raw = Int32(bitPattern: pattern)
        return raw >= 1 << 30 || raw < -(1 << 30)
    }

    @_spi(KernelInternals)
    public static func saturating(lanePattern pattern: UInt32) -> UInt32 {
        UInt32(bitPattern: Swift.min(Swift.max(Int32(bitPattern: pattern), -(1 << 30) + 1), (1 << 30) - 1))
    }

    public static func nearestValue(to double: Double) -> Q16 {
        guard !double.isNaN else { return .zero }
        return Q16(raw: Int32(saturated((Swift.min(Swift.max(double, -1e12), 1e12) * Q16.scale).rounded(.toNearestOrEven))))
    }

    @_spi(KernelInternals)
    public static func laneScale(tolerance: Double, naturalFrequency: Double) -> LaneScale {
        // A Q16 tolerance is a whole number of 2⁻¹⁶ steps: its binary exponent is 0...30.
        let toleranceExponent = Int((tolerance * Q16.scale).exponent)
        let displacementShift = Swift.max(0, toleranceResolutionBits - toleranceExponent)
        return LaneScale(
            displacementShift: displacementShift,
            velocityShift: displacementShift - frequencyExponent(naturalFrequency))
    }

    /// ⌈log₂ ω⌉ (clamped to ±24; ω is at most 10⁶ for a valid configuration): velocity lanes are
    /// stored 2^this coarser than displacement lanes, so v/ω and d are lanes of one size.
    static func frequencyExponent(_ omega: Double) -> Int {
        guard omega.isFinite, omega > 0 else { return 0 }
        let floor = Int(omega.exponent)
        let exponent = omega.significand == 1 ? floor : floor + 1
        return Swift.min(Swift.max(exponent, -24), 24)
    }

    @_spi(KernelInternals)
    public static func rescaled(_ pattern: UInt32, by shift: Int, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32 {
        let raw = Int64(Int32(bitPattern: pattern))
        let result: Int64
        if shift >= 0 {
            guard raw != 0 else { return 0 }
            guard shift < 32 else { throw .outOfRange(quantity) }
            result = raw << shift
        } else {
            // Round to nearest, ties up: exact and the same on every machine.
            let bits = Swift.min(-shift, 40)
            result = (raw + (1 << (bits - 1))) >> bits
        }
        guard let lane = Int32(exactly: result) else { throw .outOfRange(quantity) }
        return UInt32(bitPattern: lane)
    }

    @_spi(KernelInternals)
    public static func holdsMotion(
        displacement: UInt32, velocity: UInt32, target: UInt32, scale: LaneScale, naturalFrequency: Double
    ) -> Bool {
        let d = Double(Int32(bitPattern: displacement))
        // The velocity over ω, in displacement lane steps: the energy norm's second coordinate.
        let stepsPerVelocityStep = LaneScale.powerOfTwo(scale.displacementShift - scale.velocityShift)
        let vk = Double(Int32(bitPattern: velocity)) * stepsPerVelocityStep
        let goal = Double(Int32(bitPattern: target))
        // Most motions lie far inside the format: accepted first with no division and no square
        // root (a retarget every frame asks this of every spring), by the norm's bound |d| + |w|,
        // multiplied through by ω, with a margin of 2⁻²⁰ that dwarfs every rounding of the exact
        // test below, so whatever this accepts the exact test accepts too: the same answers.
        if naturalFrequency > 0, naturalFrequency < .infinity {
            let bound = (abs(d) * naturalFrequency + abs(vk)) * (1 + 0x1p-20)
            let room = Swift.min(laneBound, (Double(Int32.max) - abs(goal)) * LaneScale.powerOfTwo(scale.displacementShift))
            if bound <= room * naturalFrequency { return true }
        }
        return holdsMotionExactly(displacement: displacement, velocity: velocity, target: target, scale: scale, naturalFrequency: naturalFrequency)
    }

    /// ``holdsMotion(displacement:velocity:target:scale:naturalFrequency:)`` without its quick
    /// acceptance: the energy norm against the lane bound and the format's range (the tests check
    /// that the two always agree).
    static func holdsMotionExactly(
        displacement: UInt32, velocity: UInt32, target: UInt32, scale: LaneScale, naturalFrequency: Double
    ) -> Bool {
        let d = Double(Int32(bitPattern: displacement))
        let stepsPerVelocityStep = LaneScale.powerOfTwo(scale.displacementShift - scale.velocityShift)
        let w = Double(Int32(bitPattern: velocity)) * stepsPerVelocityStep / naturalFrequency
        let goal = Double(Int32(bitPattern: target))
        let normSquared = d * d + w * w
        // The energy never grows, so no later lane exceeds the norm (NaN, from ω = 0, is refused).
        guard normSquared <= laneBound * laneBound else { return false }
        // Nor does the value leave the format: |target| + norm, in Q16 steps.
        let reach = normSquared.squareRoot() * scale.displacementFactor
        return goal + reach <= Double(Int32.max) && goal - reach >= Double(Int32.min)
    }

    /// The step's coefficients with `scale`'s identity: the velocity lanes at the displacement's
    /// resolution (a reference for tests; banks use ``coefficients(of:scale:)``).
    @_spi(KernelInternals)
    public static func coefficients(of propagator: SpringPropagator) -> SIMD8<UInt32> {
        coefficients(of: propagator, scale: .identity)
    }

    /// The step's coefficients in binary32: c11 = a11 − 1, c12 = a12·2^c, c21 = a21·2⁻ᶜ,
    /// c22 = a22 − 1 (c = displacement shift − velocity shift), then 1 (for the rounding-mode test).
    ///
    /// The diagonal is stored less one because the step computes each lane's increment: small
    /// next to the lane when the frame is short next to the motion, so the increment's binary32
    /// rounding is far below the lane's resolution where errors accumulate longest.
    @_spi(KernelInternals)
    public static func coefficients(of propagator: SpringPropagator, scale: LaneScale) -> SIMD8<UInt32> {
        // Every new frame duration comes here, so 2^±c from their bits. c is ⌈log₂ ω⌉, within ±24
        // (``frequencyExponent(_:)``); the clamp only keeps a hand-made scale's powers normal.
        let c = Swift.min(Swift.max(scale.displacementShift - scale.velocityShift, -1000), 1000)
        let up = DeterministicMath.powerOfTwo(c)
        let down = DeterministicMath.powerOfTwo(-c)
        return SIMD8(
            floatCoefficient(propagator.a11 - 1), floatCoefficient(propagator.a12 * up),
            floatCoefficient(propagator.a21 * down), floatCoefficient(propagator.a22 - 1),
            0, 0, 0, 0)
    }

    /// Below this magnitude a coefficient is stored as 0. Lanes are integers, so every product is
    /// then 0 or at least 2⁻⁶⁴ in magnitude, every sum of two a multiple of 2⁻⁸⁷: no subnormal
    /// ever enters or leaves the step, and flushing subnormals (FTZ/DAZ) cannot change a bit.
    static let smallestCoefficient = 0x1p-64

    /// x rounded to binary32 (ties to even), 0 below ``smallestCoefficient``, clamped to ±4 (a
    /// non-finite coefficient, which no valid configuration and duration gives, reads as 0: the
    /// spring stops, never a trap).
    static func floatCoefficient(_ x: Double) -> UInt32 {
        guard x.isFinite, x.magnitude >= smallestCoefficient else { return 0 }
        return Float(Swift.min(Swift.max(x, -4), 4)).bitPattern
    }

    /// Clamps to the `Int32` range.
    @inlinable @inline(__always)
    static func saturated(_ x: Int64) -> Int32 { Int32(Swift.min(Swift.max(x, Int64(Int32.min)), Int64(Int32.max))) }

    @inlinable @inline(__always)
    static func saturated(_ x: Double) -> Int64 { Int64(Swift.min(Swift.max(x, Double(Int32.min)), Double(Int32.max))) }

    /// The step, one formula for every loop: each lane moves by its increment
    ///
    ///     d' = d + ⌊c11·d + c12·v⌉,  v' = v + ⌊c21·d + c22·v⌉
    ///
    /// with d and v converted to binary32, each product and the sum rounded to binary32, and the
    /// sum rounded to the nearest `Int32` (ties to even), every rounding to nearest even and none
    /// fused. IEEE 754 makes each of these operations one exact function of its inputs, so the
    /// bits are the same on every machine that rounds to nearest, for SIMD lanes and scalar ones.
    /// When `checking`, `outside` gets bit 31 set when a result lane is outside [−2³⁰, 2³⁰) (see
    /// ``outsideBound(_:)``). A lane within the admitted bound moves by at most 2³¹ in a step, so
    /// the integer addition, modulo 2³², is exact.
    @usableFromInline @frozen
    struct Step {
        @usableFromInline let c11, c12, c21, c22: Float

        @inlinable @inline(__always)
        init(_ c: SIMD8<UInt32>) {
            c11 = Float(bitPattern: c[0])
            c12 = Float(bitPattern: c[1])
            c21 = Float(bitPattern: c[2])
            c22 = Float(bitPattern: c[3])
        }

        /// One spring.
        @inlinable @inline(__always)
        func callAsFunction(_ d: Int32, _ v: Int32, outside: inout UInt32, checking: Bool = true) -> (Int32, Int32) {
            // Through Int: Float(Int32) converts through Int64, a soft-float call a lane on 32-bit
            // ARM, where Float(Int) is one instruction (the same value, rounded alike).
            let fd = Float(Int(d)), fv = Float(Int(v))
            let newD = d &+ sk_round_to_int32(c11 * fd + c12 * fv)
            let newV = v &+ sk_round_to_int32(c21 * fd + c22 * fv)
            if checking { outside |= UInt32(bitPattern: Q16Lanes.outsideBound(newD) | Q16Lanes.outsideBound(newV)) }
            return (newD, newV)
        }

        /// Sixteen springs (a bundle): the same operations lane by lane (`vcvtdq2ps`, `vmulps`,
        /// `vaddps`, `vcvtps2dq`, `vpaddd`).
        @inlinable @inline(__always)
        func callAsFunction(
            _ d: SIMD16<Int32>, _ v: SIMD16<Int32>, outside: inout SIMD16<Int32>, checking: Bool
        ) -> (SIMD16<Int32>, SIMD16<Int32>) {
            let fd = sk_int32_to_float32x16(d), fv = sk_int32_to_float32x16(v)
            let (c11, c12) = (SIMD16<Float>(repeating: c11), SIMD16<Float>(repeating: c12))
            let (c21, c22) = (SIMD16<Float>(repeating: c21), SIMD16<Float>(repeating: c22))
            let newD = d &+ sk_round_to_int32x16(c11 * fd + c12 * fv)
            let newV = v &+ sk_round_to_int32x16(c21 * fd + c22 * fv)
            if checking {
                // ``outsideBound(_:)`` on every lane.
                let bias = SIMD16<Int32>(repeating: 1 << 30)
                outside |= (newD &+ bias) | (newV &+ bias)
            }
            return (newD, newV)
        }
    }

    @inlinable @inline(__always)
    static func saturated(_ outside: UInt32) -> Bool { outside & 0x8000_0000 != 0 }

    /// Bit 31 set when `lane` is outside [−2³⁰, 2³⁰), the bound a motion is admitted within:
    /// adding 2³⁰ carries such a lane, and only such a lane, into the sign bit.
    @inlinable @inline(__always)
    static func outsideBound(_ lane: Int32) -> Int32 { lane &+ (1 << 30) }

    /// One step of one spring's stored lanes, reporting whether a lane left the admitted bound.
    @inlinable
    public static func step(
        displacement d: Int32, velocity v: Int32, coefficients c: SIMD8<UInt32>
    ) -> (displacement: Int32, velocity: Int32, saturated: Bool) {
        let step = Step(c)
        var outside: UInt32 = 0
        let pinned = NearestRounding.isCurrent ? nil : NearestRounding.enter()
        let (newD, newV) = step(d, v, outside: &outside)
        if let pinned { NearestRounding.leave(pinned) }
        return (newD, newV, saturated(outside))
    }

    /// Frames between two checks of the admitted bound: a step reports the lanes a frame took
    /// outside [−2³⁰, 2³⁰) only on frames that are a multiple of it, because the check costs about
    /// a third of the in-cache step (two vector operations on each of four result vectors, against
    /// about six each for the step itself). `spring-bench throughput --kernel fixed,simd` measures
    /// the fixed-point step against float32's (a run's figures: `results/<machine>/throughput.csv`).
    ///
    /// Waiting is safe. Only rounding takes a lane past the bound (the exact motion of an admitted
    /// spring never leaves it: its energy never grows), and a step's rounding is at most 2¹² lane
    /// steps (the binary32 sum of two products of lanes below 2³¹ with coefficients within ±4,
    /// and the final rounding): 16 frames take a lane at most 2¹⁶ past the bound, far inside
    /// `Int32`, so nothing wraps, and the report and clamp come within 16 frames, at the same
    /// frame on every build, path and thread count. (A lane gets there only by rounding drift
    /// over about 10⁹ steps of an undamped spring, or at the very edge of the admitted motion.)
    public static let boundCheckInterval = 16

    /// Whether the step of a bank's frame `frame` (the steps it took before) checks the admitted
    /// bound: every ``boundCheckInterval``th, from the first.
    @inlinable @inline(__always)
    static func checksBound(frame: Int) -> Bool { frame & (boundCheckInterval - 1) == 0 }

    /// Q16.16 lanes step in binary32: the bank pins round-to-nearest for their frames.
    public static var stepsInNearestRounding: Bool { true }

    /// The SIMD loop or the bit-identical scalar one.
    ///
    /// - Complexity: O(bundles in `bundles`).
    @inlinable @inline(__always)
    public static func advance(_ work: LaneWork, bundles: Range<Int>, path: StepPath, checksBound: Bool) -> Int {
        path == .simd
            ? advance(work, bundles: bundles, checksBound: checksBound)
            : advanceScalar(work, bundles: bundles, checksBound: checksBound)
    }

    /// Advances the lanes, sixteen at a time, the last few one by one: every lane of the range
    /// but the last bundle's unused ones is moving. In round-to-nearest: ``SpringBank/step(dt:path:)``
    /// pins it for the frame, on the calling thread and on the step's workers. Lanes are checked
    /// against the admitted bound when `checksBound` (see ``boundCheckInterval``).
    @inlinable @inline(__always)
    static func advance(_ work: LaneWork, bundles: Range<Int>, checksBound: Bool) -> Int {
        #if arch(arm) || arch(riscv32)
        advanceOutOfLine(work, bundles: bundles, checksBound: checksBound)
        #else
        // Two loops, each with its check folded in or out.
        checksBound ? advance(work, bundles: bundles, checking: true) : advance(work, bundles: bundles, checking: false)
        #endif
    }

    #if arch(arm) || arch(riscv32)
    /// The two loops, called from each step that would inline them: on 32-bit ARM and RISC-V they
    /// run one lane at a time (see ``advance(_:bundles:checking:)``), so inlining them buys no
    /// vector code, and a copy of them in each caller cost a microcontroller's flash.
    @usableFromInline @inline(never)
    static func advanceOutOfLine(_ work: LaneWork, bundles: Range<Int>, checksBound: Bool) -> Int {
        checksBound ? advance(work, bundles: bundles, checking: true) : advance(work, bundles: bundles, checking: false)
    }
    #endif

    @inlinable @inline(__always)
    static func advance(_ work: LaneWork, bundles: Range<Int>, checking: Bool) -> Int {
        let step = Step(work.coefficients)
        var outside: UInt32 = 0
        let capacity = work.bundleCount * BundleIndexing.laneCount
        work.displacements.withMemoryRebound(to: Int32.self, capacity: capacity) { d in
            work.velocities.withMemoryRebound(to: Int32.self, capacity: capacity) { v in
                // Every live lane of the range, as one contiguous run.
                let first = bundles.lowerBound * BundleIndexing.laneCount
                var end = bundles.upperBound * BundleIndexing.laneCount
                if bundles.upperBound == work.bundleCount {
                    end -= BundleIndexing.laneCount - work.finalBundleLanes.nonzeroBitCount
                }
                var i = first
                // On 32-bit ARM and RISC-V a SIMD16 operation is sixteen scalar ones (a Cortex-M
                // has no vector unit; the rounding is a call a lane there): the lanes one at a time,
                // the same operations and bits, in a fraction of the code.
                #if !(arch(arm) || arch(riscv32))
                var sixteen = SIMD16<Int32>(repeating: 0)
                while i &+ 16 <= end {
                    let lanesD = UnsafeRawPointer(d + i).loadUnaligned(as: SIMD16<Int32>.self)
                    let lanesV = UnsafeRawPointer(v + i).loadUnaligned(as: SIMD16<Int32>.self)
                    let (newD, newV) = step(lanesD, lanesV, outside: &sixteen, checking: checking)
                    UnsafeMutableRawPointer(d + i).storeBytes(of: newD, as: SIMD16<Int32>.self)
                    UnsafeMutableRawPointer(v + i).storeBytes(of: newV, as: SIMD16<Int32>.self)
                    i &+= 16
                }
                // Bit 31 of any lane: the smallest lane is negative.
                outside |= UInt32(bitPattern: sixteen.min())
                #endif
                while i < end {
                    (d[i], v[i]) = step(d[i], v[i], outside: &outside, checking: checking)
                    i &+= 1
                }
            }
        }
        return saturated(outside) ? 1 : 0
    }

    /// The same step one lane at a time (``advance(_:bundles:checksBound:)``'s rounding mode, its
    /// bits, its checks).
    @inlinable
    static func advanceScalar(_ work: LaneWork, bundles: Range<Int>, checksBound: Bool) -> Int {
        let step = Step(work.coefficients)
        var outside: UInt32 = 0
        for b in bundles {
            let stored = work.storedLanes(bundle: b)
            for lane in 0..<BundleIndexing.laneCount where stored & (1 &<< UInt16(lane)) != 0 {
                let offset = (b * BundleIndexing.laneCount + lane) * 4
                let (d, v) = step(
                    work.displacements.load(fromByteOffset: offset, as: Int32.self),
                    work.velocities.load(fromByteOffset: offset, as: Int32.self), outside: &outside,
                    checking: checksBound)
                work.displacements.storeBytes(of: d, toByteOffset: offset, as: Int32.self)
                work.velocities.storeBytes(of: v, toByteOffset: offset, as: Int32.self)
            }
        }
        return saturated(outside) ? 1 : 0
    }
}
