import ArgumentParser
import Foundation
import MAMExtensions

import MAMActivation
import MAMBundle
/// `mamsim lint FOLDER...`: the Intune integration checks of an app or plugin folder.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint", abstract: "Check an app or plugin folder (Info.plist + entitlements) for Intune misconfigurations.")

    @Argument(help: "App or plugin folders.")
    var folders: [String]

    @OptionGroup var options: ScenarioOptions

    func run() throws {
        let settings = BuildSettings(try options.buildSettings())
        // A folder that is not there is bad input (exit 2), not a finding about an app.
        var isDirectory: ObjCBool = false
        for folder in folders where !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) || !isDirectory.boolValue {
            Terminal.error("\(folder) is not a folder; name an app or plugin folder (with its Info.plist)")
            throw ExitCode(2)
        }
        let terminal = Terminal()
        var failed = false
        for folder in folders {
            let report = Linter.lint(folder: URL(fileURLWithPath: folder), buildSettings: settings, displayName: folder)
            for line in report.lines { terminal.line(line) }
            terminal.line(report.summary)
            failed = failed || report.hasErrors
        }
        if failed { throw ExitCode(1) }
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
        let data = try Data(contentsOf: URL(fileURLWithPath: plist))
        let (rewritten, change) = try IntuneConfigurator.configureReporting(infoPlist: data, source: plist)
        try rewritten.write(to: URL(fileURLWithPath: output ?? plist))
        print("\(output ?? plist): \(change)")
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
                let manifest = try ExtensionManifest(infoPlist: try Data(contentsOf: URL(fileURLWithPath: plist)), source: plist)
                result = manifest.activation(for: share, dataIsManaged: managed)
            } else {
                throw ValidationError("give an Info.plist or --rule \"PREDICATE\"")
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(2)
        }
        print(result.isActivated ? "activated: \(result.reason)" : "not activated: \(result.reason)")
        if !result.isActivated { throw ExitCode(1) }
    }
}
