/// A bank of float32 springs.
public typealias FloatSpringBank = SpringBank<Float32Lanes>
/// A bank of Q16.16 fixed-point springs: the same bits on every machine.
public typealias FixedSpringBank = SpringBank<Q16Lanes>

extension SpringBank {
    /// A 64-bit FNV-1a hash of the bank's whole state: the frame count and, for every spring in
    /// handle order, its handle, its raw displacement, velocity and target lanes, its tolerance and
    /// configuration, whether it rests and how many masks hold it.
    ///
    /// Two banks with equal hashes are in the same state (with overwhelming probability), however
    /// their lanes are laid out: lockstep peers compare hashes to detect a desync, and the
    /// determinism tests pin the hash of a fixed scene.
    ///
    /// - Complexity: O(spring records: the springs in the bank and the records removed springs
    ///   freed).
    public func stateHash() -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ word: UInt64) {
            var value = word
            for _ in 0..<8 {
                hash = (hash ^ (value & 0xFF)) &* 0x0000_0100_0000_01B3
                value >>= 8
            }
        }
        mix(UInt64(core.frame))
        for index in core.records.indices where core.places[index].isLive {
            let lanes = core.lanePatterns(ofRecord: index)
            let configuration = core.batch(ofRecord: index).batch.configuration
            mix(UInt64(index) << 32 | UInt64(core.places[index].generation))
            mix(UInt64(lanes.displacement) << 32 | UInt64(lanes.velocity))
            mix(UInt64(lanes.target) << 32 | UInt64(core.pauseDepth(record: index)) << 1 | (core.isAwake(record: index) ? 0 : 1))
            mix(core.tolerance(record: index).bitPattern)
            mix(configuration.tension.bitPattern)
            mix(configuration.friction.bitPattern)
            mix(configuration.mass.bitPattern)
        }
        return hash
    }
}
