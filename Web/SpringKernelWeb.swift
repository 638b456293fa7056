// The web build's entry file (.ci/web build): with the C interface's sources
// (Sources/SpringKernelC/*.swift), MotionInteractionsWeb.swift, the kernel and the interaction
// layer, one WebAssembly module with no imports. The C
// interface's `sk_` calls are its API (exported by name, as spring_kernel.h declares them; the ES
// module Web/spring-kernel.mjs wraps them); this file adds what JavaScript needs beside them: wasm
// memory to pass arrays in and out, and which build it is.
//
// wasm32: pointers and sizes are i32, uint64_t handles and bank ids i64 (BigInt in JavaScript).
import SpringKernel

/// `bytes` of wasm memory aligned to 16 bytes (SIMD128's width; every typed array's element fits),
/// or 0 when the memory cannot grow that far (or `bytes` is not positive). The memory may grow:
/// JavaScript makes its typed-array views again after this call.
@_expose(wasm, "skw_allocate")
@c(skw_allocate)
public func skw_allocate(_ bytes: Int32) -> Int32 {
    guard bytes > 0 else { return 0 }
    let raw = UnsafeMutableRawPointer.allocate(byteCount: Int(bytes), alignment: 16)
    return Int32(truncatingIfNeeded: UInt(bitPattern: raw))
}

/// Gives back memory `skw_allocate` gave (0 does nothing).
@_expose(wasm, "skw_deallocate")
@c(skw_deallocate)
public func skw_deallocate(_ address: Int32) {
    guard let raw = UnsafeMutableRawPointer(bitPattern: UInt(UInt32(bitPattern: address))) else { return }
    raw.deallocate()
}

/// 1 if this module's step loops are WebAssembly SIMD128, 0 for the scalar build (the ES module
/// loads the scalar one where `WebAssembly.validate` refuses SIMD).
@_expose(wasm, "skw_simd128")
@c(skw_simd128)
public func skw_simd128() -> Int32 {
    #if SPRING_KERNEL_WEB_SIMD128
    return 1
    #else
    return 0
    #endif
}
