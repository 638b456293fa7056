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
    /// The registry slot, 1...65535: bits 63–48 of every spring and mask handle the bank issues, so
    /// a handle of another live bank is always told apart.
    let number: UInt64
    /// The slot's generation offset when the bank was made, 0...2^16: added to every generation its
    /// handles carry (the generation tag, bits 46–30), so that they are past every tag the slot's
    /// earlier banks issued and their handles name nothing here (see ``BankRegistry``).
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
        // A record is retired, not reused, once its tag would pass 2^17 − 1: no tag repeats.
        let limit = PackedHandle.generationMask - generationOffset
        switch bank {
        case .float(let bank): bank.retireRecords(pastGeneration: limit)
        case .fixed(let bank): bank.retireRecords(pastGeneration: limit)
        }
    }

    /// One past the highest generation tag the bank's handles carried, at most 2^17: where the
    /// slot's next bank starts. O(records + masks): read outside the registry's lock.
    var tagsIssued: UInt32 {
        let highest: UInt32 =
            switch bank {
            case .float(let bank): bank.highestGeneration
            case .fixed(let bank): bank.highestGeneration
            }
        // A retired record's generation is one past the limit; no handle carried it.
        return generationOffset + Swift.min(highest, PackedHandle.generationMask - generationOffset) + 1
    }
}

/// The live banks, by 64-bit id: the low 16 bits a slot, the high 48 a serial number that is never
/// reused. A destroyed or made-up id finds no entry (`sk_status_invalid_bank`) instead of freed
/// memory, which an opaque pointer could not promise.
///
/// A spring or mask handle carries the slot (16 bits), its kind (1 bit) and a 17-bit generation
/// tag, not the serial. Each slot keeps a generation offset, and a bank's handles carry
/// `offset + generation`: its records are retired (never reused) before that passes 2^17 − 1
/// (``BankEntry/init(bank:number:generationOffset:versionBase:)``), so within a bank no tag repeats
/// at an index: a removed spring's or mask's handle never names anything again. When a bank is
/// destroyed, its slot's offset moves past every tag it issued (at least 1), so the slot's later
/// banks refuse its handles; once the offset has passed 2^16 (a later bank would have fewer than
/// 2^16 generations a record), the slot rests: it is handed out again only after 2^32 more banks
/// have been made, starting from offset 0. A destroyed bank's handle can therefore name a spring
/// again only after 2^32 bank creations, and a slot serves at least 2^16 + 1 banks between rests.
/// `sk_bank_create` returns `sk_status_too_many_banks` when every slot is live or resting.
/// Layout versions carry the serial number instead (``BankEntry/versionBase``): unique across
/// 2^32 banks made.
///
/// The lock is held for a lookup or an update of a few slots only: destroying a bank reads the
/// tags it issued (a pass over its records) and frees it outside the lock, holding the bank's
/// in-use flag meanwhile (so its id answers `sk_status_busy` until the destroy returns).
final class BankRegistry: Sendable {
    static let shared = BankRegistry()

    /// Registry slots, slot 0 never a bank's.
    private static let slotCount = 1 << 16
    /// The highest offset a slot is handed out at: a bank there has at least 2^16 generations a
    /// record.
    private static let highestOffset: UInt32 = 1 << 16
    /// Banks made while a slot rests.
    private static let restingBanks: UInt64 = 1 << 32

    private struct State {
        /// Each live bank's serial and entry, retained by hand (from `register` to `unregister`), so
        /// a lookup copies no reference and costs no retain or release. Slot 0 is never a bank.
        var entries: [(serial: UInt64, entry: Unmanaged<BankEntry>)?] = [nil]
        /// Each slot's generation offset (see ``BankEntry/generationOffset``).
        var generationOffsets: [UInt32] = [0]
        /// For a resting slot, the serial number from which it may be handed out again; 0 when
        /// the slot is not resting.
        var restingUntil: [UInt64] = [0]
        var live = 0
        var cursor = 0
        var nextSerial: UInt64 = 1

        /// Whether `slot` may hold a new bank.
        func isUsable(_ slot: Int) -> Bool {
            entries[slot] == nil && (restingUntil[slot] == 0 || nextSerial >= restingUntil[slot])
        }
    }

    private let state = RegistryLock(State())

    /// Registers a new bank; returns its id. `make` is given the slot number, the generation
    /// offset and the layout version base; it runs under the registry's lock (it makes the entry
    /// only: the bank is made before).
    func register(_ make: (_ number: UInt64, _ generationOffset: UInt32, _ versionBase: UInt64) -> BankEntry) throws(Refusal) -> UInt64 {
        try state.withLock { state throws(Refusal) -> UInt64 in
            guard state.live < Self.slotCount - 1 else { throw Refusal(._too_many_banks) }
            var found: Int?
            if state.entries.count < Self.slotCount {
                found = state.entries.count
                state.entries.append(nil)
                state.generationOffsets.append(0)
                state.restingUntil.append(0)
            } else {
                // Round-robin: the next usable slot after the last one handed out.
                var slot = state.cursor
                for _ in 1..<Self.slotCount {
                    slot = slot % (Self.slotCount - 1) + 1
                    if state.isUsable(slot) {
                        found = slot
                        break
                    }
                }
            }
            guard let slot = found else { throw Refusal(._too_many_banks) }
            if state.restingUntil[slot] != 0 {
                // Rested through 2^32 banks made: its tags start again.
                state.restingUntil[slot] = 0
                state.generationOffsets[slot] = 0
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
    ///
    /// The lock is taken twice, each time for a lookup or an update: to take the bank's in-use
    /// flag, then, after the tags the bank issued are read (a pass over its records, outside the
    /// lock), to move its slot's offset on and free the slot. The bank's memory is given back
    /// after that, outside the lock too.
    func unregister(_ id: UInt64) throws(Refusal) {
        let slot = Int(id & 0xFFFF)
        let claimed = try state.withLock { state throws(Refusal) -> Unmanaged<BankEntry>? in
            guard slot < state.entries.count, let live = state.entries[slot], live.serial == id >> 16 else { return nil }
            // A call holds the flag only while it holds the entry (`use` takes it under this lock).
            guard live.entry._withUnsafeGuaranteedRef({ $0.inUse.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged }) else {
                throw Refusal(._busy)
            }
            // The entry stays in its slot, flag held: calls on the id are refused as busy, and the
            // slot is not handed out, until the slot's offset has moved on below.
            return live.entry
        }
        guard let claimed else { throw Refusal(._invalid_bank) }
        let issued = claimed._withUnsafeGuaranteedRef { $0.tagsIssued }
        state.withLock { state in
            if issued > Self.highestOffset {
                state.restingUntil[slot] = state.nextSerial + Self.restingBanks
            } else {
                state.generationOffsets[slot] = issued
            }
            state.entries[slot] = nil
            state.live -= 1
        }
        // Freed outside the lock: a large bank's memory takes a while to give back.
        claimed.release()
    }
}
