import SpringKernel

/// What a `sk_` call did: `sk_status_ok` (0), or why it refused and changed nothing.
///
/// Codes 1–29 mirror the Swift API's `SpringKernelError`, one per case and quantity; codes from 100
/// are the C interface's own (a NULL buffer, an unknown bank id, an output buffer too short ...).
/// `sk_status_name` names each. A refused call leaves the bank exactly as it was.
@c
public enum sk_status: Int32, Sendable {
    /// The call did what it says.
    case _ok = 0
    /// A value was NaN or infinite.
    case _non_finite_value = 1
    /// A target was NaN or infinite.
    case _non_finite_target = 2
    /// A velocity or impulse was NaN or infinite.
    case _non_finite_velocity = 3
    /// A tolerance was NaN or infinite.
    case _non_finite_tolerance = 4
    /// A displacement (value − target) was NaN or infinite.
    case _non_finite_displacement = 5
    /// A value lies outside what the bank's format stores (float32: beyond 1e15).
    case _out_of_range_value = 6
    /// A target lies outside what the bank's format stores.
    case _out_of_range_target = 7
    /// A velocity (with an impulse added) lies outside what the format stores, or, for Q16.16, a
    /// motion the lanes cannot hold.
    case _out_of_range_velocity = 8
    /// A tolerance lies outside what the format stores.
    case _out_of_range_tolerance = 9
    /// Value − target lies outside what the format stores, or, for Q16.16, a motion the lanes
    /// cannot hold.
    case _out_of_range_displacement = 10
    /// Tension not finite or outside (0, 1e6].
    case _invalid_tension = 11
    /// Friction not finite or outside [0, 1e6].
    case _invalid_friction = 12
    /// Mass not finite or outside [1e-6, 1e6].
    case _invalid_mass = 13
    /// Another configuration parameter was invalid.
    case _invalid_configuration = 14
    /// A time step (or fixed timestep) was NaN, infinite, zero or negative.
    case _invalid_time_step = 15
    /// A step's dt differs from the fixed timestep the bank declares.
    case _time_step_mismatch = 16
    /// A buffer's count is not the layout's (`sk_layout_` calls; the other calls take one count).
    case _count_mismatch = 17
    /// A tolerance was zero or negative.
    case _non_positive_tolerance = 18
    /// A spring handle names a spring that was removed.
    case _stale_handle = 19
    /// A spring or mask handle was not made by this bank (0 included), or is of the other kind: a
    /// mask's handle where a spring's is asked, or a spring's where a mask's is.
    case _foreign_handle = 20
    /// A mask handle names a mask that was destroyed.
    case _stale_pause_mask = 21
    /// A spring would be held by more than 255 pause masks at once.
    case _pause_depth_exceeded = 22
    /// The bank already holds 65,536 configuration batches: 65,536 distinct configurations in a
    /// float32 bank; in a Q16.16 bank a batch is a configuration at one lane scale (one per binary
    /// exponent of the tolerance, those of 0.25 and above sharing one), so fewer configurations when
    /// their springs' tolerances differ (8 tolerance classes: 8,192).
    case _too_many_configurations = 23
    /// The bank already holds 2^30 springs, or an add asks for more springs than it has room for
    /// (2^30 in all): refused before the add's arrays are read.
    case _too_many_springs = 24
    /// The bank was changed from inside one of its own callbacks (not reachable from C).
    case _reentrant_mutation = 25
    /// A capacity negative or above 2^30.
    case _invalid_capacity = 26
    /// A spring removed from a mask that does not list it.
    case _not_in_mask = 27
    /// A layout version the bank no longer has (a spring changed slot or region since
    /// `sk_bank_layout` gave it): take the layout again.
    case _stale_layout = 28
    /// The system could not give the memory a capacity asks for (`sk_bank_create`), or an add
    /// needs (its records, when the bank grows).
    case _out_of_memory = 29
    /// A buffer the call needs was NULL.
    case _null_pointer = 100
    /// The bank id is 0, was destroyed, or was never made.
    case _invalid_bank = 101
    /// An output buffer is shorter than the list it should hold; the count says how long it is.
    case _short_buffer = 102
    /// A `_f32` call on a Q16.16 bank, or a `_q16` call on a float32 bank.
    case _wrong_format = 103
    /// An argument outside its documented values (an unknown format or quantity, negative threads),
    /// or a list longer than 2^30 (a bank's most springs; refused before the list is read).
    case _invalid_argument = 104
    /// Every registry slot holds a live bank (65,535 at once) or rests (a slot whose banks used up
    /// its 2^17 generation tags rests until 2^32 more banks have been made).
    case _too_many_banks = 105
    /// Another thread's call is running on the bank (a bank is used from one thread at a time):
    /// this call did nothing. Detected, not waited for; not a lock to rely on.
    case _busy = 106
}

/// A refused call, carried from where it was refused to the exported function that returns it.
struct Refusal: Error {
    let status: sk_status

    init(_ status: sk_status) { self.status = status }

    /// The status that mirrors a kernel error.
    init(_ error: SpringKernelError) {
        switch error {
        case .nonFinite(let quantity):
            switch quantity {
            case .value: status = ._non_finite_value
            case .target: status = ._non_finite_target
            case .velocity: status = ._non_finite_velocity
            case .tolerance: status = ._non_finite_tolerance
            case .displacement: status = ._non_finite_displacement
            }
        case .outOfRange(let quantity):
            switch quantity {
            case .value: status = ._out_of_range_value
            case .target: status = ._out_of_range_target
            case .velocity: status = ._out_of_range_velocity
            case .tolerance: status = ._out_of_range_tolerance
            case .displacement: status = ._out_of_range_displacement
            }
        case .invalidConfiguration(let parameter):
            switch parameter {
            case .tension: status = ._invalid_tension
            case .friction: status = ._invalid_friction
            case .mass: status = ._invalid_mass
            case .duration, .bounce, .dampingRatio, .naturalFrequency: status = ._invalid_configuration
            }
        case .invalidTimeStep: status = ._invalid_time_step
        case .timeStepMismatch: status = ._time_step_mismatch
        case .countMismatch: status = ._count_mismatch
        case .nonPositiveTolerance: status = ._non_positive_tolerance
        case .staleHandle: status = ._stale_handle
        case .foreignHandle: status = ._foreign_handle
        case .stalePauseMask: status = ._stale_pause_mask
        case .pauseDepthExceeded: status = ._pause_depth_exceeded
        case .tooManyConfigurations: status = ._too_many_configurations
        case .tooManySprings: status = ._too_many_springs
        case .reentrantMutation: status = ._reentrant_mutation
        case .invalidCapacity: status = ._invalid_capacity
        case .notInMask: status = ._not_in_mask
        case .staleLayout: status = ._stale_layout
        case .outOfMemory: status = ._out_of_memory
        }
    }
}

/// Runs a kernel call, turning its error into a ``Refusal``.
@inline(__always)
func kernel<Result>(_ body: () throws(SpringKernelError) -> Result) throws(Refusal) -> Result {
    do { return try body() } catch { throw Refusal(error) }
}

/// Runs an exported function's body, returning its status.
@inline(__always)
func status(_ body: () throws(Refusal) -> Void) -> sk_status {
    do {
        try body()
        return ._ok
    } catch {
        return error.status
    }
}

/// Runs an exported function's body on the bank `bank` names, holding its in-use flag (see
/// ``BankRegistry/use(_:_:)``); returns its status.
@inline(__always)
func status(using bank: UInt64, _ body: (BankEntry) throws(Refusal) -> Void) -> sk_status {
    status { () throws(Refusal) in try BankRegistry.shared.use(bank, body) }
}

/// The name of a status code, as a static NUL-terminated string ("ok", "stale_handle", ...);
/// "unknown_status" for a number that is none. Never NULL; never free it.
@c(sk_status_name)
public func sk_status_name(_ status: Int32) -> UnsafePointer<CChar> {
    let name: StaticString =
        switch sk_status(rawValue: status) {
        case ._ok: "ok"
        case ._non_finite_value: "non_finite_value"
        case ._non_finite_target: "non_finite_target"
        case ._non_finite_velocity: "non_finite_velocity"
        case ._non_finite_tolerance: "non_finite_tolerance"
        case ._non_finite_displacement: "non_finite_displacement"
        case ._out_of_range_value: "out_of_range_value"
        case ._out_of_range_target: "out_of_range_target"
        case ._out_of_range_velocity: "out_of_range_velocity"
        case ._out_of_range_tolerance: "out_of_range_tolerance"
        case ._out_of_range_displacement: "out_of_range_displacement"
        case ._invalid_tension: "invalid_tension"
        case ._invalid_friction: "invalid_friction"
        case ._invalid_mass: "invalid_mass"
        case ._invalid_configuration: "invalid_configuration"
        case ._invalid_time_step: "invalid_time_step"
        case ._time_step_mismatch: "time_step_mismatch"
        case ._count_mismatch: "count_mismatch"
        case ._non_positive_tolerance: "non_positive_tolerance"
        case ._stale_handle: "stale_handle"
        case ._foreign_handle: "foreign_handle"
        case ._stale_pause_mask: "stale_pause_mask"
        case ._pause_depth_exceeded: "pause_depth_exceeded"
        case ._too_many_configurations: "too_many_configurations"
        case ._too_many_springs: "too_many_springs"
        case ._reentrant_mutation: "reentrant_mutation"
        case ._invalid_capacity: "invalid_capacity"
        case ._not_in_mask: "not_in_mask"
        case ._stale_layout: "stale_layout"
        case ._out_of_memory: "out_of_memory"
        case ._null_pointer: "null_pointer"
        case ._invalid_bank: "invalid_bank"
        case ._short_buffer: "short_buffer"
        case ._wrong_format: "wrong_format"
        case ._invalid_argument: "invalid_argument"
        case ._too_many_banks: "too_many_banks"
        case ._busy: "busy"
        case nil: "unknown_status"
        }
    // A string literal's bytes are static and NUL-terminated.
    return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}
