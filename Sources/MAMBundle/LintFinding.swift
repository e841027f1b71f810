import MAMActivation
/// One problem `mamsim lint` found in a plugin or app folder: how bad, where (file, line, key
/// path), what is wrong and how to fix it, so it renders as one line a developer can act on:
///
///     plugins/open-in/Info.plist:14: error: IntuneMAMSettings.OpenInActionExtension: must be YES for an "Open in" action extension; set <key>OpenInActionExtension</key><true/>
///
/// `file:line: error:` is the shape compilers print, so editors and CI annotate it.
public struct LintFinding: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// What the reader should know, never a failure (not even with `--strict`).
        case note
        case warning, error

        var rank: Int { self == .note ? 0 : self == .warning ? 1 : 2 }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    public var severity: Severity
    /// The rule's id in the catalogue (docs/LINT.md): what a config file disables and what
    /// SARIF and JSON reports name.
    public var rule: String
    /// Path relative to the linted folder: `Info.plist`, `OpenIn.entitlements`, `container/Info.plist`.
    public var file: String
    /// 1-based line of the key (or of the parse error), when it can be told.
    public var line: Int?
    /// Dotted key path with array indexes (`keychain-access-groups[1]`); empty for the whole file.
    public var keyPath: String
    /// What is wrong, as a clause that follows the key path (`must be YES for …`).
    public var problem: String
    /// What to do; empty when the problem says it.
    public var fix: String

    public init(_ severity: Severity, rule: String, file: String, line: Int? = nil, keyPath: String, problem: String, fix: String) {
        self.severity = severity
        self.rule = rule
        self.file = file
        self.line = line
        self.keyPath = keyPath
        self.problem = problem
        self.fix = fix
    }

    /// The finding as one line, its file shown under `folder` (`plugins/open-in`); `folder`
    /// empty shows the file alone.
    public func rendered(inFolder folder: String) -> String {
        var place = folder.isEmpty ? file : (folder.hasSuffix("/") ? folder + file : folder + "/" + file)
        if let line { place += ":\(line)" }
        var text = "\(place): \(severity.rawValue): "
        if !keyPath.isEmpty { text += keyPath + ": " }
        text += problem
        if !fix.isEmpty { text += "; " + fix }
        return ProjectRoot.printable(text + " [\(rule)]")
    }

    public var description: String { rendered(inFolder: "") }
}

/// Everything lint found in one folder, errors first; `hasErrors` decides the exit status.
public struct LintReport: Sendable, Hashable {
    /// How the folder is named in rendered lines (as the user gave it, e.g. `plugins/open-in-word`).
    public var folder: String
    public var findings: [LintFinding]
    /// The Xcode target linted, when the folder is a project.
    public var target: String?
    /// The bundle's folder under the linted one, when bundles were found by their files.
    public var bundle: String?
    /// Why the target was not linted (`a watchOS target (SDKROOT = watchos)`); it has no findings.
    public var skipped: String?

    public init(folder: String, findings: [LintFinding], target: String? = nil, skipped: String? = nil) {
        self.folder = folder
        self.findings = findings
        self.target = target
        self.skipped = skipped
    }

    public var errors: [LintFinding] { findings.filter { $0.severity == .error } }
    public var warnings: [LintFinding] { findings.filter { $0.severity == .warning } }
    public var notes: [LintFinding] { findings.filter { $0.severity == .note } }
    public var hasErrors: Bool { findings.contains { $0.severity == .error } }
    /// 1 if any error, else 0 (warnings do not fail a build).
    public var exitCode: Int32 { hasErrors ? 1 : 0 }

    /// Errors first, then by file and line: the order of every rendering.
    public var sortedFindings: [LintFinding] {
        findings.sorted { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            if a.file != b.file { return a.file < b.file }
            return (a.line ?? 0) < (b.line ?? 0)
        }
    }

    /// One line per finding, in `sortedFindings` order.
    public var lines: [String] { sortedFindings.map { $0.rendered(inFolder: folder) } }

    /// `2 errors, 1 warning in plugins/open-in-word` or `plugins/open-in-word: no problems`:
    /// one line, whatever the folder's or the target's name holds (a line feed, an escape).
    public var summary: String { ProjectRoot.printable(summaryText) }

    private var summaryText: String {
        let subject = target.map { "\(folder) (target \($0))" } ?? bundle.map { "\(folder) (bundle \($0))" } ?? folder
        if let skipped { return "\(subject): skipped, \(skipped): the Intune App SDK for iOS does not apply" }
        if findings.isEmpty { return "\(subject): no problems" }
        func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        let notes = notes.isEmpty ? "" : ", " + count(self.notes.count, "note")
        return "\(count(errors.count, "error")), \(count(warnings.count, "warning"))\(notes) in \(subject)"
    }
}
