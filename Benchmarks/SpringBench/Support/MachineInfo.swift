import CSpringReference
import Foundation
@_spi(KernelInternals) import SpringKernel

/// What the numbers were measured on and built for.
struct MachineInfo: Codable {
    var cpuModel: String
    var processors: Int
    /// The instruction set spring-bench's Swift code (and so the inlined kernel step) was built for.
    var isa: String
    /// The instruction set the C reference loops were built for (clang -O3 -march=native).
    var referenceIsa: String
    /// The widest x86 instruction set the CPU offers (`avx512`, `avx2` or `sse2`, from
    /// /proc/cpuinfo; nil elsewhere): an AVX2 build run on an AVX-512 CPU is a proxy for an AVX2
    /// machine, not one. Optional so that results written before it was recorded still decode.
    var hostIsa: String?
    var swiftVersion: String
    var date: String
    /// The noise meter's readings over the run (nil for a machine not yet measured, and in runs
    /// written before schema 2).
    var noise: NoiseSummary?

    static func current() -> MachineInfo {
        MachineInfo(
            cpuModel: cpuModelName(), processors: StepThreading.processorCount,
            isa: String(cString: spring_bench_compiled_isa()),
            referenceIsa: String(cString: spring_reference_compiled_isa()),
            hostIsa: hostInstructionSet(),
            swiftVersion: swiftCompilerVersion, date: ISO8601DateFormatter().string(from: Date()))
    }

    /// A folder name for this machine and build, like `amd-epyc-2c-avx512` (Box2D's `amd7950x_avx2`);
    /// a build for less than the CPU offers says so, like `amd-epyc-2c-avx2-on-avx512`.
    var slug: String {
        let words = cpuModel.lowercased().split { !$0.isLetter && !$0.isNumber }.prefix(4)
        return (words.map(String.init) + ["\(processors)c", isa] + (isProxyBuild ? ["on", hostIsa ?? ""] : []))
            .joined(separator: "-")
    }

    /// Whether spring-bench was built for less than this CPU offers.
    var isProxyBuild: Bool { hostIsa.map { $0 != isa } ?? false }

    private static func hostInstructionSet() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flags = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return nil }
        // The names spring_bench_compiled_isa() gives the same sets.
        let words = Set(flags.split(separator: " "))
        if ["avx512f", "avx512vl", "avx512bw"].allSatisfy({ words.contains($0) }) { return "avx512" }
        return words.contains("avx2") ? "avx2" : "sse2"
    }

    private static func cpuModelName() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }

    private static var swiftCompilerVersion: String {
        #if compiler(>=6.4)
        return ">=6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #else
        return "<6.2"
        #endif
    }

    /// One line for the top of a report.
    var headline: String {
        "\(cpuModel), \(processors) cores\(isProxyBuild ? " (the CPU offers \(hostIsa ?? ""))" : ""); "
            + "spring-bench built for \(isa), C reference for \(referenceIsa); Swift \(swiftVersion)"
    }
}
