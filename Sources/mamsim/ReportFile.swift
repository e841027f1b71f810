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
