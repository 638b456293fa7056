import Foundation
import Testing

/// Runs the Swift compiler on a snippet against this build's modules, to check what the
/// language refuses: a test cannot compile code that must not compile, but it can ask `swiftc`.
enum CompilerCheck {
    /// `.build/<configuration>/Modules`, beside the test binary.
    static var modules: URL? {
        let binary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        let directory = binary.deletingLastPathComponent().appendingPathComponent("Modules")
        return FileManager.default.fileExists(atPath: directory.appendingPathComponent("SpringKernel.swiftmodule").path) ? directory : nil
    }

    static var swiftc: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static var isAvailable: Bool { modules != nil && swiftc != nil }

    /// The compiler's errors for `source` in Swift 6 mode (type checking and the SIL diagnostics
    /// that find data races), one per line; empty when it compiles.
    static func errors(in source: String) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Snippet.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = swiftc
        process.arguments = ["-emit-sil", "-o", "/dev/null", "-parse-as-library", "-swift-version", "6", "-I", modules!.path, file.path]
        // The driver leaves a TemporaryDirectory.* behind in TMPDIR: keep it inside ours.
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": directory.path]) { $1 }
        let output = Pipe()
        process.standardError = output
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix(file.path) && $0.contains("error:") }
            .map { String($0.dropFirst(file.path.count)) }
    }
}

/// The kernel's threading contract, as the compiler enforces it: a `SpringBank` is not `Sendable`,
/// so Swift 6 refuses to let two threads or tasks reach one bank, and allows handing a bank over
/// whole. (ThreadedStepTests runs what is allowed under ThreadSanitizer.)
@Suite("Threading contract (compile time)", .enabled(if: CompilerCheck.isAvailable, "needs swiftc on PATH and the build's Modules directory"))
struct ThreadingContractTests {
    @Test("sharing a bank with another thread does not compile")
    func anotherThread() throws {
        let errors = try CompilerCheck.errors(in: """
            import Dispatch
            import SpringKernel
            func stepFromTwoThreads() throws {
                let bank = SpringBank<Float32Lanes>()
                DispatchQueue.global().async { try? bank.step(dt: 1.0 / 60) }
                try bank.step(dt: 1.0 / 60)
            }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("capture of 'bank' with non-Sendable type 'SpringBank<Float32Lanes>' in a '@Sendable' closure") == true, "\(errors)")
    }

    @Test("sharing a bank with another task does not compile")
    func anotherTask() throws {
        let errors = try CompilerCheck.errors(in: """
            import SpringKernel
            func stepInTwoTasks() async throws {
                let bank = SpringBank<Float32Lanes>()
                Task.detached { try? bank.step(dt: 1.0 / 60) }
                try bank.step(dt: 1.0 / 60)
            }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("risks causing data races") == true, "\(errors)")
    }

    @Test("reaching an actor's bank from outside it does not compile")
    func outsideItsActor() throws {
        let errors = try CompilerCheck.errors(in: """
            import SpringKernel
            actor Engine { let bank = SpringBank<Float32Lanes>() }
            func stepOutside(_ engine: Engine) async throws { try await engine.bank.step(dt: 1.0 / 60) }
            """)
        #expect(errors.first?.contains("non-Sendable type 'SpringBank<Float32Lanes>'") == true, "\(errors)")
    }

    @Test("the allowed uses compile: one actor, or a bank handed over whole")
    func allowed() throws {
        let errors = try CompilerCheck.errors(in: """
            import SpringKernel
            actor Engine {
                let bank = SpringBank<Float32Lanes>()
                func frame() throws { try bank.step(dt: 1.0 / 60) }
            }
            func handOver() async throws -> Int {
                let bank = SpringBank<Q16Lanes>(threading: .fixed(2))
                _ = try bank.add(value: 0, target: 100, tolerance: 1)
                return try await Task.detached { try bank.step(dt: 1.0 / 60); return bank.frame }.value
            }
            """)
        #expect(errors.isEmpty, "\(errors)")
    }
}
