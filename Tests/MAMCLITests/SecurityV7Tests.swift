import Foundation
import Testing

extension CLITests {
    /// Security issue 95: what the admin's and the app team's verbs read from a repository — the
    /// input a CI gate runs on — forges no CI line, steers no terminal, weakens no policy past the
    /// gate, and makes mamsim write nowhere but where it was told. Each hostile input has its
    /// control: the same input without the attack gives the ordinary answer.
    @Suite struct SecurityV7Tests {
        /// A name that would end its line and start CI's own: GitHub's workflow commands, Azure's
        /// logging command, a lone CR (GitHub's runner ends a line there), a terminal's escape,
        /// a bell, a bidirectional override and a line separator.
        static let evil = "Evil\n::error::forged\r::add-mask::secret\u{1B}[31m\u{07}\u{202E}\u{2028}##vso[task.setvariable variable=x]1\u{85}"

        /// No line of `text` is one an input wrote: none starts with a CI command, and nothing
        /// but line feeds and tabs of the tool's own is a control, separator or bidi mark.
        static func assertNoForgedLine(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.drop { $0 == " " || $0 == "\t" }
                #expect(!trimmed.hasPrefix("::") && !trimmed.hasPrefix("##vso["), "\(what) has a forged line: \(line)", sourceLocation: sourceLocation)
            }
            let raw = text.unicodeScalars.filter {
                ($0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t") || [0x2028, 0x2029, 0x202E, 0x85].contains($0.value)
            }
            #expect(raw.isEmpty, "\(what) carries raw \(raw.map { String($0.value, radix: 16) })", sourceLocation: sourceLocation)
        }

        static func tenant(in dir: TemporaryDirectory, _ name: String) throws -> URL {
            let to = dir.url.appendingPathComponent(name)
            try FileManager.default.copyItem(at: CLI.repo("examples/whatif/before"), to: to)
            return to
        }

        static func edit(_ file: URL, _ change: (inout [String: Any]) -> Void) throws {
            var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            change(&document)
            try JSONSerialization.data(withJSONObject: document).write(to: file)
        }

        static func renameFirst(_ key: String, to name: String) -> (inout [String: Any]) -> Void {
            { document in
                var value = document["value"] as? [[String: Any]] ?? []
                value[1][key] = name
                document["value"] = value
            }
        }

        /// Finding 1: a policy's, a filter's and a persona's name with a line feed reach no line
        /// of whatif's table, JSON or --diff, nor its warnings and errors.
        @Test func whatifForgesNoLine() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-whatif")
            defer { dir.remove() }
            let before = try Self.tenant(in: dir, "before"), after = try Self.tenant(in: dir, "after")
            try Self.edit(after.appendingPathComponent("app-protection.json"), Self.renameFirst("displayName", to: Self.evil))
            try Self.edit(after.appendingPathComponent("filters.json"), Self.renameFirst("displayName", to: Self.evil))
            try Self.edit(after.appendingPathComponent("conditional-access.json"), Self.renameFirst("displayName", to: Self.evil))
            var personas = try String(contentsOf: CLI.repo("examples/whatif/personas.yaml"), encoding: .utf8)
            personas = personas.replacingOccurrences(of: "name: BYOD sales", with: #"name: "BYOD\n::error::persona\r\u001B[2J""#)
            let people = try dir.write("personas.yaml", personas)
            // A policy without assignments is warned of by its name.
            try Self.edit(after.appendingPathComponent("app-protection.json")) { document in
                var value = document["value"] as? [[String: Any]] ?? []
                var orphan = value[0]
                orphan["id"] = "orphan"
                orphan["assignments"] = []
                orphan["displayName"] = Self.evil
                value.append(orphan)
                document["value"] = value
            }
            for args in [[after.path], [after.path, "--format", "json"], ["--diff", before.path, after.path, "--fail-on", "any"],
                         ["--diff", before.path, after.path, "--format", "json"]] {
                let r = try await CLI.run(["whatif"] + args + ["--personas", people.path])
                #expect([0, 1].contains(r.status), "\(r)")
                #expect(r.stdout.contains("Evil\\u{A}::error::forged") || r.stdout.contains(#"Evil\n::error::forged"#) || r.stdout.contains("BYOD\\u{A}::error::persona")
                        || r.stdout.contains(#"BYOD\n::error::persona"#), "\(args): the names are shown, escaped: \(r.stdout.prefix(600))")
                Self.assertNoForgedLine(r.stdout, "whatif \(args)'s output")
                Self.assertNoForgedLine(r.stderr, "whatif \(args)'s warnings")
            }
            // The JSON stays JSON, and reads back the names as the export wrote them.
            let json = try await CLI.run(["whatif", after.path, "--format", "json", "--personas", people.path])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let first = try #require((object["personas"] as? [[String: Any]])?.first)
            #expect(first["name"] as? String == "BYOD\n::error::persona\r\u{1B}[2J")
        }

        /// Finding 1, through a Microsoft365DSC export: PowerShell's `` `n `` in a DisplayName.
        @Test func aDSCDisplayNameForgesNoLine() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-dsc")
            defer { dir.remove() }
            var text = try String(contentsOf: CLI.repo("Tests/Fixtures/whatif-exports/m365dsc/M365TenantConfig.ps1"), encoding: .utf8)
            let control = try dir.write("control/M365TenantConfig.ps1", text)
            text = text.replacingOccurrences(of: #"DisplayName = "iOS/iPadOS Enterprise Enhanced Data Protection v1.5";"#,
                                             with: #"DisplayName = "Evil`n::error::dsc`r`e[31m";"#)
            let hostile = try dir.write("hostile/M365TenantConfig.ps1", text)
            let people = CLI.repo("examples/whatif/personas.yaml").path
            let plain = try await CLI.run(["whatif", control.path, "--personas", people])
            #expect(plain.status == 0 && plain.stdout.contains("iOS/iPadOS Enterprise Enhanced Data Protection v1.5"), "\(plain)")
            let r = try await CLI.run(["whatif", hostile.path, "--personas", people])
            #expect(r.status == 0 && r.stdout.contains("Evil\\u{A}::error::dsc"), "\(r)")
            Self.assertNoForgedLine(r.stdout, "whatif's table of a DSC export")
            Self.assertNoForgedLine(r.stderr, "whatif's warnings of a DSC export")
        }

        /// Finding 1: `matrix --diff` prints a displayName on one line.
        @Test func matrixDiffForgesNoLine() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-matrix")
            defer { dir.remove() }
            let template = try Data(contentsOf: CLI.repo("Tests/Fixtures/shared/fixtures/policies/icf-level-2-enterprise-enhanced-data-protection-iOS.json"))
            var policy = try #require(try JSONSerialization.jsonObject(with: template) as? [String: Any])
            policy["displayName"] = Self.evil
            let named = dir.url.appendingPathComponent("named.json")
            try JSONSerialization.data(withJSONObject: policy).write(to: named)
            let level3 = CLI.repo("Tests/Fixtures/shared/fixtures/policies/icf-level-3-enterprise-high-data-protection-iOS.json").path
            for args in [[named.path, level3], [named.path, level3, "--max-cells", "1"]] {
                let r = try await CLI.run(["matrix", "--diff"] + args)
                #expect(r.status == 0 && r.stdout.contains("Evil\\u{A}::error::forged"), "\(r)")
                Self.assertNoForgedLine(r.stdout, "matrix --diff \(args)")
            }
        }

        /// Finding 1: a Tuist target's name and a bundle folder's name reach init's notes and
        /// lint's summary as one line each.
        @Test func projectNamesForgeNoLine() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-tuist")
            defer { dir.remove() }
            let name = "App\\n::error::tuist\u{1B}[31m\u{07}\u{202E}"
            let project = try dir.write("repo/Project.swift", """
                import ProjectDescription
                let project = Project(name: "X", targets: [
                    .target(name: "\(name)", destinations: .iOS, product: .app, bundleId: "com.contoso.x", infoPlist: .default),
                    .target(name: "Share", destinations: .iOS, product: .appExtension, bundleId: "$(UNSET_SETTING).share", infoPlist: .extendingDefault(with: ["NSExtension": ["NSExtensionPointIdentifier": "com.apple.share-services"]])),
                ])
                """).deletingLastPathComponent()
            let scenario = dir.path("out/first.yaml")
            let initialized = try await CLI.run(["init", project.path, "-o", scenario, "--no-run"], timeout: 120)
            #expect(initialized.status == 0, "\(initialized)")
            Self.assertNoForgedLine(initialized.stdout, "init's output")
            Self.assertNoForgedLine(initialized.stderr, "init's notes")
            let lint = try await CLI.run(["lint", project.path], timeout: 120)
            #expect([0, 1].contains(lint.status) && lint.stdout.contains("target App"), "\(lint)")
            Self.assertNoForgedLine(lint.stdout, "lint's summary of a Tuist project")
            // A bundle folder whose name holds a line feed and an escape.
            let folder = dir.url.appendingPathComponent("plugins/Open\n::error::folder\u{1B}[2J")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try dir.write("plugins/Open\n::error::folder\u{1B}[2J/Info.plist", """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.contoso.open</string>
                <key>NSExtension</key><dict><key>NSExtensionPointIdentifier</key><string>com.apple.ui-services</string></dict></dict></plist>
                """)
            let folderLint = try await CLI.run(["lint", dir.path("plugins")], timeout: 120)
            #expect([0, 1].contains(folderLint.status) && folderLint.stdout.contains("Open?::error::folder"), "\(folderLint)")
            Self.assertNoForgedLine(folderLint.stdout, "lint's summary of a folder")
            Self.assertNoForgedLine(folderLint.stderr, "lint's errors of a folder")
        }

        /// Finding 2: a key twice in an export — the old value first, the weaker last, as Python's
        /// json reads it — is refused at its line, never read as the first; the export with the
        /// weaker value alone is the change the gate fails on (the control).
        @Test func aDuplicateKeyCannotWeakenAPolicyPastTheGate() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-dup")
            defer { dir.remove() }
            let before = try Self.tenant(in: dir, "before"), weakened = try Self.tenant(in: dir, "weakened"), doubled = try Self.tenant(in: dir, "doubled")
            let text = try String(contentsOf: before.appendingPathComponent("app-protection.json"), encoding: .utf8)
            let old = #""allowedOutboundDataTransferDestinations": "managedApps","#
            let range = try #require(text.range(of: old))
            try text.replacingCharacters(in: range, with: #""allowedOutboundDataTransferDestinations": "allApps","#)
                .write(to: weakened.appendingPathComponent("app-protection.json"), atomically: true, encoding: .utf8)
            try text.replacingCharacters(in: range, with: old + #" "allowedOutboundDataTransferDestinations": "allApps","#)
                .write(to: doubled.appendingPathComponent("app-protection.json"), atomically: true, encoding: .utf8)
            let people = CLI.repo("examples/whatif/personas.yaml").path
            let control = try await CLI.run(["whatif", "--diff", before.path, weakened.path, "--personas", people, "--fail-on", "any"])
            #expect(control.status == 1, "\(control)")
            let r = try await CLI.run(["whatif", "--diff", before.path, doubled.path, "--personas", people, "--fail-on", "any"])
            let line = text[..<range.lowerBound].filter { $0 == "\n" }.count + 1
            #expect(r.status == 2 && r.stderr.contains("\(doubled.path)/app-protection.json:\(line):")
                    && r.stderr.contains(#"the key "allowedOutboundDataTransferDestinations" is written twice in one object"#), "\(r)")
        }

        /// Finding 3: an export past the one input limit is refused before it is parsed, naming
        /// the limit; so is a personas file past its own.
        @Test func readersAreBoundedBeforeTheyParse() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-bytes")
            defer { dir.remove() }
            let big = dir.url.appendingPathComponent("big.json")
            _ = FileManager.default.createFile(atPath: big.path, contents: nil)
            let handle = try FileHandle(forWritingTo: big)
            try handle.write(contentsOf: Data("{\"value\": [\"".utf8))
            let chunk = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
            for _ in 0..<65 { try handle.write(contentsOf: chunk) }
            try handle.write(contentsOf: Data("\"]}".utf8))
            try handle.close()
            let people = CLI.repo("examples/whatif/personas.yaml").path
            let r = try await CLI.run(["whatif", big.path, "--personas", people])
            #expect(r.status == 2 && r.stderr.contains("big.json is larger than 64 MiB, the most mamsim reads from one input file"), "\(r)")
            // The personas file: past 8 MiB, refused before YAML composes it (it takes about a
            // hundred times its size); the example file is the control.
            var yaml = "personas:\n"
            let one = "  - {name: p, user: u@contoso.com, groups: [" + Array(repeating: "g", count: 400).joined(separator: ",") + "]}\n"
            while yaml.utf8.count <= 8 << 20 { yaml += one }
            let personas = try dir.write("personas.yaml", yaml)
            let many = try await CLI.run(["whatif", CLI.repo("examples/whatif/before").path, "--personas", personas.path])
            #expect(many.status == 2 && many.stderr.contains("the personas file is larger than 8 MiB"), "\(many)")
            let fine = try await CLI.run(["whatif", CLI.repo("examples/whatif/before").path, "--personas", people])
            #expect(fine.status == 0, "\(fine)")
        }

        /// Finding 4: `-o` naming a folder, or a link, is refused: the folder and all in it stay,
        /// the link's target is untouched; a new file is written (the control).
        @Test func aReportNeverRemovesOrWritesThroughWhatItDidNotMake() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-output")
            defer { dir.remove() }
            let kept = try dir.write("report/keep.txt", "mine")
            let victim = try dir.write("victim.txt", "untouched")
            try FileManager.default.createSymbolicLink(atPath: dir.path("link.txt"), withDestinationPath: victim.path)
            let people = CLI.repo("examples/whatif/personas.yaml").path, tenant = CLI.repo("examples/whatif/before").path
            for (format, out) in [("table", "report"), ("json", "report"), ("html", "report"), ("table", "link.txt"), ("html", "link.txt")] {
                let r = try await CLI.run(["whatif", tenant, "--personas", people, "--format", format, "-o", dir.path(out)])
                #expect(r.status == 2 && r.stderr.contains("cannot write the report to \(dir.path(out))"), "\(format) \(out): \(r)")
            }
            let diff = try await CLI.run(["whatif", "--diff", tenant, tenant, "--personas", people, "-o", dir.path("report")])
            #expect(diff.status == 2 && diff.stderr.contains("it is a folder"), "\(diff)")
            #expect(try String(contentsOf: kept, encoding: .utf8) == "mine")
            #expect(try String(contentsOf: victim, encoding: .utf8) == "untouched")
            let written = try await CLI.run(["whatif", tenant, "--personas", people, "-o", dir.path("new/report.txt")])
            #expect(written.status == 0 && FileManager.default.fileExists(atPath: dir.path("new/report.txt")), "\(written)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path("new"))
            #expect(leftovers == ["report.txt"], "\(leftovers)")
        }

        /// Finding 4, the same class: `run --audit` naming a folder or a link is refused — the
        /// folder and the link's target stay; a new file is the control.
        @Test func anAuditCopyNeverRemovesOrWritesThroughWhatItDidNotMake() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-audit")
            defer { dir.remove() }
            let kept = try dir.write("audit/keep.txt", "mine")
            let victim = try dir.write("victim.txt", "untouched")
            try FileManager.default.createSymbolicLink(atPath: dir.path("link.jsonl"), withDestinationPath: victim.path)
            let scenario = try dir.write("s.yaml", """
                apps:
                  - {id: mail, bundle: com.contoso.mail}
                steps:
                  - launch: {app: mail}
                """)
            for out in ["audit", "link.jsonl"] {
                let r = try await CLI.run(["run", scenario.path, "--audit", dir.path(out)], timeout: 120)
                #expect(r.status == 2 && r.stderr.contains("cannot copy the audit log to \(dir.path(out))"), "\(out): \(r)")
            }
            #expect(try String(contentsOf: kept, encoding: .utf8) == "mine")
            #expect(try String(contentsOf: victim, encoding: .utf8) == "untouched")
            let control = try await CLI.run(["run", scenario.path, "--audit", dir.path("new/audit.jsonl")], timeout: 120)
            #expect(control.status == 0 && ((try? String(contentsOf: dir.url.appendingPathComponent("new/audit.jsonl"), encoding: .utf8)) ?? "").contains("launch"), "\(control)")
        }

        /// Finding 4: `init` writes through no link a repository commits — neither a folder link
        /// that would put an extension's plist outside the checkout, nor a file link that would
        /// overwrite a victim with Microsoft's template. Without the links it writes both.
        @Test func initWritesThroughNoLinkOfTheRepository() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-init")
            defer { dir.remove() }
            let repo = dir.url.appendingPathComponent("repo")
            try FileManager.default.copyItem(at: CLI.repo("Tests/Fixtures/projects/ContosoMail"), to: repo)
            let outside = dir.url.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            let victim = try dir.write("victim.txt", "untouched")
            let mamsim = repo.appendingPathComponent("mamsim")
            try FileManager.default.createDirectory(at: mamsim, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: mamsim.appendingPathComponent("mamsim-extensions").path, withDestinationPath: outside.path)
            let scenario = mamsim.appendingPathComponent("first.yaml").path
            let throughFolder = try await CLI.run(["init", repo.path, "-o", scenario, "--no-run"], in: repo, timeout: 120)
            #expect(throughFolder.status == 2 && throughFolder.stderr.contains("mamsim-extensions is a link"), "\(throughFolder)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
            try FileManager.default.removeItem(atPath: mamsim.appendingPathComponent("mamsim-extensions").path)
            try FileManager.default.createSymbolicLink(atPath: mamsim.appendingPathComponent("level-2.json").path, withDestinationPath: victim.path)
            let throughFile = try await CLI.run(["init", repo.path, "-o", scenario, "--no-run", "--policy", "baseline:level-2"], in: repo, timeout: 120)
            #expect(throughFile.status == 2 && throughFile.stderr.contains("level-2.json: it is a link"), "\(throughFile)")
            #expect(try String(contentsOf: victim, encoding: .utf8) == "untouched")
            try FileManager.default.removeItem(atPath: mamsim.appendingPathComponent("level-2.json").path)
            let control = try await CLI.run(["init", repo.path, "-o", scenario, "--no-run", "--policy", "baseline:level-2"], in: repo, timeout: 120)
            #expect(control.status == 0, "\(control)")
            #expect(FileManager.default.fileExists(atPath: mamsim.appendingPathComponent("mamsim-extensions/mailshare/Info.plist").path))
            #expect(FileManager.default.fileExists(atPath: mamsim.appendingPathComponent("level-2.json").path))
        }

        /// Finding 6: an app configuration value of bytes 1 and 2 — what the stand-in user of a
        /// shape once began with — is the value, never the persona's UPN or object id.
        @Test func anInputHoldsNoMarkerOfTheTool() async throws {
            let dir = try TemporaryDirectory(prefix: "mamsim-v7-marker")
            defer { dir.remove() }
            let tenant = try Self.tenant(in: dir, "tenant")
            try Self.edit(tenant.appendingPathComponent("app-config.json")) { document in
                var value = document["value"] as? [[String: Any]] ?? []
                value[0]["customSettings"] = [["name": "one", "value": "\u{1}"], ["name": "two", "value": "\u{2}"],
                                              ["name": "upn", "value": "{{userprincipalname}}"]]
                document["value"] = value
            }
            let r = try await CLI.run(["whatif", tenant.path, "--format", "json", "--personas", CLI.repo("examples/whatif/personas.yaml").path])
            #expect(r.status == 0, "\(r)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let configs = (object["personas"] as? [[String: Any]] ?? []).flatMap { ($0["apps"] as? [[String: Any]]) ?? [] }
                .compactMap { $0["appConfig"] as? [String: String] }.filter { $0["one"] != nil }
            #expect(!configs.isEmpty)
            for config in configs {
                #expect(config["one"] == "\u{1}" && config["two"] == "\u{2}", "\(config)")
                // The control: the token the service fills still names the persona.
                #expect(config["upn"]?.hasSuffix("@contoso.com") == true, "\(config)")
            }
        }
    }
}
