@_spi(KernelInternals) import SpringKernel

/// libFuzzer's entry point: the first byte picks the lane format (float32 or Q16.16), the rest is
/// a script of bank calls (``BankHarness``). Any violated promise stops the run (a crash).
@_cdecl("LLVMFuzzerTestOneInput")
public func bankFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    if input.byte() & 1 == 0 {
        BankHarness<Float32Lanes>(input: input).run()
    } else {
        BankHarness<Q16Lanes>(input: input).run()
    }
    return 0
}
