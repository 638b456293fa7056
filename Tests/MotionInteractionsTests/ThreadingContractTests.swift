import Foundation
import Testing

/// Runs the Swift compiler on a snippet against this build's modules (the same helper as in
/// SpringKernelTests, which this target cannot import).
enum CompilerCheck {
    static var modules: URL? {
        let binary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        let directory = binary.deletingLastPathComponent().appendingPathComponent("Modules")
        return FileManager.default.fileExists(atPath: directory.appendingPathComponent("MotionInteractions.swiftmodule").path) ? directory : nil
    }

    static var swiftc: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static var isAvailable: Bool { modules != nil && swiftc != nil }

    /// The compiler's errors for `source` in Swift 6 mode, one per line; empty when it compiles.
    static func errors(in source: String) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Snippet.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = swiftc
        process.arguments = ["-emit-sil", "-o", "/dev/null", "-parse-as-library", "-swift-version", "6", "-I", modules!.path, file.path]
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

/// The interaction layer's threading contract, as the compiler enforces it: a runtime and what
/// is connected to it are one single-threaded graph of non-`Sendable` types.
@Suite("Threading contract of the interaction layer (compile time)", .enabled(if: CompilerCheck.isAvailable, "needs swiftc on PATH and the build's Modules directory"))
struct InteractionThreadingContractTests {
    @Test("advancing a runtime from another thread does not compile")
    func runtimeOnAnotherThread() throws {
        let errors = try CompilerCheck.errors(in: """
            import Dispatch
            import MotionInteractions
            func advanceElsewhere(_ runtime: MotionRuntime) {
                DispatchQueue.global().async { try? runtime.advance(by: 1.0 / 60) }
            }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("capture of 'runtime' with non-Sendable type 'MotionRuntime' in a '@Sendable' closure") == true, "\(errors)")
    }

    @Test("feeding a main-actor recognizer from a background task does not compile")
    func recognizerFromAnotherTask() throws {
        let errors = try CompilerCheck.errors(in: """
            import MotionInteractions
            @MainActor func feedFromBackground(_ drag: GestureRecognizer) {
                Task.detached { drag.handle(.began(timestamp: 0)) }
            }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("risks causing data races") == true, "\(errors)")
    }

    @Test("one isolation domain compiles: a main-actor runtime fed by main-actor input")
    func allowed() throws {
        let errors = try CompilerCheck.errors(in: """
            import Foundation
            import MotionInteractions
            @MainActor final class Screen {
                let runtime = MotionRuntime()
                let card = MotionElement()
                let drag = GestureRecognizer()
                func setUp() throws {
                    try runtime.add(Tossable(position: card.position, to: ReactiveProperty(CGPoint.zero),
                                             containerView: MotionElement(), springSource: springSource, panGestureRecognizer: drag))
                }
                func touch(_ event: GestureEvent) { drag.handle(event) }
                func displayLink(_ timestamp: Double) throws { try runtime.advance(toTimestamp: timestamp) }
            }
            """)
        #expect(errors.isEmpty, "\(errors)")
    }
}
