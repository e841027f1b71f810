import Foundation
import Testing

extension CLITests {
    /// `mamsim bench` refuses what it cannot measure before it starts anything, naming the
    /// option and what it takes (the figures themselves are benchmarks, not tests).
    @Suite struct BenchOptionTests {
        @Test(arguments: [
            (["--only", "pairs", "--pairs", "0"], "--pairs takes 1 to 200 pairs each, not 0"),
            (["--only", "pairs", "--pairs", "1", "500"], "--pairs takes 1 to 200 pairs each, not 1 500"),
            (["--only", "brokers"], "--only brokers is not a part of the bench"),
            (["--repeat", "0"], "--repeat takes 1 to 50 runs, not 0"),
            (["--only", "pairs", "--items", "20", "--pairs", "1", "50"], "--items 20 is fewer than --pairs 50"),
            (["--items", "0"], "--items takes at least 1 item, not 0"),
            (["--probe", "batch"], "--probe batch is not a probe mode; use one of batched, per-item, round-trip"),
            (["--probe", "batched", "--only", "broker"], "--probe runs one flood (or the round trips) alone"),
            (["--probe", "round-trip", "--pings", "0"], "--pings takes at least 1 round trip, not 0"),
            (["--probe", "batched", "--markdown"], "--probe runs one flood (or the round trips) alone"),
            (["--probe", "batched", "--items", "5", "--pairs", "10"], "--items 5 is fewer than --pairs 10"),
        ])
        func aBenchItCannotRunIsRefusedNamingTheOption(_ arguments: [String], _ message: String) async throws {
            let result = try await CLI.run(["bench"] + arguments, timeout: 30)
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }

        /// `--markdown` (issue 100, item 8): each run's table and the summary of the runs in
        /// Markdown, the tables docs/PERFORMANCE.md is made of, with the noise verdict.
        @Test func theTablesPrintInMarkdown() async throws {
            let result = try await CLI.run(["bench", "--only", "decision", "--repeat", "2", "--no-node", "--markdown"], timeout: 180)
            #expect(result.status == 0, "\(result)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0 == "| figure | mamsim | C ref | ÷ C | Node | ÷ Node | target |" }.count == 2, "one table per run: \(result.stdout)")
            #expect(lines.contains("Median [min–max] of 2 runs.") && lines.contains("| figure | mamsim | C ref | ÷ C | C moved |"), "\(result.stdout)")
            let decision = try #require(lines.last { $0.hasPrefix("| enforcer: one transfer decision (ns) | ") })
            #expect(decision.split(separator: "|").count == 5 && decision.contains(" [") && decision.contains("–"), "median [min–max]: \(decision)")
            #expect(!result.stdout.contains("figure                "), "no column padded for the terminal")
        }

        /// The round-trip probe makes the round trips it was asked for with the app runtime
        /// and nothing else (no reference is built), and says so.
        @Test func theRoundTripProbeMakesItsRoundTripsAlone() async throws {
            let result = try await CLI.run(["bench", "--probe", "round-trip", "--pings", "200"], timeout: 60)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.hasPrefix("probe: 200 round trips of 1 KiB (after 1000 to warm up), p50 "), "\(result.stdout)")
            #expect(!result.stdout.contains("C ref"), "\(result.stdout)")
        }

        /// The audit flood reports its own peak (security issue 83, finding 7): the bench runs its
        /// parts in one process, and the 710 MiB read before was an earlier part's high-water
        /// mark, not the flood's (alone it stays under 40 MiB on 200,000 refusals).
        @Test func theAuditFloodReportsItsOwnPeak() async throws {
            let result = try await CLI.run(["bench", "--only", "audit", "--items", "1000"], timeout: 120)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("audit flood: 2000 refused 1 KiB shares") && result.stdout.contains("(its own: the peak was reset before it)"), "\(result.stdout)")
        }

        /// The decode probe parses the frames it was asked for and nothing else, for the counter
        /// (scripts/bench-instructions --mode decode).
        @Test func theDecodeProbeParsesItsFramesAlone() async throws {
            let result = try await CLI.run(["bench", "--probe", "decode", "--items", "300"], timeout: 60)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == "probe: 300 share frames of 1 KiB parsed\n", "\(result.stdout)")
        }

        /// An app runtime that ends before its round trips are made leaves nothing to time: the
        /// bench says how it ended and after how many, and fails (it once crashed on the empty
        /// list of samples).
        @Test func anAppThatEndsBeforeItsRoundTripsIsNamedWithHowItEnded() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamcli-bench")
            defer { tmp.remove() }
            let runtime = try tmp.write("exits.sh", "#!/bin/sh\nexit 3\n", executable: true)
            let result = try await CLI.run(["bench", "--probe", "round-trip", "--pings", "50", "--app-runtime", runtime.path], timeout: 60)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("the app runtime \(runtime.path) exited with status 3 after 0 of 1050 round trips"), "\(result.stderr)")
        }

        /// Several runs of the pairs part end with each pair count against the first, run by
        /// run (the figure issue 47's goal is about), in the text and in the JSON.
        @Test func repeatedPairsAreSummedUpAgainstTheFirstPairCount() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamcli-bench")
            defer { tmp.remove() }
            let json = tmp.url.appendingPathComponent("bench.json")
            let result = try await CLI.run(["bench", "--only", "pairs", "--pairs", "1", "2", "--items", "40", "--repeat", "2", "--no-node", "--json", json.path], timeout: 120)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("against another figure of the same run, median [min–max] of its 2 ratios"), "\(result.stdout)")
            let line = result.stdout.split(separator: "\n").last { $0.hasPrefix("broker 2 pairs items/s") && $0.contains(" of broker 1 pair items/s") }
            #expect(line != nil, "\(result.stdout)")
            let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
            let figures = doc?["figures"] as? [[String: Any]] ?? []
            let two = figures.first { ($0["name"] as? String) == "broker 2 pairs items/s (audit on, batched)" }
            let relative = two?["relativeTo"] as? [String: Any]
            #expect(relative?["figure"] as? String == "broker 1 pair items/s (audit on, batched)")
            #expect((relative?["runs"] as? [Double])?.count == 2)
            #expect(figures.first { ($0["name"] as? String) == "broker 1 pair items/s (audit on, batched)" }?["relativeTo"] == nil)
            // The figure they are compared with says how much it moved, and whether that is noise.
            #expect(line?.contains("; it moved ") == true, "\(result.stdout)")
            #expect(relative?["figureSpread"] is Double && relative?["noisy"] is Bool, "\(String(describing: relative))")
            let verdict = result.stdout.split(separator: "\n").last { $0.hasPrefix("No figure here has a C reference; between runs, broker 1 pair items/s (audit on, batched) moved ") }
            #expect(verdict.map { $0.contains("can be trusted") || $0.contains("Too noisy to trust") } == true, "\(result.stdout)")
        }

        /// The blocking service call is timed on CPU 0, as the round trips are, and on every CPU;
        /// the JSON holds it against the same call awaited (issue 42's goal).
        @Test func theBlockingCallIsTimedOnOneCPUAndOnEvery() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamcli-bench")
            defer { tmp.remove() }
            let json = tmp.url.appendingPathComponent("bench.json")
            let result = try await CLI.run(["bench", "--only", "latency", "--pings", "200", "--no-node", "--json", json.path], timeout: 120)
            #expect(result.status == 0, "\(result)")
            let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("service call from app code, on CPU 0: awaited p50 ") }
            #expect(line?.contains("; on every CPU: ") == true, "\(result.stdout)")
            let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
            let figures = doc?["figures"] as? [[String: Any]] ?? []
            let blocking = figures.first { ($0["name"] as? String) == "service call blocking p50 (µs)" }
            let relative = blocking?["relativeTo"] as? [String: Any]
            #expect(relative?["figure"] as? String == "service call awaited p50 (µs)", "\(figures)")
            #expect((relative?["runs"] as? [Double]).map { $0.count == 1 && $0[0] > 0 } == true, "\(String(describing: relative))")
        }
    }
}
