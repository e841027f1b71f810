import Foundation
import Testing

extension CLITests {
    /// `mamsim test --shards N` started as a Kubernetes Indexed Job starts it (one process per
    /// `JOB_COMPLETION_INDEX`, all at once), then `mamsim merge` of their JSON reports.
    @Suite struct ShardTests {
        static let suite = "scenarios/conformance"

        /// A report with what differs between any two runs of the same scenarios taken out:
        /// times, process ids, and what fresh keys make (token signatures, generated
        /// certificates' digests).
        static func comparable(_ path: String) throws -> [String: Any] {
            var text = try String(contentsOfFile: path, encoding: .utf8)
            text = text.replacingOccurrences(of: #"pid \d+"#, with: "pid N", options: .regularExpression)
            text = text.replacingOccurrences(of: #"(eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+"#, with: "$1.SIGNATURE", options: .regularExpression)
            text = text.replacingOccurrences(of: #"[0-9a-f]{64}"#, with: "SHA256", options: .regularExpression)
            text = text.replacingOccurrences(of: #"signature [A-Za-z0-9+/=]+ verifies"#, with: "signature S verifies", options: .regularExpression)
            text = text.replacingOccurrences(of: #""seconds" : [0-9.e+-]+"#, with: #""seconds" : 0"#, options: .regularExpression)
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }

        @Test func shardsPartitionTheSuiteAndTheirMergeEqualsOneRun() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let n = 3
            let shards = try await withThrowingTaskGroup(of: (Int, CLIResult).self) { group in
                for index in 0..<n {
                    group.addTask {
                        (index, try await CLI.run(["test", Self.suite, "--shards", "\(n)", "--format", "json", "--output", tmp.path("shard-\(index).json")],
                                                  timeout: 300, environment: ["JOB_COMPLETION_INDEX": "\(index)"]))
                    }
                }
                var all: [Int: CLIResult] = [:]
                for try await (index, r) in group { all[index] = r }
                return all
            }
            for (index, r) in shards {
                #expect(r.status == 0, "shard \(index): \(r)")
                #expect(r.stderr.contains("shard \(index + 1)/\(n): "), "\(r)")
            }
            let whole = try await CLI.run(["test", Self.suite, "--format", "json", "--output", tmp.path("whole.json")], timeout: 300)
            #expect(whole.status == 0, "\(whole)")

            // Disjoint and complete: every scenario of the suite in exactly one shard.
            var seen: [String: Int] = [:]
            for index in 0..<n {
                let scenarios = try #require(try Self.comparable(tmp.path("shard-\(index).json"))["scenarios"] as? [[String: Any]])
                #expect(!scenarios.isEmpty, "shard \(index) holds no scenario of 38")
                for s in scenarios { seen[s["file"] as? String ?? "", default: 0] += 1 }
            }
            let all = try #require(try Self.comparable(tmp.path("whole.json"))["scenarios"] as? [[String: Any]]).compactMap { $0["file"] as? String }
            #expect(Set(seen.keys) == Set(all))
            #expect(seen.values.allSatisfy { $0 == 1 })

            let merge = try await CLI.run(["merge"] + (0..<n).map { tmp.path("shard-\($0).json") } + ["--format", "json", "--output", tmp.path("merged.json")], timeout: 60)
            #expect(merge.status == 0 && merge.stdout.contains("from 3 reports"), "\(merge)")
            let merged = try Self.comparable(tmp.path("merged.json"))
            let single = try Self.comparable(tmp.path("whole.json"))
            #expect(NSDictionary(dictionary: merged).isEqual(to: single), "the merged report differs from one run's")

            // The merged JUnit is the one run's JUnit (times aside), and follows the schema.
            _ = try await CLI.run(["merge"] + (0..<n).map { tmp.path("shard-\($0).json") } + ["--format", "junit", "--output", tmp.path("merged.xml")], timeout: 60)
            let problems = try ReportValidator.junitProblems(tmp.path("merged.xml"))
            #expect(problems == nil, "\(problems ?? "")")

            // A lost shard fails the merge, naming it: the suite does not silently shrink.
            let lost = try await CLI.run(["merge", tmp.path("shard-0.json"), tmp.path("shard-2.json")], timeout: 60)
            #expect(lost.status == 2 && lost.stderr.contains("shard 2/3 is missing (2 of 3 reports given)"), "\(lost)")
            let shard = try #require(try Self.comparable(tmp.path("shard-1.json"))["shard"] as? [String: Any])
            #expect(shard["index"] as? Int == 2 && shard["count"] as? Int == 3 && shard["scenarios"] as? Int == all.count, "\(shard)")
            let shardProblems = try ReportValidator.jsonProblems(tmp.path("shard-1.json"), schema: "test-report.schema.json")
            #expect(shardProblems == nil, "\(shardProblems ?? "")")

            // A scenario reported by two shards is a sharding mistake, not twice the tests.
            let twice = try await CLI.run(["merge", tmp.path("shard-0.json"), tmp.path("shard-0.json")], timeout: 60)
            #expect(twice.status == 2 && twice.stderr.contains("each scenario belongs to exactly one shard"), "\(twice)")

            // A shard of another suite is named with why: the suites' sizes and folders.
            let other = try await CLI.run(["test", CLI.repo("scenarios/lifecycle").path, "--shard", "1/3", "--format", "json", "--output", tmp.path("other.json")], timeout: 300)
            #expect(other.status == 0, "\(other)")
            let mixed = try await CLI.run(["merge", tmp.path("shard-0.json"), tmp.path("other.json")], timeout: 60)
            #expect(mixed.status == 2 && mixed.stderr.contains("one suite has") && mixed.stderr.contains("scenarios are under")
                    && mixed.stderr.contains("scenarios/lifecycle"), "\(mixed)")

            // A shard whose scenario says passed while one of its steps failed is refused, not
            // believed: the verdict is the steps'.
            var forged = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp.path("shard-0.json")))) as? [String: Any])
            var scenarios = try #require(forged["scenarios"] as? [[String: Any]])
            var steps = try #require(scenarios[0]["steps"] as? [[String: Any]])
            steps[0]["passed"] = false
            scenarios[0]["steps"] = steps
            forged["scenarios"] = scenarios
            try JSONSerialization.data(withJSONObject: forged).write(to: URL(fileURLWithPath: tmp.path("forged.json")))
            let lie = try await CLI.run(["merge", tmp.path("forged.json")], timeout: 60)
            #expect(lie.status == 2 && lie.stderr.contains("step 1 failed") && lie.stderr.contains("altered or damaged"), "\(lie)")
        }

        @Test func shardArgumentsAreChecked() async throws {
            let zero = try await CLI.run(["test", Self.suite, "--shard", "0/3"], timeout: 60)
            #expect(zero.status != 0 && zero.stderr.contains("--shard 0/3: expected K/N with 1 ≤ K ≤ N"), "\(zero)")
            let beyond = try await CLI.run(["test", Self.suite, "--shard", "4/3"], timeout: 60)
            #expect(beyond.status != 0 && beyond.stderr.contains("--shard 4/3: expected K/N") && beyond.stderr.contains("Usage: mamsim test"), "the test command's usage: \(beyond)")
            let noIndex = try await CLI.run(["test", Self.suite, "--shards", "3"], timeout: 60, environment: ["JOB_COMPLETION_INDEX": ""])
            #expect(noIndex.status != 0 && noIndex.stderr.contains("reads the shard from JOB_COMPLETION_INDEX (0 to 2)"), "\(noIndex)")
            // More shards than scenarios: an empty shard passes.
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try tmp.write("one/a.yaml", ScenarioTexts.passingShare)
            var empty: CLIResult?
            for k in 1...4 {
                let r = try await CLI.run(["test", tmp.path("one"), "--shard", "\(k)/4", "--format", "json"], timeout: 120)
                #expect(r.status == 0, "\(r)")
                if r.stderr.contains("0 of 1 scenarios") { empty = r }
            }
            #expect(empty != nil)
        }
    }
}

extension CLITests.ShardTests {
    /// deploy/kubernetes: the Indexed Job's and the merge Job's own command lines, run here as
    /// the pods run them (`/bin/sh -c`, `JOB_COMPLETION_INDEX` 0…N-1, all at once), on a
    /// small suite, with the shared volume a temporary folder.
    @Test func theKubernetesManifestsRunAsWritten() async throws {
        let shardsYAML = try String(contentsOf: CLI.repo("deploy/kubernetes/mamsim-shards.yaml"), encoding: .utf8)
        let mergeYAML = try String(contentsOf: CLI.repo("deploy/kubernetes/mamsim-merge.yaml"), encoding: .utf8)
        func value(_ key: String, in text: String) -> String? {
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") }
                .map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) }
        }
        func shellArgument(in text: String) throws -> String {
            let args = try #require(value("args", in: text))
            return try #require(try JSONSerialization.jsonObject(with: Data(args.utf8)) as? [String]).first ?? ""
        }
        #expect(value("completionMode", in: shardsYAML) == "Indexed")
        let n = try #require(value("completions", in: shardsYAML).flatMap { Int($0) })
        #expect(value("parallelism", in: shardsYAML) == "\(n)")
        let command = try shellArgument(in: shardsYAML)
        #expect(command.contains("--shards \(n) "), "the shard count must match completions: \(command)")

        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let url = tmp.url
        try tmp.write("scenarios/a.yaml", ScenarioTexts.passingShare)
        try tmp.write("scenarios/b.yaml", ScenarioTexts.passingShare.replacingOccurrences(of: "Passing share", with: "Passing share again"))
        try tmp.write("scenarios/c.yaml", ScenarioTexts.passingShare.replacingOccurrences(of: "Passing share", with: "Passing share thrice"))
        // A failing scenario: its shard still completes (a rerun would fail again); the merge
        // reports it.
        try tmp.write("scenarios/d.yaml", ScenarioTexts.failingShare)
        try FileManager.default.createDirectory(atPath: tmp.path("results"), withIntermediateDirectories: true)
        let results = tmp.path("results") + "/"
        let shardCommand = command.replacingOccurrences(of: "/results/", with: results)
        let mergeCommand = try shellArgument(in: mergeYAML).replacingOccurrences(of: "/results/", with: results)
        let path = URL(fileURLWithPath: CLI.mamsim).deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        try await withThrowingTaskGroup(of: CLIResult.self) { group in
            for index in 0..<n {
                group.addTask {
                    try await CLI.run(["-c", shardCommand], in: url, timeout: 300, executable: "/bin/sh",
                                      environment: ["JOB_COMPLETION_INDEX": "\(index)", "PATH": path])
                }
            }
            for try await r in group { #expect(r.status == 0, "a shard whose scenarios ran completes: \(r)") }
        }
        for index in 0..<n { #expect(FileManager.default.fileExists(atPath: tmp.path("results/shard-\(index).json"))) }

        let merge = try await CLI.run(["-c", mergeCommand], in: tmp.url, timeout: 60, executable: "/bin/sh", environment: ["PATH": path])
        #expect(merge.status == 1 && merge.stdout.contains("scenarios: 3 passed, 1 failed"), "the merge decides the verdict: \(merge)")
        let problems = try ReportValidator.junitProblems(tmp.path("results/junit.xml"))
        #expect(problems == nil, "\(problems ?? "")")

        // A pod that never wrote its report: the merge fails naming the shard.
        try FileManager.default.removeItem(atPath: tmp.path("results/shard-1.json"))
        let lost = try await CLI.run(["-c", mergeCommand], in: tmp.url, timeout: 60, executable: "/bin/sh", environment: ["PATH": path])
        #expect(lost.status == 2 && lost.stderr.contains("shard 2/\(n) is missing"), "\(lost)")

        // A shard that cannot run (bad input) fails: the Job's podFailurePolicy ends it at once.
        let broken = try await CLI.run(["-c", shardCommand.replacingOccurrences(of: "mamsim test scenarios", with: "mamsim test no-such-folder")],
                                       in: url, timeout: 60, executable: "/bin/sh", environment: ["JOB_COMPLETION_INDEX": "0", "PATH": path])
        #expect(broken.status != 0 && broken.status != 1, "\(broken)")
        #expect(shardsYAML.contains("imagePullPolicy: IfNotPresent") && !shardsYAML.contains("backoffLimitPerIndex:"), "no 1.29-only field")
    }

    /// Both manifests validate against the Kubernetes API schemas of every version the
    /// comments promise (podFailurePolicy: 1.26 on), with kubernetes-validate from PyPI
    /// (scripts/install-deps installs it).
    @Test func theKubernetesManifestsValidate() throws {
        let onPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/python3" }
        let python = (onPath + ["/usr/bin/python3"]).first { candidate in
            guard FileManager.default.isExecutableFile(atPath: candidate) else { return false }
            return (try? ReportValidator.run(candidate, ["-c", "import kubernetes_validate"]))?.status == 0
        }
        guard let python else {
            Issue.record("kubernetes-validate is missing: run scripts/install-deps (python3 -m pip install kubernetes-validate)")
            return
        }
        let files = ["deploy/kubernetes/mamsim-shards.yaml", "deploy/kubernetes/mamsim-merge.yaml", "deploy/kubernetes/mamsim-whatif.yaml",
                     "deploy/kubernetes/mamsim-whatif-merge.yaml", "deploy/kubernetes/mamsim-mutate.yaml",
                     "deploy/kubernetes/mamsim-mutate-merge.yaml"].map { CLI.repo($0).path }
        for version in ["1.26.0", "1.28.0", "1.29.0", "1.31.0", "1.33.0"] {
            let r = try ReportValidator.run(python, ["-m", "kubernetes_validate", "-k", version, "--strict"] + files)
            #expect(r.status == 0, "Kubernetes \(version): \(r.output)")
        }
    }

    /// The GitHub Actions workflow needs no unpublished URL to explain itself: without the
    /// variable its Install step fails at once saying what to set and how to make the archive.
    @Test func theGitHubWorkflowSaysWhatToSet() throws {
        guard let python = try ReportValidator.pythonWithJSONSchema(alsoImporting: ["yaml"]) else {
            Issue.record("Python's jsonschema and yaml are missing: run scripts/install-deps")
            return
        }
        let script = """
            import sys, yaml
            for path in sys.argv[1:]:
                jobs = yaml.safe_load(open(path))["jobs"]
                for job in jobs:
                    step = next(s for s in jobs[job]["steps"] if s.get("name") == "Install mamsim")
                    print(step["run"].replace("\\n", "\\n"), end="\\0")
            """
        // The What If and mutate workflows (a matrix of parts, then the gate) install mamsim the same way.
        let r = try ReportValidator.run(python, ["-c", script, CLI.repo("deploy/github-actions/mamsim-shards.yml").path, CLI.repo("deploy/github-actions/mamsim-whatif.yml").path,
                                                 CLI.repo("deploy/github-actions/mamsim-mutate.yml").path])
        let installs = r.output.split(separator: "\0").map(String.init)
        #expect(installs.count == 6, "\(r.output)")
        for install in installs {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try tmp.write("install.sh", install)
            let ran = try ReportValidator.run("/bin/bash", [tmp.path("install.sh")])
            #expect(ran.status == 1 && ran.output.contains("::error title=mamsim is not installed::Set the repository variable MAMSIM_RELEASE_URL"), "\(ran.output)")
        }
    }
}
