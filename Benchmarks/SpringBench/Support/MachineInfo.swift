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
    /// The CPU's family and model numbers from /proc/cpuinfo (`family 26, model 2`: Zen 5 for AMD's
    /// family 26, Zen 3 or 4 for 25), which the model name of a VM often leaves out; nil elsewhere
    /// and in runs written before it was recorded.
    var cpuFamily: String? = nil
    /// The commit spring-bench was run from (`git describe --always --dirty` in the working
    /// directory; `-dirty`: with uncommitted changes), nil outside a git checkout.
    var commit: String? = nil

    static func current() -> MachineInfo {
        let cpu = cpuInfo()
        return MachineInfo(
            cpuModel: cpu["model name"] ?? "unknown", processors: StepThreading.processorCount,
            isa: String(cString: spring_bench_compiled_isa()),
            referenceIsa: String(cString: spring_reference_compiled_isa()),
            hostIsa: cpu["flags"].map(instructionSet(flags:)),
            swiftVersion: swiftCompilerVersion, date: ISO8601DateFormatter().string(from: Date()),
            cpuFamily: cpu["cpu family"].flatMap { family in cpu["model"].map { "family \(family), model \($0)" } },
            commit: gitCommit())
    }

    /// The machine.json of a run folder, nil if there is none or it does not decode.
    static func read(folder: String) -> MachineInfo? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: "\(folder)/machine.json")) else { return nil }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try? decoder.decode(MachineInfo.self, from: data)
    }

    /// The first processor's fields in /proc/cpuinfo (`model name`, `flags`, `cpu family`,
    /// `model`...), read once; empty where there is no such file.
    private static func cpuInfo() -> [String: String] {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return [:] }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) { if fields.isEmpty { continue } else { break } }
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            fields[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    private static func gitCommit() -> String? {
        let git = Process(), pipe = Pipe()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "describe", "--always", "--dirty"]
        git.standardOutput = pipe
        git.standardError = FileHandle.nullDevice
        guard (try? git.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        git.waitUntilExit()
        guard git.terminationStatus == 0 else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
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

    /// The widest of the sets spring_bench_compiled_isa() names that a cpuinfo `flags` line offers.
    private static func instructionSet(flags: String) -> String {
        let words = Set(flags.split(separator: " "))
        if ["avx512f", "avx512vl", "avx512bw"].allSatisfy({ words.contains($0) }) { return "avx512" }
        return words.contains("avx2") ? "avx2" : "sse2"
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
