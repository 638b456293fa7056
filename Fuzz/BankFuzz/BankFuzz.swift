import Foundation
@_spi(KernelInternals) import SpringKernel

/// libFuzzer's entry point: the first byte picks the lane format (bit 0: float32 or Q16.16) and,
/// for Q16.16, the caller's floating-point environment (bits 1–3, ``CallerEnvironment``); the rest
/// is a script of bank calls (``BankHarness``). Any violated promise stops the run (a crash).
///
/// A Q16.16 script in another environment runs twice: in round-to-nearest, then with every bank
/// call made in that environment (the harness's own checks stay in nearest). Both runs must see
/// the same acceptances and refusals and end at the same state hash: a Q16.16 bank's bits and what
/// it accepts do not depend on the caller's rounding mode, flush-to-zero or denormals-are-zero.
@_cdecl("LLVMFuzzerTestOneInput")
public func bankFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let first = input.byte()
    if first & 1 == 0 {
        BankHarness<Float32Lanes>(input: input).run()
        return 0
    }
    let nearest = BankHarness<Q16Lanes>(input: input)
    nearest.run()
    guard let environment = CallerEnvironment(rawValue: Int(first >> 1) & 7) else { return 0 }
    let other = BankHarness<Q16Lanes>(input: input, environment: environment)
    other.run()
    guard other.outcomes == nearest.outcomes else {
        violated("in \(environment), the calls' outcomes \(other.outcomes) differ from nearest's \(nearest.outcomes)")
    }
    guard other.bank.stateHash() == nearest.bank.stateHash() else { violated("in \(environment), another state hash than in nearest") }
    return 0
}

/// A floating-point environment a caller's thread may be in when it calls the bank.
enum CallerEnvironment: Int {
    case upward = 1, downward, towardZero
    /// MXCSR alone (as _MM_SET_ROUNDING_MODE does), with flush-to-zero and denormals-are-zero.
    case sseUpwardFlushing, sseDownwardFlushing, sseTowardZeroFlushing

    /// Sets this environment on the thread; returns the one it replaced.
    func enter() -> fenv_t {
        var saved = fenv_t()
        fegetenv(&saved)
        switch self {
        case .upward: fesetround(FE_UPWARD)
        case .downward: fesetround(FE_DOWNWARD)
        case .towardZero: fesetround(FE_TOWARDZERO)
        case .sseUpwardFlushing, .sseDownwardFlushing, .sseTowardZeroFlushing:
            #if arch(x86_64)
            var set = saved
            let mode: UInt32 = self == .sseUpwardFlushing ? 0x4000 : self == .sseDownwardFlushing ? 0x2000 : 0x6000
            set.__mxcsr = (set.__mxcsr & ~0x6000) | mode | 0x8040
            fesetenv(&set)
            #else
            fesetround(FE_UPWARD)
            #endif
        }
        return saved
    }
}
