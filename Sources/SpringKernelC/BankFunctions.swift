import SpringKernel

// The bank as a whole: make and destroy it, step it, read what a step did.

/// The lane format of a bank, for `sk_bank_create`.
@c
public enum sk_format: Int32 {
    /// float32 lanes: values, targets, velocities and tolerances cross as `float`.
    case _float32 = 0
    /// Q16.16 lanes, the same bits on every machine: every value crosses as its raw `int32_t`
    /// (the number times 65536).
    case _q16 = 1
}

/// Makes an empty bank and writes its id to `*bank` (never 0).
///
/// Threading contract: a bank is not thread-safe. Use each bank from one thread at a time (any
/// thread, handed over with the usual synchronisation); different banks may be used on different
/// threads at once. A call on a bank while another thread's call runs on it is refused with
/// `sk_status_busy` and does nothing (detected with a flag each call takes, not waited for: do not
/// rely on it as a lock). A step may use several threads internally (`threads`); that never
/// changes the bits.
///
/// - `format`: an `sk_format`.
/// - `threads`: threads a step uses: 0 automatic (one until the moving springs' lanes fill half the
///   last-level cache), 1 one, n exactly n. The CMake build (Embedded Swift, no Swift runtime) has
///   no worker threads: there every step runs on the caller's thread, whatever `threads` says.
/// - `capacity`: springs to reserve room for, 0 to 2^30 (60 bytes a spring, asked of the system at
///   once).
///
/// Returns `sk_status_invalid_argument` for an unknown format or negative threads,
/// `sk_status_invalid_capacity` for a capacity above 2^30, `sk_status_out_of_memory` when the
/// system cannot give the capacity (nothing is made), `sk_status_null_pointer` for a NULL `bank`,
/// `sk_status_too_many_banks` when every registry slot is live (65,535 banks) or resting.
///
/// Handles: a bank id is its registry slot (16 bits) and a serial number never reused (48 bits).
/// A spring or mask handle is `slot << 48 | kind << 47 | tag << 30 | index`: the bank's registry
/// slot (bits 63-48), the kind (bit 47: 0 a spring, 1 a mask, so neither is taken for the other),
/// a 17-bit generation tag (bits 46-30) and the record index (bits 29-0; a bank holds at most
/// 2^30 springs). A removed spring's or mask's handle never names anything again: a record is
/// retired, not reused, before its tag would repeat (after 2^16 - 1 reuses at least; 60 bytes of
/// record tables each). A destroyed bank's handles are refused by every bank made within 2^32 bank
/// creations after it: its slot's later banks start past every tag it issued, and a slot whose
/// tags are used up rests for 2^32 bank creations.
@c(sk_bank_create)
public func sk_bank_create(_ format: Int32, _ threads: Int32, _ capacity: UInt, _ bank: UnsafeMutablePointer<UInt64>?) -> sk_status {
    status { () throws(Refusal) in
        guard let bank else { throw Refusal(._null_pointer) }
        guard let format = sk_format(rawValue: format), let threading = threading(threads) else {
            throw Refusal(._invalid_argument)
        }
        guard let reserve = Int(exactly: capacity), reserve <= SpringBank<Float32Lanes>.maximumSpringCount else {
            throw Refusal(._invalid_capacity)
        }
        // Made before it is registered: the reservation is not made under the registry's lock.
        let made: BankEntry.Bank = try kernel { () throws(SpringKernelError) in
            switch format {
            case ._float32: .float(try SpringBank(threading: threading, capacity: reserve))
            case ._q16: .fixed(try SpringBank(threading: threading, capacity: reserve))
            }
        }
        bank.pointee = try BankRegistry.shared.register { number, generationOffset, versionBase in
            BankEntry(bank: made, number: number, generationOffset: generationOffset, versionBase: versionBase)
        }
    }
}

/// The threading a C thread count asks for.
private func threading(_ threads: Int32) -> StepThreading? {
    switch threads {
    case 0: .automatic
    case 1: .single
    case 2...: .fixed(Int(threads))
    default: nil
    }
}

/// Destroys a bank: its id and every handle it issued become invalid. A handle carries the bank's
/// registry slot and a 17-bit generation tag, and the slot's later banks start past every tag
/// this one issued, so they refuse its handles (see `sk_bank_create`). Returns `sk_status_busy`,
/// and destroys nothing, while another thread's call runs on the bank; until it returns, calls on
/// the bank's id are refused with `sk_status_busy`.
///
/// - Complexity: O(springs + masks) (the tags the bank issued are read, and its memory given back),
///   outside the registry's lock: calls on other banks, on other threads, do not wait for it.
@c(sk_bank_destroy)
public func sk_bank_destroy(_ bank: UInt64) -> sk_status {
    status { () throws(Refusal) in try BankRegistry.shared.unregister(bank) }
}

/// Sets how many threads a step uses (as `sk_bank_create`'s `threads`).
@c(sk_bank_set_threading)
public func sk_bank_set_threading(_ bank: UInt64, _ threads: Int32) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard let threading = threading(threads) else { throw Refusal(._invalid_argument) }
        switch entry.bank {
        case .float(let bank): try kernel { () throws(SpringKernelError) in try bank.setThreading(threading) }
        case .fixed(let bank): try kernel { () throws(SpringKernelError) in try bank.setThreading(threading) }
        }
    }
}

/// Declares a fixed timestep: every step must then last exactly `frame_duration` seconds, and a
/// spring rests on its sampled rest frame. 0 returns to the default variable clock (any dt, rest
/// on the first frame ending after the exact motion has left its band for good).
///
/// Returns `sk_status_invalid_time_step` for a NaN, infinite or negative duration.
///
/// - Complexity: O(springs) when the clock changes, as `SpringBank.setFrameClock`.
@c(sk_bank_set_fixed_timestep)
public func sk_bank_set_fixed_timestep(_ bank: UInt64, _ frame_duration: Double) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let clock: FrameClock = frame_duration == 0 ? .variable : .fixed(frameDuration: frame_duration)
        switch entry.bank {
        case .float(let bank): try kernel { () throws(SpringKernelError) in try bank.setFrameClock(clock) }
        case .fixed(let bank): try kernel { () throws(SpringKernelError) in try bank.setFrameClock(clock) }
        }
    }
}

/// Advances every moving spring by `dt` seconds (any finite dt > 0, new every frame if need be, a
/// multi-second hitch included: one exact step) and settles the springs due in this frame.
///
/// Returns `sk_status_invalid_time_step` or `sk_status_time_step_mismatch`; nothing is stepped then.
///
/// - Complexity: as `SpringBank.step(dt:path:)`: O(moving springs), plus the configuration
///   batches when the frame's work is laid out again (after a change, or a new dt), the springs
///   changed since the last step and those due this frame (each a pop of the rest schedule, a
///   heap: O(log of the springs queued)); springs at rest or paused cost nothing.
@c(sk_bank_step)
public func sk_bank_step(_ bank: UInt64, _ dt: Double) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        // Each case is its own specialisation of the kernel's inlined step.
        switch entry.bank {
        case .float(let bank): try kernel { () throws(SpringKernelError) in try bank.step(dt: dt) }
        case .fixed(let bank): try kernel { () throws(SpringKernelError) in try bank.step(dt: dt) }
        }
    }
}

/// Writes the springs that came to rest in the last step (each listed once, in the step it rests
/// in; snapped exactly onto its target with zero velocity) to `springs`, and their number to
/// `*count`.
///
/// With `capacity` below that number, nothing is written to `springs` and the call returns
/// `sk_status_short_buffer` with `*count` set: call with `capacity` 0 (and `springs` NULL) to ask.
///
/// - Complexity: O(springs listed).
@c(sk_bank_rested)
public func sk_bank_rested(_ bank: UInt64, _ springs: UnsafeMutablePointer<UInt64>?, _ capacity: UInt, _ count: UnsafeMutablePointer<UInt>?) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let list: [SpringHandle] =
            switch entry.bank {
            case .float(let bank): bank.restedInLastStep
            case .fixed(let bank): bank.restedInLastStep
            }
        try write(list, of: entry, to: springs, capacity: capacity, count: count)
    }
}

/// Writes the springs a step saturated in the last step (Q16.16 only: a lane clamped to its bound,
/// after ~10^9 steps of an undamped spring's rounding drift; the bound is checked every 16th
/// frame, from the first) like `sk_bank_rested`.
///
/// - Complexity: O(springs listed).
@c(sk_bank_saturated)
public func sk_bank_saturated(_ bank: UInt64, _ springs: UnsafeMutablePointer<UInt64>?, _ capacity: UInt, _ count: UnsafeMutablePointer<UInt>?) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let list: [SpringHandle] =
            switch entry.bank {
            case .float(let bank): bank.saturatedInLastStep
            case .fixed(let bank): bank.saturatedInLastStep
            }
        try write(list, of: entry, to: springs, capacity: capacity, count: count)
    }
}

/// Writes a list of handles to a caller's buffer, or refuses with the length it needs.
private func write(
    _ list: [SpringHandle], of entry: BankEntry, to springs: UnsafeMutablePointer<UInt64>?, capacity: UInt,
    count: UnsafeMutablePointer<UInt>?
) throws(Refusal) {
    guard let count else { throw Refusal(._null_pointer) }
    count.pointee = UInt(list.count)
    guard list.count <= capacity else { throw Refusal(._short_buffer) }
    let out = try output(springs, list.count)
    for (i, spring) in list.enumerated() { out[i] = entry.pack(spring) }
}

/// Writes the bank's spring count, awake count (moving, or paused in mid-motion) and frames
/// stepped; any of the pointers may be NULL.
///
/// - Complexity: O(configuration batches) (the awake count is a sum over them).
@c(sk_bank_counts)
public func sk_bank_counts(
    _ bank: UInt64, _ springs: UnsafeMutablePointer<UInt>?, _ awake: UnsafeMutablePointer<UInt>?, _ frames: UnsafeMutablePointer<UInt64>?
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let counts: (springs: Int, awake: Int, frames: Int) =
            switch entry.bank {
            case .float(let bank): (bank.count, bank.awakeCount, bank.frame)
            case .fixed(let bank): (bank.count, bank.awakeCount, bank.frame)
            }
        springs?.pointee = UInt(counts.springs)
        awake?.pointee = UInt(counts.awake)
        frames?.pointee = UInt64(counts.frames)
    }
}

/// Writes a 64-bit hash of the bank's whole state (frame count, every spring's handle, lanes,
/// tolerance, configuration, rest and pause depth): the Swift API's `stateHash()`, so equal states
/// give equal hashes, across languages and (Q16.16) machines, and equal hashes mean equal states
/// with overwhelming probability (a 64-bit hash can collide).
///
/// - Complexity: O(spring records: the springs in the bank and the records removed springs freed).
@c(sk_bank_state_hash)
public func sk_bank_state_hash(_ bank: UInt64, _ hash: UnsafeMutablePointer<UInt64>?) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard let hash else { throw Refusal(._null_pointer) }
        switch entry.bank {
        case .float(let bank): hash.pointee = bank.stateHash()
        case .fixed(let bank): hash.pointee = bank.stateHash()
        }
    }
}
