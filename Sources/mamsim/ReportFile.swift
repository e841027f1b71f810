import ArgumentParser
import Foundation
import MAMActivation

/// Where every command's report goes: a file (its folder created), or standard output when
/// no file is named. A file that cannot be written — or that is a link or a folder, which
/// mamsim never writes through nor removes (`OutputFile`) — is bad output (exit 2) naming it.
enum ReportFile {
    static func write(_ text: String, to path: String?) throws {
        guard let path else {
            // Standard output is often a terminal: what a policy or a log says is shown, never obeyed.
            Terminal().line(Terminal.escapingControls(text))
            return
        }
        do {
            try OutputFile.write(Data(text.utf8), to: URL(fileURLWithPath: path))
        } catch {
            Terminal.error("cannot write the report to \(path): \(error.why); check that its folder exists and is writable")
            throw ExitCode(2)
        }
    }
}

/// A report written as it is made (a tenant's ten thousand personas): to standard output,
/// controls escaped as `ReportFile` does, or to a new file beside its path renamed there
/// when finished, so a reader never sees half a report under its name.
final class ReportStream {
    private let path: String?
    private let file: OutputFile?

    init(to path: String?) throws {
        self.path = path
        guard let path else {
            file = nil
            return
        }
        do {
            file = try OutputFile(URL(fileURLWithPath: path))
        } catch {
            Terminal.error("cannot write the report to \(path): \(error.why); check that its folder exists and is writable")
            throw ExitCode(2)
        }
    }

    func write(_ text: String) throws {
        guard let file else {
            Terminal.emit(Terminal.escapingControls(text), to: 1)
            return
        }
        do { try file.write(Data(text.utf8)) } catch {
            Terminal.error("cannot write the report to \(path ?? ""): \(error.why)")
            throw ExitCode(2)
        }
    }

    /// Writes `length` bytes (all, when `nil`) of `handle` from where it stands, a chunk at a
    /// time, each cut after its last line end: a report's rows end with one, so no character is
    /// split between two writes.
    func copy(from handle: FileHandle, length: Int? = nil) throws {
        var left = length ?? Int.max
        var carry: [UInt8] = []
        while left > 0, let chunk = try handle.read(upToCount: min(1 << 20, left)), !chunk.isEmpty {
            left -= chunk.count
            carry += chunk
            guard let end = carry.lastIndex(of: UInt8(ascii: "\n")) else { continue }
            try write(String(decoding: carry[...end], as: UTF8.self))
            carry.removeSubrange(...end)
        }
        if !carry.isEmpty { try write(String(decoding: carry, as: UTF8.self)) }
    }

    func finish() throws {
        guard let file, let path else { return }
        do {
            try file.commit()
        } catch {
            Terminal.error("cannot write the report to \(path): \(error.why); check that its folder exists and is writable")
            throw ExitCode(2)
        }
    }
}
