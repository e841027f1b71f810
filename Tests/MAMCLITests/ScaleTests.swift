import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension CLITests {
    /// A generated fleet of 50 SDK apps and 500 shares between them, run with `mamsim test`.
    /// Wall time and peak memory are printed, not asserted.
    @Suite struct ScaleTests {
        static let appCount = 50
        static let shareCount = 500

        /// Every app integrates the SDK; one unmanaged account exists and is signed in nowhere,
        /// so every share is between unmanaged identities and is delivered.
        static func scenario() -> String {
            var text = """
                name: Scale fleet of \(appCount) apps and \(shareCount) shares
                accounts:
                  - upn: carol@example.com
                apps:

                """
            for i in 0..<appCount {
                text += "  - id: app\(i)\n    bundle: com.example.scale.app\(i)\n    sdk: true\n"
            }
            text += "steps:\n"
            for k in 0..<shareCount {
                let from = k % appCount
                var to = (k * 7 + 1) % appCount
                if to == from { to = (from + 1) % appCount }
                text += "  - share: {from: app\(from), to: app\(to), item: {type: public.plain-text, text: \"message \(k)\"}}\n"
                text += "    expect: delivered\n"
            }
            return text
        }

        /// The resident memory of `root` and all its descendants, in KiB, from /proc (Linux).
        static func treeResidentKiB(root: Int32) -> (kib: Int, processes: Int)? {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
            var parent: [Int32: Int32] = [:]
            for entry in entries {
                guard let pid = Int32(entry),
                      let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 1, let ppid = Int32(fields[1]) { parent[pid] = ppid }
            }
            var tree: Set<Int32> = [root]
            var grew = true
            while grew {
                grew = false
                for (pid, ppid) in parent where !tree.contains(pid) && tree.contains(ppid) {
                    tree.insert(pid)
                    grew = true
                }
            }
            let pageKiB = Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
            var total = 0
            for pid in tree {
                guard let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { continue }
                let fields = statm.split(separator: " ")
                if fields.count > 1, let pages = Int(fields[1]) { total += pages * pageKiB }
            }
            return (total, tree.count)
        }

        /// Samples the process tree's memory now and then while it runs.
        final class Sampler: @unchecked Sendable {
            // Used only from the polling loop of `CLI.run`, one call at a time.
            var peakKiB = 0
            var processesAtPeak = 0
            private var polls = 0

            func sample(_ pid: Int32) {
                polls += 1
                guard polls % 5 == 1, let tree = ScaleTests.treeResidentKiB(root: pid), tree.kib > peakKiB else { return }
                peakKiB = tree.kib
                processesAtPeak = tree.processes
            }
        }

        @Test func testRunsFiftyAppsAndFiveHundredSharesAllDelivered() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let file = try tmp.write("scale.yaml", Self.scenario())
            let report = tmp.path("report.json")
            let timeTool = "/usr/bin/time"
            let haveTime = FileManager.default.isExecutableFile(atPath: timeTool)
            let arguments = ["test", file.path, "--format", "json", "--output", report]
            let sampler = Sampler()
            let r = haveTime
                ? try await CLI.run(["-v", CLI.mamsim] + arguments, timeout: 600, executable: timeTool, whileRunning: sampler.sample)
                : try await CLI.run(arguments, timeout: 600, whileRunning: sampler.sample)

            #expect(!r.timedOut, "\(r)")
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("scenarios: 1 passed, 0 failed (\(Self.shareCount) steps)"), "\(r)")

            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
            let root = try #require(object as? [String: Any])
            let scenario = try #require((root["scenarios"] as? [[String: Any]])?.first)
            let steps = try #require(scenario["steps"] as? [[String: Any]])
            #expect(steps.count == Self.shareCount)
            #expect(steps.allSatisfy { $0["outcome"] as? String == "delivered" && $0["passed"] as? Bool == true })
            let scenarioSeconds = scenario["seconds"] as? Double ?? 0

            var lines = [
                "scale: \(Self.appCount) apps, \(Self.shareCount) shares",
                String(format: "scale: wall time %.2f s (mamsim test, whole process); scenario itself %.2f s", r.seconds, scenarioSeconds),
            ]
            if haveTime {
                let maxRSS = r.stderr.split(separator: "\n")
                    .first { $0.contains("Maximum resident set size (kbytes):") }
                    .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
                lines.append("scale: peak RSS (/usr/bin/time -v, largest single process) \(maxRSS.map { "\($0) KiB" } ?? "not reported")")
            } else {
                lines.append("scale: /usr/bin/time not available; peak RSS of a single process not measured")
            }
            if sampler.peakKiB > 0 {
                lines.append("scale: peak RSS of mamsim plus its app processes (sum over \(sampler.processesAtPeak) processes, sampled from /proc every ~100 ms) \(sampler.peakKiB) KiB")
            }
            for line in lines { print(line) }
        }
    }
}
