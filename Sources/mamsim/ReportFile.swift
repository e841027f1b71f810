import ArgumentParser
import Foundation

/// Where every command's report goes: a file (its folder created), or standard output when
/// no file is named. A file that cannot be written is bad output (exit 2) naming it.
enum ReportFile {
    static func write(_ text: String, to path: String?) throws {
        guard let path else {
            // Standard output is often a terminal: what a policy or a log says is shown, never obeyed.
            Terminal().line(Terminal.escapingControls(text))
            return
        }
        do {
            try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            Terminal.error("cannot write the report to \(path): \(error.localizedDescription); check that its folder exists and is writable")
            throw ExitCode(2)
        }
    }
}

/// A report written as it is made (a tenant's ten thousand personas): to standard output,
/// controls escaped as `ReportFile` does, or to a file written beside its path and moved there
/// when finished, so a reader never sees half a report under its name.
final class ReportStream {
    private let path: String?
    private let partial: String?
    private let handle: FileHandle?

    init(to path: String?) throws {
        self.path = path
        guard let path else {
            partial = nil
            handle = nil
            return
        }
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial").path
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: temporary, contents: nil) else { throw CocoaError(.fileWriteNoPermission) }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            partial = temporary
        } catch {
            Terminal.error("cannot write the report to \(path): \(error.localizedDescription); check that its folder exists and is writable")
            throw ExitCode(2)
        }
    }

    func write(_ text: String) throws {
        guard let handle else {
            Terminal.emit(Terminal.escapingControls(text), to: 1)
            return
        }
        do { try handle.write(contentsOf: Data(text.utf8)) } catch {
            Terminal.error("cannot write the report to \(path ?? ""): \(error.localizedDescription)")
            throw ExitCode(2)
        }
    }

    func finish() throws {
        guard let handle, let partial, let path else { return }
        do {
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: partial, toPath: path)
        } catch {
            Terminal.error("cannot write the report to \(path): \(error.localizedDescription); check that its folder exists and is writable")
            throw ExitCode(2)
        }
    }
}
