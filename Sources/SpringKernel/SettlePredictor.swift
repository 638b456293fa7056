#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

/// Predicts when a spring comes to rest, exactly, from its closed-form motion.
///
/// The perceptual rest frame R of a trajectory sampled every `dt` (frame j is the state after j
/// steps) is the smallest j with |d_i| <= tolerance for every i >= j. Velocity thresholds guess at
/// R and are late or early (ANCHORS.md); this type computes it. It never walks the whole
/// trajectory: |d| is split into pieces on which it is monotone, found in closed form, and only
/// the last piece that leaves the tolerance band is searched.
///
/// - Under-damped: d(t) = A e^(-σt) cos(ωt − φ). Between two zeros (a lobe) |d| rises to one peak
///   and falls, so the largest sample of a lobe is one of the two beside its peak. Lobes are
///   visited backward from the one where the envelope A e^(-σt) meets the tolerance; the first
///   lobe with a sample outside the band holds the last such sample, found by bisection on its
///   falling side. When a frame spans more than a radian of phase, samples are scanned directly.
/// - Critically and over-damped: |d| has at most one zero z and one extremum e = z + Δ after it
///   (Δ = atanh(β/σ)/β, or 1/σ when critical), so it falls, rises, then falls for good, and each
///   piece is searched by bisection.
///
/// The kernel predicts once per change of a spring's trajectory (start, retarget, impulse, resume,
/// change of frame duration) and schedules the rest event, so settle detection costs nothing per
/// spring-step.
public enum SettlePredictor {
    /// Predictions further than this many frames away are reported as this many frames; the kernel
    /// predicts again when they fall due. At 240 Hz it is over 100 days.
    public static let horizon = 1 << 31

    /// The number of further frames R after which the spring stays within `tolerance` of its target.
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
            let probe = low + stride
            guard probe < SettlePredictor.horizon else { return SettlePredictor.horizon - 1 }
            if !isOutside(probe) { return lastOutside(from: low, through: probe - 1) }
            low = probe
            stride *= 2
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
        let envelopeEnd = log(amplitude / tolerance) / sigma
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

        let phase = atan2(b, displacement)
        // The peak of lobe m (centred on ωt − φ = mπ) sits at ωt − φ = mπ − atan(σ/ω).
        let peakShift = atan(sigma / omega)
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
            return x < 1 ? atanh(x) / beta : nil
        }
        let zero = w != 0 ? time(whereSineOverCosineIs: -displacement / w) : nil
        let extremum: Double?
        if let zero {
            // After a zero crossing the extremum always follows by the same delay.
            extremum = zero + (beta > 0 ? atanh(beta / sigma) / beta : 1 / sigma)
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
