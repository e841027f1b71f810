import Foundation
import Testing

/// `schemas/scenario.schema.json` is what `mamsim schema` makes from the loader's tables: the
/// committed file is never stale, every shipped scenario follows it, and it catches what an
/// editor should underline (a misspelt verb, an argument a verb does not take, two verbs).
extension CLITests {
    @Suite struct ScenarioSchemaTests {
        /// docs/SCENARIOS.md's verb reference is the registry's: a verb added or changed without
        /// regenerating it fails here.
        @Test func theDocsVerbReferenceIsTheRegistrys() async throws {
            let generated = try await CLI.run(["schema", "--verbs"], timeout: 60)
            #expect(generated.status == 0, "\(generated)")
            let docs = try String(contentsOf: CLI.repo("docs/SCENARIOS.md"), encoding: .utf8)
            let block = try #require(docs.firstMatch(of: /<!-- verb-reference:begin -->\n((?s).*)<!-- verb-reference:end -->/), "no verb reference block")
            #expect(String(block.1) == generated.stdout, "docs/SCENARIOS.md's verb reference is stale: run scripts/generate-verb-reference")
            for verb in ["launch", "share", "expectState", "signWithIdentity", "setConditionalAccess"] {
                #expect(generated.stdout.contains("| `\(verb)` |"), "a row for \(verb)")
            }
        }

        @Test func theCommittedSchemaIsTheLoadersAndTheShippedScenariosFollowIt() async throws {
            let generated = try await CLI.run(["schema"], timeout: 60)
            let committed = try String(contentsOf: CLI.repo("schemas/scenario.schema.json"), encoding: .utf8)
            #expect(generated.status == 0 && generated.stdout == committed,
                    "schemas/scenario.schema.json is stale: run scripts/generate-verb-reference")
            guard let python = try ReportValidator.pythonWithJSONSchema(alsoImporting: ["yaml"]) else {
                Issue.record("Python's jsonschema is missing: run scripts/install-deps (apt-get install python3-jsonschema python3-yaml)")
                return
            }
            let script = """
                import glob, json, sys, yaml, jsonschema
                validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
                out = {}
                for path in sorted(glob.glob(sys.argv[2] + "/**/*.yaml", recursive=True)):
                    doc = yaml.safe_load(open(path))
                    if isinstance(doc, dict) and "steps" in doc:
                        out[path] = [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}" for e in validator.iter_errors(doc)]
                print(json.dumps(out))
                """
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try tmp.write("bad/typo.yaml", """
                name: typo
                steps:
                  - shar: {from: mail, to: notes, item: {text: x}}
                  - share: {from: mail, to: notes, item: {text: x}, via: airdrop}
                  - print: {app: mail}
                    paste: {app: notes}
                """)
            for (folder, expectValid) in [(CLI.repo("scenarios").path, true), (tmp.path("bad"), false)] {
                let r = try ReportValidator.run(python, ["-c", script, CLI.repo("schemas/scenario.schema.json").path, folder])
                let results = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: [String]], "\(r.output)")
                if expectValid {
                    #expect(results.count >= 50, "\(results.count) scenarios")
                    let invalid = results.filter { !$0.value.isEmpty }
                    #expect(invalid.isEmpty, "\(invalid)")
                } else {
                    let errors = results.values.flatMap { $0 }
                    #expect(errors.contains { $0.hasPrefix("steps/0") }, "a misspelt verb: \(errors)")
                    #expect(errors.contains { $0.hasPrefix("steps/1/share") && $0.contains("via") }, "an argument share does not take: \(errors)")
                    #expect(errors.contains { $0.hasPrefix("steps/2") }, "two verbs in one step: \(errors)")
                }
            }
        }
    }
}
