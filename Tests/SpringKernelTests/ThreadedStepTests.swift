import Foundation
import Testing
@_spi(KernelInternals) @testable import SpringKernel

/// The step split across threads, sized so every frame really is split (``StepThreading`` splits
/// by bundles of 16 springs: 800 springs are 50 bundles, 25 a thread), with everything that
/// changes a frame's work in between: pauses (masked bundles), retargets, removals and additions
/// (slots swapped, buffers grown), a new frame duration and a hitch. These are the tests
/// `.ci/sanitizers` runs under ThreadSanitizer; they also check that threads never change the bits.
@Suite("Threaded step")
struct ThreadedStepTests {
    /// Builds the same scene in `banks` and steps them together, comparing every frame.
    static func scene<Lanes: SpringLaneArithmetic>(
        _ banks: [SpringBank<Lanes>], frames: Int, value: (Double) -> Lanes.Value
    ) throws -> UInt64 {
        let configurations = try [
            SpringConfiguration.default, SpringConfiguration(tension: 1323, friction: 91),
            SpringConfiguration(tension: 120, friction: 6, mass: 2), SpringConfiguration(tension: 100, friction: 80),
        ]
        var random = SeededGenerator(seed: 0x7452_4541_4453)
        var springs: [[SpringHandle]] = banks.map { _ in [] }
        func add(_ count: Int) throws {
            for i in 0..<count {
                let start = Double(random.integer(in: -4000...4000)) / 8, target = Double(random.integer(in: -4000...4000)) / 8
                let velocity = Double(random.integer(in: -8000...8000)) / 4
                for (b, bank) in banks.enumerated() {
                    springs[b].append(try bank.add(
                        value: value(start), target: value(target), velocity: value(velocity),
                        configuration: configurations[i % configurations.count], tolerance: value(i % 3 == 0 ? 0.5 : 1.0 / 64)))
                }
            }
        }
        try add(800)
        let masks = try banks.enumerated().map { b, bank in try bank.makePauseMask(springs[b].enumerated().filter { $0.offset % 7 == 3 }.map(\.element)) }
        for (b, bank) in banks.enumerated() { try bank.pause(masks[b]) }
        for frame in 0..<frames {
            let dt = frame == 30 ? 2.0 : frame < 45 ? 1.0 / 60 : 1.0 / 120
            let path: StepPath = frame % 3 == 2 ? .scalar : .simd
            for bank in banks { try bank.step(dt: dt, path: path) }
            switch frame {
            case 10:
                for (b, bank) in banks.enumerated() {
                    for spring in springs[b].enumerated().filter({ $0.offset % 5 == 0 }).map(\.element) where bank.contains(spring) {
                        try bank.retarget(spring, to: value(64))
                    }
                }
            case 20:
                for (b, bank) in banks.enumerated() { try bank.resume(masks[b]) { _ in (value(-100), value(300)) } }
            case 25:
                for (b, bank) in banks.enumerated() {
                    for spring in springs[b].enumerated().filter({ $0.offset % 9 == 1 }).map(\.element) { try bank.remove(spring) }
                }
                try add(300)
            default: break
            }
            let hashes = Set(banks.map { $0.stateHash() })
            #expect(hashes.count == 1, "frame \(frame): the banks disagree")
            let rested = Set(banks.map { $0.restedInLastStep.map(\.index) })
            #expect(rested.count == 1, "frame \(frame): rest events differ")
            guard hashes.count == 1, rested.count == 1 else { break }
        }
        for bank in banks { try bank._checkInvariants() }
        return banks[0].stateHash()
    }

    @Test("float32: two threads give the same bits and events as one, through pauses, growth, removals and hitches")
    func float32() throws {
        let banks = [SpringBank<Float32Lanes>(threading: .single), SpringBank<Float32Lanes>(threading: .fixed(2))]
        _ = try Self.scene(banks, frames: 60) { Float($0) }
        #expect(StepThreading.fixed(2).threadCount(movingSprings: 800) == 2)
    }

    @Test("Q16.16: two threads give the same bits and events as one, through pauses, growth, removals and hitches")
    func fixedPoint() throws {
        let banks = [FixedSpringBank(threading: .single), FixedSpringBank(threading: .fixed(2))]
        _ = try Self.scene(banks, frames: 60) { Q16Lanes.nearestValue(to: $0) }
    }

    @Test("banks on concurrent tasks share nothing: each gives the bits it gives alone")
    func independentBanks() async throws {
        let alone = try Self.scene([SpringBank<Float32Lanes>(threading: .fixed(2))], frames: 20) { Float($0) }
        let together = try await withThrowingTaskGroup(of: UInt64.self) { group in
            for _ in 0..<4 {
                group.addTask { try Self.scene([SpringBank<Float32Lanes>(threading: .fixed(2))], frames: 20) { Float($0) } }
            }
            return try await group.reduce(into: [UInt64]()) { $0.append($1) }
        }
        #expect(together == Array(repeating: alone, count: 4))
    }

    @Test("a bank handed whole to another task (nothing kept behind) keeps working there")
    func handOff() async throws {
        let bank = SpringBank<Float32Lanes>(threading: .fixed(2))
        for i in 0..<400 { try bank.add(value: Float(i), target: 0, tolerance: 0.5) }
        try bank.step(dt: 1.0 / 60)
        // `bank` is disconnected from everything else here, so Swift 6 lets it be sent.
        let frames = try await Task.detached {
            while bank.awakeCount > 0 { try bank.step(dt: 1.0 / 60) }
            return bank.frame
        }.value
        #expect(frames > 1)
    }
}
