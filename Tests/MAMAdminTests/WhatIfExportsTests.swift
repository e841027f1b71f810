import Foundation
@testable import MAMAdmin
import MAMPolicy
import Testing

/// Where `whatif` finds a tenant's exports (`WhatIfExports`): the files named, a folder's
/// `.json` and `.ps1` files in path order and nothing else, never through a link out of the
/// folder; and what it refuses, each with a sentence naming the file.
@Suite struct WhatIfExportsTests {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-exports-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("tenant/b"), withIntermediateDirectories: true)
    }

    func write(_ text: String, to name: String) throws -> String {
        let url = root.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static let protection = ##"{"@odata.type": "#microsoft.graph.iosManagedAppProtection", "id": "P1", "displayName": "Sales", "assignments": [{"target": {"@odata.type": "#microsoft.graph.allLicensedUsersAssignmentTarget"}}]}"##

    @Test func aFolderIsReadInPathOrderAndOnlyItsExports() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let second = try write(Self.protection, to: "tenant/b/policy.JSON")
        let first = try write(Self.protection, to: "tenant/a.json")
        let dsc = try write("# Microsoft365DSC", to: "tenant/b/export.ps1")
        _ = try write("not an export", to: "tenant/notes.txt")
        let named = try write(Self.protection, to: "named.json")
        let files = try WhatIfExports.files(in: [root.appendingPathComponent("tenant").path, named])
        #expect(files.map { URL(fileURLWithPath: $0).standardizedFileURL.path } == [first, dsc, second, named].map { URL(fileURLWithPath: $0).standardizedFileURL.path })
    }

    @Test func aLinkOutOfTheFolderIsRefusedNeverFollowed() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let outside = try write(Self.protection, to: "elsewhere.json")
        let tenant = root.appendingPathComponent("tenant")
        try FileManager.default.createSymbolicLink(atPath: tenant.appendingPathComponent("b/leak.json").path, withDestinationPath: outside)
        #expect(throws: WhatIfExports.Refused.self) { try WhatIfExports.files(in: [tenant.path]) }
        do {
            _ = try WhatIfExports.files(in: [tenant.path])
        } catch {
            #expect(error.description.contains("leak.json is a link to") && error.description.contains("outside \(tenant.path)"), "\(error)")
        }
        // Named on the command line, the same file is read: the user chose it.
        #expect(try WhatIfExports.files(in: [outside]) == [outside])
        // A link that stays inside the folder is read.
        try FileManager.default.removeItem(atPath: tenant.appendingPathComponent("b/leak.json").path)
        let inside = try write(Self.protection, to: "tenant/a.json")
        try FileManager.default.createSymbolicLink(atPath: tenant.appendingPathComponent("b/same.json").path, withDestinationPath: inside)
        #expect(try WhatIfExports.files(in: [tenant.path]).count == 2)
    }

    @Test func whatCannotBeReadIsRefusedNamingIt() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let missing = root.appendingPathComponent("missing").path
        #expect(throws: WhatIfExports.Refused(description: "\(missing) does not exist; name Graph JSON files or folders of them")) {
            try WhatIfExports.load([missing])
        }
        // An export of nothing What If answers from (a compliance policy): refused, naming it.
        let compliance = try write(##"{"@odata.type": "#microsoft.graph.iosCompliancePolicy", "id": "C1", "displayName": "Compliance"}"##, to: "compliance.json")
        do {
            _ = try WhatIfExports.load([compliance])
            Issue.record("a compliance export was answered")
        } catch let refused as WhatIfExports.Refused {
            #expect(refused.description.contains("no iosManagedAppProtection and no conditionalAccessPolicy among 1 file"), "\(refused)")
        }
        // A policy read, with its notes.
        let (policies, notes) = try WhatIfExports.load([try write(Self.protection, to: "p.json")])
        #expect(policies.protections.map(\.title) == ["Sales"], "\(notes)")
    }
}
