import _SpringKernelShims

/// IEEE-754 single-precision lanes.
///
/// A spring is stored as its displacement d = x − target and velocity v, so its precision follows
/// its own motion rather than the size of its target (an absolute x near 400 cannot move by less
/// than 2⁻¹⁵ a frame, its float32 spacing, and would stall outside a 1/256 band). One step is
/// d' = a11·d + a12·v, v' = a21·d + a22·v, with the coefficients rounded once from the exact
/// Double propagator. Every operation rounds to nearest and none is fused (Swift never contracts
/// a·b + c, and the step calls no libm), so the SIMD and scalar loops agree bit for bit, and so do
/// builds for SSE2, AVX2 and AVX-512 on one architecture.
///
/// Values, targets and velocities are finite with magnitude at most ``valueLimit``.
public enum Float32Lanes: SpringLaneArithmetic {
    public typealias Value = Float

    /// The largest magnitude a value, target or velocity may have, so that no step can overflow.
    public static let valueLimit: Float = 1e15

    public static var formatName: String { "float32" }

    // Inlined: every call naming a target checks it (a bulk retarget, once a spring).
    @_spi(KernelInternals) @inline(__always)
    public static func lanePattern(of value: Float, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32 {
        guard value.isFinite else { throw .nonFinite(quantity) }
        guard abs(value) <= valueLimit else { throw .outOfRange(quantity) }
        return value.bitPattern
    }

    @_spi(KernelInternals)
    public static func lanePattern(adding delta: Float, to pattern: UInt32, as quantity: SpringQuantity) throws(SpringKernelError) -> UInt32 {
        _ = try lanePattern(of: delta, as: quantity)
        return try lanePattern(of: Float(bitPattern: pattern) + delta, as: quantity)
    }

    @_spi(KernelInternals)
    public static func displacementPattern(value: UInt32, target: UInt32) throws(SpringKernelError) -> UInt32 {
        // Both are at most 1e15 in magnitude, so the difference is finite.
        (Float(bitPattern: value) - Float(bitPattern: target)).bitPattern
    }

    @_spi(KernelInternals)
    public static func valuePattern(displacement: UInt32, target: UInt32) -> UInt32 {
        (Float(bitPattern: target) + Float(bitPattern: displacement)).bitPattern
    }

    @_spi(KernelInternals)
    public static func value(ofLanePattern pattern: UInt32) -> Float { Float(bitPattern: pattern) }

    @_spi(KernelInternals)
    public static func double(ofLanePattern pattern: UInt32) -> Double { Double(Float(bitPattern: pattern)) }

    /// Nil: the lanes hold IEEE float bits.
    @_spi(KernelInternals)
    public static var integerLaneUnit: Double? { nil }
    public static func tolerance(_ value: Float) throws(SpringKernelError) -> Double {
        guard value.isFinite else { throw .nonFinite(.tolerance) }
        guard value > 0 else { throw .nonPositiveTolerance }
        return Double(value)
    }

    @_spi(KernelInternals)
    public static func isSaturated(lanePattern pattern: UInt32) -> Bool { false }

    public static func nearestValue(to double: Double) -> Float {
        double.isNaN ? 0 : Float(Swift.min(Swift.max(double, -Double(valueLimit)), Double(valueLimit)))
    }

    @_spi(KernelInternals)
    public static func coefficients(of propagator: SpringPropagator) -> SIMD8<UInt32> {
        SIMD8(
            Float(propagator.a11).bitPattern, Float(propagator.a12).bitPattern,
            Float(propagator.a21).bitPattern, Float(propagator.a22).bitPattern, 0, 0, 0, 0)
    }

    /// The step, d' = a11·d + a12·v and v' = a21·d + a22·v in float32: the one formula every loop
    /// (SIMD bundles, the last bundle, the scalar lanes) applies.
    @frozen @usableFromInline
    struct Step {
        @usableFromInline let a11, a12, a21, a22: Float

        @inlinable @inline(__always)
        init(_ c: SIMD8<UInt32>) {
            a11 = Float(bitPattern: c[0])
            a12 = Float(bitPattern: c[1])
            a21 = Float(bitPattern: c[2])
            a22 = Float(bitPattern: c[3])
        }

        @inlinable @inline(__always)
        func callAsFunction<Operand: Float32StepOperand>(_ d: Operand, _ v: Operand) -> (Operand, Operand) {
            let (a11, a12) = (Operand(broadcasting: a11), Operand(broadcasting: a12))
            let (a21, a22) = (Operand(broadcasting: a21), Operand(broadcasting: a22))
            return (a11 * d + a12 * v, a21 * d + a22 * v)
        }
    }

    /// The SIMD loop or the scalar one; float32 lanes never saturate within ``valueLimit`` (0),
    /// and follow the thread's rounding mode.
    ///
    /// - Complexity: O(bundles in `bundles`).
    @inlinable @inline(__always)
    public static func advance(_ work: LaneWork, bundles: Range<Int>, path: StepPath, checksBound: Bool) -> Int {
        path == .simd ? advance(work, bundles: bundles) : advanceScalar(work, bundles: bundles)
    }

    /// Float32 lanes never saturate within ``valueLimit``: always returns 0.
    @inlinable @inline(__always)
    static func advance(_ work: LaneWork, bundles: Range<Int>) -> Int {
        let step = Step(work.coefficients)
        let capacity = work.bundleCount
        work.displacements.withMemoryRebound(to: SIMD16<Float>.self, capacity: capacity) { d in
            work.velocities.withMemoryRebound(to: SIMD16<Float>.self, capacity: capacity) { v in
                let last = capacity - 1
                // Whole bundles first: the same loop a C compiler emits for the plain step.
                let wholeEnd = bundles.upperBound > last && work.finalBundleLanes != .max ? last : bundles.upperBound
                for b in bundles.lowerBound..<wholeEnd {
                    (d[b], v[b]) = step(d[b], v[b])
                }
                // The last bundle's unused lanes hold paused or resting springs: computed, not stored.
                guard wholeEnd < bundles.upperBound else { return }
                let store = laneMask(work.finalBundleLanes)
                let (displacement, velocity) = step(d[last], v[last])
                d[last].replace(with: displacement, where: store)
                v[last].replace(with: velocity, where: store)
            }
        }
        return 0
    }

    @inlinable
    static func advanceScalar(_ work: LaneWork, bundles: Range<Int>) -> Int {
        let step = Step(work.coefficients)
        for b in bundles {
            let stored = work.storedLanes(bundle: b)
            for lane in 0..<BundleIndexing.laneCount where stored & (1 &<< UInt16(lane)) != 0 {
                let offset = (b * BundleIndexing.laneCount + lane) * 4
                let (displacement, velocity) = step(
                    work.displacements.load(fromByteOffset: offset, as: Float.self),
                    work.velocities.load(fromByteOffset: offset, as: Float.self))
                work.displacements.storeBytes(of: displacement, toByteOffset: offset, as: Float.self)
                work.velocities.storeBytes(of: velocity, toByteOffset: offset, as: Float.self)
            }
        }
        return 0
    }

    /// True: the step pulls lanes toward new targets as it advances them.
    public static var retargetsInStep: Bool { true }

    /// The SIMD loop or the scalar one, each lane pulled toward its goal first.
    ///
    /// - Complexity: O(bundles in `bundles`).
    @inlinable @inline(__always)
    public static func advance(
        _ work: LaneWork, retargeting targets: UnsafeMutableRawPointer, toward goals: UnsafeRawPointer, bundles: Range<Int>,
        path: StepPath
    ) {
        if path == .simd {
            advance(work, retargeting: targets, toward: goals, bundles: bundles)
        } else {
            advanceScalar(work, retargeting: targets, toward: goals, bundles: bundles)
        }
    }

    /// One pass over the lanes: a bundle's goals, targets, displacements and velocities read,
    /// the displacements pulled where the goals differ, stepped, and the three stored. In a
    /// watched batch the watch's marks move on as they go (the springs whose goals differ, and
    /// those retargeted since the last step, are watched by this step; those watched by the last
    /// are aged), and the watched springs left within the band are marked (what
    /// `sk_watch_candidates` finds), with no second read of the lanes. Whole bundles go through
    /// `sk_advance_retargeting_f32` (compiled for AVX-512 and AVX2 too, chosen by the CPU: its
    /// lane masks narrowed to bits are one or two instructions there, where Swift's mask
    /// reductions are calls); the last bundle, cut to the moving lanes, here.
    @inlinable @inline(__always)
    static func advance(_ work: LaneWork, retargeting targets: UnsafeMutableRawPointer, toward goals: UnsafeRawPointer, bundles: Range<Int>) {
        let d = work.displacements, v = work.velocities, size = MemoryLayout<SIMD16<Float>>.size
        let last = work.bundleCount - 1
        let wholeEnd = bundles.upperBound > last && work.finalBundleLanes != .max ? last : bundles.upperBound
        let marks = work.watch?.pointee
        if bundles.lowerBound < wholeEnd {
            withUnsafePointer(to: work.coefficients) { coefficients in
                sk_advance_retargeting_f32(
                    goals.assumingMemoryBound(to: Float.self), targets.assumingMemoryBound(to: Float.self),
                    d.assumingMemoryBound(to: Float.self), v.assumingMemoryBound(to: Float.self),
                    UnsafeRawPointer(coefficients).assumingMemoryBound(to: Float.self), marks?.retargeted, marks?.watched, marks?.aged,
                    marks?.candidates, marks?.band ?? 0, bundles.lowerBound, wholeEnd)
            }
        }
        guard wholeEnd < bundles.upperBound else { return }
        // The last bundle: goals read for its moving lanes only (the caller's buffer may end
        // there); the other lanes keep their targets and are computed, not stored.
        let offset = last * size
        let target = targets.load(fromByteOffset: offset, as: SIMD16<UInt32>.self)
        var goal = target
        for lane in 0..<BundleIndexing.laneCount where work.finalBundleLanes & (1 &<< UInt16(lane)) != 0 {
            goal[lane] = goals.loadUnaligned(fromByteOffset: offset + lane * 4, as: UInt32.self)
        }
        let moved = goal .!= target, stored = laneMask(work.finalBundleLanes)
        let (displacement, velocity) = Step(work.coefficients)(
            pulled(d.load(fromByteOffset: offset, as: SIMD16<Float>.self), from: target, toward: goal, where: moved),
            v.load(fromByteOffset: offset, as: SIMD16<Float>.self))
        let newDisplacement = d.load(fromByteOffset: offset, as: SIMD16<Float>.self).replacing(with: displacement, where: stored)
        d.storeBytes(of: newDisplacement, toByteOffset: offset, as: SIMD16<Float>.self)
        v.storeBytes(of: v.load(fromByteOffset: offset, as: SIMD16<Float>.self).replacing(with: velocity, where: stored), toByteOffset: offset,
                     as: SIMD16<Float>.self)
        targets.storeBytes(of: goal, toByteOffset: offset, as: SIMD16<UInt32>.self)
        marks?.moveMarksOn(
            bundle: last, moved: laneBits(moved), within: withinBand(newDisplacement, SIMD16(repeating: marks?.band ?? 0), lanes: .max))
    }

    /// The lanes of `lanes` whose displacement's magnitude (its bits without the sign, compared
    /// as unsigned: NaN lies above any band) is at most `band`'s, as `sk_watch_candidates` marks
    /// them. Dragged springs lie outside the band: one compare and one test a bundle.
    @inlinable @inline(__always)
    static func withinBand(_ displacement: SIMD16<Float>, _ band: SIMD16<UInt32>, lanes: UInt16) -> UInt16 {
        let within = (unsafeBitCast(displacement, to: SIMD16<UInt32>.self) & 0x7fff_ffff) .<= band
        guard lanes != 0, any(within) else { return 0 }
        return laneBits(within) & lanes
    }

    /// Bit l set where lane l of `mask` is.
    @inlinable @inline(__always)
    static func laneBits(_ mask: SIMDMask<SIMD16<Int32>>) -> UInt16 {
        let laneBits = SIMD16<UInt32>(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
        return UInt16(truncatingIfNeeded: SIMD16<UInt32>(repeating: 0).replacing(with: laneBits, where: mask).wrappedSum())
    }

    /// The displacements about new targets where `goal` differs in its bits from `target` (the
    /// lanes of `moved`):
    /// (target + displacement) − goal, rounded as ``retargetedDisplacement(_:from:to:scale:)``
    /// and `sk_stream_retarget_f32` round it; the others as they are.
    @inlinable @inline(__always)
    static func pulled(
        _ displacement: SIMD16<Float>, from target: SIMD16<UInt32>, toward goal: SIMD16<UInt32>, where moved: SIMDMask<SIMD16<Int32>>
    ) -> SIMD16<Float> {
        let pulled = (unsafeBitCast(target, to: SIMD16<Float>.self) + displacement) - unsafeBitCast(goal, to: SIMD16<Float>.self)
        return displacement.replacing(with: pulled, where: moved)
    }

    @inlinable
    static func advanceScalar(
        _ work: LaneWork, retargeting targets: UnsafeMutableRawPointer, toward goals: UnsafeRawPointer, bundles: Range<Int>
    ) {
        let step = Step(work.coefficients)
        for b in bundles {
            let stored = work.storedLanes(bundle: b)
            var within: UInt16 = 0, moved: UInt16 = 0
            for lane in 0..<BundleIndexing.laneCount where stored & (1 &<< UInt16(lane)) != 0 {
                let offset = (b * BundleIndexing.laneCount + lane) * 4
                let goal = goals.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                let target = targets.load(fromByteOffset: offset, as: UInt32.self)
                var displacement = work.displacements.load(fromByteOffset: offset, as: Float.self)
                if goal != target {
                    displacement = (Float(bitPattern: target) + displacement) - Float(bitPattern: goal)
                    targets.storeBytes(of: goal, toByteOffset: offset, as: UInt32.self)
                    moved |= 1 &<< UInt16(lane)
                }
                let (d, v) = step(displacement, work.velocities.load(fromByteOffset: offset, as: Float.self))
                work.displacements.storeBytes(of: d, toByteOffset: offset, as: Float.self)
                work.velocities.storeBytes(of: v, toByteOffset: offset, as: Float.self)
                if let watch = work.watch, d.bitPattern & 0x7fff_ffff <= watch.pointee.band { within |= 1 &<< UInt16(lane) }
            }
            work.watch?.pointee.moveMarksOn(bundle: b, moved: moved, within: within)
        }
    }

    /// The SIMD lane mask of a bundle's lane word. LLVM turns the test into one `kmovw` on AVX-512.
    @inlinable @inline(__always)
    static func laneMask(_ lanes: UInt16) -> SIMDMask<SIMD16<Int32>> {
        let laneBits = SIMD16<UInt32>(
            1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
        return (SIMD16<UInt32>(repeating: UInt32(lanes)) & laneBits) .!= SIMD16<UInt32>(repeating: 0)
    }
}

/// What ``Float32Lanes/Step`` computes on: one lane or a bundle of sixteen, with the same
/// rounding (each operation rounds to nearest, none is fused).
@usableFromInline
protocol Float32StepOperand {
    init(broadcasting scalar: Float)
    static func * (lhs: Self, rhs: Self) -> Self
    static func + (lhs: Self, rhs: Self) -> Self
}

extension Float: Float32StepOperand {
    @inlinable @inline(__always)
    init(broadcasting scalar: Float) { self = scalar }
}

extension SIMD16: Float32StepOperand where Scalar == Float {
    @inlinable @inline(__always)
    init(broadcasting scalar: Float) { self.init(repeating: scalar) }
}
