import Foundation
@testable import MAMBundle
import Testing
@testable import MAMExtensions

/// Issue 96, item 1: a Tuist manifest compiled against mamsim's ProjectDescription and run,
/// confined, as Tuist runs it — what the source reader cannot follow (a local function, an
/// enum, a helper module, the manifest's settings dictionary) read whole; a hostile manifest
/// writes nothing outside its scratch folder, reaches no network, is stopped when it runs too
/// long, and floods nothing; what does not compile is named at its line.
///
/// They compile Swift, which takes both cores for seconds: `make test` runs them in a pass of
/// their own after the others (MAMSIM_TUIST_RUNNER_TESTS=1), so no compiler competes with the
/// timed host tests.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["MAMSIM_TUIST_RUNNER_TESTS"] == "1"))
struct TuistManifestRunnerTests {
    static let launcher = Fixtures.packageRoot.appendingPathComponent(".build/debug/mamsim-confine").path

    func runner(timeout: TimeInterval = 30) throws -> TuistManifestRunner {
        var environment = ProcessInfo.processInfo.environment
        environment["MAMSIM_CONFINE"] = Self.launcher
        // The user's cache, as mamsim uses it (make test fills it before the tests run).
        environment["MAMSIM_TUIST"] = nil
        var runner = try TuistManifestRunner.available(environment: environment).get()
        runner.timeout = timeout
        return runner
    }

    /// A workspace of one manifest written by the test.
    func workspace(_ manifest: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-tuist-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("Project.swift"))
        return folder
    }

    func dumped(_ manifest: String, timeout: TimeInterval = 30) throws -> Result<[String: Any], TuistManifestRunner.Failure> {
        let folder = try workspace(manifest)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try runner(timeout: timeout).dump(manifest: folder.appendingPathComponent("Project.swift"), root: folder).map {
            (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] ?? [:]
        }
    }

    @Test func aManifestThatComputesItsTargetsIsReadWhole() throws {
        let folder = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/tuist-run/computed")
        let json = try runner().dump(manifest: folder.appendingPathComponent("Project.swift"), root: folder).get()
        let project = try TuistDump.project(json, manifest: folder.appendingPathComponent("Project.swift"), root: folder)
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("expected.json"))) as? [String: Any])
        let targets = try #require(expected["targets"] as? [[String: Any]])
        #expect(project.targets.map(\.name) == targets.map { $0["name"] as? String ?? "" })
        for want in targets {
            let target = try #require(project.targets.first { $0.name == want["name"] as? String })
            let settings = try #require(target.configurations.first { $0.name == "Release" }).settings
            #expect(settings["PRODUCT_BUNDLE_IDENTIFIER"] == want["bundleId"] as? String, "\(target.name)")
            if let embeds = want["embeds"] as? [String] { #expect(target.embeddedTargets == embeds, "\(target.name)") }
            if let point = want["extensionPoint"] as? String {
                let path = try #require(settings["INFOPLIST_FILE"])
                let info = try #require(project.generatedFiles[XcodeGenSpec.key(path, in: folder)])
                let plist = try #require(try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any])
                #expect((plist["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String == point)
            }
        }
    }

    @Test func whatDoesNotCompileIsNamedAtItsLine() throws {
        let result = try dumped("import ProjectDescription\nlet project = Project(name: \"X\", targets: [.target(name: \"A\", destinations: .iOS, product: .app, bundleId: 42)])\n")
        guard case .failure(let failure) = result else { Issue.record("a manifest that does not compile ran"); return }
        #expect(failure.ranOrCompiled)
        #expect(failure.diagnostics.contains { $0.contains("Project.swift:2:") }, "\(failure.diagnostics)")
    }

    /// The manifest reports what it could do in the project's name: what Tuist dumps is the
    /// only channel a confined manifest has.
    @Test func aHostileManifestWritesNothingOutsideItsScratchFolderAndReachesNoNetwork() throws {
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-tuist-escape-\(UUID().uuidString)")
        let manifest = """
        import ProjectDescription
        import Foundation
        #if canImport(Glibc)
        import Glibc
        #endif
        let wrote = FileManager.default.createFile(atPath: "\(outside.path)", contents: Data("x".utf8))
        let besides = FileManager.default.createFile(atPath: "escaped.txt", contents: Data("x".utf8))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(22).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let why = errno
        // Refused by the sandbox: no socket, or a connect Landlock denies.
        let denied = fd < 0 || (connected != 0 && (why == EACCES || why == EPERM))
        let project = Project(name: "wrote-\\(wrote)-besides-\\(besides)-connectDenied-\\(denied)\\(denied ? "" : "-fd-\\(fd)-errno-\\(why)")")
        """
        let name = try dumped(manifest).get()["name"] as? String
        #expect(name == "wrote-false-besides-false-connectDenied-true")
        #expect(!FileManager.default.fileExists(atPath: outside.path))
    }

    @Test func aManifestThatNeverEndsIsStopped() throws {
        let result = try dumped("import ProjectDescription\nvar n = 0\nwhile n >= 0 { n = (n + 1) % 7 }\nlet project = Project(name: \"X\")\n", timeout: 3)
        guard case .failure(let failure) = result else { Issue.record("an endless manifest ended"); return }
        #expect(failure.description.contains("ran longer than 3 s"))
    }

    @Test func aFloodOfOutputIsBoundedAndNamed() throws {
        let result = try dumped("import ProjectDescription\nlet line = String(repeating: \"x\", count: 1 << 20)\nfor _ in 0..<64 { print(line) }\n")
        guard case .failure(let failure) = result else { Issue.record("a manifest without a project dumped one"); return }
        #expect(failure.description.contains("dumped no project"))
    }

    @Test func aManifestIsCompiledOnceForItsContent() throws {
        let folder = try workspace("import ProjectDescription\nlet project = Project(name: \"Cached\")\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("Project.swift")
        _ = try runner().dump(manifest: manifest, root: folder).get()
        let start = Date()
        _ = try runner().dump(manifest: manifest, root: folder).get()
        // Taken from the cache: no compiler runs (a compile takes seconds).
        #expect(Date().timeIntervalSince(start) < 2)
        try Data("import ProjectDescription\nlet project = Project(name: \"Changed\")\n".utf8).write(to: manifest)
        let changed = try JSONSerialization.jsonObject(with: try runner().dump(manifest: manifest, root: folder).get()) as? [String: Any]
        #expect(changed?["name"] as? String == "Changed")
    }

    /// Every Tuist name the re-declaration lists as checked is declared in it.
    @Test func everyListedTuistNameIsDeclared() throws {
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources/MAMTuistDescription")
        let text = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
        let names = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/tuist-api/public-names.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(names.count > 1000)
        var missing: [String] = []
        for line in names {
            let base = line.split(separator: "(").first.map(String.init) ?? line
            let member = base.split(separator: ".").last.map(String.init) ?? base
            let declared = member == "init" || member == "subscript" ? text.contains(member + "(") : ["case \(member)", "func \(member)", "var \(member)", "let \(member)", "struct \(member)",
                                                                        "enum \(member)", "class \(member)", "typealias \(member)", "protocol \(member)", ", \(member)"]
                .contains { text.contains($0) }
            if !declared { missing.append(line) }
        }
        #expect(missing.isEmpty, "\(missing.prefix(20))")
    }
}
