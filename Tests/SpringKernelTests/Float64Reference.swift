import Foundation
@_spi(KernelInternals) @testable import SpringKernel

/// The reference for ``Float32Lanes``: each spring's displacement d = x − target and velocity v in
/// `Double`, advanced by the exact propagator of m x'' = −k (x − target) − c x' over each frame
/// (``SpringMotion/propagator(over:)``, the closed form: under-, critically and over-damped),
/// and a running bound on how far the kernel's float32 lanes may be from it.
///
/// ## The bound
/// Write z = (d, v) and measure errors in the energy norm of the spring's configuration,
/// ‖z‖ = √(k d² + m v²). The exact propagator M never increases it (the energy k d²/2 + m v²/2
/// only falls, at rate c v²); the model uses ‖M‖ as computed from its own Double entries (the
/// largest singular value of diag(√k, √m) · M · diag(√k, √m)⁻¹), so not even that is assumed.
///
/// The kernel computes d' = fl(fl(â₁₁ d) + fl(â₁₂ v)) with â = fl32(a): three roundings of
/// relative size u = 2⁻²⁴ each (none fused, see ``Float32Lanes``), so its new lanes differ from
/// M z by at most γ (|a₁₁| |d| + |a₁₂| |v|) in d (and likewise in v), with γ = 3u (1 + 10⁻⁶) plus
/// the model's own Double roundings (4 · 2⁻⁵³), plus absolute terms for results or coefficients
/// below float32's normal range (2⁻¹⁴⁹ per unit of state, 2⁻¹⁴⁷ per step). With e the bound
/// before the step, and |d| and |v| taken as the model's plus their share of e:
///
///     e' = ‖M‖ · e + √(k δd² + m δv²)
///
/// Every check then allows |Δd| ≤ e / √k and |Δv| ≤ e / √m, and a value (target + d, one more
/// float32 rounding) u · |value| more. Calls that set a state exactly (add, setState, a resume's
/// restart values, a snap to rest) reset e to 0, and while e is 0 the model repeats the kernel's
/// float32 arithmetic for retarget and addVelocity exactly (e stays 0); otherwise it bounds one
/// rounding per float32 operation the same way. For the damped springs of these tests ‖M‖ < 1,
/// so e stays within about 10⁻⁵ of the motion.
///
/// ## Rest
/// The kernel predicts the rest frame R of the exact trajectory from its float32 state. That
/// state is within e of the model's, and M never increases the distance, so the kernel's
/// trajectory stays within δ = e / √k (plus 10⁻⁹ of the motion, for Double rounding over the
/// walk) of the model's in d for good. Hence R(band + δ) ≤ R ≤ R(band − δ), both found by brute
/// force on the model's state (stepping M until the energy bound √(d² + m v² / k) proves the
/// motion stays inside the band: the method of ``ReferenceRest``, independent of
/// ``SettlePredictor``). The kernel promises its prediction is R or R + 1 (never early), so the
/// model allows `R(band + δ) ... R(band − δ) + 1`.
final class Float64Reference: ReferenceArithmetic {
    typealias Lanes = Float32Lanes

    struct State: CustomStringConvertible {
        var target: Float
        var d: Double
        var v: Double
        /// Bound on the distance to the kernel's lanes, in the energy norm of the configuration.
        var error: Double

        var description: String { "target \(target), d \(d), v \(v), ±\(error)" }
    }

    /// One step's constants for a configuration and frame duration.
    struct Step {
        let propagator: SpringPropagator
        /// ‖M‖ in the energy norm, with a little slack for its own rounding.
        let norm: Double
    }

    static var formatName: String { "float32" }
    static var tinyFrameDurations: [Double] { [1e-6, 1e-4] }
    static let u = 0x1p-24
    static let gamma = 3 * u * (1 + 1e-6) + 4 * 0x1p-53

    private var steps: [StepKey: Step] = [:]

    init() {}

    func step(_ configuration: SpringConfiguration, _ dt: Double) -> Step {
        let key = StepKey(configuration: configuration, dtBits: dt.bitPattern)
        if let cached = steps[key] { return cached }
        if steps.count > 512 { steps.removeAll() }
        let p = SpringMotion(configuration).propagator(over: dt)
        let k = configuration.tension, m = configuration.mass
        let r = (k / m).squareRoot()
        let b11 = p.a11, b12 = p.a12 * r, b21 = p.a21 / r, b22 = p.a22
        let frobenius = b11 * b11 + b12 * b12 + b21 * b21 + b22 * b22
        let determinant = b11 * b22 - b12 * b21
        let spread = max(0, frobenius * frobenius - 4 * determinant * determinant).squareRoot()
        let norm = ((frobenius + spread) / 2).squareRoot() * (1 + 1e-9)
        let result = Step(propagator: p, norm: norm)
        steps[key] = result
        return result
    }

    // MARK: Random inputs

    func position(_ generator: inout SeededGenerator, extreme: Bool) -> Float {
        if extreme { return [Float.nan, .infinity, -.infinity, 2e15, -1.5e15, .signalingNaN].randomElement(using: &generator)! }
        // A small grid makes equal values (a spring set onto its target) common.
        if Int.random(in: 0..<4, using: &generator) == 0 { return Float(Int.random(in: -8...8, using: &generator)) * 16 }
        return Float(Double.random(in: -2000...2000, using: &generator))
    }

    func velocity(_ generator: inout SeededGenerator, extreme: Bool) -> Float {
        if extreme { return [Float.nan, .infinity, -.infinity, 3e15, -2e15].randomElement(using: &generator)! }
        if Int.random(in: 0..<3, using: &generator) == 0 { return 0 }
        return Float(Double.random(in: -5000...5000, using: &generator))
    }

    func tolerance(_ generator: inout SeededGenerator, extreme: Bool) -> Float {
        if extreme { return [Float.nan, .infinity, 0, -0.0, -0.5].randomElement(using: &generator)! }
        return [0.5, 1.0 / 256, 0.05, 2, 1e-3].randomElement(using: &generator)!
    }

    func value(_ state: State) -> Float { state.target + Float(state.d) }
    func target(_ state: State) -> Float { state.target }
    func zero() -> Float { 0 }
    func bits(_ value: Float) -> UInt32 { value.bitPattern }

    // MARK: Calls

    private func check(_ x: Float, _ quantity: SpringQuantity) throws(SpringKernelError) {
        guard x.isFinite else { throw .nonFinite(quantity) }
        guard abs(x) <= Float32Lanes.valueLimit else { throw .outOfRange(quantity) }
    }

    func start(value: Float, target: Float, velocity: Float?) throws(SpringKernelError) -> State {
        try check(target, .target)
        try check(value, .value)
        if let velocity { try check(velocity, .velocity) }
        return State(target: target, d: Double(value - target), v: Double(velocity ?? 0), error: 0)
    }

    func toleranceValue(_ tolerance: Float) throws(SpringKernelError) -> Double {
        guard tolerance.isFinite else { throw .nonFinite(.tolerance) }
        guard tolerance > 0 else { throw .nonPositiveTolerance }
        return Double(tolerance)
    }

    /// The component bounds of a state's error.
    private func bounds(_ state: State, _ configuration: SpringConfiguration) -> (d: Double, v: Double) {
        (state.error / configuration.tension.squareRoot(), state.error / configuration.mass.squareRoot())
    }

    private func energy(_ dError: Double, _ vError: Double, _ configuration: SpringConfiguration) -> Double {
        (configuration.tension * dError * dError + configuration.mass * vError * vError).squareRoot()
    }

    func retargeted(_ state: State, to target: Float, configuration: SpringConfiguration) throws(SpringKernelError) -> State {
        try check(target, .target)
        // The target it has already (in its bits): nothing changes.
        if target.bitPattern == state.target.bitPattern { return state }
        if state.error == 0 {
            // The kernel's own float32 operations on the same float32 numbers: exact.
            let value = state.target + Float(state.d)
            return State(target: target, d: Double(value - target), v: state.v, error: 0)
        }
        let u = Self.u
        let (dError, vError) = bounds(state, configuration)
        let value = Double(state.target) + state.d
        let d = value - Double(target)
        // value = fl(target + d), then d' = fl(value − new target): one float32 rounding each.
        let valueError = dError + u * (abs(value) + dError) + 0x1p-150
        let newDError = valueError + u * (abs(d) + valueError) + 0x1p-150 + 0x1p-51 * (abs(value) + abs(d))
        return State(target: target, d: d, v: state.v, error: energy(newDError, vError, configuration))
    }

    func pushed(_ state: State, by velocity: Float, configuration: SpringConfiguration) throws(SpringKernelError) -> State {
        try check(velocity, .velocity)
        if state.error == 0 {
            let sum = Float(state.v) + velocity
            try check(sum, .velocity)
            return State(target: state.target, d: state.d, v: Double(sum), error: 0)
        }
        let (dError, vError) = bounds(state, configuration)
        let v = state.v + Double(velocity)
        precondition(abs(v) < 1e14, "the model keeps velocities far from the format's limit")
        let newVError = vError + Self.u * (abs(v) + vError) + 0x1p-150 + 0x1p-52 * abs(v)
        return State(target: state.target, d: state.d, v: v, error: energy(dError, newVError, configuration))
    }

    func stored(_ state: State, configuration: SpringConfiguration, tolerance: Double) throws(SpringKernelError) -> State { state }

    func teleported(_ state: State, value: Float, velocity: Float, configuration: SpringConfiguration) throws(SpringKernelError) -> State {
        try check(value, .value)
        try check(velocity, .velocity)
        return State(target: state.target, d: Double(value - state.target), v: Double(velocity), error: 0)
    }

    func reconfigured(
        _ state: State, from old: SpringConfiguration, to new: SpringConfiguration, tolerance: Double
    ) throws(SpringKernelError) -> State {
        // The lanes are kept bit for bit; only the norm the bound is measured in changes:
        // k' Δd² + m' Δv² <= max(k'/k, m'/m) (k Δd² + m Δv²).
        var result = state
        result.error *= max(new.tension / old.tension, new.mass / old.mass).squareRoot()
        return result
    }

    func isRestState(_ state: State, configuration: SpringConfiguration) -> Bool? {
        if state.error == 0 { return state.d == 0 && state.v == 0 }
        let (dError, vError) = bounds(state, configuration)
        return abs(state.d) > dError || abs(state.v) > vError ? false : nil
    }

    func atRest(_ state: State) -> State { State(target: state.target, d: 0, v: 0, error: 0) }

    // MARK: Steps and rest

    func stepped(_ state: State, configuration: SpringConfiguration, dt: Double, checksBound: Bool = true) -> (state: State, saturated: Bool) {
        let step = self.step(configuration, dt)
        let p = step.propagator
        let (dError, vError) = bounds(state, configuration)
        let d = abs(state.d) + dError, v = abs(state.v) + vError
        let tiny = 0x1p-149 * (d + v) + 0x1p-147
        let localD = Self.gamma * (abs(p.a11) * d + abs(p.a12) * v) + tiny
        let localV = Self.gamma * (abs(p.a21) * d + abs(p.a22) * v) + tiny
        let next = p.apply(displacement: state.d, velocity: state.v)
        let error = step.norm * state.error + energy(localD, localV, configuration)
        return (State(target: state.target, d: next.displacement, v: next.velocity, error: error), false)
    }

    func isAtBounds(_ state: State) -> Bool { false }

    func doubleState(_ state: State) -> (d: Double, v: Double) { (state.d, state.v) }

    /// The model's state is the exact motion; the kernel's lanes are within its error bound of it.
    func deviation(_ state: State, configuration: SpringConfiguration, exact: (d: Double, v: Double)) -> Double {
        let amplitude = (state.d * state.d + configuration.mass / configuration.tension * state.v * state.v).squareRoot()
        return state.error / configuration.tension.squareRoot() + 1e-9 * amplitude
    }

    func mismatch(_ state: State, configuration: SpringConfiguration, bank: SpringBank<Float32Lanes>, spring: SpringHandle) throws -> String? {
        let target = try bank.target(of: spring)
        guard target.bitPattern == state.target.bitPattern else { return "target \(target), model \(state.target)" }
        let (dError, vError) = bounds(state, configuration)
        let d = Double(try bank.displacement(of: spring))
        if !(abs(d - state.d) <= dError) { return "displacement \(d), model \(state.d) ± \(dError)" }
        let v = Double(try bank.velocity(of: spring))
        if !(abs(v - state.v) <= vError) { return "velocity \(v), model \(state.v) ± \(vError)" }
        let value = Double(try bank.value(of: spring))
        let modelValue = Double(state.target) + state.d
        let allowed = dError + Self.u * (abs(modelValue) + dError) + 0x1p-149 + 1e-15 * abs(modelValue)
        if !(abs(value - modelValue) <= allowed) { return "value \(value), model \(modelValue) ± \(allowed)" }
        return nil
    }
}
