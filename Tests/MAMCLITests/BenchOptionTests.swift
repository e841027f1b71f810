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
            (["--probe", "batch"], "--probe batch is not a broker mode; use one of batched, per-item"),
            (["--probe", "batched", "--only", "broker"], "--probe runs one flood alone"),
            (["--probe", "batched", "--items", "5", "--pairs", "10"], "--items 5 is fewer than --pairs 10"),
        ])
        func aBenchItCannotRunIsRefusedNamingTheOption(_ arguments: [String], _ message: String) async throws {
            let result = try await CLI.run(["bench"] + arguments, timeout: 30)
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }
}
