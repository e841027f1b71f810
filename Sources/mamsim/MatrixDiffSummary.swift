import Foundation
import MAMExtensions
import MAMModel
import MAMPolicy
import MAMAdmin

/// `mamsim matrix --diff` when more cells change than `--max-cells`: one entry per group of
/// cells that change alike (a grid, some apps as one identity, a column, the same decisions
/// before and after and the same settings making the difference), with how many cells it
/// holds and one of them as an example. A policy targeting 1,000 apps alike changes millions
/// of cells in a handful of groups. JSON names every app of every group, so the cells can be
/// listed from it.
struct DiffSummary {
    let groups: [PolicyMatrix.Diff.Group]
    let appGroups: [PolicyMatrix.Diff.AppGroup]
    let settings: [MatrixCommand.SettingChange]
    let changedCells: Int
    let maxCells: Int
    /// A letter for each app group of more than one app (`A`, `B`, …, `Z`, `AA`, …), in order.
    let names: [String]

    init(diff: PolicyMatrix.Diff, settings: [MatrixCommand.SettingChange], maxCells: Int) {
        groups = diff.groups
        appGroups = diff.appGroups
        self.settings = settings
        changedCells = diff.changedCells
        self.maxCells = maxCells
        var names: [String] = [], next = 0
        for g in appGroups {
            names.append(g.apps.count == 1 ? g.apps[0].rawValue : Self.letters(next))
            if g.apps.count > 1 { next += 1 }
        }
        self.names = names
    }

    /// 0 → A, 25 → Z, 26 → AA.
    static func letters(_ i: Int) -> String {
        var n = i + 1, s = ""
        while n > 0 {
            n -= 1
            s = String(UnicodeScalar(UInt8(65 + n % 26))) + s
            n /= 26
        }
        return s
    }

    static func identity(_ account: Account?) -> String { account.map(\.upn) ?? ReportHTML.noAccount }

    /// The first apps and how many more.
    static func preview(_ apps: [BundleID], first: Int = 5) -> String {
        apps.prefix(first).map(\.rawValue).joined(separator: ", ") + (apps.count > first ? " and \(apps.count - first) more" : "")
    }

    func describe(_ g: PolicyMatrix.Diff.AppGroup) -> String {
        let kind = g.kind == .app ? "apps" : "\(g.kind.rawValue) extensions"
        let managed = switch (g.managedBefore, g.managedAfter) {
        case (true, true): "policy-managed before and after"
        case (true, false): "policy-managed before only"
        case (false, true): "policy-managed after only"
        case (false, false): "policy-managed neither before nor after"
        }
        return "\(g.apps.count) \(kind) \(g.sdk ? "with" : "without") the Intune SDK, \(managed)"
    }

    func from(_ g: PolicyMatrix.Diff.Group) -> String {
        let apps = g.fromApps.map { $0.count == 1 ? $0[0].rawValue : "\($0.count) apps of \(names[g.fromGroup])" } ?? names[g.fromGroup]
        return "\(apps) (\(Self.identity(g.fromAccount)))"
    }

    func to(_ g: PolicyMatrix.Diff.Group) -> String {
        switch g.to {
        case .named(let column): return column
        case .apps(let group, let account, let sameApp):
            let which = appGroups[group].apps.count == 1 ? "" : sameApp.map { $0 ? ", the same app" : ", another app" } ?? ""
            return "\(names[group]) (\(Self.identity(account)))\(which)"
        }
    }

    var intro: String {
        "\(changedCells) cells change, more than --max-cells \(maxCells): each entry is a group of cells that change alike, with how many and one of them "
            + "(--format json names every app of every group; --max-cells up to \(MatrixCommand.maxCellsLimit) lists each cell)."
    }

    func table(oldName: String, newName: String, fleet: String?) -> String {
        var out = ["Changes from \"\(oldName)\" to \"\(newName)\" on \(fleet.map { "the fleet of \($0)" } ?? "a default fleet"): \(changedCells) cells decide differently, in \(groups.count) group\(groups.count == 1 ? "" : "s")."]
        out.append("")
        out.append("Settings that differ (\(settings.count)):")
        for s in settings { out.append("  \(s.key): \(s.before) → \(s.after)") }
        out.append("")
        out.append(intro)
        let named = appGroups.indices.filter { appGroups[$0].apps.count > 1 }
        if !named.isEmpty {
            out.append("")
            out.append("Apps that decide alike:")
            for i in named { out.append("  \(names[i]) = \(describe(appGroups[i])): \(Self.preview(appGroups[i].apps))") }
        }
        var grid: PolicyMatrix.Grid?
        for g in groups {
            if g.grid != grid {
                grid = g.grid
                out.append("")
                out.append("\(g.grid.rawValue):")
            }
            let e = g.example
            out.append("  \(from(g)) → \(to(g)): \(MatrixCommand.cell(e.before)) → \(MatrixCommand.cell(e.after))  [\(MatrixCommand.because(g.settings))]  \(g.cells) cell\(g.cells == 1 ? "" : "s")")
            if let apps = g.fromApps, apps.count > 1 { out.append("      apps: \(Self.preview(apps))") }
            out.append("      e.g. \(e.from) → \(e.to): \(e.after.explanation)")
        }
        return UntrustedText.lines(out)
    }

    func json(old: (String, String), new: (String, String)) -> String {
        func decision(_ v: Verdict) -> [String: Any] {
            var d: [String: Any] = ["allowed": v.isAllowed]
            if let r = v.reason { d["reason"] = r.rawValue }
            return d
        }
        func verdict(_ v: Verdict) -> [String: Any] {
            var d = decision(v)
            d["explanation"] = v.explanation
            return d
        }
        let root: [String: Any] = [
            "schemaVersion": 1,
            "old": ["document": old.0, "displayName": old.1], "new": ["document": new.0, "displayName": new.1],
            "settings": settings.map { ["key": $0.key, "before": $0.before, "after": $0.after] },
            "changedCells": changedCells,
            "maxCells": maxCells,
            "appGroups": appGroups.enumerated().map { i, g in
                ["name": names[i], "apps": g.apps.map(\.rawValue), "kind": g.kind.rawValue, "sdk": g.sdk,
                 "managedBefore": g.managedBefore, "managedAfter": g.managedAfter] as [String: Any]
            },
            "groups": groups.map { g -> [String: Any] in
                var from: [String: Any] = ["apps": names[g.fromGroup], "identity": Self.identity(g.fromAccount)]
                if let only = g.fromApps { from["only"] = only.map(\.rawValue) }
                let to: [String: Any]
                switch g.to {
                case .named(let column): to = ["column": column]
                case .apps(let group, let account, let sameApp):
                    var d: [String: Any] = ["apps": names[group], "identity": Self.identity(account)]
                    if let sameApp { d["sameApp"] = sameApp }
                    to = d
                }
                return ["grid": g.grid.rawValue, "from": from, "to": to, "cells": g.cells, "settings": g.settings,
                        "before": decision(g.example.before), "after": decision(g.example.after),
                        "example": ["from": g.example.from, "to": g.example.to, "before": verdict(g.example.before), "after": verdict(g.example.after)] as [String: Any]]
            },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    func html(oldName: String, newName: String, fleet: String?) -> String {
        let esc = UntrustedText.xml
        var html = MatrixCommand.diffPageHead(oldName: oldName, newName: newName, settings: settings,
                                              summary: "\(changedCells) cells decide differently on \(fleet.map { "the fleet of \($0)" } ?? "a default fleet"), in \(groups.count) group\(groups.count == 1 ? "" : "s").")
        html += "</table>\n<p>\(esc(intro))</p>\n"
        let named = appGroups.indices.filter { appGroups[$0].apps.count > 1 }
        if !named.isEmpty {
            html += "<h2>Apps that decide alike</h2>\n<table><tr><th>group</th><th>what</th><th>apps</th></tr>\n"
            for i in named {
                html += "<tr><td>\(esc(names[i]))</td><td>\(esc(describe(appGroups[i])))</td><td>\(esc(appGroups[i].apps.map(\.rawValue).joined(separator: ", ")))</td></tr>\n"
            }
            html += "</table>\n"
        }
        html += "<h2>Groups of cells</h2>\n<table><tr><th>grid</th><th>from</th><th>to</th><th>cells</th><th>before</th><th>after</th><th>changed by</th><th>for example</th></tr>\n"
        for g in groups {
            let e = g.example
            let apps = g.fromApps.map { $0.count > 1 ? " (\($0.map(\.rawValue).joined(separator: ", ")))" : "" } ?? ""
            html += "<tr><td>\(esc(g.grid.rawValue))</td><td>\(esc(from(g) + apps))</td><td>\(esc(to(g)))</td><td>\(g.cells)</td>"
                + "<td>\(esc(MatrixCommand.cell(e.before)))</td><td>\(esc(MatrixCommand.cell(e.after)))</td><td>\(esc(MatrixCommand.because(g.settings)))</td>"
                + "<td>\(esc("\(e.from) → \(e.to): \(e.after.explanation)"))</td></tr>\n"
        }
        html += "</table>\n</body></html>\n"
        return html
    }
}
