// A program that uses one format (Q16.16), as a microcontroller's UI would: a bank made with room
// reserved, springs added, retargeted and stepped, their values read, one removed, and a line
// written as firmware writes one (LineWriter.swift: bytes through putchar, no String).
// `.ci/cortex-m` builds it at -Osize for the Cortex-M4F, linked with newlib-nano, and holds the
// text it links (kernel, Embedded Swift's standard library and runtime, newlib-nano, libgcc's
// soft double, the board's start) to the 64 KB budget; its line must equal x86-64's.
//
//   CROSS_OPTIMIZATION=-Osize .ci/cross build cortex-m4f-nano prog.elf Tests/CrossCodeSize/*.swift
//   arm-none-eabi-size prog.elf
import SpringKernel

@main
struct CrossCodeSize {
    static func main() {
        do throws(SpringKernelError) {
            let bank = try SpringBank<Q16Lanes>(threading: .single, capacity: 32)
            let configuration = try SpringConfiguration(tension: 342, friction: 30)
            var springs: [SpringHandle] = []
            for i in 0..<32 {
                springs.append(try bank.add(
                    value: Q16(raw: Int32(i) << 18), target: Q16(raw: 0), configuration: configuration, tolerance: Q16(raw: 1 << 14)))
            }
            var frames = 0, sum: Int64 = 0
            while bank.awakeCount > 0, frames < 2_000 {
                if frames == 10 { for spring in springs.prefix(8) { try bank.retarget(spring, to: Q16(raw: 100 << 16)) } }
                try bank.step(dt: 1.0 / 60)
                frames += 1
                for spring in springs { sum &+= Int64(try bank.value(of: spring).raw) }
            }
            try bank.remove(springs[0])
            LineWriter.write("one format q16.16: ")
            LineWriter.write(bank.count)
            LineWriter.write(" springs, ")
            LineWriter.write(frames)
            LineWriter.write(" frames, value sum ")
            LineWriter.write(sum)
            LineWriter.write(", hash ")
            LineWriter.write(bank.stateHash())
            LineWriter.write("\n")
        } catch {
            LineWriter.write("one format q16.16: refused\n")
        }
    }
}
