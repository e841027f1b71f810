import Foundation
import MAMActivation
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

    /// The files the scenarios of the project at `root` read (policies, declarations,
    /// credentials, items): every path a scenario names that is a file beside it, but for
    /// programs (executable files) and the plists and build settings that describe an app.
    /// A bounded walk that follows no link and skips build folders.
    static func scenarioInputs(in root: String, budget: Int = 20_000) -> [(file: String, scenario: String)] {
        let skipped: Set<String> = [".git", "node_modules", "Pods", "DerivedData", "Carthage"]
        var inputs: [(String, String)] = []
        FolderWalk.walk(root, budget: budget) { entry in
            switch entry.kind {
            case .link: return .goOn
            case .folder:
                let skip = skipped.contains(entry.name) || entry.name.hasPrefix(".build") || deviceDirectory(entry.path) != nil
                return skip ? .skipContents : .goOn
            case .file:
                guard entry.name.hasSuffix(".yaml") || entry.name.hasSuffix(".yml"), isScenarioFile(entry.path),
                      let text = InputFile.text(of: URL(fileURLWithPath: entry.path)) else { return .goOn }
                let folder = (entry.path as NSString).deletingLastPathComponent, scenario = real(entry.path)
                for token in pathTokens(text) {
                    // Most words are no file (an id, an address): one stat says so, and only a
                    // file is resolved. Foundation's own executable test looks the user up in
                    // /etc at each call; access(2) asks the kernel alone.
                    let named = token.hasPrefix("/") ? token : folder + "/" + token
                    var isDirectory: ObjCBool = false
                    guard FileManager.default.fileExists(atPath: named, isDirectory: &isDirectory), !isDirectory.boolValue, access(named, X_OK) != 0 else { continue }
                    let file = real(named)
                    let ext = (file as NSString).pathExtension.lowercased()
                    guard file != scenario, !["entitlements", "xcconfig", "swift", "py", "js"].contains(ext), (file as NSString).lastPathComponent != "Info.plist" else { continue }
                    inputs.append((file, entry.path))
                }
                return .goOn
            }
        }
        return inputs
    }

    /// The words of a YAML text that could be paths: scalars with a `/` or a `.`, unquoted.
    /// Split on the text's bytes: every separator is ASCII, and a project's scenarios are
    /// read whole at each load, where splitting by characters cost most of the load.
    static func pathTokens(_ text: String) -> Set<String> {
        var tokens = Set<String>()
        var text = text
        text.withUTF8 { bytes in
            func isSeparator(_ b: UInt8) -> Bool {
                switch b {
                case 0x20, 0x09, 0x0A, 0x0D, 0x22, 0x27, 0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x23: true  // space \t \n \r " ' , [ ] { } #
                default: false
                }
            }
            var i = 0
            while i < bytes.count {
                guard !isSeparator(bytes[i]) else { i += 1; continue }
                let start = i
                var pathLike = false
                while i < bytes.count, !isSeparator(bytes[i]) {
                    if bytes[i] == UInt8(ascii: "/") || bytes[i] == UInt8(ascii: ".") { pathLike = true }
                    i += 1
                }
                var end = i
                if bytes[end - 1] == UInt8(ascii: ":") { end -= 1 }
                guard pathLike, end > start, bytes[start] != UInt8(ascii: "-") else { continue }
                let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                // A word of more than 1,024 characters is no path a scenario names.
                if word.contains("://") || (end - start > 1024 && word.count > 1024) { continue }
                if word.contains("/") || word.contains(".") { tokens.insert(word) }
            }
        }
        return tokens
    }

    /// A YAML file with a top-level `steps:` or `apps:` key: a scenario, as `mamsim test` finds them.
    static func isScenarioFile(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 256 * 1024)) ?? Data()
        return head.withUnsafeBytes { bytes in
            func startsKey(at i: Int) -> Bool {
                for key in ["steps:", "apps:"] where bytes.count - i >= key.utf8.count && key.utf8.elementsEqual(bytes[i..<(i + key.utf8.count)]) { return true }
                return false
            }
            if startsKey(at: 0) { return true }
            var i = 0
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "\n"), startsKey(at: i + 1) { return true }
                i += 1
            }
            return false
        }
    }
}
