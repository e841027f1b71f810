import Crypto
package import Foundation

/// A Tuist manifest read as Tuist reads it: compiled against a re-declaration of Tuist's
/// ProjectDescription (MAMTuistDescription, unofficial) with the workspace's
/// `Tuist/ProjectDescriptionHelpers` and local plugins' helpers, then run to dump its project.
///
/// The manifest is the repository's code, so it is a hostile child: it runs under
/// `mamsim-confine` as a plugin does — the system's libraries, the Swift runtime, its own
/// program and the workspace to read, a scratch folder to write, no network, bounded memory,
/// files, time and output. Where it cannot run confined it does not run. Compiling is not
/// running: `swiftc` is given no plugin or macro search path, so no repository code runs
/// while compiling. What is compiled is cached by content under the cache folder.
package struct TuistManifestRunner: Sendable {
    package var swiftc: URL
    package var launcher: URL
    package var cache: URL
    /// Folders the manifest's program reads besides the system's: the Swift runtime's.
    package var runtimeFolders: [String]
    /// How long a manifest may run; Tuist's own manifests dump in well under a second.
    package var timeout: TimeInterval = 30
    /// How long one compilation may take: a manifest of a real project compiles in seconds.
    package var compileTimeout: TimeInterval = 180
    /// The variables a manifest reads (Tuist passes its `TUIST_` ones).
    package var environment: [String: String] = [:]
    /// `swiftc --version`'s first line: a new toolchain compiles everything anew.
    package var toolchainVersion = "unknown"

    /// This process's runner: the launcher probed and the toolchain asked once, not per manifest.
    static let shared = available()

    /// Why a manifest was not run, or did not dump.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
        /// The compiler's first errors, `file:line:column: message` each.
        package var diagnostics: [String] = []
        /// Whether the manifest was compiled or run (and failed), not merely left unrun.
        package var ranOrCompiled = false
        init(_ description: String, diagnostics: [String] = [], ranOrCompiled: Bool = false) {
            self.description = description
            self.diagnostics = diagnostics
            self.ranOrCompiled = ranOrCompiled
        }
    }

    /// The runner this machine allows: a `swiftc` on the PATH (or `MAMSIM_SWIFTC`) and the
    /// confinement launcher beside this program (or `MAMSIM_CONFINE`) that can confine here.
    /// `MAMSIM_TUIST=source` turns running off.
    package static func available(environment env: [String: String] = ProcessInfo.processInfo.environment) -> Result<TuistManifestRunner, Failure> {
        if env["MAMSIM_TUIST"] == "source" { return .failure(Failure("running manifests is off (MAMSIM_TUIST=source)")) }
        guard let swiftc = env["MAMSIM_SWIFTC"].map(URL.init(fileURLWithPath:)) ?? onPath("swiftc", env["PATH"] ?? "") else {
            return .failure(Failure("no Swift toolchain on the PATH (swiftc) to compile it as Tuist does"))
        }
        let launcher = env["MAMSIM_CONFINE"].map(URL.init(fileURLWithPath:))
            ?? Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("mamsim-confine")
        guard let launcher, FileManager.default.isExecutableFile(atPath: launcher.path) else {
            return .failure(Failure("mamsim-confine is not beside mamsim, and a manifest never runs unconfined"))
        }
        let probe = TuistProcess.run(launcher, ["--probe"], environment: [:], timeout: 10)
        guard probe.status == 0 else {
            return .failure(Failure("it cannot run confined here (\(TuistProcess.firstLine(probe.error) ?? "mamsim-confine --probe failed")), and a manifest never runs unconfined"))
        }
        guard let cache = cacheFolder(env) else { return .failure(Failure("no cache folder (set HOME or XDG_CACHE_HOME)")) }
        let real = swiftc.resolvingSymlinksInPath()
        let runtime = real.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib/swift/linux").path
        var runner = TuistManifestRunner(swiftc: swiftc, launcher: launcher, cache: cache, runtimeFolders: [runtime])
        runner.environment = env.filter { $0.key.hasPrefix("TUIST_") || ["LANG", "LC_ALL", "TZ"].contains($0.key) }
        let version = TuistProcess.run(swiftc, ["--version"], environment: env, timeout: 30)
        runner.toolchainVersion = TuistProcess.firstLine(version.output + version.error) ?? "unknown"
        return .success(runner)
    }

    static func cacheFolder(_ env: [String: String]) -> URL? {
        if let folder = env["MAMSIM_TUIST_CACHE"], folder.hasPrefix("/") { return URL(fileURLWithPath: folder) }
        if let cache = env["XDG_CACHE_HOME"], cache.hasPrefix("/") { return URL(fileURLWithPath: cache).appendingPathComponent("mamsim/tuist") }
        if let home = env["HOME"], home.hasPrefix("/") { return URL(fileURLWithPath: home).appendingPathComponent(".cache/mamsim/tuist") }
        return nil
    }

    static func onPath(_ name: String, _ path: String) -> URL? {
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The JSON `manifest` dumps (`mamsim.tuist-dump/1`), `root` being the workspace (where
    /// `Tuist/` is): compiled, or taken from the cache when nothing it is built from changed.
    package func dump(manifest: URL, root: URL) -> Result<Data, Failure> {
        do {
            let description = try descriptionModule()
            let plugins = try pluginModules(root: root, description: description)
            let helpers = try helpersModule(root: root, modules: [description] + plugins)
            let modules = [description] + plugins + (helpers.map { [$0] } ?? [])
            let program = try manifestProgram(manifest, modules: modules)
            let output = cache.appendingPathComponent("dumps/\(program.key).json")
            if let data = try? Data(contentsOf: output) { return .success(data) }
            let data = try run(program.url, manifest: manifest, root: root)
            try? FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? data.write(to: output, options: .atomic)
            return .success(data)
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure("\(error)"))
        }
    }

    /// A module compiled into the cache: its folder (module and library) and its key.
    struct Module {
        var name: String
        var folder: URL
        var key: String
    }

    func descriptionModule() throws -> Module {
        let sources = TuistDescriptionSource.files
        let key = Self.key(["ProjectDescription", toolchainVersion] + sources.flatMap { [$0.name, $0.text] })
        return try compiledModule("ProjectDescription", key: key, swiftVersion: "6", modules: []) { folder in
            let source = folder.appendingPathComponent("src")
            try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
            return try sources.map { file in
                let url = source.appendingPathComponent(file.name)
                try Data(file.text.utf8).write(to: url)
                return url
            }
        }
    }

    /// `Tuist/ProjectDescriptionHelpers`, a module the manifest imports by that name.
    func helpersModule(root: URL, modules: [Module]) throws -> Module? {
        let files = Self.swiftFiles(in: root.appendingPathComponent("Tuist/ProjectDescriptionHelpers"))
        guard !files.isEmpty else { return nil }
        return try module("ProjectDescriptionHelpers", files: files, modules: modules)
    }

    /// Each local plugin's `ProjectDescriptionHelpers`, a module named as its `Plugin.swift` says.
    func pluginModules(root: URL, description: Module) throws -> [Module] {
        let plugins = root.appendingPathComponent("Plugins")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: plugins.path))?.sorted() ?? []
        return try names.compactMap { name in
            let folder = plugins.appendingPathComponent(name)
            let files = Self.swiftFiles(in: folder.appendingPathComponent("ProjectDescriptionHelpers"))
            guard !files.isEmpty, let manifest = try? String(contentsOf: folder.appendingPathComponent("Plugin.swift"), encoding: .utf8),
                  let declared = Self.pluginName(manifest) else { return nil }
            return try module(declared, files: files, modules: [description])
        }
    }

    static func pluginName(_ manifest: String) -> String? {
        guard let range = manifest.range(of: #"Plugin\s*\(\s*name\s*:\s*"([A-Za-z_][A-Za-z0-9_]*)""#, options: .regularExpression) else { return nil }
        let match = manifest[range]
        guard let open = match.firstIndex(of: "\"") else { return nil }
        return String(match[match.index(after: open)...].dropLast())
    }

    func module(_ name: String, files: [URL], modules: [Module]) throws -> Module {
        let texts = try files.map { try TuistProcess.text(of: $0) }
        let key = Self.key([name] + modules.map(\.key) + zip(files, texts).flatMap { [$0.0.path, $0.1] })
        return try compiledModule(name, key: key, swiftVersion: "5", modules: modules) { _ in files }
    }

    /// The module `name` under `modules/<key>`, compiled there first when it is not.
    func compiledModule(_ name: String, key: String, swiftVersion: String, modules: [Module], sources: (URL) throws -> [URL]) throws -> Module {
        let folder = cache.appendingPathComponent("modules/\(name)-\(key)")
        let built = Module(name: name, folder: folder, key: key)
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent("lib\(name).a").path) { return built }
        let scratch = try makeScratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let files = try sources(scratch)
        let arguments = ["-swift-version", swiftVersion, "-module-name", name, "-parse-as-library", "-emit-library", "-static",
                         "-emit-module", "-emit-module-path", scratch.appendingPathComponent("\(name).swiftmodule").path,
                         "-o", scratch.appendingPathComponent("lib\(name).a").path, "-module-cache-path", moduleCache.path]
            + modules.flatMap { ["-I", $0.folder.path] } + files.map(\.path)
        try compile(arguments, what: name == "ProjectDescription" ? "mamsim's ProjectDescription" : "\(name) (\(files.count) files)", in: scratch,
                    reading: files.map { $0.deletingLastPathComponent() })
        try? FileManager.default.removeItem(at: scratch.appendingPathComponent("src"))
        try publish(scratch, as: folder)
        return built
    }

    /// The manifest's program, compiled unless the cache holds it.
    func manifestProgram(_ manifest: URL, modules: [Module]) throws -> (url: URL, key: String) {
        let text = try TuistProcess.text(of: manifest)
        let key = Self.key(["manifest", manifest.path, text] + modules.map(\.key))
        let folder = cache.appendingPathComponent("manifests/\(key)")
        let program = folder.appendingPathComponent("manifest")
        if FileManager.default.isExecutableFile(atPath: program.path) { return (program, key) }
        // A manifest that did not compile does not compile again until something it is built from changes.
        let failed = folder.appendingPathComponent("failed.json")
        if let data = try? Data(contentsOf: failed), let known = try? JSONDecoder().decode([String].self, from: data), let first = known.first {
            throw Failure(first, diagnostics: Array(known.dropFirst()), ranOrCompiled: true)
        }
        let scratch = try makeScratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var arguments = ["-swift-version", "5", "-module-name", "Manifest", "-o", scratch.appendingPathComponent("manifest").path,
                         "-module-cache-path", moduleCache.path]
        arguments += modules.flatMap { ["-I", $0.folder.path, "-L", $0.folder.path] }
        // Static libraries link dependents first: the helpers, then plugins, then ProjectDescription.
        arguments += modules.reversed().map { "-l" + $0.name }
        arguments.append(manifest.path)
        do {
            try compile(arguments, what: manifest.lastPathComponent, in: scratch, reading: [manifest.deletingLastPathComponent()])
        } catch let failure as Failure where !failure.diagnostics.isEmpty {
            if let data = try? JSONEncoder().encode([failure.description] + failure.diagnostics) {
                try? data.write(to: scratch.appendingPathComponent("failed.json"))
                try? publish(scratch, as: folder)
            }
            throw failure
        }
        try publish(scratch, as: folder)
        return (program, key)
    }

    var moduleCache: URL { cache.appendingPathComponent("clang-modules") }

    /// Compiles confined too: the compiler reads the repository's Swift, which may be written to
    /// make it run long or grow without end. The toolchain, the sources' folders and the
    /// compiled modules to read; the scratch folder and the module cache to write; the
    /// launcher's end ends every process the driver started.
    func compile(_ arguments: [String], what: String, in scratch: URL, reading: [URL]) throws {
        // <toolchain>/usr/bin/swiftc
        let toolchain = swiftc.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        try FileManager.default.createDirectory(at: moduleCache, withIntermediateDirectories: true)
        let reads = [toolchain.path, swiftc.deletingLastPathComponent().path, cache.appendingPathComponent("modules").path] + reading.map(\.path) + runtimeFolders
        var launch = Array(Set(reads)).sorted().filter { FileManager.default.fileExists(atPath: $0) }.flatMap { ["--read", $0] }
        launch += ["--write", scratch.path, "--write", moduleCache.path, "--memory", String(16 << 30), "--file-size", String(1 << 30), "--", swiftc.path]
        let environment = ["PATH": "\(toolchain.path)/usr/bin:/usr/bin:/bin", "HOME": scratch.path, "TMPDIR": scratch.path]
        let result = TuistProcess.run(launcher, launch + arguments, environment: environment, timeout: compileTimeout, folder: scratch)
        guard result.status == 0 else {
            let diagnostics = TuistProcess.errors(result.error + result.output)
            let why = result.timedOut ? "took longer than \(Int(compileTimeout)) s to compile" : diagnostics.isEmpty ? (TuistProcess.firstLine(result.error) ?? "swiftc exited \(result.status)") : "does not compile"
            throw Failure("\(what) \(why)", diagnostics: diagnostics, ranOrCompiled: true)
        }
    }

    /// Runs the program confined and returns the JSON it printed between Tuist's markers.
    func run(_ program: URL, manifest: URL, root: URL) throws -> Data {
        let scratch = try makeScratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let reads = [program.deletingLastPathComponent().path, root.path, manifest.deletingLastPathComponent().path] + runtimeFolders
        var arguments = reads.filter { FileManager.default.fileExists(atPath: $0) }.flatMap { ["--read", $0] }
        arguments += ["--write", scratch.path, "--memory", String(4 << 30), "--file-size", String(64 << 20), "--open-files", "256", "--", program.path, "--tuist-dump"]
        var environment = self.environment
        environment["HOME"] = scratch.path
        environment["TMPDIR"] = scratch.path
        environment["PATH"] = "/usr/bin:/bin"
        let result = TuistProcess.run(launcher, arguments, environment: environment, timeout: timeout, folder: manifest.deletingLastPathComponent(), outputLimit: 16 << 20)
        if result.timedOut { throw Failure("it ran longer than \(Int(timeout)) s and was stopped", ranOrCompiled: true) }
        guard result.status == 0 else {
            throw Failure("it ended with status \(result.status) when run: \(TuistProcess.lastLine(result.error) ?? "no message")", ranOrCompiled: true)
        }
        guard let json = TuistProcess.between("TUIST_MANIFEST_START", "TUIST_MANIFEST_END", in: result.output) else {
            throw Failure("it ran but dumped no project (no Project(…) is made at the top level of the manifest)", ranOrCompiled: true)
        }
        return json
    }

    func makeScratch() throws -> URL {
        let scratch = cache.appendingPathComponent("scratch/\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        return scratch
    }

    /// Moves what `scratch` holds to `folder`; another process that got there first wins.
    func publish(_ scratch: URL, as folder: URL) throws {
        try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        let staged = folder.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString)")
        try FileManager.default.moveItem(at: scratch, to: staged)
        if rename(staged.path, folder.path) != 0 { try? FileManager.default.removeItem(at: staged) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    static func swiftFiles(in folder: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }

    /// Changes when how mamsim compiles, links or runs a manifest changes: what the cache holds
    /// was made the old way.
    static let cacheFormat = "mamsim-tuist-2"

    static func key(_ parts: [String]) -> String {
        var hash = SHA256()
        hash.update(data: Data(cacheFormat.utf8))
        for part in parts {
            hash.update(data: Data("\(part.utf8.count):".utf8))
            hash.update(data: Data(part.utf8))
        }
        return hash.finalize().prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
