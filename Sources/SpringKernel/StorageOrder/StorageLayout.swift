/// Which springs a read or write in storage order covers (see ``StorageLayout``).
public enum StorageRegion: Int32, Hashable, Sendable {
    /// Every spring in the bank.
    case all = 0
    /// The springs the next step advances: not at rest, not paused. Right after a step these are
    /// the springs it moved that are still moving; those it brought to rest are in
    /// ``SpringBank/restedInLastStep`` instead, snapped onto their targets.
    case moving = 1
}

/// Where a bank keeps its springs, for reading and writing many at memory speed.
///
/// A bank keeps its springs' lanes in its own order: batch by batch (one per configuration), each
/// batch's moving springs first, then the paused, then those at rest. Reading every spring's value
/// by handle costs a lookup per spring (handle, record, batch, slot); reading them in the bank's
/// own order streams each batch's lanes straight into the caller's array, at the speed of memory.
///
/// A layout names that order at one moment: ``SpringBank/storageLayout(of:)`` takes it, and the
/// calls that take a layout read or write `count` springs in it, the i-th element of every buffer
/// being the same spring. ``SpringBank/userValues(in:into:)`` (the caller's own ids) or
/// ``SpringBank/springs(in:into:)`` (handles) say which spring each element is.
///
/// The order changes whenever a spring changes slot or region: it comes to rest or starts to move
/// (a step, a retarget), is paused or resumed, added, removed or configured. Each such change
/// moves the bank's ``SpringBank/layoutVersion`` on, and a call given a layout of an older
/// version (or of another bank) throws ``SpringKernelError/staleLayout`` and changes nothing, so
/// a value can never be read or written for the wrong spring. Reading values, velocities and
/// targets changes nothing, so one layout serves every read until the bank changes.
///
/// <!-- fragment: kernel-storage-layout -->
/// ```swift
/// try bank.step(dt: dt)
/// let moved = bank.storageLayout(of: .moving)
/// try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: moved, into: $0) }
/// try values.withUnsafeMutableBufferPointer { try bank.values(in: moved, into: $0) }
/// // values[i] is the value of the spring whose user value is ids[i]
/// ```
public struct StorageLayout: Hashable, Sendable {
    /// The springs it covers.
    public let region: StorageRegion
    /// How many springs it covers: the length of every buffer read or written through it.
    public let count: Int
    /// The bank's ``SpringBank/layoutVersion`` when it was taken.
    public let version: UInt64
    /// The bank that made it.
    let bankTag: UInt32
}

extension PlanValidity {
    /// Moves the layout version on: a spring changed slot or region.
    func layoutChanged() { state.pointee.layoutVersion &+= 1 }
}
