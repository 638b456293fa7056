import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A run's folder is written whole or not at all: into a hidden temporary folder beside it
/// (`.partial-<name>-<pid>`), then renamed over it. An interrupt (SIGINT, SIGTERM) while the
/// temporary folder exists removes it before the process exits; one left by a killed process
/// (SIGKILL, a crash) is removed by the next run that writes there.
enum PartialFolders {
    /// The temporary folders' name prefix.
    static let prefix = ".partial-"

    private static let lock = NSLock()
    nonisolated(unsafe) private static var pending: String?
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Removes `path` if the process is interrupted before ``removeOnInterrupt(_:)`` is called
    /// again (nil: nothing to remove).
    static func removeOnInterrupt(_ path: String?) {
        lock.lock()
        defer { lock.unlock() }
        pending = path
        guard sources.isEmpty else { return }
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                lock.lock()
                if let path = pending { try? FileManager.default.removeItem(atPath: path) }
                FileHandle.standardError.write(Data("spring-bench: interrupted; nothing partial left behind\n".utf8))
                exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Removes temporary folders in `parent` whose process is gone.
    static func removeStale(in parent: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        for name in names where name.hasPrefix(prefix) {
            let base = name.hasSuffix("-old") ? String(name.dropLast(4)) : name
            guard let pid = base.split(separator: "-").last.flatMap({ Int32($0) }) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: "\(parent)/\(name)") }
        }
    }

    /// Renames `temporary` to `folder`, replacing what was there.
    static func replace(_ folder: String, with temporary: String) throws(BenchError) {
        let old = "\(temporary)-old"
        let hadOld = FileManager.default.fileExists(atPath: folder)
        if hadOld, rename(folder, old) != 0 {
            throw .input("cannot replace \(printable(folder)): \(String(cString: strerror(errno)))")
        }
        guard rename(temporary, folder) == 0 else {
            let reason = String(cString: strerror(errno))
            if hadOld { _ = rename(old, folder) }
            throw .input("cannot write \(printable(folder)): \(reason)")
        }
        if hadOld { try? FileManager.default.removeItem(atPath: old) }
    }
}
