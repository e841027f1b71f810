import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `text` to the file `path` (created or truncated) with `mode`, through a descriptor
/// that closes on exec.
///
/// Tests write the scripts they then run. Foundation's `write(to:)` opens its file without
/// close-on-exec, so a child that a test running in parallel spawns at that moment keeps the
/// file open for writing for as long as it lives, and running the script then fails with
/// ETXTBSY ("Text file busy"). Close-on-exec narrows that window to a spawn's own fork-to-exec.
public func writeTestFile(_ text: String, to path: String, mode: Int = 0o644) throws(TestFileError) {
    try writeTestFile(bytes: Array(text.utf8), to: path, mode: mode)
}

/// `writeTestFile` for bytes.
public func writeTestFile(bytes: [UInt8], to path: String, mode: Int = 0o644) throws(TestFileError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
    guard fd >= 0 else { throw TestFileError(path: path, operation: "open", code: errno) }
    defer { close(fd) }
    guard fchmod(fd, mode_t(mode)) == 0 else { throw TestFileError(path: path, operation: "chmod", code: errno) }
    var bytes = bytes[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            throw TestFileError(path: path, operation: "write", code: errno)
        }
        bytes = bytes.dropFirst(written)
    }
}

/// Writes an executable script: `writeTestFile` with mode 755.
public func writeTestProgram(_ text: String, to path: String) throws(TestFileError) {
    try writeTestFile(text, to: path, mode: 0o755)
}

public struct TestFileError: Error, CustomStringConvertible {
    public let path: String
    public let operation: String
    public let code: Int32
    public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}

/// Copies the folder `source` to `target` (which must not exist) file by file through
/// `writeTestFile`, keeping each file's mode: Foundation's `copyItem` leaves its copies open
/// to spawned children as its `write(to:)` does, and a test that copies a plugin runs it.
public func copyTestTree(_ source: String, to target: String) throws {
    let files = FileManager.default
    try files.createDirectory(atPath: target, withIntermediateDirectories: false)
    for name in try files.contentsOfDirectory(atPath: source) {
        let from = source + "/" + name, to = target + "/" + name
        let attributes = try files.attributesOfItem(atPath: from)
        switch attributes[.type] as? FileAttributeType {
        case .typeDirectory?:
            try copyTestTree(from, to: to)
        case .typeSymbolicLink?:
            try files.createSymbolicLink(atPath: to, withDestinationPath: files.destinationOfSymbolicLink(atPath: from))
        default:
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o644
            try writeTestFile(bytes: Array(files.contents(atPath: from) ?? Data()), to: to, mode: mode)
        }
    }
}
