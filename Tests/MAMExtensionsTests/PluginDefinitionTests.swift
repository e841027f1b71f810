import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import Testing

/// Loading plugin folders for the host: the repository's plugins, executables, and what fails.
struct PluginDefinitionTests {
    static let openInWord = Fixtures.plugins.appendingPathComponent("open-in-word")
    static let shareToNotes = Fixtures.plugins.appendingPathComponent("share-to-notes")

    @Test func openInWordLoadsWithItsContainer() throws {
        let plugin = try PluginDefinition.load(folder: Self.openInWord)
        #expect(plugin.bundleIdentifier == "com.contoso.word.openin")
        #expect(plugin.kind == .action)
        #expect(plugin.isOpenInActionExtension)
        #expect(plugin.displayName == "Open in Word")
        #expect(plugin.intuneSettings.containingAppBundleId == "com.contoso.word")
        #expect(plugin.intuneSettings.appGroupIdentifiers == ["group.com.contoso.word"])
        #expect(plugin.keychainGroups == ["CONTOSO123.com.contoso.word.openin", "CONTOSO123.com.microsoft.intune.mam"])
        #expect(plugin.appGroups == ["group.com.contoso.word"])
        #expect(plugin.urlSchemes == [])
        #expect(plugin.executable == .program(Self.openInWord.appendingPathComponent("run").standardizedFileURL))
        let word = try #require(plugin.container)
        #expect(word.bundleIdentifier == "com.contoso.word")
        #expect(word.urlSchemes == ["ms-word", "ms-word-intunemam"])
        #expect(word.keychainGroups.first == "CONTOSO123.com.contoso.word")
        #expect(word.appGroups == ["group.com.contoso.word"])
    }

    /// The "Open in" stub is offered for exactly one managed document of Word's types.
    @Test(arguments: [
        (ShareInput(["org.openxmlformats.wordprocessingml.document", "public.file-url"]), true, true),
        (ShareInput(["com.adobe.pdf", "public.file-url"]), true, true),
        (ShareInput(["public.plain-text"]), true, true),
        (ShareInput(["org.openxmlformats.wordprocessingml.document", "public.file-url"]), false, false),
        (ShareInput(["com.adobe.pdf"], ["com.adobe.pdf"]), true, false),
        (ShareInput(["public.jpeg"]), true, false),
    ])
    func openInWordActivatesForOneManagedDocument(_ share: ShareInput, _ managed: Bool, _ activated: Bool) throws {
        let plugin = try PluginDefinition.load(folder: Self.openInWord)
        #expect(plugin.manifest.activation(for: share, dataIsManaged: managed).isActivated == activated)
    }

    @Test func shareToNotesLoadsWithoutIntuneKeychainGroups() throws {
        let plugin = try PluginDefinition.load(folder: Self.shareToNotes)
        #expect(plugin.bundleIdentifier == "com.example.notes.share")
        #expect(plugin.kind == .share)
        #expect(!plugin.isOpenInActionExtension)
        #expect(plugin.keychainGroups == [])
        #expect(plugin.appGroups == ["group.com.example.notes"])
        #expect(plugin.container == nil)
        #expect(plugin.executable == .program(Self.shareToNotes.appendingPathComponent("run").standardizedFileURL))
    }

    /// Text, images and web links, managed or not; never a document file.
    @Test(arguments: [
        (ShareInput(["public.plain-text"]), false, true),
        (ShareInput(["public.url"]), false, true),
        (ShareInput(["public.jpeg"]), false, true),
        (ShareInput(["public.jpeg"], ["public.png"]), false, true),
        (ShareInput(["com.adobe.pdf", "public.file-url"]), false, false),
        (ShareInput(["public.plain-text"]), true, true),
        (ShareInput(["public.url"]), true, true),
        (ShareInput(["com.adobe.pdf", "public.file-url"]), true, false),
    ])
    func shareToNotesActivatesForTextImagesAndLinks(_ share: ShareInput, _ managed: Bool, _ activated: Bool) throws {
        let plugin = try PluginDefinition.load(folder: Self.shareToNotes)
        #expect(plugin.manifest.activation(for: share, dataIsManaged: managed).isActivated == activated)
    }

    /// Security issue 70, finding 3: a plugin's Info.plist that is a link out of its folder
    /// (to another repository's file, to /etc) is neither read nor quoted. The control: the
    /// same file copied into the folder loads.
    @Test func anInfoPlistLinkedOutOfThePluginFolderIsNotRead() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-plugin-link-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let outside = root.appendingPathComponent("outside")
        let copied = root.appendingPathComponent("copied")
        let linked = root.appendingPathComponent("linked")
        for folder in [outside, copied, linked] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let info = try String(contentsOf: Self.shareToNotes.appendingPathComponent("Info.plist"), encoding: .utf8)
        try info.write(to: outside.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
        try info.write(to: copied.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
        let others = try FileManager.default.contentsOfDirectory(atPath: Self.shareToNotes.path).filter { $0 != "Info.plist" }
        for folder in [copied, linked] {
            for name in others { try FileManager.default.copyItem(at: Self.shareToNotes.appendingPathComponent(name), to: folder.appendingPathComponent(name)) }
        }
        try FileManager.default.createSymbolicLink(at: linked.appendingPathComponent("Info.plist"), withDestinationURL: outside.appendingPathComponent("Info.plist"))
        #expect(try PluginDefinition.load(folder: copied).bundleIdentifier == "com.example.notes.share")
        do {
            _ = try PluginDefinition.load(folder: linked)
            Issue.record("an Info.plist outside the folder was read")
        } catch {
            #expect(error.findings.contains { $0.problem.contains("outside the bundle's folder") }, "\(error.findings)")
        }
    }

    @Test func runFileIsTheExecutable() throws {
        let folder = try ScratchFolder(copying: Self.shareToNotes)
        defer { folder.remove() }
        try folder.write("run", "#!/bin/sh\nexec python3 notes.py\n", executable: true)
        let plugin = try PluginDefinition.load(folder: folder.url)
        #expect(plugin.executable == .program(folder.url.appendingPathComponent("run").standardizedFileURL))
    }

    @Test func declaredExecutableWinsOverRun() throws {
        let folder = try ScratchFolder(copying: Self.shareToNotes)
        defer { folder.remove() }
        try folder.write("run", "#!/bin/sh\n", executable: true)
        try folder.write("bin/notes-share", "#!/bin/sh\n", executable: true)
        try folder.write("plugin.json", #"{"executable": "bin/notes-share"}"#)
        let plugin = try PluginDefinition.load(folder: folder.url)
        #expect(plugin.executable == .program(folder.url.appendingPathComponent("bin/notes-share").standardizedFileURL))
    }

    @Test func nonExecutableRunFailsWithChmodAdvice() throws {
        let folder = try ScratchFolder(copying: Self.shareToNotes)
        defer { folder.remove() }
        try folder.write("run", "#!/bin/sh\n")
        let error = try #require(throws: PluginDefinitionError.self) { try PluginDefinition.load(folder: folder.url) }
        #expect(error.findings.map(\.fix) == ["run chmod +x run"])
        #expect(Linter.lint(folder: folder.url).findings.map(\.file) == ["run"])
    }

    @Test func executableDeclaredTwiceDifferentlyFails() throws {
        let folder = try ScratchFolder(copying: Self.shareToNotes)
        defer { folder.remove() }
        try folder.write("plugin.json", #"{"executable": "bin/a"}"#)
        try folder.edit("Info.plist") { $0.replacingOccurrences(of: "\t<key>NSExtension</key>", with: "\t<key>MamsimExecutable</key>\n\t<string>bin/b</string>\n\t<key>NSExtension</key>") }
        let error = try #require(throws: PluginDefinitionError.self) { try PluginDefinition.load(folder: folder.url) }
        #expect(error.findings.map(\.problem) == ["names bin/a but Info.plist MamsimExecutable names bin/b"])
    }

    @Test func missingDeclaredExecutableFails() throws {
        let folder = try ScratchFolder(copying: Self.shareToNotes)
        defer { folder.remove() }
        try folder.write("plugin.json", #"{"executable": "bin/notes-share"}"#)
        let error = try #require(throws: PluginDefinitionError.self) { try PluginDefinition.load(folder: folder.url) }
        #expect(error.findings.map(\.problem) == ["names bin/notes-share, which does not exist"])
    }

    @Test func unresolvedBundleIdBlocksLoadingButAnUnusedVariableDoesNot() throws {
        let folder = try ScratchFolder(copying: Self.shareToNotes)
        defer { folder.remove() }
        try folder.delete("NotesShare.xcconfig")
        let error = try #require(throws: PluginDefinitionError.self) { try PluginDefinition.load(folder: folder.url) }
        // DEVELOPMENT_LANGUAGE, MARKETING_VERSION … are unresolved too, but the host does not use them.
        #expect(error.findings.map(\.keyPath) == ["CFBundleIdentifier"])
        #expect(error.description.contains("pass --set PRODUCT_BUNDLE_IDENTIFIER=VALUE"))
        let loaded = try PluginDefinition.load(folder: folder.url, buildSettings: BuildSettings(["PRODUCT_BUNDLE_IDENTIFIER": "com.example.notes.share"]))
        #expect(loaded.bundleIdentifier == "com.example.notes.share")
        #expect(try PluginDefinition.load(folder: Fixtures.lint.appendingPathComponent("unresolved-variable")).kind == .share)
    }

    @Test func malformedInfoPlistFailsWithTheParserLine() throws {
        let error = try #require(throws: PluginDefinitionError.self) {
            try PluginDefinition.load(folder: Fixtures.lint.appendingPathComponent("malformed-plist"))
        }
        #expect(error.findings.map(\.line) == [30])
    }
}

/// `plugin.json`'s `sandbox`: what a confined plugin may read beyond its folder, resolved on
/// this machine; a malformed declaration names the file and key.
@Suite struct PluginSandboxTests {
    @Test func pathsAreResolvedAndWhatDoesNotExistHereGrantsNothing() throws {
        let folder = try ScratchFolder(files: [
            "runtime/lib.py": "",
            "plugin.json": #"{"sandbox": {"read": ["~/interp", "$PY_HOME/lib", "${UNSET_VAR}/x", "runtime", "missing", "/"], "environment": ["PYENV_VERSION"]}}"#,
        ])
        defer { folder.remove() }
        let home = folder.url.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("interp"), withIntermediateDirectories: true)
        let sandbox = try PluginSandbox.load(folder: folder.url, environment: ["HOME": home.path, "PY_HOME": folder.url.appendingPathComponent("runtime").path])
        #expect(sandbox.read == [home.appendingPathComponent("interp").path, folder.url.appendingPathComponent("runtime").path, "/"], "\(sandbox.read)")
        #expect(sandbox.environment == ["PYENV_VERSION"])
    }

    @Test(arguments: [
        (#"{"sandbox": {"reads": []}}"#, "plugin.json: sandbox.reads is not a key mamsim knows"),
        (#"{"sandbox": {"read": "~/.pyenv"}}"#, "plugin.json: sandbox.read must be a list of strings"),
        (#"{"sandbox": {"read": ["${HOME/x"]}}"#, "plugin.json: sandbox.read: \"${HOME/x\" has no closing }"),
        (#"{"sandbox": {"environment": ["A B"]}}"#, "plugin.json: sandbox.environment: \"A B\" is not a variable name"),
        (#"{"sandbox": []}"#, "plugin.json: sandbox must be an object"),
    ])
    func aMalformedSandboxNamesTheKey(json: String, expected: String) throws {
        let folder = try ScratchFolder(files: ["plugin.json": json])
        defer { folder.remove() }
        do {
            _ = try PluginSandbox.load(folder: folder.url)
            Issue.record("\(json) must be refused")
        } catch {
            #expect("\(error)".hasPrefix(expected), "\(error)")
        }
    }
}
