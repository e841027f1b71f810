public import Foundation
import MAMActivation

/// What a plugin's confined process needs beyond its own folder, as `plugin.json` declares it:
///
///     {"sandbox": {"read": ["~/.pyenv", "../../clients/python/src"], "environment": ["PYENV_VERSION"]}}
///
/// `read` names folders (or files) to read and execute: its interpreter's installation (a
/// Python from pyenv under the home folder, a venv), a runtime it shares with other plugins.
/// A path starts with `~/` (the home folder), `$NAME/` or `${NAME}/` (an environment variable),
/// `/`, or is relative to the plugin folder. A path that does not exist on this machine, or
/// whose variable is unset, grants nothing: a plugin can name the places an interpreter lives
/// on several kinds of machine. `environment` names variables of the host's environment the
/// plugin receives besides the few every child gets. The host checks every path before it
/// starts the fleet (never the device directory, the cache of devices, the scenario's inputs,
/// the home folder itself).
public struct PluginSandbox: Sendable, Hashable {
    /// Existing absolute paths.
    public var read: [String] = []
    public var environment: [String] = []
    /// Each path of `read` with why it may be read, once `SandboxDeclarations` judged it.
    public var grants: [SandboxGrant] = []
    /// What the process reads of its own program, judged as a declaration is: the program's
    /// folder, or the program alone when a declaration could not have that folder
    /// (`SandboxDeclarations.judgeProgram`); `nil` for mamsim's own app runtime.
    public var program: SandboxGrant?
    /// Whether the program is granted alone, without its folder.
    public var programAlone = false

    public init(read: [String] = [], environment: [String] = []) {
        self.read = read
        self.environment = environment
    }

    /// Reads `plugin.json`'s `sandbox` in `folder`; an empty sandbox without one. Throws a
    /// sentence naming the file and key when it is malformed.
    public static func load(folder: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PluginSandbox {
        let file = folder.appendingPathComponent("plugin.json")
        guard let data = (try? InputFile.contents(of: file)) else { return PluginSandbox() }
        guard let object = try? JSONSerialization.jsonObject(with: data), let dict = object as? [String: Any] else {
            throw PluginSandboxError("plugin.json is not a JSON object; write {\"sandbox\": {\"read\": [...]}}")
        }
        guard let declared = dict["sandbox"] else { return PluginSandbox() }
        guard let sandbox = declared as? [String: Any] else {
            throw PluginSandboxError("plugin.json: sandbox must be an object with \"read\" and \"environment\" lists")
        }
        for key in sandbox.keys where key != "read" && key != "environment" {
            throw PluginSandboxError("plugin.json: sandbox.\(key) is not a key mamsim knows; use \"read\" or \"environment\"")
        }
        func strings(_ key: String) throws -> [String] {
            guard let value = sandbox[key] else { return [] }
            guard let list = value as? [String] else { throw PluginSandboxError("plugin.json: sandbox.\(key) must be a list of strings") }
            return list
        }
        var result = PluginSandbox()
        let read = try strings("read")
        do {
            result.read = try read.compactMap { try resolve($0, in: folder, environment: environment) }
        } catch let error as PluginSandboxError {
            throw PluginSandboxError("plugin.json: sandbox.read: \(error)")
        }
        result.environment = try strings("environment")
        for name in result.environment where name.isEmpty || !name.allSatisfy({ $0 == "_" || $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            throw PluginSandboxError("plugin.json: sandbox.environment: \"\(name)\" is not a variable name")
        }
        return result
    }

    /// `path` made absolute, or `nil` when it names nothing on this machine.
    public static func resolve(_ path: String, in folder: URL, environment: [String: String]) throws -> String? {
        var expanded = path
        if path == "~" || path.hasPrefix("~/") {
            guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
            expanded = home + path.dropFirst()
        } else if path.hasPrefix("$") {
            var rest = path.dropFirst()
            let name: Substring
            if rest.hasPrefix("{") {
                guard let close = rest.firstIndex(of: "}") else { throw PluginSandboxError("\"\(path)\" has no closing }") }
                name = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
            } else {
                name = rest.prefix { $0 != "/" }
                rest = rest.dropFirst(name.count)
            }
            guard let value = environment[String(name)], value.hasPrefix("/") else { return nil }
            expanded = value + rest
        } else if !path.hasPrefix("/") {
            expanded = folder.appendingPathComponent(path).path
        }
        let url = URL(fileURLWithPath: expanded).standardizedFileURL
        return FileManager.default.fileExists(atPath: url.path) ? url.path : nil
    }
}

public struct PluginSandboxError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
