/// Predicts when a spring comes to rest, exactly, from its closed-form motion.
///
/// Two questions, one per ``FrameClock``:
///
/// - **For any frame durations** (``restTime(displacement:velocity:tolerance:motion:)``): T*, the
///   last time the exact continuous trajectory is outside the band |d| ≤ tolerance. The motion
///   does not depend on how it is sampled, so every frame that ends at or after T* is inside the
///   band whatever durations the frames before it had: snapping a spring on the first frame that
///   reaches T* is never early, under measured frame times, adaptive refresh rates and hitches.
/// - **For a declared fixed timestep** (``restFrame(displacement:velocity:tolerance:motion:frameDuration:)``):
///   the perceptual rest frame R of the trajectory sampled every `dt` (frame j is the state after
///   j steps), the smallest j with |d_i| ≤ tolerance for every i ≥ j. It can be earlier than T*
///   (the samples may miss a late swing), so it holds only while every frame has that duration.
///
/// Neither walks the trajectory: |d| is split into pieces on which it is monotone, found in
/// closed form, and only the last piece that leaves the band is searched.
///
/// - Under-damped: d(t) = A e^(-σt) cos(ωt − φ). |d| peaks at ωt − φ = mπ − α, α = atan(σ/ω),
///   with the value A (ω/ω₀) e^(-σt), and falls to a zero a quarter turn after; the peaks shrink
///   geometrically, so the last one above the band comes from the envelope in closed form.
/// - Critically and over-damped: |d| has at most one zero z and one extremum e = z + Δ after it
///   (Δ = atanh(β/σ)/β, or 1/σ when critical), so it falls, rises, then falls for good, and each
///   piece is searched.
///
/// Every function here uses ``DeterministicMath``, never libm, so a prediction is the same bits on
/// every machine: the fixed-point bank's rest frames are part of its deterministic state.
@_spi(KernelInternals)
public enum SettlePredictor {
    /// Predictions further than this many frames away are reported as this many frames; the kernel
    /// predicts again when they fall due. At 240 Hz it is over 100 days. 2^31 − 1: an `Int` of
    /// 32 bits (wasm32) holds it, and `horizon - 1`, on every target.
    public static let horizon = Int(Int32.max)

    /// T*: the time from now after which the exact motion stays within `tolerance` of its target.
    ///
    /// - Returns: 0 if the whole future motion already lies in the band; `.infinity` if it never
    ///   settles (an undamped spring swinging beyond the band); otherwise a time at or, by at most
    ///   a few parts in 10¹³, after the last crossing out of the band (never before it).
    public static func restTime(displacement: Double, velocity: Double, tolerance: Double, motion: SpringMotion) -> Double {
        let trajectory = ContinuousTrajectory(motion: motion, displacement: displacement, velocity: velocity, tolerance: tolerance)
        switch motion.regime {
        case .underdamped: return trajectory.underdampedRestTime()
        case .critical, .overdamped: return trajectory.nonOscillatingRestTime()
        }
    }

    /// A cheap lower bound on ``restTime(displacement:velocity:tolerance:motion:)``: no search,
    /// no transcendental function (a logarithm bounded from below by the exponent bits). The bank
    /// schedules a spring's exact prediction at this time, so a spring that is retargeted or
    /// pushed again before then is never predicted exactly at all.
    ///
    /// - Under-damped: the last peak above the band comes at most half a period before the peak
    ///   envelope A (ω/ω₀) e^(-σt) meets the band.
    /// - Critically and over-damped, moving away from the target or toward it slower than the
    ///   decay (d₀ and v₀ + σd₀ of one sign): |d(t)| ≥ |d₀| e^(-σt) and ≥ |d₀| e^(-(σ−β)t) / 2.
    /// - Always: |d| changes no faster than √(v₀² + ω₀² d₀²) (the energy never grows), so it needs
    ///   at least (|d₀| − tolerance) over that to reach the band.
    // Inlined per event and in the loops of the bulk calls; called on 32-bit ARM and RISC-V, where
    // each Double operation is a soft-float call (the M4F's FPU is single precision) and each
    // inlined copy was a kilobyte of a microcontroller's flash.
    #if arch(arm) || arch(riscv32)
    @inline(never)
    #else
    @inline(__always)
    #endif
    static func restTimeLowerBound(
        displacement d: Double, velocity v: Double, tolerance: Double, motion: SpringMotion,
        inverseBandSquared: Double? = nil
    ) -> Double {
        let sigma = motion.decayRate, stiffness = motion.stiffnessPerMass
        let excess = abs(d) - tolerance
        let inverseBandSquared = inverseBandSquared ?? 1 / (tolerance * tolerance)
        var bound = 0.0
        switch motion.regime {
        case .underdamped:
            let b = (v + sigma * d) * motion.inverseSplitting
            let amplitudeSquared = d * d + b * b
            guard sigma > 0 else { return amplitudeSquared * inverseBandSquared > 1 ? .infinity : 0 }
            let peakRatio = amplitudeSquared * motion.peakScaleSquared * inverseBandSquared
            if peakRatio > 1 {
                bound = 0.5 * DeterministicMath.logLowerBound(peakRatio) * motion.inverseDecayRate - motion.halfPeriod
            }
        case .critical, .overdamped:
            guard excess > 0 else { return 0 }
            let ratio = d * d * inverseBandSquared
            if d * (v + sigma * d) >= 0 {
                bound = 0.5 * DeterministicMath.logLowerBound(ratio) * motion.inverseDecayRate
                if motion.regime == .overdamped {
                    bound = Swift.max(bound, 0.5 * DeterministicMath.logLowerBound(ratio * 0.25) / motion.slowDecayRate)
                }
            }
        }
        if excess > 0, bound <= 0 {
            bound = excess / (v * v + stiffness * d * d).squareRoot()
        }
        // The bounds are computed in rounded arithmetic: keep them on the safe side. A bound that
        // overflowed (a ratio past the largest Double: a huge amplitude over a tiny band) bounds
        // nothing, so it is 0 and the exact prediction decides (an undamped spring's ∞ returned above).
        return bound.isFinite ? Swift.max(0, bound * (1 - 0x1p-30)) : 0
    }

    /// The number of further frames R after which the spring stays within `tolerance` of its
    /// target, when every future frame lasts exactly `frameDuration`.
    ///
    /// - Parameters:
    ///   - displacement: the current displacement from the target, d = x − target.
    ///   - velocity: the current velocity.
    ///   - tolerance: the half-width of the rest band, > 0.
    ///   - motion: the spring's closed-form motion.
    ///   - frameDuration: the duration of every future step, > 0.
    /// - Returns: 0 if the whole future motion already lies in the band, otherwise the frame after
    ///   the last frame outside it; at most ``horizon``.
    public static func restFrame(
        displacement: Double, velocity: Double, tolerance: Double, motion: SpringMotion, frameDuration: Double
    ) -> Int {
        let trajectory = SampledTrajectory(
            motion: motion, displacement: displacement, velocity: velocity, tolerance: tolerance, frameDuration: frameDuration)
        switch motion.regime {
        case .underdamped: return trajectory.underdampedRestFrame()
        case .critical, .overdamped: return trajectory.nonOscillatingRestFrame()
        }
    }
}

/// One trajectory in continuous time, with the searches ``SettlePredictor/restTime(displacement:velocity:tolerance:motion:)`` runs.
private struct ContinuousTrajectory {
    let motion: SpringMotion
    let displacement: Double
    let velocity: Double
    let tolerance: Double

    /// A piece of the motion a crossing is searched on, whose |d(t)| − tolerance and slope
    /// ``excess(_:at:)`` gives. (A value, not a closure: one copy of ``crossing(from:to:on:)``
    /// serves both kinds, where a closure of each kind had the search specialised for it.)
    enum Piece {
        /// Lobe |d| = A e^(-σt) cos(ωt − base) of the under-damped motion, A its amplitude.
        case lobe(amplitude: Double, base: Double)
        /// The critically or over-damped motion, times `sign` (±1: |d| where d has that sign).
        case signed(Double)
    }

    /// |d(t)| − tolerance on `piece`, and its slope.
    func excess(_ piece: Piece, at t: Double) -> (value: Double, slope: Double) {
        switch piece {
        case .lobe(let amplitude, let base):
            let sigma = motion.decayRate, omega = motion.splitting
            let envelope = amplitude * DeterministicMath.exp(-sigma * t)
            let (sine, cosine) = DeterministicMath.sinCos(omega * t - base)
            return (envelope * cosine - tolerance, envelope * (-sigma * cosine - omega * sine))
        case .signed(let sign):
            let state = motion.propagator(over: t).apply(displacement: displacement, velocity: velocity)
            return (sign * state.displacement - tolerance, sign * state.velocity)
        }
    }

    /// The time in `lower...upper` at which |d|, falling there, crosses into the band: the
    /// ``excess(_:at:)`` of `piece` is positive at `lower`, at most 0 at `upper`. Newton steps
    /// inside a bracket that shrinks to a few parts in 10¹³; returns the bracket's upper end, so
    /// the answer is never before the crossing.
    @inline(never)  // four callers, one copy (a few hundred nanoseconds a search: the call is nothing)
    func crossing(from lower: Double, to upper: Double, on piece: Piece) -> Double {
        var low = lower, high = upper
        var (x, (value, slope)) = (high, excess(piece, at: high))
        if value > 0 { return high }
        for _ in 0..<300 {
            let resolution = Swift.max(abs(high), 1e-3) * 0x1p-44
            guard high - low > resolution else { break }
            var next = x - value / slope
            // A Newton step that barely moves: probe just past it to close the bracket.
            if abs(next - x) < resolution { next = value > 0 ? x + resolution : x - resolution }
            if !(next > low && next < high) { next = low + (high - low) / 2 }
            x = next
            (value, slope) = excess(piece, at: x)
            if value > 0 { low = x } else { high = x }
        }
        return high
    }

    func underdampedRestTime() -> Double {
        let sigma = motion.decayRate, omega = motion.splitting
        let b = (velocity + sigma * displacement) / omega
        let amplitudeSquared = displacement * displacement + b * b
        guard amplitudeSquared > tolerance * tolerance else { return 0 }  // |d(t)| ≤ A for good
        guard sigma > 0 else { return .infinity }  // undamped: it swings out of the band forever
        // A² past the largest Double (a slow spring's v/ω near 10¹⁵⁴): A itself, scaled, is finite.
        let amplitude = amplitudeSquared.isFinite ? amplitudeSquared.squareRoot() : Self.hypot(displacement, b)
        let peakScale = amplitude * (omega / motion.stiffnessPerMass.squareRoot())  // A cos α
        let phase = DeterministicMath.atan2(b, displacement)
        let alpha = DeterministicMath.atan(sigma / omega)
        func peakTime(_ m: Double) -> Double { (m * .pi - alpha + phase) / omega }
        func peakValue(_ m: Double) -> Double { peakScale * DeterministicMath.exp(-sigma * peakTime(m)) }
        // |d| on lobe m: A e^(-σt) cos(ωt − mπ − φ), from its peak to the zero a quarter turn on.
        func lobe(_ m: Double) -> Piece { .lobe(amplitude: amplitude, base: m * .pi + phase) }
        func zeroTime(_ m: Double) -> Double { (m * .pi + .pi / 2 + phase) / omega }

        let firstPeak = ((alpha - phase) / .pi).rounded(.up)  // the first peak at t ≥ 0
        var last = firstPeak - 1
        if peakScale > tolerance {
            // The peaks fall geometrically: the last above the band is where the peak envelope
            // meets it, corrected by the peaks' own values (the formula's rounding can be off by one).
            let envelopeEnd = DeterministicMath.log(peakScale / tolerance) / sigma
            last = Swift.max(firstPeak - 1, ((omega * envelopeEnd + alpha - phase) / .pi).rounded(.up) - 1)
            // So many lobes that consecutive peaks round alike (a nearly undamped spring): the
            // envelope A e^(-σt), which |d| never exceeds, reaches the band at a safe, late time.
            let envelopeTime = DeterministicMath.log(amplitude / tolerance) / sigma
            guard last < 0x1p40, envelopeTime.isFinite else { return envelopeTime.isNaN ? .infinity : envelopeTime }
            var forward = 0, backward = 0
            while peakValue(last + 1) > tolerance {
                guard forward < 8 else { return envelopeTime }
                last += 1
                forward += 1
            }
            while last >= firstPeak, !(peakValue(last) > tolerance) {
                guard backward < 8 else { return envelopeTime }
                last -= 1
                backward += 1
            }
        }
        if last >= firstPeak {
            return crossing(from: Swift.max(0, peakTime(last)), to: zeroTime(last), on: lobe(last))
        }
        // No peak ahead leaves the band: only the fall from now to the next zero can.
        guard abs(displacement) > tolerance else { return 0 }
        let next = ((-Double.pi / 2 - phase) / .pi).rounded(.up)
        return crossing(from: 0, to: Swift.max(0, zeroTime(next)), on: lobe(next))
    }

    /// √(x² + y²) without overflow: scaled by the larger magnitude.
    static func hypot(_ x: Double, _ y: Double) -> Double {
        let scale = Swift.max(abs(x), abs(y))
        guard scale.isFinite, scale > 0 else { return scale }
        let (a, b) = (x / scale, y / scale)
        return scale * (a * a + b * b).squareRoot()
    }

    func nonOscillatingRestTime() -> Double {
        let sigma = motion.decayRate, beta = motion.splitting
        let w = velocity + sigma * displacement
        func sign(at t: Double) -> Double {
            motion.propagator(over: t).apply(displacement: displacement, velocity: velocity).displacement < 0 ? -1 : 1
        }
        let (zero, extremum) = nonOscillatingPieces(w: w)
        // The final piece: |d| falls forever after the extremum (or from now).
        let fallStart = extremum ?? 0
        let fallSign = sign(at: fallStart)
        let fall = Piece.signed(fallSign)
        if excess(fall, at: fallStart).value > 0 {
            // Double the reach, in steps of the slow decay time, until the band is reached.
            let slowRate = beta > 0 ? motion.stiffnessPerMass / (sigma + beta) : sigma
            var low = fallStart, reach = 1 / slowRate
            while excess(fall, at: fallStart + reach).value > 0 {
                low = fallStart + reach
                reach *= 2
                guard (fallStart + reach).isFinite else { return .infinity }
            }
            return crossing(from: low, to: fallStart + reach, on: fall)
        }
        // The rising piece before the extremum peaks at the extremum, inside the band; only the fall
        // from now to the zero crossing can leave it.
        guard let zero, abs(displacement) > tolerance else { return 0 }
        return crossing(from: 0, to: zero, on: .signed(displacement < 0 ? -1 : 1))
    }

    /// The zero crossing and the extremum of d after now, if any: d(t) = e^(-σt) (d₀ C + w S) is
    /// zero where S/C = −d₀/w and extremal where S/C = v₀ / (σ v₀ + ω₀² d₀), with S/C = tanh(βt)/β
    /// (or t when critical).
    func nonOscillatingPieces(w: Double) -> (zero: Double?, extremum: Double?) {
        let sigma = motion.decayRate, beta = motion.splitting
        func time(whereSineOverCosineIs ratio: Double) -> Double? {
            guard ratio > 0, ratio.isFinite else { return nil }
            guard beta > 0 else { return ratio }
            let x = beta * ratio
            return x < 1 ? DeterministicMath.atanh(x) / beta : nil
        }
        let zero = w != 0 ? time(whereSineOverCosineIs: -displacement / w) : nil
        if let zero {
            // After a zero crossing the extremum always follows by the same delay.
            return (zero, zero + (beta > 0 ? DeterministicMath.atanh(beta / sigma) / beta : 1 / sigma))
        }
        let denominator = sigma * velocity + motion.stiffnessPerMass * displacement
        return (nil, denominator != 0 ? time(whereSineOverCosineIs: velocity / denominator) : nil)
    }
}

/// One trajectory sampled at whole frames, with the searches the predictor runs over it.
private struct SampledTrajectory {
    let motion: SpringMotion
    let displacement: Double
    let velocity: Double
    let tolerance: Double
    let dt: Double

    init(motion: SpringMotion, displacement: Double, velocity: Double, tolerance: Double, frameDuration: Double) {
        self.motion = motion
        self.displacement = displacement
        self.velocity = velocity
        self.tolerance = tolerance
        self.dt = frameDuration
    }

    /// Whether frame `i` lies outside the rest band.
    @inline(never)  // asked in eight places; a propagator (an exponential, a sine) makes the call nothing
    func isOutside(_ i: Int) -> Bool {
        abs(motion.displacement(after: Double(i) * dt, from: displacement, velocity: velocity)) > tolerance
    }

    /// The last frame in `first...last` outside the band, given that `first` is outside and the
    /// frames outside form a prefix of the range (|d| falls over it).
    func lastOutside(from first: Int, through last: Int) -> Int {
        var low = first
        var high = last
        while low < high {
            let middle = low + (high - low + 1) / 2
            if isOutside(middle) { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The last frame outside the band from `first` on, where |d| falls forever and `first` is outside.
    func lastOutside(fallingFrom first: Int) -> Int {
        var low = first
        var stride = 1
        while true {
            // Checked: past 2^30 frames the sum overflows a 32-bit Int (wasm32, Cortex-M).
            let (probe, overflow) = low.addingReportingOverflow(stride)
            guard !overflow, probe < SettlePredictor.horizon else { return SettlePredictor.horizon - 1 }
            if !isOutside(probe) { return lastOutside(from: low, through: probe - 1) }
            low = probe
            stride = stride.multipliedReportingOverflow(by: 2).overflow ? stride : stride * 2
        }
    }

    func underdampedRestFrame() -> Int {
        let sigma = motion.decayRate
        let omega = motion.splitting
        // d(t) = e^(-σt) (d₀ cos ωt + b sin ωt) = A e^(-σt) cos(ωt − φ).
        let b = (velocity + sigma * displacement) / omega
        let amplitude = (displacement * displacement + b * b).squareRoot()
        guard amplitude > tolerance else { return 0 }
        guard sigma > 0 else { return SettlePredictor.horizon }  // undamped: leaves the band forever
        // After the envelope meets the tolerance, every frame is inside the band.
        let envelopeEnd = DeterministicMath.log(amplitude / tolerance) / sigma
        let lastCandidate = envelopeEnd / dt
        guard lastCandidate < Double(SettlePredictor.horizon - 1) else { return SettlePredictor.horizon }
        let lastFrame = Int(lastCandidate)

        if omega * dt > 1 {
            // Under three frames per lobe: the frames themselves are the cheaper walk.
            var i = lastFrame
            while i >= 0 {
                if isOutside(i) { return i + 1 }
                i -= 1
            }
            return 0
        }

        let phase = DeterministicMath.atan2(b, displacement)
        // The peak of lobe m (centred on ωt − φ = mπ) sits at ωt − φ = mπ − atan(σ/ω).
        let peakShift = DeterministicMath.atan(sigma / omega)
        let lastLobe = Int(((omega * envelopeEnd - phase) / .pi).rounded())
        let firstLobe = Int((-phase / .pi).rounded())
        var lobe = lastLobe
        while lobe >= firstLobe {
            let centre = Double(lobe) * .pi
            let peak = min((centre - peakShift + phase) / omega, envelopeEnd)
            let end = min((centre + .pi / 2 + phase) / omega, envelopeEnd)
            let lastInLobe = Int((end / dt).rounded(.down))
            let firstAfterPeak = peak <= 0 ? 0 : Int((peak / dt).rounded(.up))
            if firstAfterPeak <= lastInLobe, isOutside(firstAfterPeak) {
                return lastOutside(from: firstAfterPeak, through: lastInLobe) + 1
            }
            if firstAfterPeak > 0, isOutside(firstAfterPeak - 1) {
                return firstAfterPeak
            }
            lobe -= 1
        }
        return 0
    }

    func nonOscillatingRestFrame() -> Int {
        let sigma = motion.decayRate
        let beta = motion.splitting
        let w = velocity + sigma * displacement
        // d(t) = e^(-σt) (d₀ C + w S): it is zero where S/C = −d₀/w and extremal where
        // S/C = v₀ / (σ v₀ + ω₀² d₀), with S/C = tanh(βt)/β (or t when critical).
        func time(whereSineOverCosineIs ratio: Double) -> Double? {
            guard ratio > 0, ratio.isFinite else { return nil }
            guard beta > 0 else { return ratio }
            let x = beta * ratio
            return x < 1 ? DeterministicMath.atanh(x) / beta : nil
        }
        let zero = w != 0 ? time(whereSineOverCosineIs: -displacement / w) : nil
        let extremum: Double?
        if let zero {
            // After a zero crossing the extremum always follows by the same delay.
            extremum = zero + (beta > 0 ? DeterministicMath.atanh(beta / sigma) / beta : 1 / sigma)
        } else {
            let denominator = sigma * velocity + motion.stiffnessPerMass * displacement
            extremum = denominator != 0 ? time(whereSineOverCosineIs: velocity / denominator) : nil
        }

        // The final piece: |d| falls forever after the extremum (or from the start).
        let fallStart = extremum.map { frame(atOrAfter: $0) } ?? 0
        if fallStart < SettlePredictor.horizon, isOutside(fallStart) {
            return lastOutside(fallingFrom: fallStart) + 1
        }
        guard let extremum else { return 0 }
        // The rising piece before the extremum: its last frame is its largest.
        let riseEnd = frame(atOrBefore: extremum)
        // Still rising at the horizon (a slow spring's extremum is 10¹⁵ s away): not at rest
        // within it; predicted again there.
        if riseEnd >= SettlePredictor.horizon,
            abs(motion.displacement(after: extremum, from: displacement, velocity: velocity)) > tolerance {
            return SettlePredictor.horizon
        }
        let riseStart = zero.map { frame(atOrAfter: $0) } ?? 0
        if riseEnd >= riseStart, riseEnd < SettlePredictor.horizon, isOutside(riseEnd) {
            return riseEnd + 1
        }
        // The falling piece before the zero crossing.
        guard let zero, isOutside(0) else { return 0 }
        return lastOutside(from: 0, through: frame(atOrBefore: zero)) + 1
    }

    private func frame(atOrAfter t: Double) -> Int {
        let frames = (t / dt).rounded(.up)
        return frames < Double(SettlePredictor.horizon) ? Int(frames) : SettlePredictor.horizon
    }

    private func frame(atOrBefore t: Double) -> Int {
        let frames = (t / dt).rounded(.down)
        return frames < Double(SettlePredictor.horizon) ? Int(frames) : SettlePredictor.horizon
    }
}

/// Cheap answers to "does the exact motion from this state stay within the band from now on?"
/// before the exact search (``SettlePredictor/restTime(displacement:velocity:tolerance:motion:)``),
/// for the watch, which asks it of every watched spring found within its band after a step
/// (`SpringBankCore+Watch.swift`): a spring a drag carries through its target does so at speed,
/// and leaves the band again within a fraction of a period; one the drag sets down gently stays.
///
/// The motion is probed at 24 times after now, a quarter of 1/ω₀ apart up to 6/ω₀ (the first swing
/// after a crossing peaks within them for every damping ratio): (d, v)(τ) from exact propagators
/// computed once per configuration.
///
/// - **No**, if |d| lies outside the band at a probe (with a margin of 10⁻⁹ of the band for the
///   propagators' rounding).
/// - **Yes**, if between probes |d| cannot reach the band: the energy ½v² + ½ω₀²d² never grows,
///   so |v| ≤ ω₀ E with E = √(d² + v²/ω₀²) from any earlier time on, and |d| moves by at most
///   ω₀ E (τₖ₊₁ − τₖ) = E/4 between two probes; so |dₖ| + Eₖ/4 within the band at every probe
///   (now included), and E within it at the last (|d| ≤ E from then on), keep the whole motion in.
///   (The energy bound alone, E ≤ tolerance now, says yes too.)
/// - Otherwise the exact search decides.
struct RestProbes {
    /// The probes' propagators, a quarter of 1/ω₀ apart: d(τₖ) = a₁₁ d + a₁₂ v, v(τₖ) = a₂₁ d + a₂₂ v,
    /// 24 times in three vectors. (Variables only so that `init` fills them in place: built aside
    /// and copied in, they took 0.7 KB more code on a Cortex-M.)
    private var a11: (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>)
    private var a12: (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>)
    private var a21: (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>)
    private var a22: (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>)
    private let inverseStiffnessPerMass: Double

    init(motion: SpringMotion) {
        let unit = 1 / motion.stiffnessPerMass.squareRoot()
        let zero = (SIMD8<Double>(), SIMD8<Double>(), SIMD8<Double>())
        (a11, a12, a21, a22) = (zero, zero, zero, zero)
        inverseStiffnessPerMass = 1 / motion.stiffnessPerMass
        for k in 0..<24 {
            let propagator = motion.propagator(over: Double(k + 1) * 0.25 * unit)
            Self.setProbe(k, of: &a11, to: propagator.a11)
            Self.setProbe(k, of: &a12, to: propagator.a12)
            Self.setProbe(k, of: &a21, to: propagator.a21)
            Self.setProbe(k, of: &a22, to: propagator.a22)
        }
    }

    /// The propagators' rows where they are stored, each as 24 Doubles in probe order (read in
    /// place: a copy of the rows costs more code than the loop that reads them).
    @inline(__always)
    private func withRows<Result>(
        _ body: (UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<Double>) -> Result
    ) -> Result {
        withUnsafePointer(to: self) { probes in
            let base = UnsafeRawPointer(probes)
            func row(_ offset: Int?) -> UnsafePointer<Double> { (base + offset.unsafelyUnwrapped).assumingMemoryBound(to: Double.self) }
            return body(
                row(MemoryLayout<Self>.offset(of: \.a11)), row(MemoryLayout<Self>.offset(of: \.a12)),
                row(MemoryLayout<Self>.offset(of: \.a21)), row(MemoryLayout<Self>.offset(of: \.a22)))
        }
    }

    private static func setProbe(_ k: Int, of row: inout (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>), to value: Double) {
        withUnsafeMutableBytes(of: &row) { $0.storeBytes(of: value, toByteOffset: k * MemoryLayout<Double>.stride, as: Double.self) }
    }

    /// Whether the motion lies outside the band |d| ≤ `tolerance` at a probe time: then it does
    /// not stay within it (a finite state: a NaN answers false).
    // Out of line and one probe at a time on 32-bit ARM and RISC-V: there a SIMD8<Double> operation
    // is eight calls into soft-float (Cortex-M4F's FPU is single precision, M0 has none), and the
    // vector code was 13.7 KB of a one-format program's flash on the M4F (1.0 KB as loops).
    // Elsewhere inlined and vectorised, per event; the same bits either way.
    #if arch(arm) || arch(riscv32)
    @inline(never)
    #else
    @inline(__always)
    #endif
    func leavesBand(displacement d: Double, velocity v: Double, tolerance: Double) -> Bool {
        #if arch(arm) || arch(riscv32)
        // One probe at a time (the vectors' lanes are all scalar calls there anyway), in the same
        // order and with the same operations as the vector code below: the same answer.
        let outside = tolerance * (1 + 1e-9)
        return withRows { a11, a12, _, _ in
            for k in 0..<24 where Self.magnitude(a11[k] * d + a12[k] * v) > outside { return true }
            return false
        }
        #else
        let outside = SIMD8<Double>(repeating: tolerance * (1 + 1e-9))
        // The first two 1/ω₀ first: a spring carried through its target leaves within them.
        if any(Self.magnitude(a11.0 * d + a12.0 * v) .> outside) { return true }
        return any((Self.magnitude(a11.1 * d + a12.1 * v) .> outside) .| (Self.magnitude(a11.2 * d + a12.2 * v) .> outside))
        #endif
    }

    /// Whether the motion stays within |d| ≤ `tolerance` from now on, by the energy bound now or
    /// between the probes (see the type's summary); false when it cannot tell.
    #if arch(arm) || arch(riscv32)
    @inline(never)  // as leavesBand
    #else
    @inline(__always)
    #endif
    func staysWithin(displacement d: Double, velocity v: Double, tolerance: Double) -> Bool {
        let inside = tolerance * (1 - 1e-9)
        let energyNow = (d * d + v * v * inverseStiffnessPerMass).squareRoot()
        if energyNow <= inside { return true }
        guard abs(d) + energyNow / 4 <= inside else { return false }
        return staysWithinBetweenProbes(displacement: d, velocity: v, inside: inside)
    }

    /// Whether a spring at rest whose displacement lane a retarget set to `d` (its velocity 0)
    /// stays within `tolerance`: the energy bound of ``staysWithin(displacement:velocity:tolerance:)``
    /// with v = 0, which needs no probe (|d| never grows from a standstill). The one rule the
    /// streamed retargets' band (``ConfigurationBatch/restKeepingBand(tolerance:)``) and the
    /// one-spring retarget (``SpringBankCore/wakeRetargeted(record:)``) apply.
    @inline(__always)
    static func staysWithinFromStandstill(displacement d: Double, tolerance: Double) -> Bool {
        (d * d).squareRoot() <= tolerance * (1 - 1e-9)
    }

    /// The probes' part of ``staysWithin(displacement:velocity:tolerance:)``.
    private func staysWithinBetweenProbes(displacement d: Double, velocity v: Double, inside: Double) -> Bool {
        #if arch(arm) || arch(riscv32)
        // One probe at a time, as in leavesBand: |dₖ| + Eₖ/4 as reach computes it, lane by lane.
        let inverseStiffnessPerMass = inverseStiffnessPerMass
        return withRows { a11, a12, a21, a22 in
            var energy = 0.0
            for k in 0..<24 {
                let dk = a11[k] * d + a12[k] * v, vk = a21[k] * d + a22[k] * v
                energy = (dk * dk + vk * vk * inverseStiffnessPerMass).squareRoot()
                if Self.magnitude(dk) + energy / 4 > inside { return false }
            }
            return energy <= inside
        }
        #else
        let limit = SIMD8<Double>(repeating: inside)
        let (r0, _) = Self.reach(a11.0, a12.0, a21.0, a22.0, d, v, inverseStiffnessPerMass)
        let (r1, _) = Self.reach(a11.1, a12.1, a21.1, a22.1, d, v, inverseStiffnessPerMass)
        let (r2, last) = Self.reach(a11.2, a12.2, a21.2, a22.2, d, v, inverseStiffnessPerMass)
        return !any((r0 .> limit) .| (r1 .> limit) .| (r2 .> limit)) && last <= inside
        #endif
    }

    /// |d| + E/4 at each of 8 probes (their propagators' rows given), and E at the last of them.
    @inline(__always)
    private static func reach(
        _ c11: SIMD8<Double>, _ c12: SIMD8<Double>, _ c21: SIMD8<Double>, _ c22: SIMD8<Double>, _ d: Double, _ v: Double,
        _ inverseStiffnessPerMass: Double
    ) -> (SIMD8<Double>, Double) {
        let dk = c11 * d + c12 * v, vk = c21 * d + c22 * v
        let energy = (dk * dk + vk * vk * inverseStiffnessPerMass).squareRoot()
        return (magnitude(dk) + energy / 4, energy[7])
    }

    @inline(__always)
    private static func magnitude(_ x: SIMD8<Double>) -> SIMD8<Double> { x.replacing(with: -x, where: x .< 0) }

    @inline(__always)
    private static func magnitude(_ x: Double) -> Double { x < 0 ? -x : x }
}
