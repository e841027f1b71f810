import ArgumentParser
import Foundation
import MAMBundle
import MAMExtensions
import MAMModel
import MAMPolicy
import MAMScenario
import Yams

// The scenario `init` writes: the fleet from the project's bundles, the steps each kind can
// take, what the first run observed as expectations, and why a target is left out.
extension InitCommand {
    /// Ids from target names: lower case, letters, digits and dashes, each one once.
    static func entries(_ bundles: [ProjectInventory.Bundle]) -> [Entry] {
        var used: Set<String> = ["notes"]
        var entries = bundles.sorted { ($0.extensionPoint == nil) && ($1.extensionPoint != nil) }.map { b in
            // A MAUI app's Info.plist is in <Project>/Platforms/iOS: the project names it.
            var parts = b.name.split(separator: "/")
            if parts.count >= 3, parts[parts.count - 2] == "Platforms" { parts.removeLast(2) }
            // A plugin's `container/` says nothing: its bundle id's last word does.
            if parts.last == "container" || parts.isEmpty, let last = b.bundleID?.split(separator: ".").last { parts = [last] }
            var base = String(parts.last ?? "app").lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
                .reduce(into: "") { $0.append($1) }
            base = base.split(separator: "-").joined(separator: "-")
            if base.isEmpty || base.first!.isNumber { base = "app-" + base }
            var id = base
            var n = 2
            while used.contains(id) { id = "\(base)-\(n)"; n += 1 }
            used.insert(id)
            return Entry(id: id, bundle: b)
        }
        let appIDs = Set(entries.filter { !$0.isExtension }.compactMap(\.bundle.bundleID))
        for i in entries.indices where entries[i].isExtension {
            entries[i].orphaned = !(entries[i].bundle.containerBundleID.map(appIDs.contains) ?? false)
        }
        return entries
    }

    /// `s` as one YAML scalar, written by Yams' emitter (libyaml): double-quoted, with every
    /// character that could end it or the line (a quote, a newline, a control character,
    /// NEL, LS, PS) escaped. Every value the project supplies goes through here: a project
    /// file is data, never scenario text (a newline in a URL scheme once wrote an app).
    static func quoted(_ s: String) -> String {
        let node = Node.scalar(Node.Scalar(s, Tag(.str), .doubleQuoted))
        guard let text = try? Yams.serialize(node: node, width: -1, allowUnicode: true) else {
            // libyaml refuses only what is not Unicode text, which a Swift string always is.
            return "\"\""
        }
        return text.trimmingCharacters(in: .newlines)
    }

    /// `s` for a comment: one line, every control character and YAML line break written as
    /// an escape, so that what a project says cannot end the comment.
    static func comment(_ s: String) -> String { Terminal.escapingControls(s, keepingLineBreaks: false) }

    static func list(_ items: [String]) -> String { "[" + items.map(quoted).joined(separator: ", ") + "]" }

    /// A path as the scenario names it: relative to the scenario's folder.
    static func relative(_ path: String, to folder: URL) -> String {
        let full = URL(fileURLWithPath: path).standardizedFileURL.path
        let base = folder.standardizedFileURL.path
        if full.hasPrefix(base + "/") { return String(full.dropFirst(base.count + 1)) }
        // Up from the scenario's folder to the common ancestor, when it is near; else absolute.
        let a = base.split(separator: "/"), b = full.split(separator: "/")
        var i = 0
        while i < a.count, i < b.count, a[i] == b[i] { i += 1 }
        guard a.count - i <= 2, i > 0 else { return full }
        return (Array(repeating: "..", count: a.count - i) + b[i...].map(String.init)).joined(separator: "/")
    }

    func scenarioText(_ entries: [Entry], folder: URL, leftOut: [ProjectInventory.LeftOut] = []) throws -> String {
        let apps = entries.filter { !$0.isExtension }
        let sdkApps = apps.filter(\.sdk)
        let exts = entries.filter { $0.isExtension && $0.isHosted }
        let unhosted = entries.filter { !$0.isHosted }
        var y: [String] = []
        y.append("# Written by `mamsim init \(Self.comment(path ?? ""))`: a first scenario from your project. Review each step's")
        y.append("# `expect:` (the outcome this run gave) against what your policy should do; then run it with")
        y.append("# `mamsim run \(Self.comment(URL(fileURLWithPath: output).lastPathComponent))` (docs/SCENARIOS.md says what each key means).")
        if sdkApps.isEmpty {
            y.append("# No app shows a sign of the Intune SDK (IntuneMAMSettings, its keychain group, -intunemam")
            y.append("# schemes), so the policy targets none and no step below is decided by it; if one links the")
            y.append("# SDK at build time, run init again with --sdk TARGET.")
        }
        let noSDK = sdkApps.isEmpty ? " (no app links the Intune SDK)" : ""
        y.append("name: \(Self.quoted("\(URL(fileURLWithPath: path ?? "").lastPathComponent) · first scenario\(noSDK)"))")
        y.append("")
        y.append("accounts:")
        y.append("  - upn: user@contoso.com             # a work account, targeted by the policy below")
        y.append("    tenant: contoso.onmicrosoft.com")
        y.append("    policy: \(policy.isEmpty ? "starter" : "policy1")")
        y.append("  - upn: user@outlook.com             # a personal account, no policy")
        y.append("")
        y.append("policies:")
        let targets = Self.list(sdkApps.compactMap(\.bundle.bundleID))
        if policy.isEmpty {
            y.append("  # A starter policy: org data stays in policy-managed apps. Replace it with your tenant's:")
            y.append("  # export it from Graph (docs/GUIDE.md, \"A team's first hour\") and pass it as --policy.")
            y.append("  starter:")
            y.append("    displayName: \"Starter: org data to policy-managed apps only\"")
            y.append("    allowedOutboundDataTransferDestinations: managedApps")
            y.append("    allowedInboundDataTransferSources: managedApps")
            y.append("    allowedOutboundClipboardSharingLevel: managedAppsWithPasteIn")
            y.append("    pinRequired: false")
            y.append("    apps: \(targets)")
        } else {
            for (i, p) in policy.enumerated() {
                y.append("  policy\(i + 1):                          # \(i == 0 ? "targets user@contoso.com" : "assign it with setPolicy")")
                y.append("    file: \(Self.quoted(Self.relative(p, to: folder)))")
                y.append("    # A Graph export lists its apps only with $expand=apps: these are the project's SDK apps.")
                y.append("    apps: \(targets)")
            }
        }
        y.append("")
        y.append("apps:")
        for e in apps {
            let b = e.bundle
            y.append("  - id: \(e.id)                      # \(Self.comment(b.source))")
            if let written = b.bundleID, BuildSettings.hasReference(written) {
                // A bundle id the project computes from a setting it does not set here: a
                // stand-in that loads, and what the project wrote, for the user to settle.
                y.append("    bundle: \(Self.quoted(Self.standIn(written, name: e.id)))   # the project writes \(Self.comment(written)), from a build setting it does not set: replace this stand-in with the real id")
            } else {
                y.append("    bundle: \(Self.quoted(b.bundleID ?? ""))")
            }
            if e.declaredSDK && !e.bundle.hasIntuneSettings { y.append("    # sdk: true by --sdk; its Info.plist has no IntuneMAMSettings (`mamsim lint` lists what the SDK needs)") }
            if let package = b.intunePackage, !e.declaredSDK { y.append("    # links the Intune SDK through the NuGet package \(Self.comment(package)) of its .NET project") }
            if !e.sdk { y.append("    sdk: false                      # no IntuneMAMSettings, no com.microsoft.intune.mam keychain group, no -intunemam scheme, no Microsoft.Intune NuGet package: set sdk: true if it links the Intune SDK") }
            if b.multiIdentity { y.append("    multiIdentity: true             # IntuneMAMSettings.MultiIdentity") }
            let schemes = b.validURLSchemes
            if !schemes.isEmpty { y.append("    urlSchemes: \(Self.list(schemes))") }
            let invalid = b.urlSchemes.filter { !schemes.contains($0) }
            if !invalid.isEmpty { y.append("    # left out, not URL schemes (placeholders? `mamsim lint` says more): \(Self.comment(invalid.joined(separator: ", ")))") }
            if !b.keychainGroups.isEmpty { y.append("    keychainGroups: \(Self.list(b.keychainGroups))   # keychain-access-groups, team prefix left out") }
            if !b.appGroups.isEmpty { y.append("    appGroups: \(Self.list(b.appGroups))") }
            if !b.unresolvedSettings.isEmpty {
                y.append("    # build settings nothing defined, built empty as Xcode builds them (pass --set NAME=VALUE to init for a value): \(Self.comment(b.unresolvedSettings.joined(separator: ", ")))")
            }
        }
        y.append("  - id: notes                         # an app outside the organisation, without the SDK")
        y.append("    bundle: com.example.notes")
        y.append("    sdk: false")
        if !exts.isEmpty || !unhosted.isEmpty {
            y.append("")
            y.append(exts.isEmpty ? "# extensions:" : "extensions:")
            for e in exts {
                // Hosted extensions have their container (`entries`): the app that embeds them.
                let container = apps.first { $0.bundle.bundleID == e.bundle.containerBundleID }?.id ?? apps[0].id
                y.append("  - id: \(e.id)                      # \(Self.comment(e.bundle.source))")
                if e.isKeyboard {
                    y.append("    plugin: \(Self.quoted("mamsim-extensions/\(e.id)"))   # a custom keyboard: no share target")
                    y.append("    container: \(container)")
                    y.append(e.bundle.requestsOpenAccess
                        ? "    # fullAccess: true   # the user granted it full access (ManagedApp serves it only then)"
                        : "    # its Info.plist asks for no full access (RequestsOpenAccess): ManagedApp never serves it")
                } else {
                    let kind = e.bundle.extensionPoint.flatMap(AppDescriptor.Kind.forExtensionPoint)
                    if let kind, !kind.isShareSheetTarget,
                       let why = e.bundle.extensionPoint == "com.apple.fileprovider-actionsui" ? "a File Provider UI extension: the provider's actions, no file of its own" : Self.kindNote(kind, id: e.id) {
                        y.append("    kind: \(kind.rawValue)                   # \(why)")
                    }
                    y.append("    plugin: \(Self.quoted("mamsim-extensions/\(e.id)"))   # its Info.plist as built; no program: every item is accepted")
                    y.append("    container: \(container)")
                }
            }
            for e in unhosted {
                let why = e.orphaned ? "no app of the project embeds it (none was found that does), so it has no container here: add it under extensions: with container: set to its app"
                    : Self.whyNotHosted(e.bundle.extensionPoint ?? "")
                y.append("  # \(e.id) (\(Self.comment(e.bundle.source))): \(Self.comment(e.bundle.extensionPoint ?? "")) is not a fleet member: \(why) (bundle id \(Self.comment(e.bundle.bundleID ?? "unknown")))")
            }
        }
        if !leftOut.isEmpty {
            y.append("")
            y.append("# Not in the fleet: the project's other targets, and why.")
            for t in leftOut {
                y.append("#   \(Self.comment(t.name)) (\(Self.comment(t.source))): \(Self.comment(t.why))")
            }
        }
        y.append("")
        y.append("steps:")
        // The work account in each SDK app; a multi-identity app shows it.
        for e in sdkApps {
            y.append("  - signIn: {app: \(e.id), account: user@contoso.com}")
            y.append(Self.marker)
            if e.bundle.multiIdentity {
                y.append("  - name: \(Self.quoted("\(e.id) is multi-identity: it shows the work account"))")
                y.append("    switchIdentity: {app: \(e.id), account: user@contoso.com, pin: \"2580\"}")
                y.append(Self.marker)
            }
        }
        if let from = sdkApps.first ?? apps.first {
            y.append("  # Org data shared from \(from.id) to every other app and to each share and action extension (the share sheet lists no other kind).")
            for to in entries where to.id != from.id && to.isHosted && to.takesShares {
                y.append("  - share: {from: \(from.id), to: \(to.id), item: {type: public.plain-text, text: \"Q3 numbers\"}}")
                y.append(Self.marker)
            }
            // The other kinds get the step iOS gives them: what their app's policy lets them show.
            var notified: Set<String> = []
            for to in entries where to.id != from.id && to.isHosted && !to.takesShares {
                let app = apps.first { $0.bundle.bundleID == to.bundle.containerBundleID }?.id ?? from.id
                switch to.kind {
                case .notificationService, .notificationContent:
                    // One notification of the work account's data per app (signed in above): its
                    // extensions show it. An app without the SDK has no work account to notify for.
                    guard sdkApps.contains(where: { $0.id == app }) else {
                        y.append("  # \(Self.comment(to.id)) shows \(Self.comment(app))'s notifications; \(Self.comment(app)) signs no work account in, so no notification carries org data")
                        continue
                    }
                    guard notified.insert(app).inserted else { continue }
                    y.append("  - name: \(Self.quoted("\(app)'s notifications (\(to.id) shows them): what may one carrying org data show?"))")
                    y.append("    notify: {app: \(app), account: user@contoso.com, text: \"Q3 numbers are in\"}")
                case .broadcastUpload:
                    y.append("  - name: \(Self.quoted("\(to.id) uploads a broadcast: may \(app)'s screen be captured?"))")
                    y.append("    screenCapture: {app: \(app)}")
                case .widget:
                    y.append("  - name: \(Self.quoted("\(to.id) is a widget: may it show org data (widget content sync)?"))")
                    y.append("    policyQuery: {app: \(to.id), setting: widgets}")
                case .intents:
                    y.append("  - name: \(Self.quoted("\(to.id) is an Intents extension: may Siri reach org data?"))")
                    y.append("    policyQuery: {app: \(to.id), setting: siriIntents}")
                case .fileProvider where to.bundle.extensionPoint == "com.apple.fileprovider-actionsui":
                    // Its UI offers the provider's actions; it serves no file, so encryption is
                    // its File Provider's question, not its own.
                    y.append("  # \(Self.comment(to.id)) is a File Provider UI extension: it shows the provider's actions and serves no file (the encryption question is its File Provider's)")
                    continue
                case .autofill:
                    y.append("  - name: \(Self.quoted("\(to.id) is an AutoFill credential provider: does conditional launch let it open?"))")
                    y.append("    launch: {app: \(to.id)}")
                case .fileProvider:
                    y.append("  - name: \(Self.quoted("\(to.id) is a File Provider: must it encrypt what it serves?"))")
                    y.append("    policyQuery: {app: \(to.id), setting: fileProviderEncryption}")
                case .keyboard:
                    y.append("  - name: \(Self.quoted("\(to.id) is a keyboard: may third-party keyboards type into org data?"))")
                    y.append("    policyQuery: {app: \(from.id), setting: thirdPartyKeyboards}")
                default:
                    y.append("  # \(Self.comment(to.id)) is a \(to.kind.rawValue) extension: the share sheet never lists it; add the step its kind has")
                    continue
                }
                y.append(Self.marker)
            }
            y.append("  - share: {from: \(from.id), to: notes, item: {type: public.plain-text, text: \"Q3 numbers\"}}")
            y.append(Self.marker)
            y.append("  # Copied in \(from.id), pasted in an app outside the organisation; saved on the device.")
            y.append("  - copy: {app: \(from.id), text: \"Q3 numbers\"}")
            y.append(Self.marker)
            y.append("  - paste: {app: notes}")
            y.append(Self.marker)
            y.append("  - save: {app: \(from.id), location: localDrive}")
            y.append(Self.marker)
        }
        return y.joined(separator: "\n") + "\n"
    }

    /// The step and outcome a load error says its step cannot expect
    /// (`steps[2].expect: {failed: X} is not an outcome of notify`).
    static func unexpectable(in message: String) -> (Int, String)? {
        guard let match = message.firstMatch(of: #/steps\[(\d+)\]\.expect: (.+?) is not an outcome of /#), let index = Int(match.1) else { return nil }
        return (index, String(match.2))
    }

    /// Where a step's expectation goes, one after each step.
    static let marker = "    #expect#"

    /// `text` with the n-th marker replaced by `expect:` and the n-th outcome (markers left
    /// over, or all of them without outcomes, removed).
    static func withExpectations(_ text: String, _ expectations: [String]) -> String {
        var index = 0
        return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            guard line == marker else { return String(line) }
            defer { index += 1 }
            guard index < expectations.count else { return nil }
            return expectations[index].hasPrefix("#") ? "    \(expectations[index])" : "    expect: \(expectations[index])"
        }.joined(separator: "\n")
    }

    /// What reaches an extension of a v1.4 kind (RULES.md §1), for its comment.
    static func kindNote(_ kind: AppDescriptor.Kind, id: String) -> String? {
        switch kind {
        case .fileProvider: "file-provider encryption: `policyQuery: {app: \(id), setting: fileProviderEncryption}`"
        case .widget: "widget content sync: `policyQuery: {app: \(id), setting: widgets}`"
        case .autofill: "conditional launch runs at its launch: `launch: {app: \(id)}`"
        case .intents: "Siri and App Intents: `policyQuery: {app: \(id), setting: siriIntents}`"
        case .notificationService, .notificationContent: "what notifications may show: `notify` steps of its app"
        case .broadcastUpload: "the app's screen capture rule: `screenCapture` steps"
        case .messages: "the app's outbound rule: `share` steps"
        case .contentBlocker: "no app protection setting reaches it"
        default: nil
        }
    }

    /// Why an extension of a kind a fleet does not host is left out (RULES.md §1: the fleet's
    /// extensions are share, action and keyboard extensions and the kinds of SCENARIOS v1.4).
    static func whyNotHosted(_ point: String) -> String {
        switch point {
        case "com.apple.Safari.web-extension", "com.apple.Safari.extension":
            "a Safari web extension; no app protection setting applies to it"
        case "extensionkit":
            "an ExtensionKit extension (no NSExtension point); mamsim hosts NSExtension app extensions"
        default:
            "mamsim hosts share, action and keyboard extensions and the kinds of SCENARIOS v1.4 (File Provider, widget, AutoFill, intents, notifications, broadcast upload, iMessage, content blocker)"
        }
    }
}
