@_spi(KernelInternals) import SpringKernel

// Reads and writes in the bank's own order: the fast path for bulk data. `sk_bank_layout` says
// how many springs a region holds and the layout's version; the `sk_layout_` calls then stream that
// many values, velocities, targets or user values (the engine's ids) between the bank's lanes and
// the engine's arrays, element i of each being the same spring, at memory speed. The per-handle
// calls (`sk_bank_read_f32` ...) look each spring up instead (about 13 ns a spring at 1M).

/// Which springs a storage-order call covers, for `sk_bank_layout` and the `sk_layout_` calls.
@c
public enum sk_region: Int32 {
    /// Every spring in the bank.
    case _all = 0
    /// The springs the next step advances (not at rest, not paused): after a step, every spring
    /// it moved that is still moving (those it brought to rest are in `sk_bank_rested`).
    case _moving = 1
}

/// Writes how many springs `region` (an `sk_region`) holds to `*count`, and the bank's layout
/// version to `*version`: the order the `sk_layout_` calls read and write in, until a spring
/// changes slot or region (it rests or starts to move in a step or a retarget, is paused, resumed,
/// added, removed or configured), which moves the version on. A version is the bank's own: another
/// bank's (a destroyed one's included) is refused as `sk_status_stale_layout` within 2^32 banks
/// made. Either pointer may be NULL.
///
/// - Complexity: O(configuration batches).
@c(sk_bank_layout)
public func sk_bank_layout(_ bank: UInt64, _ region: Int32, _ count: UnsafeMutablePointer<UInt>?, _ version: UnsafeMutablePointer<UInt64>?) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let region = try storageRegion(region)
        let layout =
            switch entry.bank {
            case .float(let bank): bank.storageLayout(of: region)
            case .fixed(let bank): bank.storageLayout(of: region)
            }
        count?.pointee = UInt(layout.count)
        version?.pointee = layout.version &+ entry.versionBase
    }
}

/// Reads a quantity (an `sk_quantity`) of the `count` springs of `region` at layout `version`
/// (as `sk_bank_layout` gave them) into `out[0..<count]`, in the bank's order, from a float32 bank.
///
/// Returns `sk_status_stale_layout` if springs moved since, `sk_status_short_buffer` for a `count`
/// below the layout's, `sk_status_count_mismatch` above it; nothing is written then.
///
/// - Complexity: O(count).
@c(sk_layout_read_f32)
public func sk_layout_read_f32(
    _ bank: UInt64, _ quantity: Int32, _ region: Int32, _ version: UInt64, _ out: UnsafeMutablePointer<Float>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        try read(quantity, of: try layout(of: bank, region, version, in: entry), in: bank, into: try output(out, try checkedCount(count, refusing: ._count_mismatch)))
    }
}

/// `sk_layout_read_f32` for a Q16.16 bank (raw `int32_t` out).
///
/// - Complexity: O(count).
@c(sk_layout_read_q16)
public func sk_layout_read_q16(
    _ bank: UInt64, _ quantity: Int32, _ region: Int32, _ version: UInt64, _ out: UnsafeMutablePointer<Int32>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let layout = try layout(of: bank, region, version, in: entry)
        try output(out, try checkedCount(count, refusing: ._count_mismatch)).withMemoryRebound(to: Q16.self) { out throws(Refusal) in
            try read(quantity, of: layout, in: bank, into: out)
        }
    }
}

private func read<Lanes>(
    _ quantity: Int32, of layout: StorageLayout, in bank: SpringBank<Lanes>, into out: UnsafeMutableBufferPointer<Lanes.Value>
) throws(Refusal) {
    guard let quantity = sk_quantity(rawValue: quantity) else { throw Refusal(._invalid_argument) }
    try layoutCall(layout, count: out.count) { () throws(SpringKernelError) in
        switch quantity {
        case ._value: try bank.values(in: layout, into: out)
        case ._velocity: try bank.velocities(in: layout, into: out)
        case ._target: try bank.targets(in: layout, into: out)
        }
    }
}

/// Writes the user value (the engine's own id, 0 unless set) of each of the `count` springs of
/// `region` at layout `version` to `out[0..<count]`: which spring each element of the other
/// `sk_layout_` reads is. Refuses as `sk_layout_read_f32`.
///
/// - Complexity: O(count).
@c(sk_layout_read_user_values)
public func sk_layout_read_user_values(
    _ bank: UInt64, _ region: Int32, _ version: UInt64, _ out: UnsafeMutablePointer<UInt64>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let values = try output(out, try checkedCount(count, refusing: ._count_mismatch))
        switch entry.bank {
        case .float(let bank):
            let layout = try layout(of: bank, region, version, in: entry)
            try layoutCall(layout, count: values.count) { () throws(SpringKernelError) in try bank.userValues(in: layout, into: values) }
        case .fixed(let bank):
            let layout = try layout(of: bank, region, version, in: entry)
            try layoutCall(layout, count: values.count) { () throws(SpringKernelError) in try bank.userValues(in: layout, into: values) }
        }
    }
}

/// Writes the handle of each of the `count` springs of `region` at layout `version` to
/// `out[0..<count]`, streamed like the user values: each batch keeps its slots' record indices and
/// generations beside its lanes, so no spring's record is visited. Refuses as `sk_layout_read_f32`.
///
/// - Complexity: O(count).
@c(sk_layout_read_springs)
public func sk_layout_read_springs(
    _ bank: UInt64, _ region: Int32, _ version: UInt64, _ out: UnsafeMutablePointer<UInt64>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let packed = try output(out, try checkedCount(count, refusing: ._count_mismatch))
        switch entry.bank {
        case .float(let bank): try readSprings(of: try layout(of: bank, region, version, in: entry), in: bank, of: entry, into: packed)
        case .fixed(let bank): try readSprings(of: try layout(of: bank, region, version, in: entry), in: bank, of: entry, into: packed)
        }
    }
}

private func readSprings<Lanes>(
    of layout: StorageLayout, in bank: SpringBank<Lanes>, of entry: BankEntry, into packed: UnsafeMutableBufferPointer<UInt64>
) throws(Refusal) {
    try layoutCall(layout, count: packed.count) { () throws(SpringKernelError) in
        // Packed as they stream out of the bank's slots: no array of SpringHandle in between.
        try bank.packedSprings(
            in: layout, into: packed, high: entry.number << PackedHandle.bankShift,
            generationMask: PackedHandle.generationMask, indexBits: Int(PackedHandle.indexBits))
    }
    // The stream packs the kernel's generations (the kind bit 0: springs); a reused registry
    // slot's handles carry them moved on by its offset (`BankEntry.pack`), so they are moved on
    // here, once the slot was reused.
    guard entry.generationOffset != 0 else { return }
    for i in packed.indices {
        let (bank, _, generation, index) = PackedHandle.split(packed[i])
        packed[i] = PackedHandle.pack(index: index, tag: generation &+ entry.generationOffset, kind: .spring, bank: bank)
    }
}

/// Sets the user value of each of the `count` springs of `region` at layout `version` to
/// `values[i]`. Refuses as `sk_layout_retarget_f32`.
///
/// - Complexity: O(count).
@c(sk_layout_set_user_values)
public func sk_layout_set_user_values(
    _ bank: UInt64, _ region: Int32, _ version: UInt64, _ values: UnsafePointer<UInt64>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let values = try input(values, try checkedCount(count, refusing: ._count_mismatch))
        switch entry.bank {
        case .float(let bank):
            let layout = try layout(of: bank, region, version, in: entry)
            try kernel { () throws(SpringKernelError) in try bank.setUserValues(in: layout, from: values) }
        case .fixed(let bank):
            let layout = try layout(of: bank, region, version, in: entry)
            try kernel { () throws(SpringKernelError) in try bank.setUserValues(in: layout, from: values) }
        }
    }
}

/// Pulls each of the `count` springs of `region` at layout `version` toward `targets[i]`, in the
/// bank's order, keeping its velocity and value; a spring whose target is already `targets[i]` is
/// left as it is, so writing every target each frame costs a stream of the two arrays plus the
/// springs whose targets moved. A spring at rest given a new target starts to move, which moves
/// the layout version on.
///
/// Returns `sk_status_stale_layout` if springs moved since `sk_bank_layout`,
/// `sk_status_count_mismatch` for a `count` other than the layout's, or what `sk_bank_retarget_f32`
/// returns for the first target refused (NaN: `sk_status_non_finite_target`); nothing is changed then.
///
/// - Complexity: O(count).
@c(sk_layout_retarget_f32)
public func sk_layout_retarget_f32(
    _ bank: UInt64, _ region: Int32, _ version: UInt64, _ targets: UnsafePointer<Float>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let layout = try layout(of: bank, region, version, in: entry)
        let targets = try input(targets, try checkedCount(count, refusing: ._count_mismatch))
        try kernel { () throws(SpringKernelError) in try bank.retarget(in: layout, to: targets) }
    }
}

/// `sk_layout_retarget_f32` for a Q16.16 bank (raw `int32_t` targets).
///
/// - Complexity: O(count).
@c(sk_layout_retarget_q16)
public func sk_layout_retarget_q16(
    _ bank: UInt64, _ region: Int32, _ version: UInt64, _ targets: UnsafePointer<Int32>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let layout = try layout(of: bank, region, version, in: entry)
        try withQ16(try input(targets, try checkedCount(count, refusing: ._count_mismatch))) { targets throws(Refusal) in
            try kernel { () throws(SpringKernelError) in try bank.retarget(in: layout, to: targets) }
        }
    }
}

/// `sk_layout_retarget_f32` then `sk_bank_step` in one call: each of the `count` springs of
/// `region` at layout `version` pulled toward `targets[i]`, in the bank's order, and every moving
/// spring advanced by `dt`, with the same lanes, rests and events to the bit. A float32 bank whose
/// springs given new targets are all moving takes one pass over the lanes where the two calls make
/// two (a drag, an attachment, a camera follow: every target moved every frame); otherwise (a
/// spring at rest or paused given a new target, a target refused) the call is the two calls.
///
/// Returns `sk_status_invalid_time_step` or `sk_status_time_step_mismatch` (checked first), or
/// what `sk_layout_retarget_f32` returns; nothing is changed then.
///
/// - Complexity: O(count), as the two calls, less a pass over the moving springs' lanes.
@c(sk_layout_retarget_step_f32)
public func sk_layout_retarget_step_f32(
    _ bank: UInt64, _ region: Int32, _ version: UInt64, _ targets: UnsafePointer<Float>?, _ count: UInt, _ dt: Double
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let layout = try layout(of: bank, region, version, in: entry)
        let targets = try input(targets, try checkedCount(count, refusing: ._count_mismatch))
        try kernel { () throws(SpringKernelError) in try bank.step(dt: dt, retargetingIn: layout, to: targets) }
    }
}

/// `sk_layout_retarget_step_f32` for a Q16.16 bank (raw `int32_t` targets): the two calls, whose
/// retarget checks each motion against the format's bounds.
///
/// - Complexity: O(count), as the two calls.
@c(sk_layout_retarget_step_q16)
public func sk_layout_retarget_step_q16(
    _ bank: UInt64, _ region: Int32, _ version: UInt64, _ targets: UnsafePointer<Int32>?, _ count: UInt, _ dt: Double
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let layout = try layout(of: bank, region, version, in: entry)
        try withQ16(try input(targets, try checkedCount(count, refusing: ._count_mismatch))) { targets throws(Refusal) in
            try kernel { () throws(SpringKernelError) in try bank.step(dt: dt, retargetingIn: layout, to: targets) }
        }
    }
}

/// Sets the value and velocity of each of the `count` springs of `region` at layout `version` to
/// `values[i]` and `velocities[i]` (NULL: 0), in the bank's order, keeping its target, as
/// `sk_bank_set_state_f32` does by handle. A spring at rest given another state starts to move,
/// which moves the layout version on. Refuses as `sk_layout_retarget_f32` (NaN value:
/// `sk_status_non_finite_value`); nothing is changed then.
///
/// - Complexity: O(count).
@c(sk_layout_set_state_f32)
public func sk_layout_set_state_f32(
    _ bank: UInt64, _ region: Int32, _ version: UInt64, _ values: UnsafePointer<Float>?, _ velocities: UnsafePointer<Float>?,
    _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let layout = try layout(of: bank, region, version, in: entry)
        let n = try stateCount(count, of: layout, velocities: velocities)
        let values = try input(values, n)
        try withVelocities(velocities, n) { velocities throws(Refusal) in
            try kernel { () throws(SpringKernelError) in try bank.setState(in: layout, values: values, velocities: velocities) }
        }
    }
}

/// `sk_layout_set_state_f32` for a Q16.16 bank (raw `int32_t` values and velocities).
///
/// - Complexity: O(count).
@c(sk_layout_set_state_q16)
public func sk_layout_set_state_q16(
    _ bank: UInt64, _ region: Int32, _ version: UInt64, _ values: UnsafePointer<Int32>?, _ velocities: UnsafePointer<Int32>?,
    _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let layout = try layout(of: bank, region, version, in: entry)
        let n = try stateCount(count, of: layout, velocities: velocities)
        try withQ16(try input(values, n)) { values throws(Refusal) in
            try withVelocities(velocities, n) { raw throws(Refusal) in
                try withQ16(raw) { velocities throws(Refusal) in
                    try kernel { () throws(SpringKernelError) in try bank.setState(in: layout, values: values, velocities: velocities) }
                }
            }
        }
    }
}

/// The count of a storage-order state write, refused with `sk_status_count_mismatch` unless it is
/// the layout's when the velocities are NULL (before zeros are made for it).
private func stateCount<Value>(_ count: UInt, of layout: StorageLayout, velocities: UnsafePointer<Value>?) throws(Refusal) -> Int {
    let n = try checkedCount(count, refusing: ._count_mismatch)
    guard velocities != nil || n == layout.count else { throw Refusal(._count_mismatch) }
    return n
}

/// A C region as a Swift one.
private func storageRegion(_ region: Int32) throws(Refusal) -> StorageRegion {
    guard let region = StorageRegion(rawValue: region) else { throw Refusal(._invalid_argument) }
    return region
}

/// The bank's layout of `region`, refused unless it is still at `version` (as C sees it: the
/// kernel's version plus the entry's ``BankEntry/versionBase``, so another bank's is refused).
private func layout<Lanes>(of bank: SpringBank<Lanes>, _ region: Int32, _ version: UInt64, in entry: BankEntry) throws(Refusal) -> StorageLayout {
    let layout = bank.storageLayout(of: try storageRegion(region))
    guard layout.version &+ entry.versionBase == version else { throw Refusal(._stale_layout) }
    return layout
}

/// Runs a read through a layout: an output buffer shorter than the layout is a short buffer.
private func layoutCall(_ layout: StorageLayout, count: Int, _ body: () throws(SpringKernelError) -> Void) throws(Refusal) {
    guard count >= layout.count else { throw Refusal(._short_buffer) }
    try kernel(body)
}
