import Foundation
import MAMTestSupport
import Testing

extension CLITests {
    /// `whatif` past one machine (issue 98, item 7): parts written by `--shard K/N` (or
    /// `--shards N` in an Indexed Job) and joined by `mamsim merge` are the report one run
    /// writes, byte for byte, in each format, for an evaluation and for a diff, whose gate the
    /// merge decides.
    @Suite struct WhatIfShardTests {
        static let example = "examples/whatif/"

        static func whatif(_ args: [String], format: String, shard: String? = nil, to file: String) async throws -> CLIResult {
            try await CLI.run(["whatif"] + args + ["--personas", CLI.repo(Self.example + "personas.yaml").path, "--format", format, "-o", file]
                              + (shard.map { ["--shard", $0] } ?? []))
        }

        @Test(arguments: ["table", "json", "html"])
        func partsMergeIntoTheReportOneRunWrites(format: String) async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-whatif-shards")
            defer { tmp.remove() }
            let evaluation = [CLI.repo(Self.example + "before").path]
            let diff = ["--diff", CLI.repo(Self.example + "before").path, CLI.repo(Self.example + "after").path, "--fail-on", "blocked->delivered"]
            for (name, args, status) in [("evaluation", evaluation, Int32(0)), ("diff", diff, Int32(1))] {
                let one = try await Self.whatif(args, format: format, to: tmp.path("\(name)-one"))
                #expect(one.status == status, "\(one)")
                // Eight parts of six personas: two parts hold none, and still join.
                var parts: [String] = []
                for k in 1...8 {
                    let part = try await Self.whatif(args, format: format, shard: "\(k)/8", to: tmp.path("\(name)-\(k).part"))
                    #expect(part.status == 0, "a part never decides the gate: \(part)")
                    parts.append(tmp.path("\(name)-\(k).part"))
                }
                let merged = try await CLI.run(["merge"] + parts.reversed() + ["--output", tmp.path("\(name)-merged")])
                #expect(merged.status == status, "the merge decides the gate: \(merged)")
                let a = try Data(contentsOf: URL(fileURLWithPath: tmp.path("\(name)-one"))), b = try Data(contentsOf: URL(fileURLWithPath: tmp.path("\(name)-merged")))
                #expect(a == b, "\(name) \(format): \(a.count) bytes from one run, \(b.count) merged")
            }
        }

        @Test func aMergeOfPartsThatAreNotOneRunIsRefused() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-whatif-badparts")
            defer { tmp.remove() }
            let before = [CLI.repo(Self.example + "before").path]
            for k in 1...3 { _ = try await Self.whatif(before, format: "json", shard: "\(k)/3", to: tmp.path("j\(k).part")) }
            _ = try await Self.whatif(before, format: "table", shard: "2/3", to: tmp.path("t2.part"))
            let missing = try await CLI.run(["merge", tmp.path("j1.part"), tmp.path("j3.part")])
            #expect(missing.status == 2 && missing.stderr.contains("part 2/3 is missing"), "\(missing)")
            let mixed = try await CLI.run(["merge", tmp.path("j1.part"), tmp.path("t2.part"), tmp.path("j3.part")])
            #expect(mixed.status == 2 && mixed.stderr.contains("is a part of another run"), "\(mixed)")
            let twice = try await CLI.run(["merge", tmp.path("j1.part"), tmp.path("j2.part"), tmp.path("j2.part"), tmp.path("j3.part")])
            #expect(twice.status == 2 && twice.stderr.contains("part 2/3 is named twice"), "\(twice)")
            let env = try await CLI.run(["whatif"] + before + ["--personas", CLI.repo(Self.example + "personas.yaml").path, "--shards", "3"])
            #expect(env.status != 0 && env.stderr.contains("JOB_COMPLETION_INDEX"), "\(env)")
        }

        /// deploy/kubernetes's What If Jobs, their command lines run here as the pods run them
        /// (`/bin/sh -c`, JOB_COMPLETION_INDEX 0…N-1, at once), the shared volume a temporary
        /// folder: the merge's report is one run's, and the gate fails the merge Job.
        @Test func theKubernetesWhatIfJobsRunAsWritten() async throws {
            let jobText = try String(contentsOf: CLI.repo("deploy/kubernetes/mamsim-whatif.yaml"), encoding: .utf8)
            let n = try #require(jobText.split(separator: "\n").first { $0.contains("completions:") }.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) })
            let tmp = try TemporaryDirectory(prefix: "mamsim-whatif-k8s")
            defer { tmp.remove() }
            let results = tmp.path("results")
            try FileManager.default.createDirectory(atPath: results + "/whatif", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: CLI.repo(Self.example + "before").path, toPath: results + "/whatif/old")
            try FileManager.default.copyItem(atPath: CLI.repo(Self.example + "after").path, toPath: results + "/whatif/new")
            try FileManager.default.copyItem(atPath: CLI.repo(Self.example + "personas.yaml").path, toPath: results + "/whatif/personas.yaml")
            let part = try CLI.jobCommand("deploy/kubernetes/mamsim-whatif.yaml").replacingOccurrences(of: "/results/", with: results + "/")
            #expect(part.contains("--shards \(n) "), "the part count must match completions: \(part)")
            let merge = try CLI.jobCommand("deploy/kubernetes/mamsim-whatif-merge.yaml").replacingOccurrences(of: "/results/", with: results + "/")
            let path = URL(fileURLWithPath: CLI.mamsim).deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            try await withThrowingTaskGroup(of: CLIResult.self) { group in
                for index in 0..<n {
                    group.addTask { try await CLI.run(["-c", part], in: tmp.url, timeout: 300, executable: "/bin/sh", environment: ["JOB_COMPLETION_INDEX": "\(index)", "PATH": path]) }
                }
                for try await r in group { #expect(r.status == 0, "a part completes: \(r)") }
            }
            let merged = try await CLI.run(["-c", merge], in: tmp.url, timeout: 120, executable: "/bin/sh", environment: ["PATH": path])
            #expect(merged.status == 1 && merged.stderr.contains("of kinds --fail-on names"), "the merge Job decides the gate: \(merged)")
            let one = try await CLI.run(["whatif", "--diff", results + "/whatif/old", results + "/whatif/new", "--personas", results + "/whatif/personas.yaml",
                                         "--fail-on", "blocked->delivered,protected->unprotected,token-blocked->granted", "--format", "json", "-o", tmp.path("one.json")])
            #expect(one.status == 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path("one.json"))) == Data(contentsOf: URL(fileURLWithPath: results + "/whatif-diff.json")))
        }
    }
}

extension CLI {
    /// The shell command of a Kubernetes manifest's container (its `args:` line, JSON), as a pod runs it.
    static func jobCommand(_ file: String) throws -> String {
        let text = try String(contentsOf: repo(file), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("args:") })
        let json = String(line.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces)
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]).first ?? ""
    }
}
