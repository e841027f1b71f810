import ArgumentParser
import Foundation
import MAMExtensions

import MAMActivation
import MAMBundle
import MAMModel
/// `mamsim lint PATH...`: the Intune integration checks of apps and extensions, read from an
/// Xcode project, a repository, or an app or plugin folder. Exit 0 clean (warnings allowed),
/// 1 findings, 2 bad input.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check apps and extensions (Xcode projects, repositories, app or plugin folders) for Intune misconfigurations.",
        discussion: """
            Rules, severities and fixes: docs/LINT.md. A .mamsim-lint.yml in PATH (or the current folder) \
            disables rules (disabled_rules), drops paths (excluded), changes severities (severity) or sets strict.
            """)

    @Argument(help: "An .xcodeproj, a repository root, or an app or plugin folder.", completion: .file())
    var paths: [String]

    @Option(help: "Lint only this target (repeatable; projects only).")
    var target: [String] = []

    @Option(help: "The build configuration (default: each target's default, usually Release).")
    var configuration: String?

    @Option(name: .customLong("sdk"), help: ArgumentHelp("A target that links the Intune SDK whatever its files say (repeatable; projects only).", valueName: "TARGET"))
    var sdkTargets: [String] = []

    @Option(help: ArgumentHelp("Output: human, json, sarif, junit, github-actions or xcode.", valueName: "name"),
            completion: .list(LintFormat.allCases.map(\.rawValue)))
    var reporter: String = "human"

    @Flag(help: "Warnings fail the command like errors.")
    var strict = false

    @Option(help: "A lint configuration file (default: .mamsim-lint.yml in PATH or the current folder).")
    var config: String?

    @Flag(help: "Repair what is safely repairable (missing -intunemam twins, the activation rule's Intune types), then lint again.")
    var fix = false

    @Option(name: .customLong("set"), help: ArgumentHelp("A build setting that wins over the project's, NAME=VALUE.", valueName: "NAME=VALUE"))
    var settings: [String] = []

    func validate() throws {
        guard LintFormat(rawValue: reporter) != nil else {
            throw ValidationError("--reporter \(reporter) is not a reporter; use one of \(LintFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let format = LintFormat(rawValue: reporter) ?? .human
        var values: [String: String] = [:]
        for s in settings {
            guard let eq = s.firstIndex(of: "="), eq != s.startIndex else {
                throw ValidationError("--set \(s): expected NAME=VALUE, e.g. --set DEVELOPMENT_TEAM=ABCDE12345")
            }
            values[String(s[..<eq])] = String(s[s.index(after: eq)...])
        }
        let options = ProjectLinter.Options(targets: target, configuration: configuration, buildSettings: BuildSettings(values), sdkTargets: sdkTargets)
        // Bad input (a missing path, an unknown target, a broken config) is exit 2, not a
        // finding; the other paths are still linted and a machine report is still a valid
        // document, so a CI upload step never gets an empty file.
        var inputErrors: [LintInputError] = []
        var reports: [LintReport] = []
        do {
            let (configuration, found) = try collect(options, format: format, errors: &inputErrors)
            reports = configuration.apply(to: found, strict: strict)
        } catch {
            inputErrors.append(error)
        }
        for error in inputErrors { Terminal.error(error.message) }
        if format == .human {
            let terminal = Terminal()
            for report in reports {
                for line in report.lines { terminal.line(line) }
                terminal.line(report.summary)
            }
        } else {
            Terminal.emit(format.render(reports, version: mamsimVersion), to: 1)
        }
        if !inputErrors.isEmpty { throw ExitCode(2) }
        if reports.contains(where: \.hasErrors) { throw ExitCode(1) }
    }

    func collect(_ options: ProjectLinter.Options, format: LintFormat, errors: inout [LintInputError]) throws(LintInputError) -> (LintConfiguration, [LintReport]) {
        let configuration = try loadConfiguration()
        var reports = lintAll(options, errors: &errors)
        if fix {
            let applied = LintFixer.fix(configuration.apply(to: reports), base: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            for change in applied { Terminal.emit(UntrustedText.line(change.description) + "\n", to: format == .human ? 1 : 2) }
            if !applied.isEmpty {
                var again: [LintInputError] = []
                reports = lintAll(options, errors: &again)
            }
        }
        return (configuration, reports)
    }

    /// Every path's reports; a path that is bad input adds its error and the others go on.
    func lintAll(_ options: ProjectLinter.Options, errors: inout [LintInputError]) -> [LintReport] {
        var reports: [LintReport] = []
        for path in paths {
            do {
                reports += try ProjectLinter.lint(path: URL(fileURLWithPath: path), displayName: path, options: options)
            } catch {
                errors.append(error)
            }
            // The team's own Swift beside the project: delegate methods the SDK never calls.
            if let report = DelegateLint.lint(path: path) { reports.append(report) }
        }
        return reports
    }

    /// --config, else .mamsim-lint.yml in the first PATH (when a folder) or the current folder.
    func loadConfiguration() throws(LintInputError) -> LintConfiguration {
        if let config { return try LintConfiguration.load(URL(fileURLWithPath: config), name: config) }
        var candidates: [String] = []
        if let first = paths.first { candidates.append(ProjectLinter.join(first, LintConfiguration.fileName)) }
        candidates.append(LintConfiguration.fileName)
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate) {
            return try LintConfiguration.load(URL(fileURLWithPath: candidate), name: candidate)
        }
        return LintConfiguration()
    }
}

/// `mamsim configure PLIST`: adds the `com.microsoft.intune.mam.` twin of every type in the
/// activation rule, like Intune's configurator.
struct ConfigureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "configure", abstract: "Rewrite an Info.plist's activation rule to accept the Intune types (idempotent).")

    @Argument(help: "The Info.plist to rewrite.")
    var plist: String

    @Option(name: .shortAndLong, help: "Write here instead of rewriting the file in place.")
    var output: String?

    func run() throws {
        let data = try InputFile.contents(of: URL(fileURLWithPath: plist))
        let (rewritten, change) = try IntuneConfigurator.configureReporting(infoPlist: data, source: plist)
        try OutputFile.write(rewritten, to: URL(fileURLWithPath: output ?? plist))
        Terminal().line(UntrustedText.line("\(output ?? plist): \(change)"))
    }
}

/// `mamsim activation PLIST --item TYPE[,TYPE…]...`: evaluates an activation rule.
struct ActivationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activation", abstract: "Evaluate an extension's activation rule against items; exit 0 if activated, 1 if not.")

    @Argument(help: "An extension's Info.plist (omit with --rule).")
    var plist: String?

    // `.unconditional`: a predicate may start with "-" and is still the rule, not an option.
    @Option(parsing: .unconditional, help: "A bare NSExtensionActivationRule predicate string instead of a plist.")
    var rule: String?

    @Option(help: "One attachment, as its registered type identifiers separated by commas.")
    var item: [String] = []

    @Flag(help: "The data is managed: it is offered as the com.microsoft.intune.mam. types.")
    var managed = false

    func run() throws {
        let share = ShareInput(attachments: item.map { Attachment($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) })
        let result: ActivationResult
        // A rule or plist that cannot be read exits 2, never 1 ("not activated").
        do {
            if let rule {
                let parsed = try ActivationRule(predicate: rule, source: "--rule")
                result = parsed.evaluate(managed ? share.intuneTwin : share)
            } else if let plist {
                let manifest = try ExtensionManifest(infoPlist: try InputFile.contents(of: URL(fileURLWithPath: plist)), source: plist)
                result = manifest.activation(for: share, dataIsManaged: managed)
            } else {
                throw ValidationError("give an Info.plist or --rule \"PREDICATE\"")
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            Terminal.error(error)
            throw ExitCode(2)
        }
        Terminal().line(UntrustedText.line(result.isActivated ? "activated: \(result.reason)" : "not activated: \(result.reason)"))
        if !result.isActivated { throw ExitCode(1) }
    }
}
