import SpringKernelC
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Ids, handles and layout versions that name one bank only, and the in-use flag that refuses a
/// second thread. Serialized: the registry is the process's, and the slot test walks all of it.
@Suite("C identities and the in-use flag", .serialized)
struct IdentityTests {
    @Test("a destroyed bank's spring and mask handles name nothing in the next bank of its registry slot")
    func slotReuse() {
        var old: UInt64 = 0
        #expect(sk_bank_create(sk_format._float32.rawValue, 1, 0, &old) == ._ok)
        var oldSpring: UInt64 = 0, oldMask: UInt64 = 0
        #expect(sk_bank_add_f32(old, 1, [10], [0], nil, 342, 30, 1, 0.5, &oldSpring) == ._ok)
        #expect(sk_mask_create(old, nil, 0, &oldMask) == ._ok)
        #expect(sk_bank_destroy(old) == ._ok)
        // Make and destroy banks until the slot comes round again (round-robin: ~65,535 times).
        var bank: UInt64 = 0
        for _ in 0..<(3 << 16) {
            #expect(sk_bank_create(sk_format._float32.rawValue, 1, 0, &bank) == ._ok)
            if bank & 0xFFFF == old & 0xFFFF { break }
            #expect(sk_bank_destroy(bank) == ._ok)
        }
        #expect(bank & 0xFFFF == old & 0xFFFF)
        defer { _ = sk_bank_destroy(bank) }
        // The new bank has a spring and a mask at the old ones' records.
        var spring: UInt64 = 0, mask: UInt64 = 0
        #expect(sk_bank_add_f32(bank, 1, [20], [0], nil, 342, 30, 1, 0.5, &spring) == ._ok)
        #expect(sk_mask_create(bank, nil, 0, &mask) == ._ok)
        #expect(spring != oldSpring)
        #expect(mask != oldMask)
        var value: Float = 0
        #expect(sk_bank_read_f32(bank, sk_quantity._value.rawValue, [oldSpring], 1, &value) == ._stale_handle)
        #expect(sk_bank_retarget_f32(bank, [oldSpring], [5], 1) == ._stale_handle)
        #expect(sk_bank_remove(bank, [oldSpring], 1) == ._stale_handle)
        #expect(sk_mask_destroy(bank, oldMask) == ._stale_pause_mask)
        #expect(sk_bank_read_f32(bank, sk_quantity._value.rawValue, [spring], 1, &value) == ._ok)
        #expect(value == 20)
        // Handles read in storage order are the handles the bank issued, generation offset included.
        var count = 0 as UInt, version: UInt64 = 0, streamed: UInt64 = 0
        #expect(sk_bank_layout(bank, sk_region._all.rawValue, &count, &version) == ._ok)
        #expect(count == 1)
        #expect(sk_layout_read_springs(bank, sk_region._all.rawValue, version, &streamed, 1) == ._ok)
        #expect(streamed == spring)
        #expect(sk_bank_read_f32(bank, sk_quantity._value.rawValue, [streamed], 1, &value) == ._ok)
        #expect(sk_mask_destroy(bank, mask) == ._ok)
    }

    @Test("another bank's layout version is stale")
    func layoutVersions() {
        var banks: [UInt64] = [0, 0]
        for i in 0..<2 {
            #expect(sk_bank_create(sk_format._float32.rawValue, 1, 0, &banks[i]) == ._ok)
            var spring: UInt64 = 0
            #expect(sk_bank_add_f32(banks[i], 1, [10], [0], nil, 342, 30, 1, 0.5, &spring) == ._ok)
        }
        defer { for bank in banks { _ = sk_bank_destroy(bank) } }
        var versions: [UInt64] = [0, 0]
        for i in 0..<2 { #expect(sk_bank_layout(banks[i], sk_region._all.rawValue, nil, &versions[i]) == ._ok) }
        #expect(versions[0] != versions[1])
        var out: Float = 0
        #expect(sk_layout_read_f32(banks[1], sk_quantity._value.rawValue, sk_region._all.rawValue, versions[0], &out, 1) == ._stale_layout)
        #expect(sk_layout_read_f32(banks[1], sk_quantity._value.rawValue, sk_region._all.rawValue, versions[1], &out, 1) == ._ok)
        #expect(out == 10)
    }

    @Test("a capacity above 2^30 is refused, and one the system cannot give is out_of_memory, not an abort")
    func capacity() {
        var bank: UInt64 = 0
        for capacity in [UInt(1 << 30) + 1, UInt(1) << 62, UInt.max] {
            #expect(sk_bank_create(sk_format._float32.rawValue, 1, capacity, &bank) == ._invalid_capacity)
        }
        for format in [sk_format._float32, ._q16] {
            // 94 GB of records: given lazily by some systems, refused by others; never an abort.
            let status = sk_bank_create(format.rawValue, 1, 1 << 30, &bank)
            #expect(status == ._ok || status == ._out_of_memory)
            if status == ._ok { #expect(sk_bank_destroy(bank) == ._ok) }
        }
        #expect(Self.name(sk_status._out_of_memory) == "out_of_memory")
        #expect(String(cString: sk_status_name(106)) == "busy")
    }

    /// Runs `bodies` on threads of their own, at once.
    static func concurrently(_ bodies: [@Sendable () -> Void]) {
        var threads: [pthread_t] = []
        for body in bodies {
            var thread = pthread_t()
            let box = Unmanaged.passRetained(Box(body)).toOpaque()
            pthread_create(&thread, nil, { argument in
                let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
                box.body()
                return nil
            }, box)
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
    }

    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// A status's name: compared by name, because a Swift client of the module reads the cases
    /// numbered from 100 (`sk_status._busy`, `._invalid_bank` ...) as 0 (Swift 6.3's `@c` enums;
    /// C callers, who read the header, are not affected).
    static func name(_ status: sk_status) -> String { String(cString: sk_status_name(status.rawValue)) }

    final class Tally: @unchecked Sendable {
        var ok = 0, busy = 0, other: [String] = []
        func count(_ status: sk_status) {
            switch IdentityTests.name(status) {
            case "ok": ok += 1
            case "busy": busy += 1
            case let name: other.append(name)
            }
        }
    }

    @Test("two threads stepping one bank: the second caller is refused with busy, and no frame is lost")
    func twoThreadsStepping() {
        var bank: UInt64 = 0
        #expect(sk_bank_create(sk_format._float32.rawValue, 1, 0, &bank) == ._ok)
        defer { _ = sk_bank_destroy(bank) }
        let n = 4096
        var handles = [UInt64](repeating: 0, count: n)
        // Undamped: every spring moves through the whole run.
        #expect(sk_bank_add_f32(bank, UInt(n), (0..<n).map { Float($0 % 100) + 1 }, [Float](repeating: 0, count: n), nil, 342, 0, 1, 0.5, &handles) == ._ok)
        let tallies = [Tally(), Tally()]
        let id = bank
        Self.concurrently((0..<2).map { t in { for _ in 0..<3000 { tallies[t].count(sk_bank_step(id, 1.0 / 60)) } } })
        var frames: UInt64 = 0
        #expect(sk_bank_counts(bank, nil, nil, &frames) == ._ok)
        #expect(tallies.allSatisfy { $0.other.isEmpty })
        #expect(frames == UInt64(tallies[0].ok + tallies[1].ok))
        // Two threads each stepping 4096 springs 3000 times overlap: some call finds the bank in
        // use (about half of them, measured; without the flag none is refused and frames go lost).
        #expect(tallies[0].busy + tallies[1].busy > 0)
        print("two threads, 6000 steps: \(tallies[0].ok + tallies[1].ok) stepped, \(tallies[0].busy + tallies[1].busy) refused busy")
    }

    @Test("adds and removes on one thread while another steps: refused calls change nothing, the counts add up")
    func addsAndRemovesWhileStepping() {
        var bank: UInt64 = 0
        #expect(sk_bank_create(sk_format._q16.rawValue, 1, 0, &bank) == ._ok)
        defer { _ = sk_bank_destroy(bank) }
        var handles = [UInt64](repeating: 0, count: 1000)
        #expect(sk_bank_add_q16(bank, 1000, (0..<1000).map { Int32($0) << 12 }, [Int32](repeating: 0, count: 1000), nil, 342, 0, 1, 32768, &handles) == ._ok)
        let stepper = Tally(), changer = Tally()
        final class Live: @unchecked Sendable { var springs = 1000 }
        let live = Live()
        let id = bank
        Self.concurrently([
            { for _ in 0..<2000 { stepper.count(sk_bank_step(id, 1.0 / 60)) } },
            {
                var added = [UInt64](repeating: 0, count: 8)
                for _ in 0..<2000 {
                    let status = sk_bank_add_q16(id, 8, [Int32](repeating: 5 << 16, count: 8), [Int32](repeating: 0, count: 8), nil, 342, 30, 1, 32768, &added)
                    changer.count(status)
                    guard status == ._ok else { continue }
                    live.springs += 8
                    while true {
                        let removed = sk_bank_remove(id, added, 8)
                        if Self.name(removed) == "busy" { continue }
                        changer.count(removed)
                        if removed == ._ok { live.springs -= 8 }
                        break
                    }
                }
            },
        ])
        var springs: UInt = 0, frames: UInt64 = 0
        #expect(sk_bank_counts(bank, &springs, nil, &frames) == ._ok)
        #expect(stepper.other.isEmpty && changer.other.isEmpty)
        #expect(Int(springs) == live.springs)
        #expect(frames == UInt64(stepper.ok))
        #expect(stepper.busy + changer.busy > 0)
    }

    @Test("destroying a bank another thread is using is refused with busy")
    func destroyWhileInUse() {
        var bank: UInt64 = 0
        #expect(sk_bank_create(sk_format._float32.rawValue, 1, 0, &bank) == ._ok)
        var handles = [UInt64](repeating: 0, count: 20000)
        #expect(sk_bank_add_f32(bank, 20000, (0..<20000).map { Float($0 % 100) + 1 }, [Float](repeating: 0, count: 20000), nil, 342, 0, 1, 0.5, &handles) == ._ok)
        let destroyer = Tally(), stepper = Tally()
        let id = bank
        Self.concurrently([
            { for _ in 0..<500 { stepper.count(sk_bank_step(id, 1.0 / 60)) } },
            {
                while true {
                    let status = sk_bank_destroy(id)
                    destroyer.count(status)
                    if Self.name(status) != "busy" { break }
                }
            },
        ])
        // The destroy succeeded once; the steps after it find no bank.
        #expect(destroyer.ok == 1)
        #expect(destroyer.other.isEmpty)
        #expect(stepper.other.allSatisfy { $0 == "invalid_bank" })
    }
}
