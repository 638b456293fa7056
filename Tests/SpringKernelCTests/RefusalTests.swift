import SpringKernelC
import Testing

/// Every C call that takes a batch, with a refusal placed at each position: the call changes
/// nothing. Two banks are made by the same calls; one is given the refused call, and must then be
/// the other's twin: the same state hash and layout versions, and the same next handle (a spring
/// added to both, then a few frames stepped, gives the same hash).
@Suite("C calls are all-or-nothing")
struct RefusalTests {
    /// Springs in each twin: 4 live (values 1...4 about target 0, two moving), a mask pausing the
    /// first, and the handle of a removed fifth (stale).
    struct Twin {
        let format: sk_format
        var banks: [UInt64] = []
        var springs: [[UInt64]] = []
        var stale: [UInt64] = []
        var masks: [UInt64] = []

        init(_ format: sk_format, prepare: (UInt64, [UInt64]) -> Void = { _, _ in }) {
            self.format = format
            for _ in 0..<2 {
                var bank: UInt64 = 0
                #expect(sk_bank_create(format.rawValue, 1, 0, &bank) == ._ok)
                var handles = [UInt64](repeating: 0, count: 5)
                switch format {
                case ._float32:
                    #expect(sk_bank_add_f32(bank, 5, [1, 2, 3, 4, 5], [0, 0, 0, 0, 0], [0, 3, 0, -2, 0], 342, 30, 1, 0.5, &handles) == ._ok)
                case ._q16:
                    #expect(sk_bank_add_q16(bank, 5, [Int32(1) << 16, 2 << 16, 3 << 16, 4 << 16, 5 << 16], [0, 0, 0, 0, 0], [0, 3 << 16, 0, -2 << 16, 0], 342, 30, 1, 32768, &handles) == ._ok)
                }
                #expect(sk_bank_remove(bank, [handles[4]], 1) == ._ok)
                var mask: UInt64 = 0
                #expect(sk_mask_create(bank, [handles[0]], 1, &mask) == ._ok)
                #expect(sk_mask_pause(bank, mask) == ._ok)
                #expect(sk_bank_step(bank, 1.0 / 60) == ._ok)
                prepare(bank, Array(handles[0..<4]))
                banks.append(bank)
                springs.append(Array(handles[0..<4]))
                stale.append(handles[4])
                masks.append(mask)
            }
        }

        func hash(_ i: Int) -> UInt64 {
            var hash: UInt64 = 0
            #expect(sk_bank_state_hash(banks[i], &hash) == ._ok)
            return hash
        }

        func versions(_ i: Int) -> [UInt64] {
            var all: UInt64 = 0, moving: UInt64 = 0
            #expect(sk_bank_layout(banks[i], sk_region._all.rawValue, nil, &all) == ._ok)
            #expect(sk_bank_layout(banks[i], sk_region._moving.rawValue, nil, &moving) == ._ok)
            return [all, moving]
        }

        /// `call` (on the probe, bank 1) must be refused and change nothing.
        func expectRefused(
            _ name: String, sourceLocation: SourceLocation = #_sourceLocation, _ call: (_ bank: UInt64, _ springs: [UInt64], _ stale: UInt64, _ mask: UInt64) -> sk_status
        ) {
            let versions = versions(1)
            let status = call(banks[1], springs[1], stale[1], masks[1])
            #expect(status != ._ok, "\(format) \(name): accepted", sourceLocation: sourceLocation)
            #expect(self.versions(1) == versions, "\(format) \(name): layout version moved", sourceLocation: sourceLocation)
            #expect(hash(1) == hash(0), "\(format) \(name): state changed", sourceLocation: sourceLocation)
            // The next handle: the same spring added to both, then frames stepped.
            for i in 0..<2 {
                var handle: UInt64 = 0
                switch format {
                case ._float32: #expect(sk_bank_add_f32(banks[i], 1, [7], [0], nil, 342, 30, 1, 0.5, &handle) == ._ok)
                case ._q16: #expect(sk_bank_add_q16(banks[i], 1, [7 << 16], [0], nil, 342, 30, 1, 32768, &handle) == ._ok)
                }
                for _ in 0..<5 { #expect(sk_bank_step(banks[i], 1.0 / 60) == ._ok) }
            }
            #expect(hash(1) == hash(0), "\(format) \(name): the next handle or the schedule moved", sourceLocation: sourceLocation)
            for bank in banks { #expect(sk_bank_destroy(bank) == ._ok) }
        }
    }

    /// The three springs a call lists, the one at `position` replaced by the stale handle.
    static func listed(_ springs: [UInt64], stale: UInt64, at position: Int) -> [UInt64] {
        var list = Array(springs[1..<4])
        list[position] = stale
        return list
    }

    typealias Call = (_ bank: UInt64, _ springs: [UInt64], _ stale: UInt64, _ mask: UInt64) -> sk_status

    static func with<T>(_ values: [T], _ bad: T, at position: Int) -> [T] {
        var values = values
        values[position] = bad
        return values
    }

    @Test("a stale handle at any position of any handle list refuses the call, changing nothing")
    func staleHandles() {
        for format in [sk_format._float32, ._q16] {
            for p in 0..<3 {
                let nine: Int32 = 9 << 16
                var calls: [(String, Call)] = []
                calls.append(("sk_bank_remove", { b, s, stale, m in sk_bank_remove(b, Self.listed(s, stale: stale, at: p), 3) }))
                calls.append(("sk_bank_configure", { b, s, stale, m in sk_bank_configure(b, Self.listed(s, stale: stale, at: p), 3, 100, 5, 1) }))
                calls.append(("sk_bank_set_user_values", { b, s, stale, m in sk_bank_set_user_values(b, Self.listed(s, stale: stale, at: p), [1, 2, 3], 3) }))
                calls.append(("sk_mask_create", { b, s, stale, _ in
                    var mask: UInt64 = 0
                    return sk_mask_create(b, Self.listed(s, stale: stale, at: p), 3, &mask)
                }))
                calls.append(("sk_mask_insert", { b, s, stale, m in sk_mask_insert(b, m, Self.listed(s, stale: stale, at: p), 3) }))
                calls.append(("sk_mask_remove", { b, s, stale, m in sk_mask_remove(b, m, Self.listed(s, stale: stale, at: p), 3) }))
                if format == ._float32 {
                    calls.append(("sk_bank_set_tolerance_f32", { b, s, stale, m in sk_bank_set_tolerance_f32(b, Self.listed(s, stale: stale, at: p), 3, 0.25) }))
                    calls.append(("sk_bank_retarget_f32", { b, s, stale, m in sk_bank_retarget_f32(b, Self.listed(s, stale: stale, at: p), [9, 9, 9], 3) }))
                } else {
                    calls.append(("sk_bank_set_tolerance_q16", { b, s, stale, m in sk_bank_set_tolerance_q16(b, Self.listed(s, stale: stale, at: p), 3, 1 << 14) }))
                    calls.append(("sk_bank_retarget_q16", { b, s, stale, m in sk_bank_retarget_q16(b, Self.listed(s, stale: stale, at: p), [nine, nine, nine], 3) }))
                }
                for (name, call) in calls { Twin(format).expectRefused("\(name), stale at \(p)", call) }
            }
        }
    }

    @Test("a value the format cannot hold at any position refuses the call, changing nothing")
    func badValues() {
        for p in 0..<3 {
            let nan = Float.nan
            var float: [(String, Call)] = []
            float.append(("sk_bank_add_f32", { b, _, _, _ in
                var handles = [UInt64](repeating: 0, count: 3)
                return sk_bank_add_f32(b, 3, Self.with([Float(1), 2, 3], nan, at: p), [0, 0, 0], nil, 342, 30, 1, 0.5, &handles)
            }))
            float.append(("sk_bank_retarget_f32", { b, s, stale, m in sk_bank_retarget_f32(b, Array(s[1..<4]), Self.with([Float](repeating: 9, count: 3), nan, at: p), 3) }))
            float.append(("sk_bank_impulse_f32", { b, s, stale, m in sk_bank_impulse_f32(b, Array(s[1..<4]), Self.with([Float](repeating: 9, count: 3), nan, at: p), 3) }))
            float.append(("sk_bank_set_state_f32", { b, s, stale, m in sk_bank_set_state_f32(b, Array(s[1..<4]), Self.with([Float](repeating: 9, count: 3), nan, at: p), nil, 3) }))
            float.append(("sk_mask_resume_f32", { b, s, _, m in
                sk_mask_resume_f32(b, m, [s[0], s[1], s[2]], Self.with([Float](repeating: 9, count: 3), nan, at: p), [0, 0, 0], 3)
            }))
            float.append(("sk_layout_retarget_f32", { b, _, _, _ in
                var version: UInt64 = 0
                _ = sk_bank_layout(b, sk_region._all.rawValue, nil, &version)
                return sk_layout_retarget_f32(b, sk_region._all.rawValue, version, Self.with([Float](repeating: 9, count: 4), nan, at: p), 4)
            }))
            float.append(("sk_layout_retarget_step_f32", { b, _, _, _ in
                var version: UInt64 = 0
                _ = sk_bank_layout(b, sk_region._all.rawValue, nil, &version)
                return sk_layout_retarget_step_f32(b, sk_region._all.rawValue, version, Self.with([Float](repeating: 9, count: 4), nan, at: p), 4, 1.0 / 60)
            }))
            float.append(("sk_layout_retarget_step_f32, dt 0", { b, _, _, _ in
                var version: UInt64 = 0
                _ = sk_bank_layout(b, sk_region._all.rawValue, nil, &version)
                return sk_layout_retarget_step_f32(b, sk_region._all.rawValue, version, [Float](repeating: 9, count: 4), 4, 0)
            }))
            float.append(("sk_layout_set_state_f32", { b, _, _, _ in
                var version: UInt64 = 0
                _ = sk_bank_layout(b, sk_region._all.rawValue, nil, &version)
                return sk_layout_set_state_f32(b, sk_region._all.rawValue, version, Self.with([Float](repeating: 9, count: 4), nan, at: p), nil, 4)
            }))
            for (name, call) in float { Twin(._float32).expectRefused("\(name), NaN at \(p)", call) }
            let far = Int32.max, low = Int32.min + 1, nine: Int32 = 9 << 16
            var fixed: [(String, Call)] = []
            fixed.append(("sk_bank_add_q16", { b, _, _, _ in
                var handles = [UInt64](repeating: 0, count: 3)
                return sk_bank_add_q16(b, 3, Self.with([Int32(1) << 16, 2 << 16, 3 << 16], far, at: p), Self.with([Int32](repeating: 0, count: 3), low, at: p), nil, 342, 30, 1, 32768, &handles)
            }))
            fixed.append(("sk_bank_retarget_q16", { b, s, stale, m in sk_bank_retarget_q16(b, Array(s[1..<4]), Self.with([Int32](repeating: nine, count: 3), low, at: p), 3) }))
            fixed.append(("sk_bank_set_state_q16", { b, s, stale, m in sk_bank_set_state_q16(b, Array(s[1..<4]), Self.with([Int32](repeating: nine, count: 3), far, at: p), nil, 3) }))
            fixed.append(("sk_mask_resume_q16", { b, s, _, m in
                sk_mask_resume_q16(b, m, [s[0], s[1], s[2]], Self.with([Int32](repeating: nine, count: 3), far, at: p), [0, 0, 0], 3)
            }))
            fixed.append(("sk_layout_retarget_q16", { b, _, _, _ in
                var version: UInt64 = 0
                _ = sk_bank_layout(b, sk_region._all.rawValue, nil, &version)
                return sk_layout_retarget_q16(b, sk_region._all.rawValue, version, Self.with([Int32](repeating: nine, count: 4), low, at: p), 4)
            }))
            fixed.append(("sk_layout_retarget_step_q16", { b, _, _, _ in
                var version: UInt64 = 0
                _ = sk_bank_layout(b, sk_region._all.rawValue, nil, &version)
                return sk_layout_retarget_step_q16(b, sk_region._all.rawValue, version, Self.with([Int32](repeating: nine, count: 4), low, at: p), 4, 1.0 / 60)
            }))
            fixed.append(("sk_layout_set_state_q16", { b, _, _, _ in
                var version: UInt64 = 0
                _ = sk_bank_layout(b, sk_region._all.rawValue, nil, &version)
                return sk_layout_set_state_q16(b, sk_region._all.rawValue, version, Self.with([Int32](repeating: nine, count: 4), far, at: p), nil, 4)
            }))
            for (name, call) in fixed { Twin(._q16).expectRefused("\(name), out of range at \(p)", call) }
            // Every spring moving at 1 unit a second first: Int32.max more overflows.
            let moving: (UInt64, [UInt64]) -> Void = { bank, springs in
                #expect(sk_bank_set_state_q16(bank, springs, [Int32](repeating: 1 << 16, count: 4), [Int32](repeating: 1 << 16, count: 4), 4) == ._ok)
            }
            Twin(._q16, prepare: moving).expectRefused("sk_bank_impulse_q16, overflow at \(p)") { b, s, _, _ in
                sk_bank_impulse_q16(b, Array(s[1..<4]), Self.with([Int32](repeating: nine, count: 3), far, at: p), 3)
            }
        }
    }

    @Test("the issue's float32 add: {0, NaN} is refused, and no layout version or generation moves")
    func addWithNaN() {
        Twin(._float32).expectRefused("sk_bank_add_f32 {0, NaN}") { b, _, _, _ in
            var handles: [UInt64] = [0, 0]
            return sk_bank_add_f32(b, 2, [0, .nan], [0, 0], nil, 342, 30, 1, 0.5, &handles)
        }
    }

    @Test("Q16.16: a configuration or tolerance one listed spring's motion cannot take refuses the call at any position")
    func motionThatDoesNotFit() {
        for p in 0..<3 {
            // Spring 1 + p swings wide (3000 units a second): at tension 0.001 (ω 0.03) its swing
            // is ~10⁵, past what the lanes hold; the others (within 4 of their target) fit.
            let fast: (UInt64, [UInt64]) -> Void = { bank, springs in
                #expect(sk_bank_set_state_q16(bank, [springs[1 + p]], [0], [3000 << 16], 1) == ._ok)
            }
            Twin(._q16, prepare: fast).expectRefused("sk_bank_configure, wide swing at \(p)") { b, s, _, _ in
                sk_bank_configure(b, Array(s[1..<4]), 3, 0.001, 0, 1)
            }
            // Spring 1 + p far from its target (3000): a tolerance of 2⁻¹⁶ stores displacements
            // finer, and that one no longer fits.
            let far: (UInt64, [UInt64]) -> Void = { bank, springs in
                #expect(sk_bank_set_state_q16(bank, [springs[1 + p]], [3000 << 16], [0], 1) == ._ok)
            }
            Twin(._q16, prepare: far).expectRefused("sk_bank_set_tolerance_q16, far spring at \(p)") { b, s, _, _ in
                sk_bank_set_tolerance_q16(b, Array(s[1..<4]), 3, 1)
            }
        }
    }

    @Test("a pausing mask's insert refuses a spring held by 255 masks at any position, inserting none")
    func pauseDepthAtAnyPosition() {
        for p in 0..<3 {
            let held: (UInt64, [UInt64]) -> Void = { bank, springs in
                for _ in 0..<255 {
                    var mask: UInt64 = 0
                    #expect(sk_mask_create(bank, [springs[1 + p]], 1, &mask) == ._ok)
                    #expect(sk_mask_pause(bank, mask) == ._ok)
                }
            }
            Twin(._float32, prepare: held).expectRefused("sk_mask_insert, deepest at \(p)") { b, s, _, m in
                sk_mask_insert(b, m, Array(s[1..<4]), 3)
            }
        }
    }

    @Test("the calls without a list refuse bad arguments, changing nothing")
    func scalarCalls() {
        for format in [sk_format._float32, ._q16] {
            Twin(format).expectRefused("sk_bank_step NaN") { b, _, _, _ in sk_bank_step(b, .nan) }
            Twin(format).expectRefused("sk_bank_set_fixed_timestep -1") { b, _, _, _ in sk_bank_set_fixed_timestep(b, -1) }
            Twin(format).expectRefused("sk_bank_set_threading -1") { b, _, _, _ in sk_bank_set_threading(b, -1) }
            Twin(format).expectRefused("sk_mask_destroy stale") { b, _, _, m in
                var version: UInt64 = 0
                _ = sk_bank_layout(b, 0, nil, &version)
                return sk_mask_destroy(b, m ^ (1 << 30))
            }
        }
    }

    @Test("sk_mask_remove skips a spring the mask does not list, as the header says, and removes the listed ones")
    func maskRemoveSkipsUnlisted() {
        var bank: UInt64 = 0
        #expect(sk_bank_create(sk_format._float32.rawValue, 1, 0, &bank) == ._ok)
        defer { _ = sk_bank_destroy(bank) }
        var springs: [UInt64] = [0, 0]
        #expect(sk_bank_add_f32(bank, 2, [10, 20], [0, 0], nil, 342, 30, 1, 0.5, &springs) == ._ok)
        var mask: UInt64 = 0
        #expect(sk_mask_create(bank, [springs[0]], 1, &mask) == ._ok)
        #expect(sk_mask_pause(bank, mask) == ._ok)
        #expect(sk_mask_remove(bank, mask, [springs[0], springs[1]], 2) == ._ok)
        var awake: UInt = 0
        #expect(sk_bank_counts(bank, nil, &awake, nil) == ._ok)
        #expect(awake == 2)
        var moving: UInt = 0
        #expect(sk_bank_layout(bank, sk_region._moving.rawValue, &moving, nil) == ._ok)
        #expect(moving == 2)
    }
}
