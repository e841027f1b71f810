public import Foundation

/// What the user running mamsim allows beyond what a declaration may ask for on its own
/// (`--allow-read PATH`, `--allow-env NAME` on the command line). A plugin or a scenario comes
/// from a repository that may be hostile; only the person running it can hand a child a
/// secret.
public struct SandboxAllowances: Sendable, Hashable {
    /// Absolute paths, symbolic links resolved.
    public var read: [String]
    public var environment: Set<String>

    public init(read: [String] = [], environment: Set<String> = []) {
        self.read = read.map(SandboxDeclarations.real)
        self.environment = environment
    }
}

/// One path a child reads and why it may: printed by `mamsim run`, so the user sees every grant.
public struct SandboxGrant: Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path) (\(reason))" }
}

/// Judges a `sandbox` declaration (`plugin.json`'s or a scenario entry's). A declaration is a
/// request, never a grant a child makes for itself: it may name its own folder, the installation
/// of an interpreter the machine runs (Python, Node…, read-only like everything declared), and
/// folders of the scenario's repository (or folder) that hold no secret — no scenario file,
/// credential, key, device directory or `.git` (a CI checkout keeps its token there). Anything
/// else (`/etc`, `~/.ssh`, `/run`, another run's device…) needs the user's `--allow-read`, and a
/// variable whose name looks like a secret or a socket needs `--allow-env`.
public struct SandboxDeclarations: Sendable {
    public let ownFolder: String
    /// The scenario's repository (the nearest folder above the scenario with `.git`, never the
    /// home folder nor `/`), else the scenario's folder.
    public let projectRoot: String?
    public let allowances: SandboxAllowances
    let interpreterRoots: [(path: String, name: String)]
    let home: String?

    public init(ownFolder: URL, scenarioFolder: URL?, allowances: SandboxAllowances,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.ownFolder = Self.real(ownFolder.path)
        self.allowances = allowances
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") && $0 != "/" ? Self.real($0) : nil }
        self.home = home
        // A scenario lying loose in /tmp or the home folder has no project: that would be
        // everything beside it; nor has one in the system's folders.
        projectRoot = scenarioFolder.map { Self.projectRoot(of: Self.real($0.path), home: home) }.flatMap { root in
            let system = ["/etc", "/proc", "/sys", "/dev", "/run", "/var/run", "/boot"]
            let loose = root == "/" || root == home || home.map({ Self.isInside($0, root) }) == true
                || Self.systemFolders.keys.contains(root) || system.contains(where: { Self.isInside(root, $0) })
            return loose ? nil : root
        }
        interpreterRoots = Self.interpreterRoots(environment: environment, home: home)
    }

    public static func real(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }

    static func isInside(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }

    /// Why `path` may be read, or throws why not (a sentence naming the path and the fix).
    public func judgeRead(_ path: String) throws(PluginSandboxError) -> SandboxGrant {
        let p = Self.real(path)
        if let allowed = allowances.read.first(where: { Self.isInside(p, $0) }) {
            return SandboxGrant(path: p, reason: allowed == p ? "--allow-read" : "inside --allow-read \(allowed)")
        }
        let approve = " (if this app really needs it, run with --allow-read \(p))"
        if p == "/" { throw PluginSandboxError("\(path) is the whole machine; name a narrower folder\(approve)") }
        if let home, Self.isInside(home, p) {
            throw PluginSandboxError("\(path) holds the home folder \(home); name a narrower folder\(approve)")
        }
        let reason: String
        if Self.isInside(p, ownFolder) {
            reason = "its own folder"
        } else if let projectRoot, Self.isInside(p, projectRoot) {
            reason = "in the scenario's project \(projectRoot)"
        } else if let root = interpreterRoots.first(where: { Self.isInside(p, $0.path) }) {
            return SandboxGrant(path: p, reason: "the installation of \(root.name)")
        } else if let sensitive = Self.sensitive(p, home: home) {
            throw PluginSandboxError("\(path) lies \(sensitive); no declaration may grant it\(approve)")
        } else {
            throw PluginSandboxError("\(path) is outside its own folder, the scenario's project and any interpreter's installation\(approve)")
        }
        if let secret = Self.secretInside(p) {
            throw PluginSandboxError("\(path) holds \(secret); name a folder without it\(approve)")
        }
        return SandboxGrant(path: p, reason: reason)
    }

    /// Throws when `name` must not reach a child without the user's `--allow-env`.
    public func judgeEnvironment(_ name: String) throws(PluginSandboxError) {
        if allowances.environment.contains(name) { return }
        if let why = Self.secretVariable(name) {
            throw PluginSandboxError("environment variable \(name) \(why), and no declaration may pass it (if this app really needs it, run with --allow-env \(name))")
        }
    }

    // MARK: What is never granted by a declaration

    /// Places of the machine that hold other parties' secrets, sockets or processes.
    static func sensitive(_ p: String, home: String?) -> String? {
        for (folder, what) in systemFolders where isInside(p, folder) && !(home.map { isInside(p, $0) } ?? false) {
            return "in \(folder), \(what)"
        }
        if let home, isInside(p, home), p != home {
            let first = p.dropFirst(home.count + 1).split(separator: "/").first.map(String.init) ?? ""
            if first.hasPrefix(".") && !interpreterFolders.contains(first) {
                return "in \(home)/\(first), a folder of the user's settings and credentials"
            }
            if first == "Library" { return "in \(home)/Library, the user's keychains and settings" }
        }
        return nil
    }

    static let systemFolders = ["/etc": "the machine's configuration (shadow, SSH host keys, TLS keys)",
                      "/run": "the machine's runtime folder (sockets)", "/var/run": "the machine's runtime folder (sockets)",
                      "/proc": "the processes' folder", "/sys": "the kernel's folder", "/dev": "the devices' folder",
                      "/root": "root's home folder", "/home": "the users' home folders", "/tmp": "the shared temporary folder",
                      "/var/tmp": "the shared temporary folder", "/var/lib": "services' state", "/boot": "the kernel's files",
                      "/mnt": "mounted disks", "/media": "mounted disks", "/srv": "served data"]

    /// Hidden folders of the home folder where interpreters are installed: granted only when
    /// an interpreter on the PATH actually lives there (`interpreterRoots`), never for the rest.
    static let interpreterFolders: Set<String> = [".pyenv", ".nvm", ".rbenv", ".volta", ".asdf", ".deno", ".bun", ".sdkman", ".conda", ".swiftly"]

    /// The first secret found inside `p` (a bounded walk that follows no link: a link inside a
    /// grant does not extend it), or `nil`.
    static func secretInside(_ p: String, budget: Int = 20_000) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: p, isDirectory: &isDirectory) else { return nil }
        if !isDirectory.boolValue { return secretFile(p) }
        if let device = deviceDirectory(URL(fileURLWithPath: p)) { return device }
        guard let walker = FileManager.default.enumerator(at: URL(fileURLWithPath: p), includingPropertiesForKeys: [.isSymbolicLinkKey, .isDirectoryKey], options: []) else { return nil }
        var seen = 0
        for case let url as URL in walker {
            seen += 1
            if seen > budget { return "more than \(budget) files, too many to check for secrets" }
            let values = try? url.resourceValues(forKeys: [.isSymbolicLinkKey, .isDirectoryKey])
            if values?.isSymbolicLink == true { continue }
            if values?.isDirectory == true {
                if url.lastPathComponent == ".git" { return "\(url.path), a repository's settings (a CI checkout keeps its token there)" }
                if let device = deviceDirectory(url) { return device }
                continue
            }
            if let why = secretFile(url.path) { return why }
        }
        return nil
    }

    static func deviceDirectory(_ url: URL) -> String? {
        let marks = ["store.key", "host.lock", "device.sqlite"]
        guard marks.contains(where: { FileManager.default.fileExists(atPath: url.appendingPathComponent($0).path) }) else { return nil }
        return "\(url.path), a mamsim device directory"
    }

    static let secretExtensions: Set<String> = ["p12", "pfx", "pem", "key", "p8", "jks", "keystore", "mobileprovision", "kdbx", "asc", "gpg", "sqlite"]
    static let secretNames: Set<String> = ["store.key", "host.lock", ".env", ".netrc", ".npmrc", ".pypirc", "credentials", "id_rsa", "id_ecdsa", "id_ed25519", "id_dsa", ".git"]

    static func secretFile(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension.lowercased()
        if secretNames.contains(name) || secretExtensions.contains(ext) { return "\(path), a credential or key" }
        if ext == "yaml" || ext == "yml", isScenarioFile(path) { return "\(path), a scenario (and what it reads)" }
        return nil
    }

    /// A YAML file with a top-level `steps:` or `apps:` key: a scenario, as `mamsim test` finds them.
    static func isScenarioFile(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 256 * 1024)) ?? Data()
        let text = String(decoding: head, as: UTF8.self)
        return text.split(separator: "\n").contains { $0.hasPrefix("steps:") || $0.hasPrefix("apps:") }
    }

    /// Why a variable's name marks it as a secret or a way into another service, or `nil`.
    public static func secretVariable(_ name: String) -> String? {
        let upper = name.uppercased()
        let words = ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "APIKEY", "API_KEY",
                     "ACCESS_KEY", "AUTH", "SESSION", "COOKIE", "SIGNING", "CERT", "CONNECTION_STRING", "SAS_"]
        if let word = words.first(where: { upper.contains($0) }) { return "names a secret (\(word))" }
        if upper.hasSuffix("_KEY") || upper.hasSuffix("_PAT") || upper == "KEY" { return "names a key" }
        let services = ["AWS_", "AZURE_", "ARM_", "GITHUB_", "GH_", "ACTIONS_", "GITLAB_", "CI_JOB_", "GOOGLE_", "GCLOUD_", "GCP_",
                        "NPM_", "DOCKER_", "KUBE", "SSH_", "GPG_", "VAULT_", "DBUS_", "XDG_RUNTIME_DIR", "HEROKU_", "SLACK_", "TWINE_", "NETRC"]
        if let prefix = services.first(where: { upper.hasPrefix($0) }) { return "reaches another service (\(prefix))" }
        return nil
    }

    // MARK: Where things are

    static func projectRoot(of folder: String, home: String?) -> String {
        var candidate = folder
        while candidate != "/" && candidate != home {
            if FileManager.default.fileExists(atPath: candidate + "/.git") { return candidate }
            candidate = (candidate as NSString).deletingLastPathComponent
        }
        return folder
    }

    /// The installations of the interpreters this machine runs (as the PATH finds them, links
    /// resolved) and of the version managers behind them: `PREFIX` of `PREFIX/bin/python3`,
    /// `PYENV_ROOT` when the PATH goes through its shims, an active virtual environment. Never
    /// `/`, `/usr` (already readable), the home folder, or a folder `sensitive` names.
    static func interpreterRoots(environment: [String: String], home: String?) -> [(path: String, name: String)] {
        var roots: [(String, String)] = []
        func add(_ path: String, _ name: String) {
            let p = real(path)
            guard p != "/", p != "/usr", p != "/usr/local", p != home, !(home.map { isInside($0, p) } ?? false),
                  sensitive(p, home: home) == nil || interpreterFolders.contains((p as NSString).lastPathComponent) || isInsideInterpreterFolder(p, home: home),
                  FileManager.default.fileExists(atPath: p) else { return }
            if !roots.contains(where: { $0.0 == p }) { roots.append((p, name)) }
        }
        let names = ["python3", "python", "node", "ruby", "perl", "php", "lua", "deno", "bun", "java"]
        for dir in (environment["PATH"] ?? "").split(separator: ":").map(String.init) where dir.hasPrefix("/") {
            for name in names {
                let candidate = dir + "/" + name
                guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
                let binary = real(candidate)
                let bin = (binary as NSString).deletingLastPathComponent
                if (bin as NSString).lastPathComponent == "bin" { add((bin as NSString).deletingLastPathComponent, name) }
                // A version manager's shim (~/.pyenv/shims/python3) runs the manager first.
                if (dir as NSString).lastPathComponent == "shims" { add((dir as NSString).deletingLastPathComponent, "\(name)'s version manager") }
            }
        }
        for (variable, name) in [("PYENV_ROOT", "pyenv"), ("VIRTUAL_ENV", "the active virtual environment"), ("NVM_DIR", "nvm"), ("CONDA_PREFIX", "conda")] {
            guard let value = environment[variable], value.hasPrefix("/") else { continue }
            // Only when an interpreter found on the PATH lies in it: a variable alone grants nothing.
            let p = real(value)
            if roots.contains(where: { isInside($0.0, p) }) || variable == "VIRTUAL_ENV" && FileManager.default.fileExists(atPath: p + "/pyvenv.cfg") {
                add(p, name)
            }
        }
        return roots
    }

    static func isInsideInterpreterFolder(_ p: String, home: String?) -> Bool {
        guard let home, isInside(p, home), p != home else { return false }
        let first = p.dropFirst(home.count + 1).split(separator: "/").first.map(String.init) ?? ""
        return interpreterFolders.contains(first)
    }
}
