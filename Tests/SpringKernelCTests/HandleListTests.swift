import SpringKernelC
import Testing

/// The bulk calls that leave a handle's generation to the kernel's own check (issue 33: one
/// lookup a handle, not two) refuse a list exactly as the full check in the C layer does: the
/// first refused handle, in list order, decides the status, whichever layer finds it, and nothing
/// changes. Serialized with the registry's other suites' expectations in mind: it makes two banks.
@Suite("C bulk calls by handle: the first refused handle decides, whichever check finds it", .serialized)
struct HandleListTests {
    /// A float32 bank of four springs (values 10, 20, 30, 40, target 0) with a fifth removed, a
    /// second bank's spring, and a mask of the first bank.
    struct Scene {
        var bank: UInt64 = 0, other: UInt64 = 0
        var springs: [UInt64] = [0, 0, 0, 0]
        var removed: UInt64 = 0, foreign: UInt64 = 0, mask: UInt64 = 0

        init() {
            #expect(sk_bank_create(sk_format._float32.rawValue, 8, 0, &bank) == ._ok)
            #expect(sk_bank_create(sk_format._float32.rawValue, 8, 0, &other) == ._ok)
            #expect(sk_bank_add_f32(bank, 4, [10, 20, 30, 40], [0, 0, 0, 0], nil, 342, 30, 1, 0.5, &springs) == ._ok)
            #expect(sk_bank_add_f32(bank, 1, [50], [0], nil, 342, 30, 1, 0.5, &removed) == ._ok)
            #expect(sk_bank_remove(bank, [removed], 1) == ._ok)
            #expect(sk_bank_add_f32(other, 1, [60], [0], nil, 342, 30, 1, 0.5, &foreign) == ._ok)
            #expect(sk_mask_create(bank, nil, 0, &mask) == ._ok)
        }

        func destroy() {
            #expect(sk_bank_destroy(bank) == ._ok)
            #expect(sk_bank_destroy(other) == ._ok)
        }

        /// Every spring's value, target and user value: what a refused call must leave as it was.
        func state() -> [Float] {
            var values = [Float](repeating: 0, count: 4), targets = values
            var users = [UInt64](repeating: 0, count: 4)
            #expect(sk_bank_read_f32(bank, sk_quantity._value.rawValue, springs, 4, &values) == ._ok)
            #expect(sk_bank_read_f32(bank, sk_quantity._target.rawValue, springs, 4, &targets) == ._ok)
            #expect(sk_bank_read_user_values(bank, springs, 4, &users) == ._ok)
            return values + targets + users.map { Float($0) }
        }
    }

    /// The bulk calls whose handles the kernel checks, each on a list of three.
    static let calls: [(String, @Sendable (UInt64, [UInt64]) -> sk_status)] = [
        ("sk_bank_retarget_f32", { sk_bank_retarget_f32($0, $1, [5, 6, 7], 3) }),
        ("sk_bank_impulse_f32", { sk_bank_impulse_f32($0, $1, [1, 1, 1], 3) }),
        ("sk_bank_set_state_f32", { sk_bank_set_state_f32($0, $1, [1, 2, 3], nil, 3) }),
        ("sk_bank_read_f32", { bank, list in
            var out: [Float] = [0, 0, 0]
            return sk_bank_read_f32(bank, sk_quantity._velocity.rawValue, list, 3, &out)
        }),
        ("sk_bank_read_user_values", { bank, list in
            var out: [UInt64] = [0, 0, 0]
            return sk_bank_read_user_values(bank, list, 3, &out)
        }),
    ]

    @Test("stale before foreign is stale, foreign before stale is foreign; an index past the records, a mask, a wrapped tag")
    func firstRefusalDecides() {
        let scene = Scene()
        defer { scene.destroy() }
        let s = scene.springs
        // The bits of a handle: bank slot 63-48, kind 47, tag 46-30, index 29-0.
        let pastRecords = s[0] & ~((1 << 30) - 1) | (1 << 29)
        let tagZero = s[0] & ~(((1 << 17) - 1) << 30)
        let tagAll = s[0] | ((1 << 17) - 1) << 30
        let lists: [([UInt64], sk_status)] = [
            ([s[0], scene.removed, scene.foreign], ._stale_handle),
            ([s[0], scene.foreign, scene.removed], ._foreign_handle),
            ([scene.removed, s[1], scene.mask], ._stale_handle),
            ([s[1], scene.mask, scene.removed], ._foreign_handle),
            ([s[1], s[2], pastRecords], ._stale_handle),
            ([pastRecords, scene.foreign, s[2]], ._stale_handle),
            ([s[1], tagAll, scene.foreign], ._stale_handle),
            ([s[3], s[3], s[2]], ._ok),
        ]
        for (name, call) in Self.calls {
            for (list, expected) in lists {
                // A tag of 0 names generation 0 when the slot's offset is 0: only then is it this spring.
                let before = scene.state()
                let status = call(scene.bank, list)
                #expect(status == expected, "\(name) on \(list.map { String($0, radix: 16) })")
                if expected != ._ok { #expect(scene.state() == before, "\(name) changed the bank on a refusal") }
            }
            // The tag with its bits cleared is stale unless the slot's offset and the generation are 0.
            let zeroStatus = call(scene.bank, [s[0], tagZero, s[1]])
            #expect(zeroStatus == (tagZero == s[0] ? ._ok : ._stale_handle), "\(name)")
        }
    }
}
