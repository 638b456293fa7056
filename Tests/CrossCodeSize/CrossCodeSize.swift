// A program that uses one format (Q16.16), as a microcontroller's UI would: a bank made with room
// reserved, springs added, retargeted and stepped, their values read, one removed. `.ci/cortex-m`
// builds it at -Osize for the Cortex-M4F and checks the text it links (kernel, Embedded Swift's
// standard library and runtime, newlib) against the budget; its line must equal x86-64's.
//
//   CROSS_OPTIMIZATION=-Osize .ci/cross build cortex-m4f prog.elf Tests/CrossCodeSize/CrossCodeSize.swift
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
            print("one format q16.16: \(bank.count) springs, \(frames) frames, value sum \(sum), hash \(bank.stateHash())")
        } catch {
            print("one format q16.16: refused")
        }
    }
}
