// The kernel's side of `.ci/wasm-drag`: an Embedded Swift program for wasm32 with SIMD128 that
// exports to JavaScript (Benchmarks/WasmDrag/wasm-drag.mjs, in Node) what a web page would call
// each frame: a bank of N float32 springs, a drag frame (every spring's target moved, then the
// step) and the plain step of as many moving springs. The JavaScript side writes the targets into
// the bank's buffer in wasm memory (outside the timed part) and times each call.
//
// The springs are spring-bench drag's (Benchmarks/SpringBench/Drag/DragCommand.swift): spring i
// has user value i and anchor ((i * 7919) % 2000) - 1000; a drag bank's springs are the default
// spring (tension 342, friction 30, mass 1), tolerance 0.5, added at rest on their anchors; a plain
// bank's are lightly damped (tension 342, friction 0.01: a decay time of 200 s), started again
// before each repeat (wd_restart), so that none comes to rest while it is timed.
//
// Exports (wasm32: pointers and counts are i32; a negative result is an error):
//   wd_create(count, plain) -> bank        wd_destroy(bank)
//   wd_targets(bank) -> Float32 address    targets the next drag frame writes (count floats)
//   wd_ids(bank) -> Uint32 address         storage order: ids[j] is the spring at the layout's j
//   wd_prepare(bank) -> 1 | 0              takes a new layout if the bank's changed (1: ids rewritten)
//   wd_drag_storage(bank)                  retarget(in: layout, to: targets) + step(dt: 1/60)
//   wd_drag_storage_step(bank)             step(dt: 1/60, retargetingIn: layout, to: targets): one call
//   wd_drag_handles(bank)                  retarget(handles, to: targets) (targets[i] for spring i) + step
//   wd_drag_c(bank)                        the C interface's sk_bank_retarget_f32 + sk_bank_step, on a
//                                          C bank of the same springs (made by wd_create(count, 2))
//   wd_restart(bank)                       the plain bank's springs started again (setState)
//   wd_step(bank)                          step(dt: 1/60) alone
//   wd_rests(bank) -> springs that came to rest in drag frames so far
//   wd_buffer(count) -> Float32 address    wd_values(bank, address): every spring's value, by spring
import SpringKernel

/// One bank the JavaScript side holds, with its buffers.
final class DragBank {
    let count: Int
    let bank: SpringBank<Float32Lanes>?
    /// The C interface's bank id (wd_create(count, 2)), else 0.
    let cBank: UInt64
    var handles: [SpringHandle] = []
    var cHandles: [UInt64] = []
    var targets: UnsafeMutableBufferPointer<Float>
    var ids: UnsafeMutableBufferPointer<UInt32>
    var userValues: UnsafeMutableBufferPointer<UInt64>
    var layout: StorageLayout?
    var restartValues: [Float] = []
    var restartVelocities: [Float] = []
    var rests = 0

    init(count: Int, bank: SpringBank<Float32Lanes>?, cBank: UInt64) {
        self.count = count
        self.bank = bank
        self.cBank = cBank
        targets = .allocate(capacity: count)
        targets.initialize(repeating: 0)
        ids = .allocate(capacity: count)
        ids.initialize(repeating: 0)
        userValues = .allocate(capacity: count)
        userValues.initialize(repeating: 0)
    }

    deinit {
        targets.deallocate()
        ids.deallocate()
        userValues.deallocate()
        if cBank != 0 { _ = sk_bank_destroy(cBank) }
    }
}

nonisolated(unsafe) var banks: [DragBank?] = []

let dt = 1.0 / 60

func anchor(_ i: Int) -> Float { Float((i &* 7919) % 2000 - 1000) }

func bank(_ index: Int32) -> DragBank? {
    guard index >= 0, Int(index) < banks.count else { return nil }
    return banks[Int(index)]
}

func address<T>(_ pointer: UnsafeMutablePointer<T>?) -> Int32 {
    Int32(truncatingIfNeeded: UInt(bitPattern: pointer))
}

/// A bank of `count` springs: `plain` 0 a drag bank, 1 a plain bank, 2 a drag bank made through
/// the C interface. Returns its number, or -1.
@_expose(wasm, "wd_create")
@c(wd_create)
public func wd_create(_ count: Int32, _ plain: Int32) -> Int32 {
    guard count > 0 else { return -1 }
    let n = Int(count)
    do throws(SpringKernelError) {
        let entry: DragBank
        if plain == 2 {
            var id: UInt64 = 0
            guard sk_bank_create(0, 1, UInt(n), &id) == ._ok else { return -2 }
            entry = DragBank(count: n, bank: nil, cBank: id)
            var values = [Float](repeating: 0, count: n)
            for i in 0..<n { values[i] = anchor(i) }
            let zeros = [Float](repeating: 0, count: n)
            entry.cHandles = [UInt64](repeating: 0, count: n)
            let status = values.withUnsafeBufferPointer { v in
                zeros.withUnsafeBufferPointer { z in
                    entry.cHandles.withUnsafeMutableBufferPointer { h in
                        sk_bank_add_f32(id, UInt(n), v.baseAddress, v.baseAddress, z.baseAddress, 342, 30, 1, 0.5, h.baseAddress)
                    }
                }
            }
            guard status == ._ok else { return -3 }
        } else {
            let springs = try SpringBank<Float32Lanes>(threading: .single, capacity: n)
            entry = DragBank(count: n, bank: springs, cBank: 0)
            let configuration = plain == 1 ? try SpringConfiguration(tension: 342, friction: 0.01) : SpringConfiguration.default
            entry.handles.reserveCapacity(n)
            for i in 0..<n {
                let value = anchor(i) + (plain == 1 ? Float(i % 200 - 100) : 0)
                entry.handles.append(try springs.add(
                    value: value, target: anchor(i), velocity: plain == 1 ? Float(i % 7 * 10) : 0,
                    configuration: configuration, tolerance: 0.5, userValue: UInt64(i)))
            }
            if plain == 1 {
                entry.restartValues = (0..<n).map { anchor($0) + Float($0 % 200 - 100) }
                entry.restartVelocities = (0..<n).map { Float($0 % 7 * 10 + 5) }
            }
        }
        for i in 0..<n { entry.targets[i] = anchor(i) }
        if let free = banks.firstIndex(where: { $0 == nil }) {
            banks[free] = entry
            return Int32(free)
        }
        banks.append(entry)
        return Int32(banks.count - 1)
    } catch {
        return -4
    }
}

@_expose(wasm, "wd_destroy")
@c(wd_destroy)
public func wd_destroy(_ index: Int32) {
    guard bank(index) != nil else { return }
    banks[Int(index)] = nil
}

@_expose(wasm, "wd_targets")
@c(wd_targets)
public func wd_targets(_ index: Int32) -> Int32 { address(bank(index)?.targets.baseAddress) }

@_expose(wasm, "wd_ids")
@c(wd_ids)
public func wd_ids(_ index: Int32) -> Int32 { address(bank(index)?.ids.baseAddress) }

/// Takes the bank's layout again if it changed since the last one (springs that rest or start to
/// move change slots) and writes its spring ids: 1 if it did, 0 if not, negative on an error.
@_expose(wasm, "wd_prepare")
@c(wd_prepare)
public func wd_prepare(_ index: Int32) -> Int32 {
    guard let entry = bank(index), let springs = entry.bank else { return -1 }
    if let layout = entry.layout, layout.version == springs.layoutVersion, layout.count == entry.count { return 0 }
    let layout = springs.storageLayout(of: .all)
    guard layout.count == entry.count else { return -2 }
    do throws(SpringKernelError) {
        try springs.userValues(in: layout, into: entry.userValues)
    } catch {
        return -3
    }
    for j in 0..<entry.count { entry.ids[j] = UInt32(truncatingIfNeeded: entry.userValues[j]) }
    entry.layout = layout
    return 1
}

/// A drag frame in storage order: every target written with `retarget(in:to:)`, then the step.
@_expose(wasm, "wd_drag_storage")
@c(wd_drag_storage)
public func wd_drag_storage(_ index: Int32) -> Int32 {
    guard let entry = bank(index), let springs = entry.bank, let layout = entry.layout else { return -1 }
    do throws(SpringKernelError) {
        try springs.retarget(in: layout, to: UnsafeBufferPointer(entry.targets))
        try springs.step(dt: dt)
        entry.rests += springs.restedInLastStep.count
    } catch {
        return -2
    }
    return 0
}

/// A drag frame in storage order in one call: every target written by the step itself
/// (`step(dt:retargetingIn:to:)`, one pass over the lanes).
@_expose(wasm, "wd_drag_storage_step")
@c(wd_drag_storage_step)
public func wd_drag_storage_step(_ index: Int32) -> Int32 {
    guard let entry = bank(index), let springs = entry.bank, let layout = entry.layout else { return -1 }
    do throws(SpringKernelError) {
        try springs.step(dt: dt, retargetingIn: layout, to: UnsafeBufferPointer(entry.targets))
        entry.rests += springs.restedInLastStep.count
    } catch {
        return -2
    }
    return 0
}

/// A drag frame by handle: every target written with one bulk `retarget(_:to:)`, then the step.
@_expose(wasm, "wd_drag_handles")
@c(wd_drag_handles)
public func wd_drag_handles(_ index: Int32) -> Int32 {
    guard let entry = bank(index), let springs = entry.bank else { return -1 }
    do throws(SpringKernelError) {
        try entry.handles.withUnsafeBufferPointer { handles throws(SpringKernelError) in
            try springs.retarget(handles, to: UnsafeBufferPointer(entry.targets))
        }
        try springs.step(dt: dt)
        entry.rests += springs.restedInLastStep.count
    } catch {
        return -2
    }
    return 0
}

/// A drag frame through the C interface: `sk_bank_retarget_f32` by handle, then `sk_bank_step`.
@_expose(wasm, "wd_drag_c")
@c(wd_drag_c)
public func wd_drag_c(_ index: Int32) -> Int32 {
    guard let entry = bank(index), entry.cBank != 0 else { return -1 }
    let status = entry.cHandles.withUnsafeBufferPointer { handles in
        sk_bank_retarget_f32(entry.cBank, handles.baseAddress, UnsafePointer(entry.targets.baseAddress), UInt(entry.count))
    }
    guard status == ._ok else { return -10 - status.rawValue }
    let stepped = sk_bank_step(entry.cBank, dt)
    return stepped == ._ok ? 0 : -100 - stepped.rawValue
}

/// The plain bank's springs started again (their values and velocities set), before a repeat.
@_expose(wasm, "wd_restart")
@c(wd_restart)
public func wd_restart(_ index: Int32) -> Int32 {
    guard let entry = bank(index), let springs = entry.bank, !entry.restartValues.isEmpty else { return -1 }
    do throws(SpringKernelError) {
        try entry.handles.withUnsafeBufferPointer { handles throws(SpringKernelError) in
            try entry.restartValues.withUnsafeBufferPointer { values throws(SpringKernelError) in
                try entry.restartVelocities.withUnsafeBufferPointer { velocities throws(SpringKernelError) in
                    try springs.setState(of: handles, values: values, velocities: velocities)
                }
            }
        }
    } catch {
        return -2
    }
    return 0
}

/// The step alone.
@_expose(wasm, "wd_step")
@c(wd_step)
public func wd_step(_ index: Int32) -> Int32 {
    guard let entry = bank(index), let springs = entry.bank else { return -1 }
    do throws(SpringKernelError) {
        try springs.step(dt: dt)
    } catch {
        return -2
    }
    return 0
}

/// Every spring's value, spring i's at `out[i]` (`out`: a Float32 address of `count` floats the
/// JavaScript side reserved with wd_buffer): the check that every contender moves the same springs.
@_expose(wasm, "wd_values")
@c(wd_values)
public func wd_values(_ index: Int32, _ out: Int32) -> Int32 {
    guard let entry = bank(index), let pointer = UnsafeMutablePointer<Float>(bitPattern: UInt(UInt32(bitPattern: out))) else { return -1 }
    let values = UnsafeMutableBufferPointer(start: pointer, count: entry.count)
    if let springs = entry.bank {
        do throws(SpringKernelError) {
            try entry.handles.withUnsafeBufferPointer { handles throws(SpringKernelError) in try springs.values(of: handles, into: values) }
        } catch {
            return -2
        }
        return 0
    }
    let status = entry.cHandles.withUnsafeBufferPointer { handles in
        sk_bank_read_f32(entry.cBank, 0, handles.baseAddress, UInt(entry.count), values.baseAddress)
    }
    return status == ._ok ? 0 : -10 - status.rawValue
}

/// `count` floats of wasm memory for the JavaScript side (wd_values' `out`), or 0.
@_expose(wasm, "wd_buffer")
@c(wd_buffer)
public func wd_buffer(_ count: Int32) -> Int32 {
    guard count > 0 else { return 0 }
    return address(UnsafeMutablePointer<Float>.allocate(capacity: Int(count)))
}

/// Springs that came to rest in the drag frames so far.
@_expose(wasm, "wd_rests")
@c(wd_rests)
public func wd_rests(_ index: Int32) -> Int32 { Int32(truncatingIfNeeded: bank(index)?.rests ?? -1) }

@main
struct WasmDrag {
    /// Nothing to run: Node calls `_start` (the C library's setup), then the exports.
    static func main() {}
}
