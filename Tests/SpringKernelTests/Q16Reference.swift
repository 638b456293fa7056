import Foundation
@testable import SpringKernel

/// The reference for ``Q16Lanes``: the format's own arithmetic, which the kernel must follow bit
/// for bit. A spring is its raw target, displacement and velocity (`Int32`, 2⁻¹⁶ units); one step
/// is ``Q16Lanes/step(displacement:velocity:coefficients:)`` with the coefficients
/// ``Q16Lanes/coefficients(of:)`` gives for the exact propagator (both public: they define the
/// format). Everything else (input checks, retargeting, reading a value, the rest frame) is
/// computed here from the format's documentation:
///
/// - value − target must fit in `Int32` (``SpringKernelError/outOfRange(_:)`` `.displacement`),
///   and so must a velocity plus an impulse (`.velocity`); a value reads as target +
///   displacement clamped to the `Int32` range.
/// - One step, as ``Q16Lanes`` documents it: each row a·d + b·v summed exactly in `Int64`,
///   divided by 2^F rounding toward zero, clamped to `Int32` (a saturation); written here
///   independently of the kernel's branch-free version.
/// - The rest frame R is counted on the format's own trajectory: the spring is stepped until it
///   is exactly at rest (d = 0, v = 0, where it stays) and R is the frame after the last one
///   outside the band (|d| > tolerance in raw units). The kernel rests the spring after
///   max(R, 1) steps, exactly: no frame of slack.
final class Q16Reference: ReferenceArithmetic {
    typealias Lanes = Q16Lanes

    struct State: CustomStringConvertible {
        var target: Int32
        var d: Int32
        var v: Int32

        var description: String { "target \(target), d \(d), v \(v) (raw)" }
    }

    static var formatName: String { "q16.16" }
    /// None: the kernel predicts a Q16 spring's rest by running its trajectory to exact rest,
    /// which takes about 1/dt frames (up to 2²⁰ at 1 µs, a tenth of a second per spring in a debug
    /// build). FixedPointEdgeTests steps tiny durations.
    static var tinyFrameDurations: [Double] { [] }

    private var coefficients: [StepKey: SIMD8<UInt32>] = [:]

    init() {}

    func coefficients(_ configuration: SpringConfiguration, _ dt: Double) -> SIMD8<UInt32> {
        let key = StepKey(configuration: configuration, dtBits: dt.bitPattern)
        if let cached = coefficients[key] { return cached }
        if coefficients.count > 512 { coefficients.removeAll() }
        let result = Q16Lanes.coefficients(of: SpringMotion(configuration).propagator(over: dt))
        coefficients[key] = result
        return result
    }

    // MARK: Random inputs

    func position(_ generator: inout SeededGenerator, extreme: Bool) -> Q16 {
        if extreme {
            // Far enough out that a distance to another value may not fit.
            let magnitude = Int32.random(in: (30_000 << 16)...Int32.max, using: &generator)
            return Q16(raw: Bool.random(using: &generator) ? magnitude : -magnitude &- 1)
        }
        if Int.random(in: 0..<4, using: &generator) == 0 { return Q16(raw: Int32.random(in: -8...8, using: &generator) << 20) }
        return Q16(raw: Int32.random(in: -(8000 << 16)...(8000 << 16), using: &generator))
    }

    func velocity(_ generator: inout SeededGenerator, extreme: Bool) -> Q16 {
        if extreme { return [Q16.max, Q16.min, Q16(raw: 1 << 30), Q16(raw: -(1 << 30))].randomElement(using: &generator)! }
        switch Int.random(in: 0..<6, using: &generator) {
        case 0, 1: return .zero
        case 2: return Q16(raw: Int32.random(in: -(30_000 << 16)...(30_000 << 16), using: &generator))  // may saturate
        default: return Q16(raw: Int32.random(in: -(3000 << 16)...(3000 << 16), using: &generator))
        }
    }

    func tolerance(_ generator: inout SeededGenerator, extreme: Bool) -> Q16 {
        if extreme { return [Q16.zero, Q16(raw: -1), Q16.min].randomElement(using: &generator)! }
        return Q16(raw: [1 << 15, 1 << 8, 3277, 2 << 16, 64].randomElement(using: &generator)!)
    }

    func value(_ state: State) -> Q16 { Q16(raw: Self.clamped(Int64(state.target) + Int64(state.d))) }
    func target(_ state: State) -> Q16 { Q16(raw: state.target) }
    func zero() -> Q16 { .zero }
    func bits(_ value: Q16) -> UInt32 { UInt32(bitPattern: value.raw) }

    static func clamped(_ x: Int64) -> Int32 { Int32(min(max(x, Int64(Int32.min)), Int64(Int32.max))) }

    // MARK: Calls

    private func displacement(_ value: Int32, _ target: Int32) throws(SpringKernelError) -> Int32 {
        let (d, overflow) = value.subtractingReportingOverflow(target)
        if overflow { throw .outOfRange(.displacement) }
        return d
    }

    func start(value: Q16, target: Q16, velocity: Q16?) throws(SpringKernelError) -> State {
        State(target: target.raw, d: try displacement(value.raw, target.raw), v: velocity?.raw ?? 0)
    }

    func toleranceValue(_ tolerance: Q16) throws(SpringKernelError) -> Double {
        guard tolerance.raw > 0 else { throw .nonPositiveTolerance }
        return Double(tolerance.raw) / 65536
    }

    func retargeted(_ state: State, to target: Q16, configuration: SpringConfiguration) throws(SpringKernelError) -> State {
        State(target: target.raw, d: try displacement(value(state).raw, target.raw), v: state.v)
    }

    func pushed(_ state: State, by velocity: Q16, configuration: SpringConfiguration) throws(SpringKernelError) -> State {
        let (v, overflow) = state.v.addingReportingOverflow(velocity.raw)
        if overflow { throw .outOfRange(.velocity) }
        return State(target: state.target, d: state.d, v: v)
    }

    func teleported(_ state: State, value: Q16, velocity: Q16) throws(SpringKernelError) -> State {
        State(target: state.target, d: try displacement(value.raw, state.target), v: velocity.raw)
    }

    func reconfigured(_ state: State, from old: SpringConfiguration, to new: SpringConfiguration) -> State { state }

    func isRestState(_ state: State, configuration: SpringConfiguration) -> Bool? { state.d == 0 && state.v == 0 }

    func atRest(_ state: State) -> State { State(target: state.target, d: 0, v: 0) }

    // MARK: Steps and rest

    /// One step's constants, unpacked from the format's coefficients.
    struct Row {
        let a11, a12, a21, a22, shiftD, shiftV: Int64

        init(_ c: SIMD8<UInt32>) {
            a11 = Int64(Int32(bitPattern: c[0]))
            a12 = Int64(Int32(bitPattern: c[1]))
            a21 = Int64(Int32(bitPattern: c[2]))
            a22 = Int64(Int32(bitPattern: c[3]))
            shiftD = Int64(c[4])
            shiftV = Int64(c[5])
        }
    }

    /// sum / 2^shift rounded toward zero, and whether it lies outside `Int32` (then clamped).
    @inline(__always)
    static func quotient(_ sum: Int64, _ shift: Int64) -> (Int32, Bool) {
        let q = sum >= 0 ? sum >> shift : -((-sum) >> shift)
        if q > Int64(Int32.max) { return (.max, true) }
        if q < Int64(Int32.min) { return (.min, true) }
        return (Int32(q), false)
    }

    @inline(__always)
    static func step(_ d: Int32, _ v: Int32, _ r: Row) -> (Int32, Int32, Bool) {
        let d64 = Int64(d), v64 = Int64(v)
        let (newD, outD) = quotient(r.a11 &* d64 &+ r.a12 &* v64, r.shiftD)
        let (newV, outV) = quotient(r.a21 &* d64 &+ r.a22 &* v64, r.shiftV)
        return (newD, newV, outD || outV)
    }

    func stepped(_ state: State, configuration: SpringConfiguration, dt: Double) -> (state: State, saturated: Bool) {
        let (d, v, saturated) = Self.step(state.d, state.v, Row(coefficients(configuration, dt)))
        return (State(target: state.target, d: d, v: v), saturated)
    }

    func isAtBounds(_ state: State) -> Bool {
        state.d == .max || state.d == .min || state.v == .max || state.v == .min
    }

    func doubleState(_ state: State) -> (d: Double, v: Double) { (Double(state.d) / 65536, Double(state.v) / 65536) }

    /// The lanes are the model's exactly; they drift from the exact motion by the format's
    /// rounding (toward zero, with coefficients of 30 bits), which the model measures: the distance
    /// in the energy norm, as a displacement, plus an LSB and Double rounding.
    func deviation(_ state: State, configuration: SpringConfiguration, exact: (d: Double, v: Double)) -> Double {
        let (d, v) = doubleState(state)
        let ratio = configuration.mass / configuration.tension
        let amplitude = (d * d + ratio * v * v).squareRoot()
        let dd = d - exact.d, dv = v - exact.v
        return (dd * dd + ratio * dv * dv).squareRoot() + 1e-9 * amplitude + 1.0 / 65536
    }

    func mismatch(_ state: State, configuration: SpringConfiguration, bank: SpringBank<Q16Lanes>, spring: SpringHandle) throws -> String? {
        let target = try bank.target(of: spring).raw, d = try bank.displacement(of: spring).raw
        let v = try bank.velocity(of: spring).raw, value = try bank.value(of: spring).raw
        if target != state.target || d != state.d || v != state.v || value != self.value(state).raw {
            return "lanes target \(target) d \(d) v \(v) value \(value), model \(state) value \(self.value(state).raw)"
        }
        return nil
    }
}
