import ArgumentParser
import Foundation
import MAMExtensions
import MAMModel
import MAMPolicy
import MAMAdmin

/// `mamsim matrix --diff OLD NEW`: what an administrator's change does — only the cells whose
/// decision changes, each with before → after and the settings that change it.
extension MatrixCommand {
    /// Graph properties that name, describe or date a policy without deciding anything.
    static let descriptiveKeys: Set<String> = [
        "id", "displayName", "description", "createdDateTime", "lastModifiedDateTime", "version", "roleScopeTagIds",
        "isAssigned", "deployedAppCount", "assignments", "apps", "deploymentSummary",
    ]

    /// A policy property whose value differs between the two documents.
    struct SettingChange {
        var key: String
        var before: String
        var after: String
    }

    /// The deciding properties whose values differ, in name order (`apps` compare through
    /// their effect: both policies run on one fleet).
    static func settingChanges(_ old: [String: Any], _ new: [String: Any]) -> [SettingChange] {
        Set(old.keys).union(new.keys).sorted().compactMap { key in
            guard !descriptiveKeys.contains(key), !key.contains("@odata") else { return nil }
            let (a, b) = (jsonText(old[key]), jsonText(new[key]))
            return a == b ? nil : SettingChange(key: key, before: a, after: b)
        }
    }

    /// A value as compact JSON (a string without quotes, absent or null as `(not set)`).
    static func jsonText(_ value: Any?) -> String {
        guard let value, !(value is NSNull) else { return "(not set)" }
        if let s = value as? String { return s }
        guard JSONSerialization.isValidJSONObject([value]),
              let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys, .withoutEscapingSlashes]) else { return "\(value)" }
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    /// The changes in the chosen format: each cell while they are few (`--max-cells`), else
    /// summarised by group.
    func render(_ diff: PolicyMatrix.Diff, _ settings: [SettingChange], old: (path: String, name: String), new: (path: String, name: String)) -> String {
        let (oldPath, oldName) = old
        let (newPath, newName) = new
        let text: String
        if let cells = diff.cells(limit: maxCells) {
            let (changes, causes) = (cells.map(\.change), cells.map(\.settings))
            switch format {
            case .table: text = Self.diffTable(changes, causes, settings, oldName: oldName, newName: newName, fleet: self.fleet)
            case .json: text = Self.diffJSON(changes, causes, settings, old: (oldPath, oldName), new: (newPath, newName))
            case .html: text = Self.diffHTML(changes, causes, settings, oldName: oldName, newName: newName, fleet: self.fleet)
            }
        } else {
            let summary = DiffSummary(diff: diff, settings: settings, maxCells: maxCells)
            switch format {
            case .table: text = summary.table(oldName: oldName, newName: newName, fleet: self.fleet)
            case .json: text = summary.json(old: (oldPath, oldName), new: (newPath, newName))
            case .html: text = summary.html(oldName: oldName, newName: newName, fleet: self.fleet)
            }
        }
        return text
    }

    func runDiff(old: IosManagedAppProtection, oldRaw: [String: Any], new: IosManagedAppProtection, newRaw: [String: Any], oldPath: String) throws {
        // One fleet for both: the apps either policy targets.
        var apps: [BundleID] = [], seen: Set<BundleID> = []
        for app in Self.defaultApps(old) + Self.defaultApps(new) where seen.insert(app).inserted { apps.append(app) }
        let now = Self.now
        let scenario = try fleetScenario()
        let base = baseFleet(apps: apps, scenario: scenario)
        let oldFleet = Self.applying(old, to: base, scenario: scenario)
        let newFleet = Self.applying(new, to: base, scenario: scenario)
        warnIfUntargeted(oldFleet, old, path: oldPath)
        warnIfUntargeted(newFleet, new, path: policy)
        // Each unit of cells deciding alike is decided once per fleet, not each cell.
        var diff = PolicyMatrix.Diff(from: oldFleet, to: newFleet, now: now)
        let settings = Self.settingChanges(oldRaw, newRaw)
        // Which settings change a cell: the old policy with one setting of the new, each in
        // turn; for a cell no single one changes, each pair; else it takes more of them.
        // The old document without its apps (and other navigation properties), which no
        // setting changes: a thousand targeted apps are written and read once, not per variant.
        var template = oldRaw
        for key in ["apps", "assignments", "deploymentSummary"] { template[key] = nil }
        func variant(_ keys: [String]) -> Fleet? {
            var patched = template
            for key in keys { patched[key] = newRaw[key] }
            guard let data = try? JSONSerialization.data(withJSONObject: patched),
                  var policy = try? GraphPolicyImporter.importPolicies([UInt8](data), source: "\(oldPath) with \(keys.joined(separator: ", "))").policies.first
            else { return nil }
            policy.apps = old.apps
            policy.appsListed = old.appsListed
            return Self.applying(policy, to: base, scenario: scenario)
        }
        if diff.changedCells > 0 {
            for setting in settings {
                if let fleet = variant([setting.key]) { diff.attribute(setting.key, in: fleet) }
            }
            let unexplained = diff.unexplained
            if !unexplained.isEmpty {
                for (a, first) in settings.enumerated() {
                    for second in settings[(a + 1)...] {
                        if let fleet = variant([first.key, second.key]) { diff.attribute("\(first.key) + \(second.key)", in: fleet, among: unexplained) }
                    }
                }
            }
        }
        let text = render(diff, settings, old: (oldPath, old.displayName.isEmpty ? oldPath : old.displayName),
                          new: (policy, new.displayName.isEmpty ? policy : new.displayName))
        try ReportFile.write(text, to: output)
        if let output { Terminal().line("\(format.rawValue) matrix changes: \(output)") }
    }

    static func because(_ causes: [String]) -> String {
        causes.isEmpty ? "three or more settings together" : causes.joined(separator: ", ")
    }

    static func diffTable(_ changes: [PolicyMatrix.Change], _ causes: [[String]], _ settings: [SettingChange],
                          oldName: String, newName: String, fleet: String?) -> String {
        var out = ["Changes from \"\(oldName)\" to \"\(newName)\" on \(fleet.map { "the fleet of \($0)" } ?? "a default fleet"): \(changes.count) cell\(changes.count == 1 ? "" : "s") decide differently."]
        out.append("")
        out.append("Settings that differ (\(settings.count)):")
        for s in settings { out.append("  \(s.key): \(s.before) → \(s.after)") }
        var grid = ""
        for (i, c) in changes.enumerated() {
            if c.grid != grid {
                grid = c.grid
                out.append("")
                out.append("\(grid):")
            }
            out.append("  \(c.from) → \(c.to): \(cell(c.before)) → \(cell(c.after))  [\(because(causes[i]))]")
            out.append("      \(c.after.explanation)")
        }
        if changes.isEmpty { out.append(""); out.append("No cell decides differently.") }
        return UntrustedText.lines(out)
    }

    static func diffJSON(_ changes: [PolicyMatrix.Change], _ causes: [[String]], _ settings: [SettingChange],
                         old: (String, String), new: (String, String)) -> String {
        func verdict(_ v: Verdict) -> [String: Any] {
            var d: [String: Any] = ["allowed": v.isAllowed, "explanation": v.explanation]
            if let r = v.reason { d["reason"] = r.rawValue }
            return d
        }
        let root: [String: Any] = [
            "schemaVersion": 1,
            "old": ["document": old.0, "displayName": old.1], "new": ["document": new.0, "displayName": new.1],
            "settings": settings.map { ["key": $0.key, "before": $0.before, "after": $0.after] },
            "changes": changes.enumerated().map { i, c in
                ["grid": c.grid, "from": c.from, "to": c.to, "before": verdict(c.before), "after": verdict(c.after), "settings": causes[i]] as [String: Any]
            },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The start of a diff's page, both forms (cell by cell, or groups of cells): title,
    /// `summary`, and the settings that differ in a table left open for its caller to close.
    static func diffPageHead(oldName: String, newName: String, settings: [SettingChange], summary: String) -> String {
        let esc = UntrustedText.xml
        let title = "What changes from \(oldName) to \(newName)"
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(esc(title))</title><style>\(ReportHTML.style)</style></head><body>
            <h1>\(esc(title))</h1>
            <p>\(esc(summary))</p>
            <h2>Settings that differ</h2>
            <table><tr><th>setting</th><th>before</th><th>after</th></tr>

            """
        for s in settings { html += "<tr><td>\(esc(s.key))</td><td>\(esc(s.before))</td><td>\(esc(s.after))</td></tr>\n" }
        return html
    }

    static func diffHTML(_ changes: [PolicyMatrix.Change], _ causes: [[String]], _ settings: [SettingChange],
                         oldName: String, newName: String, fleet: String?) -> String {
        let esc = UntrustedText.xml
        var html = diffPageHead(oldName: oldName, newName: newName, settings: settings,
                                summary: "\(changes.count) cell\(changes.count == 1 ? "" : "s") decide differently on \(fleet.map { "the fleet of \($0)" } ?? "a default fleet").")
        html += "</table>\n<h2>Cells</h2>\n<table><tr><th>grid</th><th>from</th><th>to</th><th>before</th><th>after</th><th>changed by</th><th>why now</th></tr>\n"
        for (i, c) in changes.enumerated() {
            html += "<tr><td>\(esc(c.grid))</td><td>\(esc(c.from))</td><td>\(esc(c.to))</td><td>\(esc(cell(c.before)))</td>"
                + "<td>\(esc(cell(c.after)))</td><td>\(esc(because(causes[i])))</td><td>\(esc(c.after.explanation))</td></tr>\n"
        }
        html += "</table>\n</body></html>\n"
        return html
    }
}
