import Foundation
import MAMExtensions

import MAMActivation
import MAMBundle
/// Locates the copies of the shared fixtures in `Tests/Fixtures/shared` (this file is
/// `<root>/Tests/MAMExtensionsTests/Fixtures.swift`), so a clone on its own runs the tests.
enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let shared = packageRoot.appendingPathComponent("Tests/Fixtures/shared")
    static let activation = shared.appendingPathComponent("fixtures/activation")
    /// One folder per lint case, next to this file (not SwiftPM resources: read in place).
    static let lint = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/lint")
    /// Xcode projects: a correct one written for the mutation tests, small copies of public ones.
    static let projects = packageRoot.appendingPathComponent("Tests/Fixtures/projects")
    /// The repository's own plugins (`<root>/plugins`).
    static let plugins = packageRoot.appendingPathComponent("plugins")

    static func activationFileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: activation.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    static func text(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    /// The file without its first line (the provenance comment).
    static func body(_ name: String) throws -> String {
        let text = try text(activation.appendingPathComponent(name))
        guard let newline = text.firstIndex(of: "\n") else { return "" }
        return String(text[text.index(after: newline)...])
    }

    /// A `.plist` fixture holds the `<dict>` value of `NSExtension`: wrap it into a whole Info.plist.
    static func infoPlist(wrappingNSExtension name: String, extraKeys: String = "") throws -> Data {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \(extraKeys)
            <key>NSExtension</key>
            \(try body(name))
            </dict>
            </plist>
            """
        return Data(xml.utf8)
    }

    /// The activation rule of a rule fixture (`.plist` or `.txt`).
    static func rule(_ name: String) throws -> ActivationRule {
        if name.hasSuffix(".txt") {
            return try ActivationRule(predicate: try body(name), source: name)
        }
        let manifest = try ExtensionManifest(infoPlist: try infoPlist(wrappingNSExtension: name), source: name)
        guard let rule = manifest.activationRule else { throw FixtureError.noRule(name) }
        return rule
    }

    /// The "after" rule of seed 000 (Microsoft's example once the Intune types are added):
    /// from the first SUBQUERY after "Elle doit être remplacée par" up to "Remarque".
    static func microsoftAfterRule() throws -> String {
        let seed = try text(shared.appendingPathComponent("seeds/000_37524b83e1190bab.txt"))
        guard let intro = seed.range(of: "Elle doit être remplacée par"),
              let start = seed.range(of: "SUBQUERY", range: intro.upperBound..<seed.endIndex),
              let end = seed.range(of: "Remarque", range: start.upperBound..<seed.endIndex) else {
            throw FixtureError.seedSectionMissing
        }
        return String(seed[start.lowerBound..<end.lowerBound])
    }

    enum FixtureError: Error { case noRule(String), seedSectionMissing }
}

/// The representative shares every fixture's table is pinned against.
enum Shares {
    static let image = ShareInput(["public.jpeg"])
    static let pdfFileURL = ShareInput(["com.adobe.pdf", "public.file-url"])
    static let plainText = ShareInput(["public.plain-text"])
    static let webURL = ShareInput(["public.url"])
    static let twoImages = ShareInput(["public.jpeg"], ["public.png"])
    static let movie = ShareInput(["public.mpeg-4"])
    static let intunePDF = ShareInput(["com.microsoft.intune.mam.com.adobe.pdf"])
    static let intuneImage = ShareInput(["com.microsoft.intune.mam.public.jpeg"])

    /// Column order of the fixture tables.
    static let columns: [(name: String, share: ShareInput)] = [
        ("image", image), ("pdf file URL", pdfFileURL), ("plain text", plainText), ("web URL", webURL),
        ("two images", twoImages), ("movie", movie), ("Intune PDF", intunePDF), ("Intune image", intuneImage),
    ]

    /// Unmanaged shares of one to three attachments drawn from a varied pool: for equivalence checks.
    static let grid: [ShareInput] = {
        let pool: [[String]] = [
            ["public.jpeg"], ["com.adobe.pdf", "public.file-url"], ["public.plain-text"], ["public.url"],
            ["public.mpeg-4"], ["public.png", "public.file-url"], ["com.apple.active-webpage", "public.url"],
            ["public.vcard"], ["com.apple.pkpass"], ["public.mp3"], ["public.folder"], ["org.example.unknown"],
        ]
        var shares: [ShareInput] = pool.map { ShareInput(attachments: [Attachment($0)]) }
        for a in pool { for b in pool { shares.append(ShareInput(attachments: [Attachment(a), Attachment(b)])) } }
        for a in pool.prefix(6) { shares.append(ShareInput(attachments: Array(repeating: Attachment(a), count: 3))) }
        shares.append(ShareInput(attachments: []))
        return shares
    }()
}

/// A scratch folder under the temporary directory, for tests that change one file of a fixture.
/// Call `remove()` when done (in a `defer`).
struct ScratchFolder {
    let url: URL

    init(copying source: URL) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-lint-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: source, to: url)
    }

    init(files: [String: String]) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (path, text) in files { try write(path, text) }
    }

    func write(_ path: String, _ text: String, executable: Bool = false) throws {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: executable ? 0o755 : 0o644], ofItemAtPath: file.path)
    }

    /// Rewrites a file; fails the test if `transform` changed nothing (the edit missed).
    func edit(_ path: String, _ transform: (String) -> String) throws {
        let file = url.appendingPathComponent(path)
        let before = try String(contentsOf: file, encoding: .utf8)
        let after = transform(before)
        guard after != before else { throw ScratchError.editChangedNothing(path) }
        try Data(after.utf8).write(to: file)
    }

    func delete(_ path: String) throws {
        try FileManager.default.removeItem(at: url.appendingPathComponent(path))
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    enum ScratchError: Error { case editChangedNothing(String) }
}

/// Small plists for lint tests that build a folder from scratch.
enum PlistText {
    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \(body)
        </dict>
        </plist>
        """
    }

    static func array(_ key: String, _ values: [String]) -> String {
        "<key>\(key)</key><array>" + values.map { "<string>\($0)</string>" }.joined() + "</array>"
    }

    static func keychain(_ groups: [String]) -> String { plist(array("keychain-access-groups", groups)) }
}
