import SpringKernel

// Pause masks: sets of springs one source (a drag recognizer, say) pauses and resumes together.

/// Makes a pause mask listing `count` springs (none: `springs` may be NULL) and writes its handle
/// to `*mask`. A mask is made not pausing.
///
/// - Complexity: O(count × d), each spring already listed by d masks.
@c(sk_mask_create)
public func sk_mask_create(_ bank: UInt64, _ springs: UnsafePointer<UInt64>?, _ count: UInt, _ mask: UnsafeMutablePointer<UInt64>?) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard let mask else { throw Refusal(._null_pointer) }
        let n = try checkedCount(count)
        switch entry.bank {
        case .float(let bank):
            mask.pointee = entry.pack(try entry.withSprings(springs, n, in: bank) { springs throws(Refusal) in
                try kernel { () throws(SpringKernelError) in try bank.makePauseMask(springs) }
            })
        case .fixed(let bank):
            mask.pointee = entry.pack(try entry.withSprings(springs, n, in: bank) { springs throws(Refusal) in
                try kernel { () throws(SpringKernelError) in try bank.makePauseMask(springs) }
            })
        }
    }
}

/// Destroys a mask, resuming its springs (without changing their state) if it was pausing.
///
/// - Complexity: O(members of the mask).
@c(sk_mask_destroy)
public func sk_mask_destroy(_ bank: UInt64, _ mask: UInt64) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        switch entry.bank {
        case .float(let bank):
            let mask = try entry.mask(mask, in: bank)
            try kernel { () throws(SpringKernelError) in try bank.removePauseMask(mask) }
        case .fixed(let bank):
            let mask = try entry.mask(mask, in: bank)
            try kernel { () throws(SpringKernelError) in try bank.removePauseMask(mask) }
        }
    }
}

/// Adds `count` springs to a mask (springs already listed stay listed once); if the mask is
/// pausing, they are paused too. Returns `sk_status_pause_depth_exceeded` (nothing added) if a
/// spring would be held by a 256th mask.
///
/// - Complexity: O(m log m + count × d) for a mask of m members (its members are read, in handle
///   order, to skip the springs it lists already), each spring already listed by d masks.
@c(sk_mask_insert)
public func sk_mask_insert(_ bank: UInt64, _ mask: UInt64, _ springs: UnsafePointer<UInt64>?, _ count: UInt) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let n = try checkedCount(count)
        switch entry.bank {
        case .float(let bank): try insert(springs, n, into: try entry.mask(mask, in: bank), of: bank, entry)
        case .fixed(let bank): try insert(springs, n, into: try entry.mask(mask, in: bank), of: bank, entry)
        }
    }
}

private func insert<Lanes>(_ packed: UnsafePointer<UInt64>?, _ count: Int, into mask: PauseMaskID, of bank: SpringBank<Lanes>, _ entry: BankEntry) throws(Refusal) {
    try entry.withSprings(packed, count, in: bank) { springs throws(Refusal) in
        // Every spring checked before any is inserted: the springs the mask does not list yet
        // (each once), and, for a pausing mask, that none of them is held by 255 masks already.
        var members = Set(try kernel { () throws(SpringKernelError) in try bank.springs(in: mask) })
        var fresh: [SpringHandle] = []
        for spring in springs where members.insert(spring).inserted { fresh.append(spring) }
        if try kernel({ () throws(SpringKernelError) in try bank.isPausing(mask) }) {
            for spring in fresh where try kernel({ () throws(SpringKernelError) in try bank.pauseDepth(of: spring) }) >= SpringBank<Lanes>.maximumPauseDepth {
                throw Refusal(.pauseDepthExceeded(spring))
            }
        }
        for spring in fresh { try kernel { () throws(SpringKernelError) in try bank.insert(spring, into: mask) } }
    }
}

/// Takes `count` springs out of a mask (springs it does not list are skipped); a spring that no
/// other mask holds moves on from where it was paused.
///
/// - Complexity: O(m log m + count × d) for a mask of m members (its members are read, in handle
///   order, to skip the springs it does not list), each spring listed by d masks.
@c(sk_mask_remove)
public func sk_mask_remove(_ bank: UInt64, _ mask: UInt64, _ springs: UnsafePointer<UInt64>?, _ count: UInt) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        let n = try checkedCount(count)
        switch entry.bank {
        case .float(let bank): try remove(springs, n, from: try entry.mask(mask, in: bank), of: bank, entry)
        case .fixed(let bank): try remove(springs, n, from: try entry.mask(mask, in: bank), of: bank, entry)
        }
    }
}

private func remove<Lanes>(_ packed: UnsafePointer<UInt64>?, _ count: Int, from mask: PauseMaskID, of bank: SpringBank<Lanes>, _ entry: BankEntry) throws(Refusal) {
    try entry.withSprings(packed, count, in: bank) { springs throws(Refusal) in
        // Every handle is checked (withSprings) before any spring leaves; a spring the mask does
        // not list, or listed again, is skipped, so no removal below can be refused.
        var members = Set(try kernel { () throws(SpringKernelError) in try bank.springs(in: mask) })
        for spring in springs where members.remove(spring) != nil {
            try kernel { () throws(SpringKernelError) in try bank.remove(spring, from: mask) }
        }
    }
}

/// Pauses every spring of the mask: their state stays bit-identical through any number of steps.
/// Each member that was moving is swapped out of its batch's moving springs (O(members) once;
/// a paused spring costs later steps nothing). Pausing a pausing mask does nothing.
///
/// - Complexity: O(members of the mask).
@c(sk_mask_pause)
public func sk_mask_pause(_ bank: UInt64, _ mask: UInt64) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        switch entry.bank {
        case .float(let bank):
            let mask = try entry.mask(mask, in: bank)
            try kernel { () throws(SpringKernelError) in try bank.pause(mask) }
        case .fixed(let bank):
            let mask = try entry.mask(mask, in: bank)
            try kernel { () throws(SpringKernelError) in try bank.pause(mask) }
        }
    }
}

/// Lets go of the mask's hold. A spring no other mask holds moves again: from `values[i]` and
/// `velocities[i]` if it is `springs[i]` (the hand-off from a gesture: where the finger let go, at
/// its release velocity), else from where it was paused. `count` may be 0 (arrays NULL). Springs
/// listed but not freed by this resume keep their state. If a restart value is refused, nothing
/// changes and the mask still pauses. Resuming a mask that is not pausing does nothing.
///
/// - Complexity: O(members of the mask + count).
@c(sk_mask_resume_f32)
public func sk_mask_resume_f32(
    _ bank: UInt64, _ mask: UInt64, _ springs: UnsafePointer<UInt64>?, _ values: UnsafePointer<Float>?,
    _ velocities: UnsafePointer<Float>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .float(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try checkedCount(count)
        try resume(try entry.mask(mask, in: bank), of: bank, entry, springs, try input(values, n), try input(velocities, n))
    }
}

/// `sk_mask_resume_f32` for a Q16.16 bank (raw `int32_t` values and velocities).
///
/// - Complexity: O(members of the mask + count).
@c(sk_mask_resume_q16)
public func sk_mask_resume_q16(
    _ bank: UInt64, _ mask: UInt64, _ springs: UnsafePointer<UInt64>?, _ values: UnsafePointer<Int32>?,
    _ velocities: UnsafePointer<Int32>?, _ count: UInt
) -> sk_status {
    status(using: bank) { entry throws(Refusal) in
        guard case .fixed(let bank) = entry.bank else { throw Refusal(._wrong_format) }
        let n = try checkedCount(count)
        let mask = try entry.mask(mask, in: bank)
        try withQ16(try input(values, n)) { values throws(Refusal) in
            try withQ16(try input(velocities, n)) { velocities throws(Refusal) in
                try resume(mask, of: bank, entry, springs, values, velocities)
            }
        }
    }
}

private func resume<Lanes>(
    _ mask: PauseMaskID, of bank: SpringBank<Lanes>, _ entry: BankEntry, _ packed: UnsafePointer<UInt64>?,
    _ values: UnsafeBufferPointer<Lanes.Value>, _ velocities: UnsafeBufferPointer<Lanes.Value>
) throws(Refusal) {
    guard !values.isEmpty else {
        // Nothing to hand over: every freed spring carries on from where it was paused.
        return try kernel { () throws(SpringKernelError) in try bank.resume(mask) }
    }
    try entry.withSprings(packed, values.count, in: bank) { springs throws(Refusal) in
        // The kernel's buffer form: restart states found by a mark in each spring's record, no
        // table built per call and no closure call per spring.
        try kernel { () throws(SpringKernelError) in
            try bank.resume(mask, restarting: springs, values: values, velocities: velocities)
        }
    }
}
