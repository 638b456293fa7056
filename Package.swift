// swift-tools-version:6.2
//
// SpringKernel: very many damped springs, stepped exactly, that say when they are at rest.
//
// The library products carry no unsafe flags, so engines can depend on them. The kernel's hot
// step is `@inlinable`: it is specialised and compiled inside the module that calls it, at that
// module's target CPU. The benchmark executable is built for the host CPU (`-march=native`), so
// `swift run -c release spring-bench` measures the full SIMD width without any flag from the user.
import PackageDescription

/// The library targets: Swift 6 language mode (complete concurrency checking). Their warnings are
/// errors in CI (`.ci/run` builds them with `-warnings-as-errors`), not here, so that a package
/// depending on them builds them under its own warning settings.
let library: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// The benchmark, the tests and their support targets, which no dependent builds: every warning
/// an error.
let strict: [SwiftSetting] = library + [.treatAllWarnings(as: .error)]

/// The CPU spring-bench is built for: the host's (`native`, the default), another `-march` name
/// (`SPRING_BENCH_CPU=znver3` builds AVX2 code on an AVX-512 machine), or `baseline` (plain
/// x86-64, SSE2), which CI builds beside the host's to compare determinism hashes.
let benchCPU = Context.environment["SPRING_BENCH_CPU"] ?? "native"
let nativeCPU: [SwiftSetting] =
    benchCPU == "baseline" ? [] : [.unsafeFlags(["-Xcc", "-march=\(benchCPU)"], .when(platforms: [.linux]))]

/// The C maths library, where it is a library of its own. The kernel's Swift code calls `sqrt`,
/// `floor`, `ceil`, `rint`, `round`, `trunc` and `fmod` (the standard library's `squareRoot()`,
/// `rounded(_:)` and `truncatingRemainder(dividingBy:)` lower to them), and its shims call
/// `feholdexcept`, `fegetround`, `fesetround` and `fesetenv`. Neither imports Glibc or Foundation (the kernel builds as Embedded
/// Swift), so nothing else asks the linker for libm: a program that imports only `SpringKernel`
/// failed to link on Linux (issue 32; .ci/consumers builds such programs). Apple's libm is part of
/// libSystem and Windows' of the C runtime: nothing to add there. FreeBSD needs it too, but
/// PackageDescription 6.2 cannot name FreeBSD.
let libm: [LinkerSetting] = [.linkedLibrary("m", .when(platforms: [.linux, .android, .openbsd, .wasi]))]

let package = Package(
    name: "SpringKernel",
    products: [
        .library(name: "SpringKernel", targets: ["SpringKernel"]),
        .library(name: "MotionInteractions", targets: ["MotionInteractions"]),
        // The C interface (header: Sources/SpringKernelC/include/spring_kernel.h), as a shared
        // library (libSpringKernelC.so) and a static one; both need the Swift runtime. Engines
        // build the same interface without one from the root CMakeLists.txt (Embedded Swift).
        .library(name: "SpringKernelC", type: .dynamic, targets: ["SpringKernelC"]),
        .library(name: "SpringKernelCStatic", type: .static, targets: ["SpringKernelC"]),
        .executable(name: "spring-bench", targets: ["SpringBench"]),
    ],
    targets: [
        .target(
            name: "SpringKernel",
            dependencies: ["_SpringKernelShims"],
            swiftSettings: library,
            linkerSettings: libm
        ),
        // C beside the kernel: the fixed-point step's float-to-integer rounding (static inline in
        // the header: Swift can only write it with a range check per lane), the storage-order
        // streams (a portable body each, with AVX-512 and AVX2 variants chosen by the CPU on
        // x86-64), and the platform needs Platform.swift wraps (rounding mode, processor count).
        .target(name: "_SpringKernelShims", linkerSettings: libm),
        // `@c` functions over the kernel's public API; the compiler writes their header.
        .target(
            name: "SpringKernelC",
            dependencies: ["SpringKernel"],
            exclude: ["include"],
            swiftSettings: library
        ),
        .target(
            name: "MotionInteractions",
            dependencies: ["SpringKernel", "_MotionInteractionsShims"],
            swiftSettings: library
        ),
        // The frame's prefetch (Swift has no word for it): a header of static inline C.
        .target(name: "_MotionInteractionsShims"),
        // C loops of the same arithmetic, compiled like the ANCHORS reference (clang -O3 -march=native),
        // so the benchmark can measure Swift against C in the same run.
        .target(
            name: "CSpringReference",
            path: "Benchmarks/CSpringReference",
            cSettings: [.unsafeFlags(["-O3"] + (benchCPU == "baseline" ? [] : ["-march=\(benchCPU)"]), .when(platforms: [.linux]))]
        ),
        // Loops that call the C interface from C, for spring-bench c-boundary.
        .target(name: "CBoundaryCaller", path: "Benchmarks/CBoundaryCaller"),
        // A malloc interposer that counts heap allocations, linked into spring-bench only.
        .target(name: "CAllocationCounter", path: "Benchmarks/CAllocationCounter"),
        // The exact motion in Float64 (libm closed form) and the brute-force rest scans: the one
        // oracle the benchmark, the tests and the fuzzers (.ci/fuzz) judge the kernel by. It
        // depends on nothing, so it shares no code with the kernel.
        .target(name: "_SpringOracles", swiftSettings: strict),
        // spring-bench's statistics (bootstrap intervals, verdicts, the adaptive-repeat rule), a
        // target of their own so that a test target can import them.
        .target(name: "BenchStatistics", dependencies: ["SpringKernel"], path: "Benchmarks/BenchStatistics", swiftSettings: strict),
        .executableTarget(
            name: "SpringBench",
            dependencies: ["SpringKernel", "MotionInteractions", "SpringKernelC", "CSpringReference", "CAllocationCounter", "CBoundaryCaller", "BenchStatistics", "_SpringOracles"],
            path: "Benchmarks/SpringBench",
            swiftSettings: strict + nativeCPU
        ),
        // The interaction layer's cross-architecture program (.ci/cross check runs it as Embedded
        // Swift on every target): built here as regular Swift too, its lines are the oracle the
        // Embedded builds must print.
        .executableTarget(name: "CrossLayer", dependencies: ["MotionInteractions", "SpringKernel"], path: "Tests/CrossLayer", swiftSettings: strict),
        // Asks swiftc what a snippet does not compile: the threading-contract tests of both test
        // targets use it (a test target cannot import another).
        .target(name: "CompilerCheck", path: "Tests/CompilerCheck", swiftSettings: strict),
        .testTarget(
            name: "SpringKernelTests",
            dependencies: ["SpringKernel", "CompilerCheck", "_SpringOracles"],
            swiftSettings: strict
        ),
        // The C interface called from Swift: refusals that change nothing, identities that do not
        // alias, the in-use flag (the C clients in Tests/CClients run it from C, under ASan).
        .testTarget(
            name: "SpringKernelCTests",
            dependencies: ["SpringKernelC", "SpringKernel"],
            swiftSettings: strict
        ),
        // The oracle against independent checks: numerical integration and the equation's residual.
        .testTarget(
            name: "SpringOraclesTests",
            dependencies: ["_SpringOracles"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BenchStatisticsTests",
            dependencies: ["BenchStatistics"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MotionInteractionsTests",
            dependencies: ["MotionInteractions", "CompilerCheck"],
            swiftSettings: strict
        ),
    ]
)
