import Foundation
@_spi(KernelInternals) @testable import SpringKernel

/// The reference for ``Q16Lanes``: the format's own arithmetic, which the kernel must follow bit
/// for bit. A spring is its raw target (`Int32`, 2⁻¹⁶ units) and its displacement and velocity
/// lanes stored at its batch's ``LaneScale`` (from ``Q16Lanes/laneScale(tolerance:naturalFrequency:)``);
/// one step is ``Q16Lanes/step(displacement:velocity:coefficients:)`` with the coefficients
/// ``Q16Lanes/coefficients(of:scale:)`` gives for the exact propagator (public: they define the
/// format). Everything else is computed here from the format's documentation:
///
/// - value − target must fit in `Int32` (`.displacement`), and so must a velocity plus an impulse
///   (`.velocity`); the lanes are the API's patterns shifted left by the scale's shifts (a
///   negative shift rounds to nearest, ties up), each must fit `Int32`, and the motion's energy
///   norm √(d² + (v·2ᶜ/ω)²) must stay within 2³⁰ lane steps and |target| + the norm within the
///   `Int32` range (``Q16Lanes/holdsMotion``), else `.displacement` (for d alone) or `.velocity`.
/// - One step: each lane plus its row's increment c·d + c′·v, evaluated in binary32 and rounded
///   to an integer (``increment(_:_:_:_:)``); a lane beyond ±2³⁰ is clamped to ±(2³⁰ − 1) and
///   reported (a saturation).
/// - Reads round the lanes back to the API's resolution (ties up), clamped to `Int32`.
struct Q16Reference: ReferenceArithmetic {
    typealias Lanes = Q16Lanes

    struct State: CustomStringConvertible {
        var target: Int32
        var d: Int32
        var v: Int32
        /// The lanes' scale (the identity until ``stored(_:configuration:tolerance:)`` places it).
        var scale = LaneScale.identity

        var description: String { "target \(target), d \(d), v \(v) (lanes at \(scale.displacementShift), \(scale.velocityShift))" }
    }

    static var formatName: String { "q16.16" }
    /// None: FixedPointEdgeTests steps tiny durations.
    static var tinyFrameDurations: [Double] { [] }

    init() {}

    func coefficients(_ configuration: SpringConfiguration, _ dt: Double, _ scale: LaneScale) -> SIMD8<UInt32> {
        Q16Lanes.coefficients(of: SpringMotion(configuration).propagator(over: dt), scale: scale)
    }

    // MARK: Random inputs

    func position(_ generator: inout SeededGenerator, extreme: Bool) -> Q16 {
        if extreme {
            // Far enough out that a distance to another value may not fit.
            let magnitude = Int32.random(in: (30_000 << 16)...Int32.max, using: &generator)
            return Q16(raw: Bool.random(using: &generator) ? magnitude : -magnitude &- 1)
        }
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: return Q16(raw: Int32.random(in: -8...8, using: &generator) << 20)
        case 1: return Q16(raw: Int32.random(in: -(1 << 16)...(1 << 16), using: &generator))  // unit scale
        case 2: return Q16(raw: Int32.random(in: -(100 << 16)...(100 << 16), using: &generator))
        default: return Q16(raw: Int32.random(in: -(8000 << 16)...(8000 << 16), using: &generator))
        }
    }

    func velocity(_ generator: inout SeededGenerator, extreme: Bool) -> Q16 {
        if extreme { return [Q16.max, Q16.min, Q16(raw: 1 << 30), Q16(raw: -(1 << 30))].randomElement(using: &generator)! }
        switch Int.random(in: 0..<6, using: &generator) {
        case 0, 1: return .zero
        case 2: return Q16(raw: Int32.random(in: -(30_000 << 16)...(30_000 << 16), using: &generator))  // may be refused
        case 3: return Q16(raw: Int32.random(in: -(10 << 16)...(10 << 16), using: &generator))
        default: return Q16(raw: Int32.random(in: -(3000 << 16)...(3000 << 16), using: &generator))
        }
    }

    func tolerance(_ generator: inout SeededGenerator, extreme: Bool) -> Q16 {
        if extreme { return [Q16.zero, Q16(raw: -1), Q16.min].randomElement(using: &generator)! }
        return Q16(raw: [1 << 15, 1 << 8, 3277, 2 << 16, 64].randomElement(using: &generator)!)
    }

    /// A lane read at the API's resolution.
    static func api(_ lane: Int32, shift: Int) -> Int32 {
        if shift <= 0 { return clamped(Int64(lane) << Int64(min(-shift, 32))) }
        return Int32((Int64(lane) + (1 << Int64(shift - 1))) >> Int64(shift))
    }

    func value(_ state: State) -> Q16 {
        Q16(raw: Self.clamped(Int64(state.target) + Int64(Self.api(state.d, shift: state.scale.displacementShift))))
    }
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

    /// An API pattern (or lane) shifted left by `shift` into lanes (rounded for a negative shift).
    private func lane(_ x: Int32, shift: Int, _ quantity: SpringQuantity) throws(SpringKernelError) -> Int32 {
        let wide: Int64 = shift >= 0
            ? (x == 0 ? 0 : (shift < 32 ? Int64(x) << Int64(shift) : .max))
            : (Int64(x) + (1 << Int64(min(-shift, 40) - 1))) >> Int64(min(-shift, 40))
        guard let lane = Int32(exactly: wide) else { throw .outOfRange(quantity) }
        return lane
    }

    /// The format's motion check, from its documentation: the energy norm in lane steps.
    private func checkMotion(_ state: State, _ configuration: SpringConfiguration) throws(SpringKernelError) {
        let omega = configuration.naturalFrequency
        let c = state.scale.displacementShift - state.scale.velocityShift
        func holds(_ v: Int32) -> Bool {
            let d = Double(state.d), w = Double(v) * pow(2, Double(c)) / omega
            let norm = (d * d + w * w).squareRoot()
            let reach = norm * pow(2, -Double(state.scale.displacementShift))
            return norm <= Double(1 << 30) && Double(state.target) + reach <= Double(Int32.max) && Double(state.target) - reach >= Double(Int32.min)
        }
        if state.scale.velocityShift < 0 {
            guard Int32(exactly: Int64(state.v) << Int64(-state.scale.velocityShift)) != nil else { throw .outOfRange(.velocity) }
        }
        guard holds(0) else { throw .outOfRange(.displacement) }
        guard holds(state.v) else { throw .outOfRange(.velocity) }
    }

    func start(value: Q16, target: Q16, velocity: Q16?) throws(SpringKernelError) -> State {
        State(target: target.raw, d: try displacement(value.raw, target.raw), v: velocity?.raw ?? 0)
    }

    func stored(_ state: State, configuration: SpringConfiguration, tolerance: Double) throws(SpringKernelError) -> State {
        let scale = Q16Lanes.laneScale(tolerance: tolerance, naturalFrequency: configuration.naturalFrequency)
        let result = State(
            target: state.target, d: try lane(state.d, shift: scale.displacementShift, .displacement),
            v: try lane(state.v, shift: scale.velocityShift, .velocity), scale: scale)
        try checkMotion(result, configuration)
        return result
    }

    func toleranceValue(_ tolerance: Q16) throws(SpringKernelError) -> Double {
        guard tolerance.raw > 0 else { throw .nonPositiveTolerance }
        return Double(tolerance.raw) / 65536
    }

    func retargeted(_ state: State, to target: Q16, configuration: SpringConfiguration) throws(SpringKernelError) -> State {
        // The target it has already: nothing changes, nothing is checked.
        if target.raw == state.target { return state }
        let delta = try lane(try displacement(state.target, target.raw), shift: state.scale.displacementShift, .displacement)
        let (d, overflow) = state.d.addingReportingOverflow(delta)
        if overflow { throw .outOfRange(.displacement) }
        let result = State(target: target.raw, d: d, v: state.v, scale: state.scale)
        try checkMotion(result, configuration)
        return result
    }

    func pushed(_ state: State, by velocity: Q16, configuration: SpringConfiguration) throws(SpringKernelError) -> State {
        let delta = try lane(velocity.raw, shift: state.scale.velocityShift, .velocity)
        let (v, overflow) = state.v.addingReportingOverflow(delta)
        if overflow { throw .outOfRange(.velocity) }
        let result = State(target: state.target, d: state.d, v: v, scale: state.scale)
        try checkMotion(result, configuration)
        return result
    }

    func teleported(_ state: State, value: Q16, velocity: Q16, configuration: SpringConfiguration) throws(SpringKernelError) -> State {
        let d = try displacement(value.raw, state.target)
        let result = State(
            target: state.target, d: try lane(d, shift: state.scale.displacementShift, .displacement),
            v: try lane(velocity.raw, shift: state.scale.velocityShift, .velocity), scale: state.scale)
        try checkMotion(result, configuration)
        return result
    }

    func reconfigured(
        _ state: State, from old: SpringConfiguration, to new: SpringConfiguration, tolerance: Double
    ) throws(SpringKernelError) -> State {
        let scale = Q16Lanes.laneScale(tolerance: tolerance, naturalFrequency: new.naturalFrequency)
        guard scale != state.scale || old != new else { return state }
        let result = State(
            target: state.target,
            d: try lane(state.d, shift: scale.displacementShift - state.scale.displacementShift, .displacement),
            v: try lane(state.v, shift: scale.velocityShift - state.scale.velocityShift, .velocity), scale: scale)
        try checkMotion(result, new)
        return result
    }

    func isRestState(_ state: State, configuration: SpringConfiguration) -> Bool? { state.d == 0 && state.v == 0 }

    func atRest(_ state: State) -> State { State(target: state.target, d: 0, v: 0, scale: state.scale) }

    // MARK: Steps and rest

    /// One row's increment c·d + c′·v as the format documents it: d and v converted to binary32,
    /// each product and their sum rounded to binary32 (nearest, ties to even, nothing fused), the
    /// sum rounded to the nearest integer (ties to even); a sum of 2³¹ or more in magnitude
    /// converts to `Int32.min` (x86's "integer indefinite"). Written with `Double`, not with
    /// `Float` arithmetic: a product of two binary32 values is exact in `Double`, and a `Double`
    /// sum of two binary32 values rounded to binary32 is the correctly rounded binary32 sum
    /// (53 ≥ 2·24 + 2 bits, so the double rounding is harmless).
    static func increment(_ d: Int32, _ v: Int32, _ c: UInt32, _ cPrime: UInt32) -> (lane: Int32, exact: Int64) {
        let fd = Double(Float(Double(d))), fv = Double(Float(Double(v)))
        let p = Double(Float(Double(Float(bitPattern: c)) * fd))
        let q = Double(Float(Double(Float(bitPattern: cPrime)) * fv))
        let sum = Double(Float(p + q)).rounded(.toNearestOrEven)
        return (sum.magnitude < 0x1p31 ? Int32(sum) : .min, Int64(sum))
    }

    /// One step of stored lanes, as the format documents it: each lane plus its row's increment,
    /// kept modulo 2³², and a lane beyond ±2³⁰ reported (`saturated`) and, in a bank, clamped
    /// (`clamp`).
    static func step(_ d: Int32, _ v: Int32, _ c: SIMD8<UInt32>, clamp: Bool = true) -> (Int32, Int32, Bool) {
        let newD = d &+ increment(d, v, c[0], c[1]).lane
        let newV = v &+ increment(d, v, c[2], c[3]).lane
        let bound: Int64 = 1 << 30
        let saturated = [newD, newV].contains { Int64($0) >= bound || Int64($0) < -bound }
        func lane(_ x: Int32) -> Int32 {
            saturated && clamp ? Int32(min(max(Int64(x), -bound + 1), bound - 1)) : x
        }
        return (lane(newD), lane(newV), saturated)
    }

    /// One step of a bank's spring: lanes beyond ±2³⁰ are clamped and reported only on a frame
    /// that checks the bound (``Q16Lanes/boundCheckInterval``); between checks they go on unclamped.
    func stepped(_ state: State, configuration: SpringConfiguration, dt: Double, checksBound: Bool = true) -> (state: State, saturated: Bool) {
        let (d, v, beyond) = Self.step(state.d, state.v, coefficients(configuration, dt, state.scale), clamp: checksBound)
        return (State(target: state.target, d: d, v: v, scale: state.scale), beyond && checksBound)
    }

    func isAtBounds(_ state: State) -> Bool {
        let bound: Int32 = (1 << 30) - 1
        return state.d == bound || state.d == -bound || state.v == bound || state.v == -bound
    }

    func doubleState(_ state: State) -> (d: Double, v: Double) {
        (Double(state.d) * pow(2, -Double(16 + state.scale.displacementShift)),
         Double(state.v) * pow(2, -Double(16 + state.scale.velocityShift)))
    }

    /// The lanes are the model's exactly; they drift from the exact motion by the format's
    /// rounding, which the model measures: the distance in the energy norm, as a displacement,
    /// plus a lane step of each and Double rounding.
    func deviation(_ state: State, configuration: SpringConfiguration, exact: (d: Double, v: Double)) -> Double {
        let (d, v) = doubleState(state)
        let ratio = configuration.mass / configuration.tension
        let amplitude = (d * d + ratio * v * v).squareRoot()
        let dd = d - exact.d, dv = v - exact.v
        return (dd * dd + ratio * dv * dv).squareRoot() + 1e-9 * amplitude
            + pow(2, -Double(16 + state.scale.displacementShift)) + ratio.squareRoot() * pow(2, -Double(16 + state.scale.velocityShift))
    }

    func mismatch(_ state: State, configuration: SpringConfiguration, bank: SpringBank<Q16Lanes>, spring: SpringHandle) throws -> String? {
        let target = try bank.target(of: spring).raw, d = try bank.displacement(of: spring).raw
        let v = try bank.velocity(of: spring).raw, value = try bank.value(of: spring).raw
        let modelD = Self.api(state.d, shift: state.scale.displacementShift)
        let modelV = Self.api(state.v, shift: state.scale.velocityShift)
        if target != state.target || d != modelD || v != modelV || value != self.value(state).raw {
            return "lanes target \(target) d \(d) v \(v) value \(value), model \(state) value \(self.value(state).raw)"
        }
        return nil
    }
}
