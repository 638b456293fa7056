// A program that faults on purpose: a load from an address no MPS2 board maps. `.ci/cortex-m`
// runs it on the Cortex-M4F, and checks that the board's start (Platforms/CortexM/startup.c) ends
// the run with a failure status and one line naming the faulting instruction and the fault's
// status registers, so that a crash in any Cortex-M check is never mistaken for a pass.
//
//   .ci/cross run cortex-m4f Tests/CrossFault/CrossFault.swift   # exit status 70
@main
struct CrossFault {
    static func main() {
        // 0x3000_0000 lies in no memory or peripheral region of the MPS2 boards: a precise bus
        // fault (a HardFault on ARMv6-M, which has no fault status registers).
        let unmapped = UnsafePointer<UInt32>(bitPattern: 0x3000_0000)!
        print("reading an unmapped address")
        let value = unmapped.pointee
        print("read \(value): no fault")
    }
}
