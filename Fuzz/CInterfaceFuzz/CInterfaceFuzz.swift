import CSpringKernel

/// libFuzzer's entry point for the C interface (issue 34): a byte stream decoded into `sk_` calls,
/// through spring_kernel.h as a C client makes them (module CSpringKernel, which .ci/fuzz maps onto
/// the header; the library is SpringKernelC's Swift, built with the sanitizers), on a few banks of
/// both formats, made the way an engine's mistakes and an attacker's inputs make
/// them. Every buffer is a heap block exactly as long as the caller says it is, so that under
/// AddressSanitizer a read or write past one is a crash; counts are either backed by their buffers
/// (0 ... the buffer's length) or impossible (above 2^30, up to `UInt.max`), and handles are of
/// every kind: live springs and masks, removed ones, another bank's, a destroyed bank's, the other
/// kind's (the kind bit flipped), 0 and random bits.
///
/// Checked after each call: no crash, trap or sanitizer report; a refused call leaves the bank's
/// state hash as it was; a call with an impossible count is refused with its status
/// (`too_many_springs` for an add, `count_mismatch` in storage order, `invalid_argument` else)
/// before it reads its buffers; a removed spring's or mask's handle, a destroyed bank's, and a
/// handle of the other kind are never accepted.
@_cdecl("LLVMFuzzerTestOneInput")
public func cInterfaceFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    CInterfaceHarness(input: FuzzInput(data, size)).run()
    return 0
}

final class CInterfaceHarness {
    var input: FuzzInput
    /// Live banks: id, format, the springs and masks it holds, the handles it no longer holds.
    var banks: [(id: UInt64, format: sk_format, springs: [UInt64], masks: [UInt64], dead: [UInt64])] = []
    /// Handles of banks destroyed by this run (never to be accepted by any bank).
    var destroyed: [UInt64] = []
    /// Buffers handed to the library this call, freed after it.
    var blocks: [UnsafeMutableRawPointer] = []

    init(input: FuzzInput) { self.input = input }

    static let impossibleCounts: [UInt] = [1 << 30 + 1, 1 << 31, UInt(UInt32.max), 1 << 32, 1 << 40, 1 << 62, 1 << 63, .max]
    static let values: [Double] = [0, 1, -1, 100, -250, 1e4, 1e15, 2e15, .nan, .infinity, -.infinity, 0.5, 1e-30]

    func run() {
        for format in [sk_format_float32, sk_format_q16] { makeBank(format) }
        var calls = 0
        while !input.isExhausted, calls < 120 {
            calls += 1
            perform()
            for block in blocks { block.deallocate() }
            blocks.removeAll()
        }
        for bank in banks { expect(sk_bank_destroy(bank.id) == sk_status_ok, "destroy at the end") }
    }

    // MARK: Inputs

    func name(_ status: sk_status) -> String { String(cString: sk_status_name(status)) }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { violated(message()) }
    }

    func hash(_ bank: UInt64) -> UInt64 {
        var hash: UInt64 = 0
        _ = sk_bank_state_hash(bank, &hash)
        return hash
    }

    /// A heap block of exactly `count` elements (nil for 0 sometimes): ASan's red zone follows it.
    func block<Element>(_ count: Int, _ element: (Int) -> Element) -> UnsafeMutablePointer<Element>? {
        if count == 0, input.bool() { return nil }
        let pointer = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(count, 1))
        for i in 0..<count { pointer.advanced(by: i).initialize(to: element(i)) }
        blocks.append(UnsafeMutableRawPointer(pointer))
        return pointer
    }

    /// A read-only block (see ``block(_:_:)``).
    func constant<Element>(_ count: Int, _ element: (Int) -> Element) -> UnsafePointer<Element>? {
        block(count, element).map { UnsafePointer($0) }
    }

    /// A buffer's length (0...8) and the count the call is given: the length, less, or impossible.
    func counts() -> (length: Int, count: UInt, impossible: Bool) {
        let length = Int(input.byte() % 9)
        switch input.byte() % 8 {
        case 0: return (length, Self.impossibleCounts[input.index(Self.impossibleCounts.count)], true)
        case 1: return (length, (UInt(1 << 30) + 1 + UInt(input.uint32())) | UInt(input.byte()) << 56, true)
        case 2: return (length, UInt(input.index(length + 1)), false)
        default: return (length, UInt(length), false)
        }
    }

    func float() -> Float { Float(input.double(Self.values)) }
    func raw() -> Int32 { Int32(bitPattern: input.byte() & 3 == 0 ? input.uint32() : UInt32(bitPattern: Int32(Int8(bitPattern: input.byte())) << 16)) }

    /// A handle of any kind, for bank `b`.
    func handle(for b: Int) -> UInt64 {
        let bank = banks[b]
        switch input.byte() % 10 {
        case 0, 1, 2: return bank.springs.isEmpty ? 0 : bank.springs[input.index(bank.springs.count)]
        case 3: return bank.masks.isEmpty ? 0 : bank.masks[input.index(bank.masks.count)]
        case 4: return bank.dead.isEmpty ? 0 : bank.dead[input.index(bank.dead.count)]
        case 5:
            let other = banks[input.index(banks.count)]
            return other.springs.isEmpty ? 0 : other.springs[input.index(other.springs.count)]
        case 6: return destroyed.isEmpty ? 0 : destroyed[input.index(destroyed.count)]
        case 7: return bank.springs.isEmpty ? 0 : bank.springs[input.index(bank.springs.count)] ^ 1 << 47  // the other kind
        case 8: return input.uint64()
        default: return 0
        }
    }

    /// Whether the handle is one this bank must accept as a spring (live spring of its own).
    func isLiveSpring(_ handle: UInt64, of b: Int) -> Bool { banks[b].springs.contains(handle) }
    func isLiveMask(_ handle: UInt64, of b: Int) -> Bool { banks[b].masks.contains(handle) }

    // MARK: Calls

    func makeBank(_ format: sk_format) {
        guard banks.count < 4 else { return }
        var id: UInt64 = 0
        expect(sk_bank_create(format, 1, Int(input.byte()), &id) == sk_status_ok, "create")
        banks.append((id, format, [], [], []))
    }

    func perform() {
        let b = input.index(banks.count)
        let bank = banks[b].id, format = banks[b].format
        let before = hash(bank)
        let (length, count, impossible) = counts()
        let size = Int(bitPattern: count)  // size_t, as C passes it
        let handles = block(length) { _ in self.handle(for: b) }
        let n = Int(Swift.min(count, UInt(length)))
        let listed = (0..<n).map { handles![$0] }
        // Accepted only if every listed handle is a live spring of this bank.
        let allLive = listed.allSatisfy { isLiveSpring($0, of: b) }
        var status = sk_status_ok
        var expected: String? = impossible ? "invalid_argument" : nil
        let operation = input.byte() % 16
        switch operation {
        case 0:  // add
            let values = block(length) { _ in self.float() }, targets = block(length) { _ in self.float() }
            let rawValues = block(length) { _ in self.raw() }, rawTargets = block(length) { _ in self.raw() }
            let out = block(length) { _ in UInt64(0) }
            status =
                format == sk_format_float32
                ? sk_bank_add_f32(bank, size, values, targets, input.bool() ? values : nil, 342, 30, 1, 0.5, out)
                : sk_bank_add_q16(bank, size, rawValues, rawTargets, input.bool() ? rawValues : nil, 342, 30, 1, 1 << 15, out)
            if impossible { expected = "too_many_springs" }
            if status == sk_status_ok, let out {
                let added = (0..<n).map { out[$0] }
                for spring in added {
                    expect(!banks[b].dead.contains(spring) && !destroyed.contains(spring), "a removed or destroyed handle \(String(spring, radix: 16)) was issued again")
                }
                banks[b].springs += added
            }
        case 1:  // remove
            status = sk_bank_remove(bank, handles, size)
            if status == sk_status_ok {
                banks[b].springs.removeAll { listed.contains($0) }
                banks[b].dead += listed
            }
        case 2:  // retarget
            status =
                format == sk_format_float32
                ? sk_bank_retarget_f32(bank, handles, block(length) { _ in self.float() }, size)
                : sk_bank_retarget_q16(bank, handles, block(length) { _ in self.raw() }, size)
        case 3:  // impulse
            status =
                format == sk_format_float32
                ? sk_bank_impulse_f32(bank, handles, block(length) { _ in self.float() }, size)
                : sk_bank_impulse_q16(bank, handles, block(length) { _ in self.raw() }, size)
        case 4:  // set state, velocities NULL or not
            let withVelocities = input.bool()
            status =
                format == sk_format_float32
                ? sk_bank_set_state_f32(bank, handles, block(length) { _ in self.float() }, withVelocities ? constant(length) { _ in self.float() } : nil, size)
                : sk_bank_set_state_q16(bank, handles, block(length) { _ in self.raw() }, withVelocities ? constant(length) { _ in self.raw() } : nil, size)
        case 5:  // configure, tolerance
            status =
                input.bool()
                ? sk_bank_configure(bank, handles, size, input.double([342, 1, 1e6, 0, -1, .nan]), 30, 1)
                : format == sk_format_float32 ? sk_bank_set_tolerance_f32(bank, handles, size, float()) : sk_bank_set_tolerance_q16(bank, handles, size, raw())
        case 6:  // reads
            let out = block(length) { _ in UInt64(0) }
            switch input.byte() % 4 {
            case 0: status = sk_bank_read_user_values(bank, handles, size, out)
            case 1: status = sk_bank_set_user_values(bank, handles, out, size)
            case 2: status = sk_bank_rest_time(bank, handles, size, block(length) { _ in 0.0 })
            default:
                status =
                    format == sk_format_float32
                    ? sk_bank_read_f32(bank, Int32(input.byte() % 4), handles, size, block(length) { _ in Float(0) })
                    : sk_bank_read_q16(bank, Int32(input.byte() % 4), handles, size, block(length) { _ in Int32(0) })
            }
        case 7:  // mask create
            var mask: UInt64 = 0
            status = sk_mask_create(bank, handles, size, &mask)
            if status == sk_status_ok { banks[b].masks.append(mask) }
        case 8, 9:  // mask calls with a handle of any kind
            let mask = input.bool() ? handle(for: b) : (banks[b].masks.isEmpty ? 0 : banks[b].masks[input.index(banks[b].masks.count)])
            let isMask = isLiveMask(mask, of: b)
            switch input.byte() % 5 {
            case 0:
                status = sk_mask_pause(bank, mask)
                expected = nil
            case 1:
                expected = nil
                status = sk_mask_destroy(bank, mask)
                if status == sk_status_ok {
                    banks[b].masks.removeAll { $0 == mask }
                    banks[b].dead.append(mask)
                }
            case 2: status = sk_mask_insert(bank, mask, handles, size)
            case 3: status = sk_mask_remove(bank, mask, handles, size)
            default:
                status =
                    format == sk_format_float32
                    ? sk_mask_resume_f32(bank, mask, handles, block(length) { _ in self.float() }, block(length) { _ in self.float() }, size)
                    : sk_mask_resume_q16(bank, mask, handles, block(length) { _ in self.raw() }, block(length) { _ in self.raw() }, size)
            }
            expect(isMask || status != sk_status_ok, "a mask call accepted \(String(mask, radix: 16)), not a live mask of the bank")
        case 10:  // storage order
            var layoutCount = 0, version: UInt64 = 0
            _ = sk_bank_layout(bank, 0, &layoutCount, &version)
            if input.bool() { version = input.uint64() }
            if impossible { expected = "count_mismatch" }
            switch input.byte() % 4 {
            case 0:
                status =
                    format == sk_format_float32
                    ? sk_layout_set_state_f32(bank, 0, version, block(length) { _ in self.float() }, input.bool() ? nil : constant(length) { _ in self.float() }, size)
                    : sk_layout_set_state_q16(bank, 0, version, block(length) { _ in self.raw() }, input.bool() ? nil : constant(length) { _ in self.raw() }, size)
            case 1:
                status =
                    format == sk_format_float32
                    ? sk_layout_retarget_f32(bank, 0, version, block(length) { _ in self.float() }, size)
                    : sk_layout_retarget_q16(bank, 0, version, block(length) { _ in self.raw() }, size)
            case 2: status = sk_layout_read_springs(bank, 0, version, block(length) { _ in UInt64(0) }, size)
            default: status = sk_layout_set_user_values(bank, 0, version, block(length) { _ in UInt64(0) }, size)
            }
            // A stale version is refused before the count is looked at.
            if impossible, status == sk_status_stale_layout { expected = nil }
        case 11:  // steps
            // Each step checked on its own (a refused one changes nothing).
            for _ in 0..<Int(input.byte() % 8) {
                let stepped = hash(bank)
                let step = sk_bank_step(bank, input.double([1.0 / 60, 1.0 / 30, 0, -1, .nan, 2]))
                expect(step == sk_status_ok || hash(bank) == stepped, "a refused step (\(name(step))) changed the bank")
            }
            if input.bool() {
                let clocked = hash(bank)
                let clock = sk_bank_set_fixed_timestep(bank, input.double([0, 1.0 / 60, -1, .nan]))
                expect(clock == sk_status_ok || hash(bank) == clocked, "a refused clock (\(name(clock))) changed the bank")
            }
            return
        case 12:  // another bank made, or one destroyed (its handles kept)
            if input.bool() || banks.count < 2 {
                makeBank(input.bool() ? sk_format_float32 : sk_format_q16)
            } else {
                let gone = banks.remove(at: b)
                expect(sk_bank_destroy(gone.id) == sk_status_ok, "destroy")
                destroyed += gone.springs + gone.masks + gone.dead
                expect(sk_bank_step(gone.id, 1.0 / 60) == sk_status_invalid_bank, "a destroyed bank's id was accepted")
                return
            }
            return
        default:  // one spring added and removed many times: its record reused
            var spring: UInt64 = 0
            for _ in 0..<Int(input.byte()) {
                guard sk_bank_add_f32(bank, 1, [1], [2], nil, 342, 30, 1, 0.5, &spring) == sk_status_ok
                    || sk_bank_add_q16(bank, 1, [1 << 16], [2 << 16], nil, 342, 30, 1, 1 << 15, &spring) == sk_status_ok
                else { break }
                expect(!banks[b].dead.contains(spring) && !destroyed.contains(spring), "a removed or destroyed handle \(String(spring, radix: 16)) was issued again")
                expect(sk_bank_remove(bank, [spring], 1) == sk_status_ok, "remove the spring just added")
                if banks[b].dead.count < 64 { banks[b].dead.append(spring) }
            }
            return
        }
        if let expected { expect(name(status) == expected, "call \(operation) with count \(count): \(name(status)), expected \(expected)") }
        if status != sk_status_ok {
            expect(hash(bank) == before, "call \(operation) refused with \(name(status)) but changed the bank")
        } else if operation >= 1, operation <= 5, n > 0 {
            expect(allLive, "call \(operation) accepted handles \(listed.map { String($0, radix: 16) }) not all live springs of the bank")
        }
    }
}
