import Foundation
import MAMTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// End-to-end tests of the `mamsim` command line: every test runs the built binary as a child
/// process (with a timeout) and checks its exit status, output and files.
///
/// The suites are serialized: each `mamsim run`/`test` spawns a fleet of app processes, the
/// machine is small and shared, and the scale test reports wall time and memory.
@Suite(.serialized) struct CLITests {}

/// What one `mamsim` invocation did.
struct CLIResult: Sendable, CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var timedOut: Bool
    var seconds: Double

    var description: String {
        "exit \(status)\(timedOut ? " (timed out)" : "") after \(String(format: "%.2f", seconds)) s\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }

    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
}

enum CLI {
    /// The package root, found from this file: `<root>/Tests/MAMCLITests/CLIHarness.swift`.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary under test: `$MAMSIM`, else `<root>/.build/debug/mamsim`.
    static var mamsim: String {
        if let path = ProcessInfo.processInfo.environment["MAMSIM"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".build/debug/mamsim").path
    }

    /// A repository file or folder.
    static func repo(_ relative: String) -> URL { packageRoot.appendingPathComponent(relative) }

    /// Runs `mamsim ARGUMENTS` (or `executable ARGUMENTS` when given), capturing standard
    /// output and error in files (no pipe can fill up), killing it after `timeout` seconds.
    /// `whileRunning` is called with the child's pid every poll (about every 20 ms).
    static func run(
        _ arguments: [String], in directory: URL? = nil, timeout: Double = 60, executable: String? = nil,
        environment: [String: String] = [:], whileRunning: ((Int32) -> Void)? = nil
    ) async throws -> CLIResult {
        let capture = try TemporaryDirectory(prefix: "mamcli-io")
        defer { capture.remove() }
        let outURL = capture.url.appendingPathComponent("stdout")
        let errURL = capture.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? mamsim)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.currentDirectoryURL = directory ?? packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        let deadline = start + .milliseconds(Int(timeout * 1000))
        var timedOut = false
        while process.isRunning {
            whileRunning?(process.processIdentifier)
            if clock.now >= deadline {
                timedOut = true
                process.terminate()
                let grace = clock.now + .seconds(5)
                while process.isRunning && clock.now < grace { try await Task.sleep(for: .milliseconds(20)) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        let elapsed = clock.now - start
        try out.close()
        try err.close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return CLIResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            timedOut: timedOut, seconds: seconds)
    }

    /// The 1-based line and column where `token` first occurs in `text` (for the
    /// `file:line:column` of error messages, so the tests need not count lines by hand).
    static func position(of token: String, in text: String) -> (line: Int, column: Int)? {
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let r = line.range(of: token) {
                return (i + 1, line.distance(from: line.startIndex, to: r.lowerBound) + 1)
            }
        }
        return nil
    }

    /// The path `mamsim run` prints after "audit log: ".
    static func auditLogPath(in stdout: String) -> String? {
        for line in stdout.split(separator: "\n") {
            if let r = line.range(of: "audit log: ") {
                return String(line[r.upperBound...]).trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Removes a device directory `mamsim run` created in the temporary folder (the test
    /// started that process, so the directory is its to clean up).
    static func removeDeviceDirectory(ofAuditLog path: String) {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent()
        guard dir.lastPathComponent.hasPrefix("mamsim-device-") else { return }
        try? FileManager.default.removeItem(at: dir)
    }
}

/// A fresh folder under the system temporary directory.
struct TemporaryDirectory: Sendable {
    let url: URL

    init(prefix: String = "mamcli") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` (sub-folders created) and returns its URL; `executable` for a
    /// script a test runs (closed on exec: `writeTestFile` says why).
    @discardableResult
    func write(_ name: String, _ text: String, executable: Bool = false) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try writeTestFile(text, to: file.path, mode: executable ? 0o755 : 0o644)
        return file
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Scenario texts shared by several tests.
enum ScenarioTexts {
    /// Alice's policy sends org data only to policy-managed apps; step 2 expects a share to the
    /// unmanaged notes app to be delivered, which the policy blocks.
    static let failingShare = """
        name: Failing share
        accounts:
          - upn: alice@contoso.com
            policy: strict
        policies:
          strict:
            allowedOutboundDataTransferDestinations: managedApps
            apps: [com.contoso.mail]
        apps:
          - id: mail
            bundle: com.contoso.mail
          - id: notes
            bundle: com.example.notes
            sdk: false
        steps:
          - signIn: {app: mail, account: alice@contoso.com}
            expect: ok
          - share: {from: mail, to: notes, item: {type: public.plain-text, text: "Q3 numbers"}}
            expect: delivered

        """

    /// Two unmanaged SDK apps: every expectation holds.
    static let passingShare = """
        name: Passing share
        apps:
          - id: reader
            bundle: com.example.reader
          - id: writer
            bundle: com.example.writer
        steps:
          - share: {from: reader, to: writer, item: {type: public.plain-text, text: "hello"}}
            expect: delivered
          - launch: {app: reader}
            expect: ok

        """
}
