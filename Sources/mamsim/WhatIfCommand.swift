import ArgumentParser
import Foundation
import MAMModel
import MAMPolicy
import MAMAdmin

/// `mamsim whatif POLICIES... --personas FILE`: offline, from a tenant's Graph exports, what
/// each persona's apps get — which app protection policy applies (assignments, exclusions,
/// filters, the apps it targets) or none and why, the token conditional access gives, the app
/// configuration received, and where the app's data may go.
struct WhatIfCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whatif", abstract: "Evaluate Graph exports (app protection, app configuration, conditional access, filters, groups) for personas, offline.",
        discussion: """
            POLICIES are Graph JSON files or folders of them (read recursively; IntuneCD, IntuneBackupAndRestore and \
            Microsoft365DSC exports too): iosManagedAppProtection with its assignments, targetedManagedAppConfiguration, conditionalAccessPolicy, deviceAndAppManagementAssignmentFilter \
            and group objects, recognised by @odata.type or by their properties. Other objects are listed as skipped. \
            The personas file (YAML or JSON) is described in docs/WHATIF.md. Exit 0 when evaluated, 1 when --diff finds a change of a kind --fail-on names, 2 on bad input.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, html }

    @Argument(help: "Graph JSON files or folders of them.", completion: .file(extensions: ["json"]))
    var policies: [String]

    @Option(help: "The personas file (YAML or JSON); name it again for each file of a tenant's personas split in several (read one after the other, as one list).",
            completion: .file(extensions: ["yaml", "yml", "json"]))
    var personas: [String]

    @Option(help: "table (terminal), json or html.")
    var format: Format = .table

    @Option(name: .shortAndLong, help: "Write here instead of standard output.")
    var output: String?

    @Flag(help: "Compare two policy sets: POLICIES are OLD and NEW (a file or folder each); list every cell that changes for the personas.")
    var diff = false

    @Option(help: ArgumentHelp("With --diff: exit 1 when a change of these kinds is found (comma-separated): \(WhatIfChange.Kind.allCases.map(\.rawValue).joined(separator: ", ")), or any.", valueName: "KINDS"))
    var failOn: String?

    @Option(help: ArgumentHelp("Judge only part K of N of the personas (1-based, in the file's order) and write a part for `mamsim merge`, which joins the parts into the report one run would write (the gate decided there).", valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Judge part JOB_COMPLETION_INDEX + 1 of N (a Kubernetes Indexed Job sets JOB_COMPLETION_INDEX).", valueName: "N"))
    var shards: Int?

    func validate() throws {
        _ = try TestCommand.shardChoice(shard: shard, shards: shards)
        if diff, policies.count != 2 { throw ValidationError("--diff compares two policy sets: give OLD and NEW (a file or folder each), got \(policies.count)") }
        if failOn != nil, !diff { throw ValidationError("--fail-on goes with --diff") }
        _ = try failKinds()
    }

    func failKinds() throws -> Set<WhatIfChange.Kind> {
        guard let failOn else { return [] }
        var kinds = Set<WhatIfChange.Kind>()
        for word in failOn.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if word == "any" { kinds.formUnion(WhatIfChange.Kind.allCases); continue }
            guard let k = WhatIfChange.Kind(rawValue: word) else {
                throw ValidationError("--fail-on \(word): use \(WhatIfChange.Kind.allCases.map(\.rawValue).joined(separator: ", ")) or any")
            }
            kinds.insert(k)
        }
        return kinds
    }

    /// Every personas file's personas, in the order named: each file bounded and composed on its
    /// own, so a tenant's worth split in files of a few MiB never composes at once. A name given
    /// in two files is an error naming both.
    func loadPersonas() throws -> [WhatIfPersona] {
        var all: [WhatIfPersona] = [], seen: [String: String] = [:]
        for file in personas {
            do {
                for p in try PersonaLoader.load(file: URL(fileURLWithPath: file)) {
                    if let other = seen[p.name] {
                        Terminal.error("\(file): persona \"\(p.name)\" is named in \(other) too; give each persona its own name")
                        throw ExitCode(2)
                    }
                    seen[p.name] = file
                    all.append(p)
                }
            } catch let e as ExitCode { throw e } catch {
                Terminal.error(error)
                throw ExitCode(2)
            }
        }
        return all
    }

    func run() throws {
        if let (index, count) = try TestCommand.shardChoice(shard: shard, shards: shards) { return try runPart(index: index, count: count) }
        if diff { return try runDiff() }
        let (loaded, notes) = try Self.loadPolicies(policies)
        let people = try loadPersonas()
        for note in notes + loaded.unknownGroups(of: people) { Terminal.warning(note) }
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        if format == .html {
            try ReportFile.write(WhatIfHTML.evaluation(WhatIf.evaluate(people, loaded, now: now), sources: policies), to: output)
        } else {
            // Written a batch at a time as judged: a tenant's personas never sit in memory whole.
            let stream = try ReportStream(to: output)
            var conflicts = 0, first = true
            if format == .json { try stream.write(WhatIfReport.jsonHead) }
            let json = format == .json
            try WhatIf.evaluate(people, loaded, now: now, render: { r -> (String, Int) in
                if json { return (WhatIfReport.json(r), 0) }
                var c = 0
                return (WhatIfReport.table(r, conflicts: &c) + "\n", c)
            }) { batch in
                var chunk = ""
                for (text, c) in batch {
                    if json, !first { chunk += ",\n" }
                    chunk += text
                    conflicts += c
                    first = false
                }
                try stream.write(chunk)
            }
            if format == .json { try stream.write(WhatIfReport.jsonTail) }
            if format == .table, let footer = WhatIfReport.tableFooter(conflicts: conflicts) { try stream.write(footer + "\n") }
            try stream.finish()
        }
        if let output { Terminal().line("whatif \(format.rawValue): \(output) (\(people.count) persona\(people.count == 1 ? "" : "s"))") }
    }

    func runDiff() throws {
        let (old, oldNotes) = try Self.loadPolicies([policies[0]])
        let (new, newNotes) = try Self.loadPolicies([policies[1]])
        let people = try loadPersonas()
        for note in oldNotes { Terminal.warning("OLD: \(note)") }
        for note in newNotes { Terminal.warning("NEW: \(note)") }
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        let writer = try WhatIfDiffWriter(format: WhatIfDiffWriter.Format(rawValue: format.rawValue)!, old: policies[0], new: policies[1],
                                          personas: people.count, failing: try failKinds())
        // Judged and written a batch at a time: a tenant's personas never sit in memory whole.
        try WhatIf.diff(people, old: old, new: new, now: now) { try writer.add($0) }
        try writer.finish(to: output)
        try Self.judgeGate(writer)
    }

    /// The gate, once every change is written: exit 1 naming the first changes of the kinds
    /// --fail-on names.
    static func judgeGate(_ writer: WhatIfDiffWriter) throws {
        guard writer.failed > 0 else { return }
        Terminal.error("\(writer.failed) change\(writer.failed == 1 ? "" : "s") of kinds --fail-on names: "
                       + writer.firstFailed.map { "\($0.persona) / \($0.app) / \($0.cell) \($0.before) → \($0.after)" }.joined(separator: "; "))
        throw ExitCode(1)
    }

    /// Every Graph document under `paths` (`WhatIfExports.load`), with the notes to show; what
    /// cannot be read or imported stops the command (exit 2), naming it.
    static func loadPolicies(_ paths: [String]) throws -> (WhatIfPolicies, [String]) {
        do {
            return try WhatIfExports.load(paths)
        } catch {
            Terminal.error(error)
            throw ExitCode(2)
        }
    }
}
