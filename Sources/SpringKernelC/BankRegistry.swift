import SpringKernel
import Synchronization

/// One bank a C caller holds, with the number its handles carry.
///
/// C callers promise to use a bank from one thread at a time (the header says so), which is what
/// the Swift type system enforces for Swift callers. The C interface checks the promise: every
/// call holds the entry's in-use flag (``BankRegistry/use(_:_:)``), and a second thread's call on
/// the same bank meanwhile is refused with `sk_status_busy` before it touches anything.
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
    /// Added to every generation the bank's handles carry (mod 2^18): the generations the slot's
    /// earlier banks issued are used up, so their handles name nothing here (see
    /// ``BankRegistry``).
    let generationOffset: UInt32
    /// Added to the kernel's layout version in what C sees: the bank's serial number times 2^32,
    /// so another bank's version is never this one's (within 2^32 banks made).
    let versionBase: UInt64
    /// Set while a C call runs on the bank.
    let inUse = Atomic<Bool>(false)
    /// Handles unpacked for a bulk call, kept between calls so bulk calls allocate nothing.
    var springs: [SpringHandle] = []

    init(bank: Bank, number: UInt64, generationOffset: UInt32, versionBase: UInt64) {
        self.bank = bank
        self.number = number
        self.generationOffset = generationOffset
        self.versionBase = versionBase
    }

    /// The generations (of springs and masks) the bank has issued so far, at most: one past the
    /// highest, capped at 2^18 (all of them).
    var generationsIssued: UInt32 {
        let highest: UInt32 =
            switch bank {
            case .float(let bank): bank.highestGeneration
            case .fixed(let bank): bank.highestGeneration
            }
        return highest >= PackedHandle.generationMask ? PackedHandle.generationMask + 1 : highest + 1
    }
}

/// The live banks, by 64-bit id: the low 16 bits a slot, the high 48 a serial number that is never
/// reused. A destroyed or made-up id finds no entry (`sk_status_invalid_bank`) instead of freed
/// memory, which an opaque pointer could not promise.
///
/// A spring or mask handle carries the slot (16 bits) and 18 bits of a generation, not the serial:
/// so that a destroyed bank's handles name nothing in the next bank of its slot, each slot keeps a
/// generation offset that moves past every generation its banks issued. A new bank's handles carry
/// `offset + generation` (mod 2^18), and when it is destroyed the slot's offset moves on by the
/// generations it issued (at least 1). An old handle could name a spring again only once the
/// slot's offset has gone round 2^18; slots are handed out round-robin (a slot comes back only
/// after every free slot was used), so that takes 2^18 × (65,535 − live banks) bank creations:
/// more than 2^32 while at most 49,151 banks are alive at once. Layout versions carry the serial
/// number instead (``BankEntry/versionBase``): unique across 2^32 banks made.
final class BankRegistry: Sendable {
    static let shared = BankRegistry()

    private struct State {
        /// Each live bank's serial and entry, retained by hand (from `register` to `unregister`), so
        /// a lookup copies no reference and costs no retain or release. Slot 0 is never a bank.
        var entries: [(serial: UInt64, entry: Unmanaged<BankEntry>)?] = [nil]
        /// Each slot's generation offset (see ``BankEntry/generationOffset``).
        var generationOffsets: [UInt32] = [0]
        var live = 0
        var cursor = 0
        var nextSerial: UInt64 = 1
    }

    private let state = RegistryLock(State())

    /// Registers a new bank; returns its id. `make` is given the slot number, the generation
    /// offset and the layout version base.
    func register(_ make: (_ number: UInt64, _ generationOffset: UInt32, _ versionBase: UInt64) -> BankEntry) throws(Refusal) -> UInt64 {
        let slotCount = 1 << 16
        return try state.withLock { state throws(Refusal) -> UInt64 in
            guard state.live < slotCount - 1 else { throw Refusal(._too_many_banks) }
            var slot: Int
            if state.entries.count < slotCount {
                slot = state.entries.count
                state.entries.append(nil)
                state.generationOffsets.append(0)
            } else {
                slot = state.cursor
                repeat { slot = slot % (slotCount - 1) + 1 } while state.entries[slot] != nil
            }
            state.cursor = slot
            let serial = state.nextSerial
            state.nextSerial += 1
            state.entries[slot] = (serial, .passRetained(make(UInt64(slot), state.generationOffsets[slot], serial << 32)))
            state.live += 1
            return serial << 16 | UInt64(slot)
        }
    }

    /// Runs `body` on the bank `id` names, holding its in-use flag: refused with `sk_status_busy`
    /// if another call (on another thread) holds it.
    ///
    /// The flag is taken under the registry's lock, and ``unregister(_:)`` takes the lock and then
    /// the flag, so the registry's table keeps the entry alive while the flag is held: `body` gets
    /// it without a retain and a release (atomic read-modify-writes on every C call).
    @inline(__always)
    func use<Value>(_ id: UInt64, _ body: (BankEntry) throws(Refusal) -> Value) throws(Refusal) -> Value {
        let entry = try state.withLock { state throws(Refusal) -> Unmanaged<BankEntry> in
            let slot = Int(id & 0xFFFF)
            guard slot < state.entries.count, let live = state.entries[slot], live.serial == id >> 16 else {
                throw Refusal(._invalid_bank)
            }
            guard live.entry._withUnsafeGuaranteedRef({ $0.inUse.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged }) else {
                throw Refusal(._busy)
            }
            return live.entry
        }
        let outcome = entry._withUnsafeGuaranteedRef { entry -> Result<Value, Refusal> in
            defer { entry.inUse.store(false, ordering: .releasing) }
            do throws(Refusal) { return .success(try body(entry)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// Forgets the bank `id` names and frees it. Refused with `sk_status_busy` while another
    /// thread's call runs on it.
    func unregister(_ id: UInt64) throws(Refusal) {
        let removed = try state.withLock { state throws(Refusal) -> Unmanaged<BankEntry>? in
            let slot = Int(id & 0xFFFF)
            guard slot < state.entries.count, let live = state.entries[slot], live.serial == id >> 16 else { return nil }
            // A call holds the flag only while it holds the entry (`use` takes it under this lock).
            let issued = live.entry._withUnsafeGuaranteedRef { entry -> UInt32? in
                guard entry.inUse.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return nil }
                return entry.generationOffset &+ entry.generationsIssued
            }
            guard let issued else { throw Refusal(._busy) }
            state.generationOffsets[slot] = issued & PackedHandle.generationMask
            state.entries[slot] = nil
            state.live -= 1
            return live.entry
        }
        guard let removed else { throw Refusal(._invalid_bank) }
        // Freed outside the lock: a large bank's memory takes a while to give back.
        removed.release()
    }
}
