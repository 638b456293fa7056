import SpringKernel
import _SpringKernelShims

// Springs in bulk: add, remove, the events (retarget, impulse, set state, configure), bulk
// reads. Every call takes the engine's own arrays; each checks every element before it changes
// anything, so a refused call leaves the bank as it was (its state hash unchanged).

/// What `sk_bank_read_f32` and `sk_bank_read_q16` read.
@c
public enum sk_quantity: Int32 {
    /// The spring's current value.
    case _value = 0
    /// Its velocity, in value units per second.
    case _velocity = 1
    /// The value it pulls toward.
    case _target = 2
}

/// Adds `count` float32 springs, spring i at `values[i]` pulled toward `targets[i]` at
/// `velocities[i]` (NULL: all 0), all with one configuration (tension, friction, mass; the
/// defaults are 342, 30, 1) and tolerance (the rest band's half-width: 0.5 for points, 1.0/256 for
/// an opacity). Writes their handles to `springs`.
///
/// A spring added exactly at its target with zero velocity starts at rest. If any spring is
/// refused, none is added and nothing in the bank moves (no handle, generation or layout version):
/// the call changes nothing, and `springs` is not written. A `count` the bank has no room for
/// (2^30 springs in all) is `sk_status_too_many_springs` before any array is read; memory the
/// system cannot give, `sk_status_out_of_memory`.
///
/// - Complexity: O(count).
@c(sk_bank_add_f32)
public func sk_bank_add_f32(
    _ bank: UInt64, _ count: UInt, _ values: UnsafePointer<Float>?, _ targets: UnsafePointer<Float>?,
    _ velocities: UnsafePointer<Float>?, _ tension: Double, _ friction: Double, _ mass: Double, _ tolerance: Float,
    _ springs: UnsafeMutablePointer<UInt64>?
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try addedCount(count, to: bank)
        let speeds = velocities.map { UnsafeBufferPointer(start: $0, count: n) }
        try add(
            to: bank, of: entry, values: try input(values, n), targets: try input(targets, n), velocities: speeds,
            configuration: try kernel { () throws(SpringKernelError) in try SpringConfiguration(tension: tension, friction: friction, mass: mass) },
            tolerance: tolerance, handles: try output(springs, n))
    }
}

/// Adds `count` Q16.16 springs, as `sk_bank_add_f32` (every value a raw `int32_t`, the number
/// times 65536; a tolerance of 0.5 is 32768).
///
/// - Complexity: O(count).
@c(sk_bank_add_q16)
public func sk_bank_add_q16(
    _ bank: UInt64, _ count: UInt, _ values: UnsafePointer<Int32>?, _ targets: UnsafePointer<Int32>?,
    _ velocities: UnsafePointer<Int32>?, _ tension: Double, _ friction: Double, _ mass: Double, _ tolerance: Int32,
    _ springs: UnsafeMutablePointer<UInt64>?
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try addedCount(count, to: bank)
        let configuration = try kernel { () throws(SpringKernelError) in try SpringConfiguration(tension: tension, friction: friction, mass: mass) }
        let handles = try output(springs, n)
        try withQ16(try input(values, n)) { values throws(Refusal) in
            try withQ16(try input(targets, n)) { targets throws(Refusal) in
                guard let velocities else {
                    return try add(to: bank, of: entry, values: values, targets: targets, velocities: nil,
                                   configuration: configuration, tolerance: Q16(raw: tolerance), handles: handles)
                }
                try withQ16(UnsafeBufferPointer(start: velocities, count: n)) { velocities throws(Refusal) in
                    try add(to: bank, of: entry, values: values, targets: targets, velocities: velocities,
                            configuration: configuration, tolerance: Q16(raw: tolerance), handles: handles)
                }
            }
        }
    }
}

/// The number of springs an add asks for, refused with `sk_status_too_many_springs` when the
/// bank cannot take that many (2^30 in all) before any array is read.
private func addedCount<Lanes>(_ count: UInt, to bank: SpringBank<Lanes>) throws(Refusal) -> Int {
    guard count <= UInt(maximumListCount - bank.count) else { throw Refusal(._too_many_springs) }
    return Int(count)
}

/// Adds the springs through the kernel's bulk form, which checks every spring before it adds any
/// (a refused call changes nothing: no handle, generation or layout version moves).
private func add<Lanes>(
    to bank: SpringBank<Lanes>, of entry: BankEntry, values: UnsafeBufferPointer<Lanes.Value>,
    targets: UnsafeBufferPointer<Lanes.Value>, velocities: UnsafeBufferPointer<Lanes.Value>?,
    configuration: SpringConfiguration, tolerance: Lanes.Value, handles: UnsafeMutableBufferPointer<UInt64>
) throws(Refusal) {
    // The tolerance is the same for all: its refusal comes first, whatever the springs.
    _ = try kernel { () throws(SpringKernelError) in try Lanes.tolerance(tolerance) }
    // Handles are plain data: the kernel writes every element before this reads it. Asked of the
    // system, not of Swift's allocator, so memory it cannot give is a status, not an abort.
    let bytes = values.count * MemoryLayout<SpringHandle>.stride
    guard let raw = sk_allocate_if_available(Swift.max(bytes, 1)) else { throw Refusal(._out_of_memory) }
    defer { sk_free(raw) }
    let added = UnsafeMutableBufferPointer(start: raw.bindMemory(to: SpringHandle.self, capacity: values.count), count: values.count)
    try kernel { () throws(SpringKernelError) in
        try bank.add(
            values: values, targets: targets, velocities: velocities, configuration: configuration, tolerance: tolerance, into: added)
    }
    for i in added.indices { handles[i] = entry.pack(added[i]) }
}

/// Removes `count` springs; their handles become stale, and masks that held them let go of them.
/// A spring listed twice is refused (`sk_status_stale_handle`: the second names a removed spring).
///
/// - Complexity: O(count × d), each spring listed by d masks.
@c(sk_bank_remove)
public func sk_bank_remove(_ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ count: UInt) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let n = try checkedCount(count)
        switch entry.bank {
        case .float(let bank): try remove(try input(springs, n), from: bank, of: entry)
        case .fixed(let bank): try remove(try input(springs, n), from: bank, of: entry)
        }
    }
}

private func remove<Lanes>(_ packed: UnsafeBufferPointer<UInt64>, from bank: SpringBank<Lanes>, of entry: BankEntry) throws(Refusal) {
    try entry.withSprings(packed.baseAddress, packed.count, in: bank) { springs throws(Refusal) in
        // The bulk form refuses a spring listed twice before it removes any.
        try kernel { () throws(SpringKernelError) in try bank.remove(springs) }
    }
}

/// Pulls `springs[i]` toward `targets[i]`, for every i, keeping each one's velocity and value; a
/// spring at rest starts moving unless its new target is within its tolerance of where it is
/// (then it stays at rest, snapped onto the new target, with no event). A paused spring keeps its
/// new target until it is resumed. If any spring is refused, none is retargeted; memory the
/// system cannot give (the call's undo log, 20 bytes a listed spring) is
/// `sk_status_out_of_memory`, nothing changed.
///
/// - Complexity: O(count).
@c(sk_bank_retarget_f32)
public func sk_bank_retarget_f32(_ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ targets: UnsafePointer<Float>?, _ count: UInt) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try checkedCount(count)
        let targets = try input(targets, n)
        try entry.withSpringsCheckedByKernel(springs, n, in: bank) { springs throws(Refusal) in
            try kernel { () throws(SpringKernelError) in try bank.retarget(springs, to: targets) }
        }
    }
}

/// `sk_bank_retarget_f32` for a Q16.16 bank (raw `int32_t` targets).
///
/// - Complexity: O(count).
@c(sk_bank_retarget_q16)
public func sk_bank_retarget_q16(_ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ targets: UnsafePointer<Int32>?, _ count: UInt) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try checkedCount(count)
        try withQ16(try input(targets, n)) { targets throws(Refusal) in
            try entry.withSpringsCheckedByKernel(springs, n, in: bank) { springs throws(Refusal) in
                try kernel { () throws(SpringKernelError) in try bank.retarget(springs, to: targets) }
            }
        }
    }
}

/// Adds `deltas[i]` to the velocity of `springs[i]` (an impulse), for every i; a spring listed
/// twice gets both. A spring at rest starts moving; a paused one keeps the new velocity until it is
/// resumed.
///
/// - Complexity: O(count).
@c(sk_bank_impulse_f32)
public func sk_bank_impulse_f32(_ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ deltas: UnsafePointer<Float>?, _ count: UInt) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try checkedCount(count)
        let deltas = try input(deltas, n)
        try entry.withSpringsCheckedByKernel(springs, n, in: bank) { springs throws(Refusal) in
            try kernel { () throws(SpringKernelError) in try bank.addVelocity(deltas, to: springs) }
        }
    }
}

/// `sk_bank_impulse_f32` for a Q16.16 bank (raw `int32_t` deltas).
///
/// - Complexity: O(count).
@c(sk_bank_impulse_q16)
public func sk_bank_impulse_q16(_ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ deltas: UnsafePointer<Int32>?, _ count: UInt) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try checkedCount(count)
        try withQ16(try input(deltas, n)) { deltas throws(Refusal) in
            try entry.withSpringsCheckedByKernel(springs, n, in: bank) { springs throws(Refusal) in
                try kernel { () throws(SpringKernelError) in try bank.addVelocity(deltas, to: springs) }
            }
        }
    }
}

/// Sets the value and velocity of `springs[i]` to `values[i]` and `velocities[i]` (NULL: 0), for
/// every i, keeping its target: a teleport, or a hand-off from a gesture. A paused spring keeps the
/// new state frozen until it is resumed.
///
/// - Complexity: O(count).
@c(sk_bank_set_state_f32)
public func sk_bank_set_state_f32(
    _ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ values: UnsafePointer<Float>?, _ velocities: UnsafePointer<Float>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try checkedCount(count)
        let values = try input(values, n)
        // The handles first: NULL velocities are zeros for the springs they name, not for the count.
        try entry.withSpringsCheckedByKernel(springs, n, in: bank) { springs throws(Refusal) in
            try withVelocities(velocities, springs.count) { velocities throws(Refusal) in
                try kernel { () throws(SpringKernelError) in try bank.setState(of: springs, values: values, velocities: velocities) }
            }
        }
    }
}

/// `sk_bank_set_state_f32` for a Q16.16 bank (raw `int32_t` values and velocities).
///
/// - Complexity: O(count).
@c(sk_bank_set_state_q16)
public func sk_bank_set_state_q16(
    _ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ values: UnsafePointer<Int32>?, _ velocities: UnsafePointer<Int32>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try checkedCount(count)
        try withQ16(try input(values, n)) { values throws(Refusal) in
            // The handles first: NULL velocities are zeros for the springs they name, not for the count.
            try entry.withSpringsCheckedByKernel(springs, n, in: bank) { springs throws(Refusal) in
                try withVelocities(velocities, springs.count) { raw throws(Refusal) in
                    try withQ16(raw) { velocities throws(Refusal) in
                        try kernel { () throws(SpringKernelError) in try bank.setState(of: springs, values: values, velocities: velocities) }
                    }
                }
            }
        }
    }
}

/// The caller's velocities, or `count` zeros for NULL. `count` must be checked first (the handles
/// it counts read, or a layout's count matched): the zeros are memory sized by it.
func withVelocities<Value: Numeric>(
    _ velocities: UnsafePointer<Value>?, _ count: Int, _ body: (UnsafeBufferPointer<Value>) throws(Refusal) -> Void
) throws(Refusal) {
    if let velocities { return try body(UnsafeBufferPointer(start: velocities, count: count)) }
    let zeros = [Value](repeating: 0, count: count)
    try zeros.withUnsafeBufferPointer { zeros throws(Refusal) in try body(zeros) }
}

/// Gives `count` springs one configuration (tension, friction, mass), keeping their state, masks
/// and pause depth.
///
/// - Complexity: O(count).
@c(sk_bank_configure)
public func sk_bank_configure(
    _ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ count: UInt, _ tension: Double, _ friction: Double, _ mass: Double
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let n = try checkedCount(count)
        let configuration = try kernel { () throws(SpringKernelError) in try SpringConfiguration(tension: tension, friction: friction, mass: mass) }
        switch entry.bank {
        // The bulk form checks every spring (the motion fits the new lane scale) before any moves.
        case .float(let bank):
            try entry.withSprings(springs, n, in: bank) { springs throws(Refusal) in
                try kernel { () throws(SpringKernelError) in try bank.setConfiguration(of: springs, to: configuration) }
            }
        case .fixed(let bank):
            try entry.withSprings(springs, n, in: bank) { springs throws(Refusal) in
                try kernel { () throws(SpringKernelError) in try bank.setConfiguration(of: springs, to: configuration) }
            }
        }
    }
}

/// Sets the tolerance of `count` float32 springs (the rest band's half-width).
///
/// - Complexity: O(count).
@c(sk_bank_set_tolerance_f32)
public func sk_bank_set_tolerance_f32(_ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ count: UInt, _ tolerance: Float) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        try setTolerance(tolerance, of: springs, try checkedCount(count), in: bank, of: entry)
    }
}

/// Sets the tolerance of `count` Q16.16 springs (raw `int32_t`).
///
/// - Complexity: O(count).
@c(sk_bank_set_tolerance_q16)
public func sk_bank_set_tolerance_q16(_ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ count: UInt, _ tolerance: Int32) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        try setTolerance(Q16(raw: tolerance), of: springs, try checkedCount(count), in: bank, of: entry)
    }
}

private func setTolerance<Lanes>(
    _ tolerance: Lanes.Value, of packed: UnsafePointer<UInt64>?, _ count: Int, in bank: SpringBank<Lanes>, of entry: BankEntry
) throws(Refusal) {
    _ = try kernel { () throws(SpringKernelError) in try Lanes.tolerance(tolerance) }
    try entry.withSprings(packed, count, in: bank) { springs throws(Refusal) in
        // The bulk form checks every spring (the motion fits the new lane scale) before any moves.
        try kernel { () throws(SpringKernelError) in try bank.setTolerance(of: springs, to: tolerance) }
    }
}

/// Reads a quantity (an `sk_quantity`) of `count` float32 springs into `out[0..<count]`: the
/// engine's own array. On a refusal, `out` may be partly written; the bank is never changed.
///
/// - Complexity: O(count).
@c(sk_bank_read_f32)
public func sk_bank_read_f32(
    _ bank: UInt64, _ quantity: Int32, _ springs: UnsafePointer<UInt64>?, _ count: UInt, _ out: UnsafeMutablePointer<Float>?
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        guard let quantity = sk_quantity(rawValue: quantity) else { throw Refusal(._invalid_argument) }
        let n = try checkedCount(count)
        try read(quantity, of: try input(springs, n), in: bank, of: entry, into: try output(out, n))
    }
}

/// `sk_bank_read_f32` for a Q16.16 bank (raw `int32_t` out).
///
/// - Complexity: O(count).
@c(sk_bank_read_q16)
public func sk_bank_read_q16(
    _ bank: UInt64, _ quantity: Int32, _ springs: UnsafePointer<UInt64>?, _ count: UInt, _ out: UnsafeMutablePointer<Int32>?
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        guard let quantity = sk_quantity(rawValue: quantity) else { throw Refusal(._invalid_argument) }
        let n = try checkedCount(count)
        let packed = try input(springs, n)
        try output(out, n).withMemoryRebound(to: Q16.self) { out throws(Refusal) in
            try read(quantity, of: packed, in: bank, of: entry, into: out)
        }
    }
}

/// Reads one quantity per spring through the bank's public accessors: one handle lookup each, in
/// one pass (unpacking the handles into an array first for the bulk reads takes three).
private func read<Lanes>(
    _ quantity: sk_quantity, of packed: UnsafeBufferPointer<UInt64>, in bank: SpringBank<Lanes>, of entry: BankEntry,
    into out: UnsafeMutableBufferPointer<Lanes.Value>
) throws(Refusal) {
    // The kernel's buffer form: one call, not a call through the generic API per spring.
    try entry.withSpringsCheckedByKernel(packed.baseAddress, packed.count, in: bank) { springs throws(Refusal) in
        try kernel { () throws(SpringKernelError) in
            switch quantity {
            case ._value: try bank.values(of: springs, into: out)
            case ._velocity: try bank.velocities(of: springs, into: out)
            case ._target: try bank.targets(of: springs, into: out)
            }
        }
    }
}

/// Writes each spring's user value (the engine's own id for it, 0 unless set) to `out[0..<count]`:
/// with `sk_bank_rested`, a frame's rest events as the engine's ids.
///
/// - Complexity: O(count).
@c(sk_bank_read_user_values)
public func sk_bank_read_user_values(
    _ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ count: UInt, _ out: UnsafeMutablePointer<UInt64>?
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let n = try checkedCount(count)
        let packed = try input(springs, n), values = try output(out, n)
        switch entry.bank {
        case .float(let bank):
            try entry.withSpringsCheckedByKernel(packed.baseAddress, n, in: bank) { springs throws(Refusal) in
                try kernel { () throws(SpringKernelError) in try bank.userValues(of: springs, into: values) }
            }
        case .fixed(let bank):
            try entry.withSpringsCheckedByKernel(packed.baseAddress, n, in: bank) { springs throws(Refusal) in
                try kernel { () throws(SpringKernelError) in try bank.userValues(of: springs, into: values) }
            }
        }
    }
}

/// Sets each spring's user value to `values[i]` (an entity id, an index into the engine's tables).
///
/// - Complexity: O(count).
@c(sk_bank_set_user_values)
public func sk_bank_set_user_values(
    _ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ values: UnsafePointer<UInt64>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let n = try checkedCount(count)
        let packed = try input(springs, n), userValues = try input(values, n)
        switch entry.bank {
        case .float(let bank): try setUserValues(userValues, of: packed, in: bank, of: entry)
        case .fixed(let bank): try setUserValues(userValues, of: packed, in: bank, of: entry)
        }
    }
}

private func setUserValues<Lanes>(
    _ values: UnsafeBufferPointer<UInt64>, of packed: UnsafeBufferPointer<UInt64>, in bank: SpringBank<Lanes>, of entry: BankEntry
) throws(Refusal) {
    // withSprings checks every handle before anything is set.
    try entry.withSprings(packed.baseAddress, packed.count, in: bank) { springs throws(Refusal) in
        for i in springs.indices { try kernel { () throws(SpringKernelError) in try bank.setUserValue(values[i], of: springs[i]) } }
    }
}

/// Writes, for each spring, the seconds from now after which its exact motion stays within its
/// tolerance for good (0: at rest or already within; infinity: an undamped spring that never
/// settles). A paused spring is answered as if resumed now.
///
/// - Complexity: O(count).
@c(sk_bank_rest_time)
public func sk_bank_rest_time(_ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ count: UInt, _ seconds: UnsafeMutablePointer<Double>?) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let n = try checkedCount(count)
        let packed = try input(springs, n)
        let out = try output(seconds, n)
        switch entry.bank {
        case .float(let bank):
            for i in packed.indices {
                let spring = try entry.spring(packed[i], in: bank)
                out[i] = try kernel { () throws(SpringKernelError) in try bank.restTime(of: spring) }
            }
        case .fixed(let bank):
            for i in packed.indices {
                let spring = try entry.spring(packed[i], in: bank)
                out[i] = try kernel { () throws(SpringKernelError) in try bank.restTime(of: spring) }
            }
        }
    }
}
