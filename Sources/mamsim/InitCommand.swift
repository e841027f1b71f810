import ArgumentParser
import Foundation
import MAMActivation
import MAMBundle
import MAMExtensions
import MAMModel
import MAMPolicy
import MAMScenario
import Yams

/// `mamsim init PATH`: a first scenario from a team's own project — its iOS apps and
/// extensions as the fleet, a work and a personal account, the given Graph policies, and steps
/// that exercise the fleet, with the outcomes a run of them gives written as expectations to
/// review.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a first scenario from a project: its apps and extensions, accounts, policies, and steps with their outcomes.",
        discussion: """
            PATH is what `mamsim lint` reads: an .xcodeproj, a workspace's folder, a repository, a .NET MAUI \
            project, or an app folder. Each extension gets a plugin folder beside the scenario (its Info.plist as \
            the build writes it). The steps are run once and their outcomes written as expectations: review them \
            against what your policy should do, then `mamsim run FILE`.
            """)

    @Argument(help: "An .xcodeproj, a repository or project folder, or an app folder.", completion: .file())
    var path: String?

    @Option(help: ArgumentHelp("Instead of a scenario, write a Swift test package in DIR where your own Intune code runs as a fleet app (the SDK-shaped façade, unofficial; docs/FACADE.md).", valueName: "DIR"),
            completion: .directory)
    var facade: String?

    @Option(help: ArgumentHelp("With --facade: the mamsim source checkout the package depends on (default: the one this mamsim was built from).", valueName: "PATH"),
            completion: .directory)
    var mamsimSource: String?

    @Option(help: ArgumentHelp("A Graph iosManagedAppProtection export, or baseline:level-1|level-2|level-3 (Microsoft's framework, written beside the scenario) (repeatable; the first targets the work account).", valueName: "GRAPH.json"),
            completion: .file(extensions: ["json"]))
    var policy: [String] = []

    @Option(name: .shortAndLong, help: "The scenario file to write.")
    var output: String = "mamsim-scenario.yaml"

    @Option(help: "Only this target (repeatable; projects only).")
    var target: [String] = []

    @Option(help: ArgumentHelp("A target that links the Intune SDK though its files show no sign of it (added at build time, e.g. by a CocoaPods or React Native module); repeatable.", valueName: "TARGET"))
    var sdk: [String] = []

    @Option(help: "The build configuration (default: each target's default).")
    var configuration: String?

    @Flag(help: "Write the steps without running them (no expectations).")
    var noRun = false

    @Flag(help: "Replace the output file (and its extensions' plugin folders) if it exists.")
    var force = false

    @OptionGroup var options: ScenarioOptions

    /// One fleet entry: an app or an extension, with the id the scenario names it by.
    struct Entry {
        var id: String
        var bundle: ProjectInventory.Bundle
        var isExtension: Bool { bundle.extensionPoint != nil }
        /// A custom keyboard: never a share target.
        var isKeyboard: Bool { bundle.isKeyboard }
        /// An app, or an extension of a kind a fleet hosts (share, action, keyboard and the
        /// kinds of SCENARIOS v1.4); the others (a packet tunnel, an ExtensionKit extension…)
        /// are written as comments saying why.
        var isHosted: Bool { !orphaned && (bundle.extensionPoint.map { AppDescriptor.Kind.forExtensionPoint($0) != nil } ?? true) }
        /// An extension no app of the project embeds (none found): never given another app as
        /// its container, written as a comment saying so.
        var orphaned = false
        /// Its kind: `app`, or the extension point's.
        var kind: AppDescriptor.Kind { bundle.extensionPoint.flatMap(AppDescriptor.Kind.forExtensionPoint) ?? .app }
        /// What the share sheet can hand data to: an app, a share or an action extension.
        var takesShares: Bool { kind == .app || kind.isShareSheetTarget }
        /// Named with `--sdk`: it links the SDK whatever its files say.
        var declaredSDK = false
        /// Signs that it links the Intune SDK: `IntuneMAMSettings`, the SDK's keychain group, or
        /// a `-intunemam` URL scheme (the SDK's own twins of the app's schemes), an Intune NuGet
        /// package of its .NET project, or `--sdk`.
        var sdk: Bool {
            declaredSDK || bundle.hasIntuneSettings || bundle.keychainGroups.contains("com.microsoft.intune.mam")
                || bundle.urlSchemes.contains { $0.hasSuffix("-intunemam") } || bundle.intunePackage != nil
        }
    }

    func validate() throws {
        if facade == nil, path == nil { throw ValidationError("name a project (PATH), or --facade DIR for a test package of your own Intune code") }
        if facade != nil, path != nil { throw ValidationError("--facade DIR writes a package, not a scenario of PATH: give one or the other") }
        if mamsimSource != nil, facade == nil { throw ValidationError("--mamsim-source goes with --facade DIR") }
    }

    mutating func run() async throws {
        if let facade { return try writeFacadePackage(facade) }
        let path = path ?? ""
        let settings = try options.buildSettings()
        var inventory: ProjectInventory.Inventory
        do {
            inventory = try ProjectInventory.inventory(path: URL(fileURLWithPath: path), displayName: path,
                                                       options: ProjectLinter.Options(targets: target, configuration: configuration, buildSettings: BuildSettings(settings)))
        } catch {
            Terminal.error(error.message)
            throw ExitCode(2)
        }
        for note in inventory.notes { Terminal.note(note) }
        for warning in inventory.warnings { Terminal.warning(warning) }
        var found = inventory.bundles
        // A bundle id built from a setting nothing sets (`$(ROOT).widget` → `.widget`, as Xcode
        // expands it) is no id: a stand-in, said, so the scenario loads.
        for i in found.indices {
            guard let id = found[i].bundleID, !id.isEmpty, !found[i].unresolvedSettings.isEmpty,
                  id.hasPrefix(".") || id.hasSuffix(".") || id.contains("..") else { continue }
            let standIn = Self.standIn(id, name: found[i].name)
            Terminal.note("\(found[i].source): its bundle id is \"\(id)\" once \(found[i].unresolvedSettings.map { "$(\($0))" }.joined(separator: ", ")) (set by no layer) is empty, as Xcode builds it; the scenario uses \(standIn): pass --set \(found[i].unresolvedSettings[0])=… for the real one")
            found[i].bundleID = standIn
            found[i].resolvedInfoPlist = found[i].resolvedInfoPlist.flatMap { Self.replacingBundleID(in: $0, with: standIn) }
            // The extensions it embeds name it by its new id.
            for j in found.indices where found[j].containerBundleID == id { found[j].containerBundleID = standIn }
        }
        // An app whose bundle id nothing in the repository gives (a setting a CI job or a
        // developer's own file sets) is still the project's app: a stand-in, said.
        for i in found.indices where found[i].extensionPoint == nil && found[i].bundleID?.isEmpty != false && found[i].missingInfoPlist == nil {
            let standIn = Self.standIn("", name: found[i].name)
            Terminal.note("\(found[i].source): no bundle id could be read (a build setting nothing in the repository sets?); the scenario uses the stand-in \(standIn): pass --set PRODUCT_BUNDLE_IDENTIFIER=… for the real one")
            if let old = found[i].bundleID, !old.isEmpty {
                for j in found.indices where found[j].containerBundleID == old && found[j].extensionPoint != nil { found[j].containerBundleID = standIn }
            }
            found[i].bundleID = standIn
            found[i].resolvedInfoPlist = found[i].resolvedInfoPlist.flatMap { Self.replacingBundleID(in: $0, with: standIn) }
        }
        // Two bundles with one id (two example apps of a repository): a fleet holds one app per
        // bundle id, so each after the first gets a stand-in, said; the extensions they embed
        // keep naming the first.
        var seen: [String: String] = [:]
        for i in found.indices {
            guard let id = found[i].bundleID, !id.isEmpty else { continue }
            guard let first = seen[id.lowercased()] else { seen[id.lowercased()] = found[i].source; continue }
            var standIn = id + "." + String(found[i].name.split(separator: "/").last ?? "copy").lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            var n = 2
            while seen[standIn.lowercased()] != nil { standIn = "\(id).\(n)"; n += 1 }
            seen[standIn.lowercased()] = found[i].source
            Terminal.note("\(found[i].source): its bundle id \(id) is \(first)'s too; a fleet holds one app per bundle id, so the scenario gives it the stand-in \(standIn)")
            found[i].bundleID = standIn
            found[i].resolvedInfoPlist = found[i].resolvedInfoPlist.flatMap { Self.replacingBundleID(in: $0, with: standIn) }
        }
        let usable = found.filter { $0.bundleID?.isEmpty == false }
        for b in found where b.bundleID?.isEmpty != false {
            // A missing Info.plist is said as what it is: the rest of the fleet is written.
            let why = b.missingInfoPlist.map { "its Info.plist (\($0)) is not in the checkout, so its bundle id and kind cannot be read (a file a build step writes? build once, or add it)" }
                ?? "no CFBundleIdentifier could be read (pass --set PRODUCT_BUNDLE_IDENTIFIER=… to init if a build setting names it)"
            Terminal.warning("\(b.source): \(why); left out")
            inventory.leftOut.append(ProjectInventory.LeftOut(name: b.name, source: b.source, why: why))
        }
        guard usable.contains(where: { $0.extensionPoint == nil }) else {
            Terminal.error("\(path): no iOS app target or app Info.plist was found; name an .xcodeproj, a repository or an app folder")
            throw ExitCode(2)
        }
        let outputURL = URL(fileURLWithPath: output)
        let folder = outputURL.deletingLastPathComponent()
        // A scenario someone reviewed and edited is not written over by accident.
        if FileManager.default.fileExists(atPath: output), !force {
            Terminal.error("\(output) exists; name another file with -o, or pass --force to replace it")
            throw ExitCode(2)
        }
        // `baseline:level-2`: Microsoft's template, written beside the scenario it is named by.
        for (i, p) in policy.enumerated() where p.hasPrefix("baseline:") {
            let name = String(p.dropFirst("baseline:".count))
            guard let document = Baselines.document(name) ?? Baselines.document(p) else {
                Terminal.error("--policy \(p): no such baseline; use \(Baselines.names.map { "baseline:\($0)" }.joined(separator: ", ")) (Microsoft's data protection framework for iOS)")
                throw ExitCode(2)
            }
            let file = folder.appendingPathComponent("\(name).json")
            try Self.write(Data(document.utf8), to: file, within: OutputFile.defaultRoot(for: folder))
            Terminal.note("--policy \(p): Microsoft's template written to \(file.path)")
            policy[i] = file.path
        }
        for p in policy where !FileManager.default.fileExists(atPath: p) {
            Terminal.error("\(p) cannot be read; name a Graph policy export (JSON), or baseline:\(Baselines.names.first ?? "level-2")")
            throw ExitCode(2)
        }
        var entries = Self.entries(usable)
        for name in sdk {
            guard let i = entries.firstIndex(where: { $0.bundle.name == name || $0.id == name }), !entries[i].isExtension else {
                Terminal.error("--sdk \(name): no app target of \(path) is named so; its apps are \(entries.filter { !$0.isExtension }.map(\.bundle.name).joined(separator: ", "))")
                throw ExitCode(2)
            }
            entries[i].declaredSDK = true
        }
        if !entries.contains(where: { !$0.isExtension && $0.sdk }) {
            Terminal.note("no app shows a sign of the Intune SDK (IntuneMAMSettings, its keychain group, -intunemam schemes), so the policy targets none; if one links it at build time, run init again with --sdk TARGET")
        }
        let text = try scenarioText(entries, folder: folder, leftOut: inventory.leftOut)
        try writePlugins(entries, folder: folder)
        try Self.write(Data(Self.withExpectations(text, []).utf8), to: outputURL, within: OutputFile.defaultRoot(for: folder))
        let terminal = Terminal()
        guard !noRun else {
            terminal.line("wrote \(output): \(Self.count(entries.count, "app or extension", "apps and extensions")); run it with `mamsim run \(output)`")
            return
        }
        // The outcomes the rules give, as expectations to review.
        let scenario: Scenario
        do { scenario = try ScenarioLoader.load(file: outputURL, buildSettings: settings) } catch {
            Terminal.error("the scenario written to \(output) does not load; it is kept as written: correct what the messages below name, then `mamsim run \(output)`")
            Terminal.error(error)
            throw ExitCode(1)
        }
        var runOptions = ScenarioRunner.Options(appRuntime: try options.runtime(), deviceDirectory: nil)
        runOptions.quietChildren = true
        let report = await ScenarioRunner.run(scenario, options: runOptions)
        try? FileManager.default.removeItem(at: report.deviceDirectory)
        if let e = report.fleetError {
            Terminal.error("the fleet of \(output) could not start: \(e); the scenario is written without expectations")
            throw ExitCode(1)
        }
        var expectations = report.steps.map { $0.observed.asExpectation.description }
        // An outcome its step cannot expect (a notification for an account a failed sign-in left
        // out) becomes a comment on the step, so the scenario written always loads.
        for _ in expectations.indices {
            try Self.write(Data(Self.withExpectations(text, expectations).utf8), to: outputURL, within: OutputFile.defaultRoot(for: folder))
            guard case .failure(let error) = Result(catching: { try ScenarioLoader.load(file: outputURL, buildSettings: settings) }),
                  let (index, outcome) = Self.unexpectable(in: "\(error)"), index < expectations.count,
                  !expectations[index].hasPrefix("#") else { break }
            expectations[index] = "# it gave \(outcome), which this step cannot expect: let an earlier step make it possible, or remove it"
        }
        let unhosted = entries.filter { !$0.isHosted }.count
        terminal.line("wrote \(output): \(Self.count(entries.filter { !$0.isExtension }.count, "app")), \(Self.count(entries.filter(\.isExtension).count, "extension"))\(unhosted == 0 ? "" : " (\(unhosted) as comments: kinds a fleet does not host, or no app embeds them)"), \(Self.count(report.steps.count, "step")) with the outcomes they gave; review them, then `mamsim run \(output)`")
    }

    /// `--facade DIR`: the test package (FacadePackage).
    func writeFacadePackage(_ dir: String) throws {
        let source: URL
        if let mamsimSource {
            source = URL(fileURLWithPath: mamsimSource).standardizedFileURL
            guard FileManager.default.fileExists(atPath: source.appendingPathComponent("Package.swift").path) else {
                Terminal.error("\(mamsimSource) has no Package.swift; name the folder of a mamsim source checkout")
                throw ExitCode(2)
            }
        } else if let built = FacadePackage.buildSource {
            source = built
        } else {
            Terminal.error("this mamsim was not built from a checkout that is still here; name one with --mamsim-source PATH")
            throw ExitCode(2)
        }
        let folder = URL(fileURLWithPath: dir).standardizedFileURL
        let package = FacadePackage(mamsim: source, folder: folder)
        do { try package.write(force: force) } catch let e as ValidationError {
            Terminal.error(e.message)
            throw ExitCode(2)
        }
        let terminal = Terminal()
        terminal.line("wrote \(dir): a test package whose IntuneMAMSwift is mamsim's SDK-shaped façade (UNOFFICIAL), depending on \(source.path)")
        terminal.line("next: put your Intune files in \(dir)/Sources/FleetApp, then `cd \(dir) && swift build --static-swift-stdlib && mamsim run scenarios/fleet.yaml`")
    }


    /// A bundle id that loads for one the project builds from a setting it does not set:
    /// `com.example.` and what of `id` is left without references (`.widget`,
    /// `$(ROOT).widget` → `com.example.widget`), else the target's name.
    static func standIn(_ id: String, name: String) -> String {
        let parts = id.split(separator: ".").filter { !BuildSettings.hasReference(String($0)) }.map { $0.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }.filter { !$0.isEmpty }
        let fallback = name.split(separator: "/").last.map { $0.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.lowercased() } ?? "app"
        return (["com", "example"] + (parts.isEmpty ? [fallback.isEmpty ? "app" : fallback] : parts)).joined(separator: ".")
    }

    static func replacingBundleID(in plist: Data, with id: String) -> Data? {
        guard var info = (try? PropertyListSerialization.propertyList(from: plist, format: nil)) as? [String: Any] else { return plist }
        info["CFBundleIdentifier"] = id
        return try? PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
    }

    func writePlugins(_ entries: [Entry], folder: URL) throws {
        for e in entries where e.isExtension && e.isHosted {
            let dir = folder.appendingPathComponent("mamsim-extensions").appendingPathComponent(e.id)
            guard let info = e.bundle.resolvedInfoPlist else {
                Terminal.warning("\(e.bundle.source): its Info.plist could not be read; \(dir.path) has none")
                continue
            }
            // Under the scenario's folder, which a repository may have committed with links in it.
            try Self.write(info, to: dir.appendingPathComponent("Info.plist"), within: OutputFile.defaultRoot(for: folder))
            // The project's own Info.plist, for a fix to name: the copy is refreshed by init, the
            // project's file is what a team edits.
            if let source = e.bundle.infoPlistFile,
               let json = try? JSONSerialization.data(withJSONObject: ["builtFrom": ProjectLinter.path(source.path, from: dir.standardizedFileURL.path)], options: [.sortedKeys, .withoutEscapingSlashes]) {
                try Self.write(json + Data("\n".utf8), to: dir.appendingPathComponent("plugin.json"), within: OutputFile.defaultRoot(for: folder))
            }
        }
    }

    /// `1 app`, `2 apps`.
    static func count(_ n: Int, _ one: String, _ many: String? = nil) -> String { "\(n) \(n == 1 ? one : many ?? one + "s")" }

    /// What `init` writes (the scenario, a template, an extension's plist) goes through no
    /// link and over no folder, from the scenario's `root` down: refused with exit 2, naming
    /// the link.
    static func write(_ data: Data, to url: URL, within root: URL) throws {
        do { try OutputFile.write(data, to: url, within: root) } catch {
            Terminal.error("\(error); init wrote nothing there")
            throw ExitCode(2)
        }
    }
}
