import Foundation
@_spi(KernelInternals) @testable import SpringKernel

/// How a lane format's numbers behave, computed by the randomized model tests on their own,
/// without the kernel: what each public call does to one spring's state, or which error it must
/// throw, how the state moves over one step, and when the spring must come to rest.
///
/// Each call reproduces the kernel's order of checks (target, value, displacement, velocity,
/// tolerance), so the model knows the exact error a refused call throws.
protocol ReferenceArithmetic {
    associatedtype Lanes: SpringLaneArithmetic
    associatedtype State: CustomStringConvertible

    init()
    static var formatName: String { get }
    /// Sub-millisecond frame durations the random sequences may step by (the kernel's cost of
    /// predicting rest at such a duration may be too high for a debug build).
    static var tinyFrameDurations: [Double] { get }

    // MARK: Random inputs

    /// A value or target: usually in range; when `extreme`, one at or beyond what the format holds.
    func position(_ generator: inout SeededGenerator, extreme: Bool) -> Lanes.Value
    func velocity(_ generator: inout SeededGenerator, extreme: Bool) -> Lanes.Value
    func tolerance(_ generator: inout SeededGenerator, extreme: Bool) -> Lanes.Value
    /// The value a spring with this state has (to set a spring where it already is).
    func value(_ state: State) -> Lanes.Value
    func target(_ state: State) -> Lanes.Value
    func zero() -> Lanes.Value
    /// The raw lane bits of a value, for bit-for-bit comparisons.
    func bits(_ value: Lanes.Value) -> UInt32

    // MARK: What each call does

    func start(value: Lanes.Value, target: Lanes.Value, velocity: Lanes.Value?) throws(SpringKernelError) -> State
    func toleranceValue(_ tolerance: Lanes.Value) throws(SpringKernelError) -> Double
    func retargeted(_ state: State, to target: Lanes.Value, configuration: SpringConfiguration) throws(SpringKernelError) -> State
    func pushed(_ state: State, by velocity: Lanes.Value, configuration: SpringConfiguration) throws(SpringKernelError) -> State
    func teleported(_ state: State, value: Lanes.Value, velocity: Lanes.Value, configuration: SpringConfiguration) throws(SpringKernelError) -> State
    /// The state after a change of configuration or tolerance (the lanes may move to another scale).
    func reconfigured(
        _ state: State, from old: SpringConfiguration, to new: SpringConfiguration, tolerance: Double
    ) throws(SpringKernelError) -> State
    /// A started state placed in its batch's lanes (for the configuration and tolerance it is added with).
    func stored(_ state: State, configuration: SpringConfiguration, tolerance: Double) throws(SpringKernelError) -> State
    /// Whether the state is exactly a state of rest (displacement and velocity zero), or nil when
    /// the model cannot tell from its own numbers (the runner then asks the kernel).
    func isRestState(_ state: State, configuration: SpringConfiguration) -> Bool?
    /// The state snapped onto its target with zero velocity.
    func atRest(_ state: State) -> State

    // MARK: Steps and rest

    /// The state after one step of `dt`, and whether the format saturated: a format with a bound
    /// reports and clamps the lanes beyond it only on the frames that check it (`checksBound`).
    func stepped(_ state: State, configuration: SpringConfiguration, dt: Double, checksBound: Bool) -> (state: State, saturated: Bool)
    /// Whether the state's lanes sit at the format's bounds (what the kernel's saturation scan sees).
    func isAtBounds(_ state: State) -> Bool
    /// The state's displacement and velocity as real numbers.
    func doubleState(_ state: State) -> (d: Double, v: Double)
    /// How far, in displacement, the exact motion from the kernel's lanes may be from `exact`, the
    /// exact motion (in Double) of the trajectory the kernel scheduled (the lanes' rounding since).
    func deviation(_ state: State, configuration: SpringConfiguration, exact: (d: Double, v: Double)) -> Double

    /// Compares the kernel's spring with the model's state; returns a description of the first
    /// difference beyond what the format allows, or nil.
    func mismatch(_ state: State, configuration: SpringConfiguration, bank: SpringBank<Lanes>, spring: SpringHandle) throws -> String?
}

extension ReferenceArithmetic {
    /// The frames after which ``SpringBank/predictRest(of:dt:)`` may say the spring rests, for
    /// steps of `dt` from this state: `first...last`, from the brute-force rest frame of the band
    /// widened and narrowed by the lanes' deviation (`last` nil when not found within
    /// ``restSearchFrames``; `first` is then a lower bound).
    func restFrames(_ state: State, configuration: SpringConfiguration, tolerance: Double, dt: Double) -> (first: Int, last: Int?) {
        let (d, v) = doubleState(state)
        let amplitude = (d * d + configuration.mass / configuration.tension * v * v).squareRoot()
        let delta = deviation(state, configuration: configuration, exact: (d, v)) + 1e-9 * amplitude
        let first = ReferenceRest.restFrame(
            displacement: d, velocity: v, tolerance: tolerance + delta, configuration: configuration, dt: dt, limit: restSearchFrames)
        guard let first else { return (restSearchFrames, nil) }
        guard tolerance > delta else { return (first, nil) }
        let last = ReferenceRest.restFrame(
            displacement: d, velocity: v, tolerance: tolerance - delta, configuration: configuration, dt: dt, limit: restSearchFrames)
        return (first, last.map { $0 + 1 })
    }
}

/// How far the references walk a trajectory to find its rest frame. A longer walk would only
/// prove a rest the sequence does not run long enough to see (sequences re-predict at every change
/// of frame duration); the final settle at 60 Hz stays far below it.
let restSearchFrames = 30_000

/// Identifies one configuration and frame duration, for caches of per-step constants.
struct StepKey: Hashable {
    let configuration: SpringConfiguration
    let dtBits: UInt64
}
