import Foundation

/// Reading and writing spring-bench's files, with failures as one line: the path and the
/// system's reason (`cannot read cases.csv: No such file or directory`), never an error dump.
enum FileAccess {
    /// The text of a UTF-8 file.
    static func readText(_ path: String) throws(BenchError) -> String {
        let data = try readData(path)
        guard let text = String(data: data, encoding: .utf8) else { throw .input("cannot read \(printable(path)): not UTF-8 text") }
        return text
    }

    /// The bytes of a file.
    static func readData(_ path: String) throws(BenchError) -> Data {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw .input("cannot read \(printable(path)): Is a directory")
        }
        // Through a file handle, which reads devices and pipes (`/dev/null`, `<(...)`) as well as
        // files; Data(contentsOf:) refuses them with a misleading "Permission denied".
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .input("cannot read \(printable(path)): \(String(cString: strerror(errno)))") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do { return try handle.readToEnd() ?? Data() } catch { throw .input("cannot read \(printable(path)): \(reason(error))") }
    }

    /// Writes a file, creating its folder.
    static func write(_ text: String, to path: String) throws(BenchError) {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        } catch {
            throw .input("cannot write \(printable(path)): \(reason(error))")
        }
    }

    /// Makes `folder` (and its parents) and checks that a file can be written in it, so that an
    /// `--output` that cannot be written is refused before a run, not after it.
    static func prepareFolder(_ folder: String) throws(BenchError) {
        let probe = "\(folder)/.spring-bench-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: probe))
            try FileManager.default.removeItem(atPath: probe)
        } catch {
            throw .input("cannot write to \(printable(folder)): \(reason(error))")
        }
    }

    /// The system's reason for a Foundation file error, in one line: the POSIX message when
    /// there is one (`No such file or directory`, `Permission denied`).
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        var candidates = [error]
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError { candidates.insert(underlying, at: 0) }
        for candidate in candidates where candidate.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(candidate.code)))
        }
        switch CocoaError.Code(rawValue: error.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return String(cString: strerror(ENOENT))
        case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
        case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
        case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
        case .fileReadInapplicableStringEncoding, .fileReadCorruptFile: return "not UTF-8 text"
        default: break
        }
        return error.localizedDescription.split(separator: "\n").first.map(String.init) ?? "error \(error.code)"
    }
}

/// Writes a file, creating its folder (see ``FileAccess/write(_:to:)``).
func writeFile(_ text: String, to path: String) throws(BenchError) {
    try FileAccess.write(text, to: path)
}
