import Foundation
@_spi(KernelInternals) import SpringKernel

extension SplitMix64 {
    /// Log-uniform in [low, high): e^(ln low + u (ln high − ln low)) for the next `unit()` u. The
    /// benchmark's corpora (settle, fidelity, soak) draw their ranges through this one.
    mutating func logUniform(_ low: Double, _ high: Double) -> Double {
        exp(log(low) + unit() * (log(high) - log(low)))
    }
}
