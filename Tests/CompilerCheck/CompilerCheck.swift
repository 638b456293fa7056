import Foundation

/// Runs the Swift compiler on a snippet against this build's modules, to check what the
/// language refuses: a test cannot compile code that must not compile, but it can ask `swiftc`.
///
/// Shared by the test targets' threading-contract suites (a test target cannot import another).
public enum CompilerCheck {
    /// `.build/<configuration>/Modules`, beside the test binary, if it holds `module`.
    public static func modules(holding module: String) -> URL? {
        let binary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        let directory = binary.deletingLastPathComponent().appendingPathComponent("Modules")
        return FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(module).swiftmodule").path) ? directory : nil
    }

    /// The module maps SwiftPM writes for the build's C targets (`<target>.build/module.modulemap`
    /// beside `Modules`), which a Swift module built on one of them (SpringKernel on its shims)
    /// needs its importers to find.
    static func cModuleMaps(beside modules: URL) -> [URL] {
        let build = modules.deletingLastPathComponent()
        let targets = (try? FileManager.default.contentsOfDirectory(at: build, includingPropertiesForKeys: nil)) ?? []
        return targets.filter { $0.pathExtension == "build" }.map { $0.appendingPathComponent("module.modulemap") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// The include folders of the package's C targets that bring their own module map
    /// (`Sources/<target>/include/module.modulemap`, as `_SpringKernelShims` does): SwiftPM writes
    /// none for those into the build folder, so importers search the sources.
    static func cIncludeFolders() -> [URL] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let targets = (try? FileManager.default.contentsOfDirectory(at: sources, includingPropertiesForKeys: nil)) ?? []
        return targets.map { $0.appendingPathComponent("include") }
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("module.modulemap").path) }
    }

    /// The first `swiftc` on `PATH`.
    public static var swiftc: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Whether snippets importing `module` can be compiled here.
    public static func isAvailable(for module: String) -> Bool { modules(holding: module) != nil && swiftc != nil }

    /// The compiler's errors for `source`, which imports `module`, in Swift 6 mode (type checking
    /// and the SIL diagnostics that find data races), one per line; empty when it compiles.
    public static func errors(importing module: String, in source: String) throws -> [String] {
        try diagnostics(importing: module, in: source).filter { $0.contains("error:") }
    }

    /// The compiler's errors and warnings for `source`, as ``errors(importing:in:)`` runs it.
    public static func diagnostics(importing module: String, in source: String) throws -> [String] {
        guard let modules = modules(holding: module), let swiftc else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no swiftc or no \(module).swiftmodule"])
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Snippet.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = swiftc
        process.arguments = ["-emit-sil", "-o", "/dev/null", "-parse-as-library", "-swift-version", "6", "-I", modules.path]
            + cModuleMaps(beside: modules).flatMap { ["-Xcc", "-fmodule-map-file=\($0.path)"] }
            + cIncludeFolders().flatMap { ["-I", $0.path] } + [file.path]
        // The driver leaves a TemporaryDirectory.* behind in TMPDIR: keep it inside ours.
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": directory.path]) { $1 }
        let output = Pipe()
        process.standardError = output
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix(file.path) && ($0.contains("error:") || $0.contains("warning:")) }
            .map { String($0.dropFirst(file.path.count)) }
    }
}
