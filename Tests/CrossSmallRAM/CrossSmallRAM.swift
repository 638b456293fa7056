// A bank of 64 springs on a board with 16 KB of RAM (QEMU's `microbit`, a Cortex-M0): reserved
// up front, the springs added, stepped at 60 Hz until every one rests. `.ci/cortex-m` runs it
// there and on x86-64 (`.ci/cross run-x86_64`); the lines must be equal.
//
//   .ci/cross run cortex-m0-microbit Tests/CrossSmallRAM/CrossSmallRAM.swift
import SpringKernel

@main
struct CrossSmallRAM {
    static func main() {
        run(Q16Lanes.self, value: { Q16(raw: Int32($0) << 12) }, tolerance: Q16(raw: 1 << 14))
        run(Float32Lanes.self, value: { Float($0) / 16 }, tolerance: 0.25)
    }

    static func run<Lanes: SpringLaneArithmetic>(_ lanes: Lanes.Type, value: (Int) -> Lanes.Value, tolerance: Lanes.Value) {
        var state: UInt64 = 0x16_4B_AA
        // A 64-bit linear congruential generator (Knuth's MMIX constants): the same draws everywhere.
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        do throws(SpringKernelError) {
            let bank = try SpringBank<Lanes>(threading: .single, capacity: 64)
            let configuration = try SpringConfiguration(tension: 342, friction: 30)
            for _ in 0..<64 {
                let from = Int(next() % 4000) - 2000, to = Int(next() % 4000) - 2000
                _ = try bank.add(value: value(from), target: value(to), configuration: configuration, tolerance: tolerance)
            }
            var frames = 0, rests = 0
            while bank.awakeCount > 0, frames < 10_000 {
                try bank.step(dt: 1.0 / 60)
                frames += 1
                rests += bank.restedInLastStep.count
            }
            print("small RAM \(Lanes.formatName): \(bank.count) springs, \(rests) rests in \(frames) frames, hash \(hex(bank.stateHash()))")
        } catch {
            print("small RAM \(Lanes.formatName): refused (\(error == .outOfMemory ? "outOfMemory" : "another error"))")
        }
    }

    static func hex(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for shift in stride(from: 60, through: 0, by: -4) { text.append(digits[Int((value >> UInt64(shift)) & 15)]) }
        return String(decoding: text, as: UTF8.self)
    }
}
