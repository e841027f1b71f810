import Foundation
import MAMActivation
import Synchronization

/// The processes a Tuist manifest's reading starts (`swiftc`, the confined manifest): run to
/// their end or a deadline, their output kept up to a bound.
enum TuistProcess {
    struct Result {
        var status: Int32
        var output: String
        var error: String
        var timedOut = false
    }

    /// Runs `program` with exactly `environment`; what it writes past `outputLimit` bytes on
    /// either stream is dropped (the process is not held up by a full pipe).
    static func run(_ program: URL, _ arguments: [String], environment: [String: String], timeout: TimeInterval,
                    folder: URL? = nil, outputLimit: Int = 1 << 20) -> Result {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = environment
        if let folder { process.currentDirectoryURL = folder }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            return Result(status: -1, output: "", error: "\(program.path) could not be started: \(error.localizedDescription)")
        }
        let reads = DispatchGroup()
        let collected = Collected()
        for (pipe, isError) in [(out, false), (err, true)] {
            DispatchQueue.global().async(group: reads) {
                let data = drain(pipe.fileHandleForReading, limit: outputLimit)
                collected.set(data, isError: isError)
            }
        }
        let ended = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            ended.signal()
        }
        var timedOut = false
        if ended.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        reads.wait()
        return Result(status: process.terminationStatus, output: String(decoding: collected.output, as: UTF8.self),
                      error: String(decoding: collected.error, as: UTF8.self), timedOut: timedOut)
    }

    /// Both streams' bytes, each set once by its reader.
    final class Collected: Sendable {
        private let state = Mutex((Data(), Data()))
        var output: Data { state.withLock { $0.0 } }
        var error: Data { state.withLock { $0.1 } }
        func set(_ data: Data, isError: Bool) {
            state.withLock { if isError { $0.1 = data } else { $0.0 = data } }
        }
    }

    static func drain(_ handle: FileHandle, limit: Int) -> Data {
        var kept = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { return kept }
            if kept.count < limit { kept.append(chunk.prefix(limit - kept.count)) }
        }
    }

    /// The text of a manifest or helper, bounded as every repository input is.
    static func text(of url: URL) throws -> String {
        guard let text = InputFile.text(of: url, limit: 4 << 20) else {
            throw TuistManifestRunner.Failure("\(url.lastPathComponent) cannot be read as UTF-8 text of at most 4 MiB")
        }
        return text
    }

    /// The compiler's errors, `file:line:column: message`, at most five.
    static func errors(_ text: String) -> [String] {
        Array(text.split(separator: "\n").filter { $0.contains(": error: ") }.map { line in
            String(line).replacingOccurrences(of: ": error: ", with: ": ")
        }.prefix(5))
    }

    static func firstLine(_ text: String) -> String? {
        text.split(separator: "\n").first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(String.init)
    }

    static func lastLine(_ text: String) -> String? {
        text.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(String.init)
    }

    /// The bytes on the line after `start` up to the line `end`.
    static func between(_ start: String, _ end: String, in text: String) -> Data? {
        guard let open = text.range(of: start + "\n"), let close = text.range(of: "\n" + end, range: open.upperBound..<text.endIndex) else { return nil }
        return Data(text[open.upperBound..<close.lowerBound].utf8)
    }
}
