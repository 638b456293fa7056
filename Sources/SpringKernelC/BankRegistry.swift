import SpringKernel
import Synchronization

/// One bank a C caller holds, with the number its handles carry.
///
/// C callers promise to use a bank from one thread at a time (the header says so), which is what
/// the Swift type system enforces for Swift callers; the registry only hands the entry over.
final class BankEntry: @unchecked Sendable {
    /// The bank, in its lane format: each call switches on it, so the kernel's inlinable code
    /// (the step above all) is specialised here for both formats.
    enum Bank {
        case float(SpringBank<Float32Lanes>)
        case fixed(SpringBank<Q16Lanes>)
    }

    let bank: Bank
    /// The registry slot, 1...65535: the top 16 bits of every spring and mask handle the bank
    /// issues, so a handle of another live bank is always told apart.
    let number: UInt64
    /// Handles unpacked for a batch call, kept between calls so batches allocate nothing.
    var springs: [SpringHandle] = []

    init(bank: Bank, number: UInt64) {
        self.bank = bank
        self.number = number
    }
}

/// The live banks, by 64-bit id: the low 16 bits a slot, the high 48 a serial number that is never
/// reused. A destroyed or made-up id finds no entry (`sk_status_invalid_bank`) instead of freed
/// memory, which an opaque pointer could not promise.
///
/// Slots are handed out round-robin, so a slot (and the bank number in old spring handles) comes
/// back only after every other slot was used.
final class BankRegistry: Sendable {
    static let shared = BankRegistry()

    private struct State {
        var entries: [(serial: UInt64, entry: BankEntry)?] = [nil]  // slot 0 is never a bank
        var live = 0
        var cursor = 0
        var nextSerial: UInt64 = 1
    }

    private let state = Mutex(State())

    /// Registers a new bank; returns its id.
    func register(_ make: (UInt64) -> BankEntry) throws(Refusal) -> UInt64 {
        let slotCount = 1 << 16
        return try state.withLock { state throws(Refusal) -> UInt64 in
            guard state.live < slotCount - 1 else { throw Refusal(._too_many_banks) }
            var slot: Int
            if state.entries.count < slotCount {
                slot = state.entries.count
                state.entries.append(nil)
            } else {
                slot = state.cursor
                repeat { slot = slot % (slotCount - 1) + 1 } while state.entries[slot] != nil
            }
            state.cursor = slot
            let serial = state.nextSerial
            state.nextSerial += 1
            state.entries[slot] = (serial, make(UInt64(slot)))
            state.live += 1
            return serial << 16 | UInt64(slot)
        }
    }

    /// The bank `id` names.
    func entry(_ id: UInt64) throws(Refusal) -> BankEntry {
        let found = state.withLock { state -> BankEntry? in
            let slot = Int(id & 0xFFFF)
            guard slot < state.entries.count, let live = state.entries[slot], live.serial == id >> 16 else { return nil }
            return live.entry
        }
        guard let found else { throw Refusal(._invalid_bank) }
        return found
    }

    /// Forgets the bank `id` names; it is freed once no call is using it.
    func unregister(_ id: UInt64) throws(Refusal) {
        let removed = state.withLock { state -> Bool in
            let slot = Int(id & 0xFFFF)
            guard slot < state.entries.count, let live = state.entries[slot], live.serial == id >> 16 else { return false }
            state.entries[slot] = nil
            state.live -= 1
            return true
        }
        guard removed else { throw Refusal(._invalid_bank) }
    }
}
