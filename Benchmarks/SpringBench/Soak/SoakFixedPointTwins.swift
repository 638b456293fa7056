@_spi(KernelInternals) import SpringKernel

/// The fixed-point part of the soak: the same seeded workload on two `FixedSpringBank`s, one
/// stepped by the SIMD loop on one thread and one by the scalar loop on two, whose state hashes
/// must agree at every checkpoint. Q16.16 promises the same bits whatever the loop and thread
/// count, through pauses, restarts, removals, reconfigurations and hitches alike.
enum SoakFixedPointTwins {
    /// What the twins did.
    struct Report: Codable, Hashable {
        var springs: Int
        var frames: Int
        /// Checkpoints compared (every 64 frames and the last).
        var checkpoints: Int
        /// Checkpoints at which the hashes differed.
        var mismatches: Int
        /// The last state hash (of the first twin), as 16 hex digits.
        var finalHash: String
        /// Calls the banks refused (a velocity past Q16.16's range), the same in both.
        var refusals: Int
        var saturations: Int
        var restEvents: Int
    }

    /// Runs both twins for `frames` frames of the soak's frame clock.
    static func run(springs: Int, frames: Int, seed: UInt64, clock: SoakFrameClock) throws -> Report {
        let first = try run(springs: springs, frames: frames, seed: seed, clock: clock, threading: .single, path: .simd)
        let second = try run(springs: springs, frames: frames, seed: seed, clock: clock, threading: .fixed(2), path: .scalar)
        let mismatches = zip(first.hashes, second.hashes).filter { $0 != $1 }.count
            + (first.refusals == second.refusals ? 0 : 1)
        let digits = String(first.hashes.last ?? 0, radix: 16)
        return Report(
            springs: springs, frames: frames, checkpoints: first.hashes.count, mismatches: mismatches,
            finalHash: String(repeating: "0", count: 16 - digits.count) + digits, refusals: first.refusals,
            saturations: first.saturations, restEvents: first.restEvents)
    }

    private static func run(
        springs: Int, frames: Int, seed: UInt64, clock: SoakFrameClock, threading: StepThreading, path: StepPath
    ) throws -> (hashes: [UInt64], refusals: Int, saturations: Int, restEvents: Int) {
        let bank = try FixedSpringBank(threading: threading, capacity: springs / 4)
        let workload = SoakKernelWorkload(
            bank: bank, springs: springs, period: max(2, frames / 3), seed: seed, observer: nil, extremeTargets: false, path: path)
        var clock = clock
        var hashes: [UInt64] = []
        for frame in 0..<frames {
            try workload.advance(dt: clock.next())
            if frame % 64 == 63 || frame == frames - 1 { hashes.append(bank.stateHash()) }
        }
        return (hashes, workload.tally.refusals, bank.saturationCount, workload.tally.restEvents)
    }
}
