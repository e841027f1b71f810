public import Foundation
import MAMActivation

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
    /// The host's environment, whose values a declared variable would pass.
    let environment: [String: String]
    /// What the project's walks found, shared by the judges of one scenario's load.
    let scan: ProjectScan

    /// `scan`: share one between the judges of one load (each app's), so the project is walked
    /// and git asked once, not once per app.
    public init(ownFolder: URL, scenarioFolder: URL?, allowances: SandboxAllowances,
                environment: [String: String] = ProcessInfo.processInfo.environment, scan: ProjectScan = ProjectScan()) {
        self.scan = scan
        self.ownFolder = Self.real(ownFolder.path)
        self.allowances = allowances
        self.environment = environment
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

    /// Why `path` may be read, or throws why not (a sentence naming the path and the fix). A
    /// file is judged as a folder is: by where it lies, what it is named, and, inside the
    /// scenario's project, whether git tracks it and whether a scenario reads it.
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
        // Wherever it lies: a repository's settings (a CI checkout keeps its token in
        // .git/config) and anything in a device directory (another run's apps' files).
        if p.split(separator: "/").contains(".git") {
            throw PluginSandboxError("\(path) is inside a .git folder, a repository's settings (a CI checkout keeps its token there)\(approve)")
        }
        if let device = Self.enclosingDeviceDirectory(p) {
            throw PluginSandboxError("\(path) lies in \(device)\(approve)")
        }
        let reason: String
        let inProject: Bool
        if Self.isInside(p, ownFolder) {
            reason = "its own folder"
            inProject = projectRoot.map { Self.isInside(p, $0) } ?? false
        } else if let projectRoot, Self.isInside(p, projectRoot) {
            reason = "in the scenario's project \(projectRoot)"
            inProject = true
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
        if inProject, let projectRoot {
            if let input = scan.scenarioInputs(in: projectRoot).first(where: { Self.isInside($0.file, p) }) {
                throw PluginSandboxError("\(path) holds \(input.file), an input of the scenario \(input.scenario) (its policies, declarations and credentials are the host's to read); name a folder without it\(approve)")
            }
            // Only what git tracks: a checkout's untracked files are what CI and the team added
            // beside the code (tokens, .env files, generated secrets).
            if let untracked = try Self.untrackedFile(in: p, root: projectRoot, scan: scan) {
                throw PluginSandboxError("\(path) holds \(untracked), which git does not track (a declaration from the project grants only tracked files)\(approve)")
            }
        }
        return SandboxGrant(path: p, reason: reason)
    }

    /// What a process may read of its own program at `program`: its folder when a declaration
    /// could have that folder (no secret, nothing untracked in the project, no scenario's
    /// input), else the program file alone, with why.
    public func judgeProgram(_ program: String) -> (grant: SandboxGrant, alone: Bool) {
        let file = Self.real(program)
        let folder = (file as NSString).deletingLastPathComponent
        do throws(PluginSandboxError) {
            let grant = try judgeRead(folder)
            return (SandboxGrant(path: grant.path, reason: "its program's folder"), false)
        } catch {
            return (SandboxGrant(path: file, reason: "its program alone: \(error.description.prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "; name a folder without it", with: ""))"), true)
        }
    }

    /// Throws when `name` must not reach a child without the user's `--allow-env`: a declaration
    /// passes only the harmless names of `harmlessVariables` (locale, terminal, an interpreter's
    /// installation), and never one whose value here carries a secret (a URL with a user and
    /// password). A list of secret-looking names cannot be complete (`MY_JWT`,
    /// `REGISTRY_CREDS`, `WEBHOOK_URL` are secrets no pattern names); a list of harmless ones can.
    public func judgeEnvironment(_ name: String) throws(PluginSandboxError) {
        if allowances.environment.contains(name) { return }
        if let why = environment[name].flatMap(Self.secretValue) ?? Self.secretVariable(name) {
            throw PluginSandboxError("environment variable \(name) \(why), and no declaration may pass it (if this app really needs it, run with --allow-env \(name))")
        }
        guard Self.isHarmlessVariable(name) else {
            throw PluginSandboxError("environment variable \(name) is not one a declaration may pass on its own (locale, terminal and interpreter settings: \(Self.harmlessVariablesSpelled)); its value may be a secret — if this app really needs it, run with --allow-env \(name)")
        }
    }

    /// The variables a declaration may pass without the user (docs/GUIDE.md, "Plugins"): how to
    /// print (locale categories by name, never an `LC_` prefix) and which interpreter to run.
    public static let harmlessVariables: Set<String> = [
        "LANG", "LANGUAGE", "LC_ALL", "LC_COLLATE", "LC_CTYPE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC", "LC_TIME",
        "LC_ADDRESS", "LC_IDENTIFICATION", "LC_MEASUREMENT", "LC_NAME", "LC_PAPER", "LC_TELEPHONE", "TZ", "TERM", "COLORTERM", "NO_COLOR", "PWD",
        "PYENV_VERSION", "PYENV_ROOT", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV",
        "PYTHONPATH", "PYTHONHOME", "PYTHONIOENCODING", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONUTF8",
        "NODE_PATH", "NODE_ENV", "NVM_DIR", "NVM_BIN", "GEM_HOME", "GEM_PATH", "RBENV_VERSION", "JAVA_HOME",
    ]

    /// A harmless name: one of `harmlessVariables`, exactly.
    public static func isHarmlessVariable(_ name: String) -> Bool { harmlessVariables.contains(name) }

    static var harmlessVariablesSpelled: String { harmlessVariables.sorted().joined(separator: ", ") }

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
        if let device = deviceDirectory(p) { return device }
        var found: String?
        let whole = FolderWalk.walk(p, budget: budget) { entry in
            switch entry.kind {
            case .link: return .goOn
            case .folder:
                if entry.name == ".git" { found = "\(entry.path), a repository's settings (a CI checkout keeps its token there)" }
                found = found ?? deviceDirectory(entry.path)
            case .file: found = secretFile(entry.path)
            }
            return found == nil ? .goOn : .stop
        }
        return found ?? (whole ? nil : "more than \(budget) files, too many to check for secrets")
    }

    /// Why `path` is a mamsim device directory (one of its marks lies in it), or `nil`.
    static func deviceDirectory(_ path: String) -> String? {
        let marks = ["store.key", "host.lock", "device.sqlite", "storage.img"]
        guard marks.contains(where: { access(path + "/" + $0, F_OK) == 0 }) else { return nil }
        return "\(path), a mamsim device directory"
    }

    /// The device directory `p` lies in (it or any folder above it), or `nil`.
    static func enclosingDeviceDirectory(_ p: String) -> String? {
        var folder = p
        while folder != "/" && !folder.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue,
               let device = deviceDirectory(folder) {
                return device
            }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return nil
    }

    static let secretExtensions: Set<String> = ["p12", "pfx", "pem", "key", "p8", "jks", "keystore", "mobileprovision", "kdbx", "asc", "gpg",
                                                "sqlite", "credential", "credentials", "kubeconfig", "ppk", "keychain", "cer", "der", "crt",
                                                "provisionprofile", "tfstate", "tfvars", "img", "token"]
    static let secretNames: Set<String> = ["store.key", "host.lock", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".gitconfig",
                                           "credentials", "kubeconfig", "storage.img", "googleservice-info.plist", "google-services.json",
                                           ".htpasswd", ".pgpass", ".my.cnf", ".dockercfg", ".git"]
    /// Words that, anywhere in a file's name, say it holds a secret (`Secrets.xcconfig`,
    /// `deploy_key`, `api-token.txt`).
    static let secretWords = ["secret", "credential", "password", "passwd", "private_key", "private-key", "privatekey", "deploy_key", "deploy-key",
                              "apikey", "api_key", "api-key", "token.", "-token", "_token"]

    /// What a compiler or Xcode's index writes: objects, dependency and module files, index
    /// records. Their names echo the sources' (`AccessToken.o`), never a secret of their own.
    static let buildProductExtensions: Set<String> = ["o", "d", "a", "dia", "swiftmodule", "swiftdoc", "swiftsourceinfo", "swiftdeps", "swiftinterface",
                                                      "pcm", "emit-module", "dat", "priors", "swiftconstvalues", "resp", "dylib", "so", "bc"]

    static func secretFile(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        let lower = name.lowercased()
        let ext = (name as NSString).pathExtension.lowercased()
        if buildProductExtensions.contains(ext) || path.contains("/Index.noindex/") || path.contains("/index/store/") || path.contains("/IndexStore/") {
            return nil
        }
        if secretNames.contains(lower) || secretExtensions.contains(ext) || lower.hasPrefix(".env") || lower.hasPrefix("id_")
            || lower.hasPrefix("audit.") || lower.hasSuffix(".env") || secretWords.contains(where: lower.contains) {
            return "\(path), a credential or key"
        }
        if ext == "yaml" || ext == "yml", isScenarioFile(path) { return "\(path), a scenario (and what it reads)" }
        return nil
    }

    /// The first file inside `p` (or `p` itself) that git does not track in the repository at
    /// `root`; `nil` when every one is tracked or `root` is no repository. Python's compiled
    /// caches (`__pycache__/*.pyc`) are made from tracked sources and pass.
    static func untrackedFile(in p: String, root: String, budget: Int = 20_000, scan: ProjectScan = ProjectScan()) throws(PluginSandboxError) -> String? {
        guard FileManager.default.fileExists(atPath: root + "/.git") else { return nil }
        let tracked = try scan.trackedFiles(root: root)
        func isTracked(_ file: String) -> Bool {
            guard isInside(file, root), file != root else { return false }
            if file.hasSuffix(".pyc"), file.split(separator: "/").contains("__pycache__") { return true }
            return tracked.contains(String(file.dropFirst(root.count + 1)))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: p, isDirectory: &isDirectory) else { return nil }
        if !isDirectory.boolValue { return isTracked(p) ? nil : p }
        var untracked: String?
        let whole = FolderWalk.walk(p, budget: budget) { entry in
            guard entry.kind != .folder else { return .goOn }
            if !isTracked(entry.path) { untracked = entry.path }
            return untracked == nil ? .goOn : .stop
        }
        return untracked ?? (whole ? nil : "more than \(budget) files")
    }

    /// Why a variable's name marks it as a secret or a way into another service, or `nil`.
    public static func secretVariable(_ name: String) -> String? {
        let upper = name.uppercased()
        // The shell's working folders are not secrets, though they contain PWD.
        if upper == "PWD" || upper == "OLDPWD" { return nil }
        let words = ["TOKEN", "SECRET", "PASS", "PWD", "CREDENTIAL", "PRIVATE", "APIKEY", "API_KEY", "DSN",
                     "ACCESS_KEY", "AUTH", "SESSION", "COOKIE", "SIGNING", "CERT", "CONNECTION_STRING", "SAS_"]
        if let word = words.first(where: { upper.contains($0) }) { return "names a secret (\(word))" }
        if upper.hasSuffix("_KEY") || upper.hasSuffix("_PAT") || upper == "KEY" { return "names a key" }
        let services = ["AWS_", "AZURE_", "ARM_", "GITHUB_", "GH_", "ACTIONS_", "GITLAB_", "CI_JOB_", "GOOGLE_", "GCLOUD_", "GCP_",
                        "NPM_", "DOCKER_", "KUBE", "SSH_", "GPG_", "VAULT_", "DBUS_", "XDG_RUNTIME_DIR", "HEROKU_", "SLACK_", "TWINE_", "NETRC",
                        "DATABASE_", "MYSQL_", "PG", "POSTGRES", "REDIS_", "MONGO", "SENTRY_"]
        if let prefix = services.first(where: { upper.hasPrefix($0) }) { return "reaches another service (\(prefix))" }
        if upper.hasSuffix("_PROXY") || upper.hasSuffix("_URL") && ["DB", "DATABASE", "REDIS", "AMQP", "MONGO", "BROKER"].contains(where: upper.contains) {
            return "reaches another service (\(upper.hasSuffix("_PROXY") ? "a proxy" : "a database or broker URL"))"
        }
        return nil
    }

    /// Why a variable's value carries a secret (`scheme://user:password@host`), or `nil`.
    public static func secretValue(_ value: String) -> String? {
        guard let scheme = value.range(of: "://") else { return nil }
        let authority = value[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") else { return nil }
        return "holds a URL with a user and password"
    }
}
