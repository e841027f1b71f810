import Foundation
import Synchronization

/// What one scenario's load learns of its project, once: the inputs its scenarios read and
/// the files git tracks. Each app's declarations are judged against the same project, and a
/// walk of a large repository costs far more than the judging.
public final class ProjectScan: Sendable {
    private let inputs = Mutex<[String: [(file: String, scenario: String)]]>([:])
    private let tracked = Mutex<[String: Set<String>]>([:])

    public init() {}

    func scenarioInputs(in root: String) -> [(file: String, scenario: String)] {
        if let known = inputs.withLock({ $0[root] }) { return known }
        let found = SandboxDeclarations.scenarioInputs(in: root)
        inputs.withLock { $0[root] = found }
        return found
    }

    func trackedFiles(root: String) throws(PluginSandboxError) -> Set<String> {
        if let known = tracked.withLock({ $0[root] }) { return known }
        let found = try SandboxDeclarations.trackedFiles(root: root)
        tracked.withLock { $0[root] = found }
        return found
    }
}

extension SandboxDeclarations {
    /// The paths git tracks in the repository at `root`, relative to it.
    static func trackedFiles(root: String) throws(PluginSandboxError) -> Set<String> {
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", root, "-c", "core.quotePath=false", "ls-files", "-z", "--cached"]
        let out = Pipe()
        git.standardOutput = out
        git.standardError = FileHandle.nullDevice
        do { try git.run() } catch {
            throw PluginSandboxError("cannot ask git which files \(root) tracks (\(error.localizedDescription)); install git, or run with --allow-read for what the app needs")
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        git.waitUntilExit()
        guard git.terminationStatus == 0 else {
            throw PluginSandboxError("cannot ask git which files \(root) tracks (git ls-files failed); run with --allow-read for what the app needs")
        }
        return Set(data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
    }
}
