import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension CLITests {
    /// "Nothing lost": a host killed with SIGKILL in the middle of a run, then started again
    /// on the same device directory, has every sign-in and the PIN it acknowledged, and its
    /// audit log still holds the decisions made before the kill.
    @Suite struct RestartTests {
        /// `slow`: the program playing the `slow` app; `nil` = the built-in runtime.
        static func scenario(steps: String, slow: String?) -> String {
            """
            name: Restart
            accounts:
              - upn: alice@contoso.com
                policy: strict
              - upn: bob@outlook.com
            policies:
              strict:
                allowedOutboundDataTransferDestinations: managedApps
            apps:
              - id: mail
                bundle: com.contoso.mail
                multiIdentity: true
              - id: slow
                bundle: com.contoso.slow\(slow.map { "\n    executable: \($0)" } ?? "")
            steps:
            \(steps)
            """
        }

        @Test func aHostKilledMidRunRestartsWithEverythingItAcknowledged() async throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            // An app that completes the handshake (a hand-encoded Hello frame) and then never
            // acknowledges anything (protocol version 2), so the run is still in its third step when it is killed.
            let slow = try tmp.write("slow.sh", "#!/bin/sh\nprintf '\\000\\000\\000\\006\\010\\001\\122\\002\\010\\002' >&3\nexec sleep 6\n", executable: true)
            let device = tmp.path("device")
            let first = try tmp.write("first.yaml", Self.scenario(steps: """
              - signIn: {app: mail, account: alice@contoso.com}
              - signIn: {app: mail, account: bob@outlook.com}
              - switchIdentity: {app: mail, account: alice@contoso.com, pin: "2580"}
                expect: success
              - switchIdentity: {app: mail, account: bob@outlook.com}
                expect: success
              - share: {from: mail, to: slow, item: {type: public.plain-text, text: "never acknowledged"}}
            """, slow: slow.path))
            let started = ContinuousClock.now
            var killed = false
            let r = try await CLI.run(["run", first.path, "--device-dir", device], timeout: 60) { pid in
                if !killed, ContinuousClock.now - started > .seconds(3) {
                    killed = true
                    kill(pid, SIGKILL)
                }
            }
            defer { _ = try? CLI.runSync(["/usr/bin/pkill", "-f", slow.path]) }
            #expect(killed)
            #expect(r.stdout.contains("switchIdentity"), "the identity switch ran before the kill: \(r)")
            #expect(!r.stdout.contains("all held"), "the run was killed before its summary: \(r)")

            let second = try tmp.write("second.yaml", Self.scenario(steps: """
              # The apps are new processes that resume on the screen they showed (seed 001,
              # relaunch); sign-ins and the PIN are device state and come back.
              - expectState: {app: mail, signedIn: [alice@contoso.com, bob@outlook.com], uiIdentity: bob@outlook.com}
              # Past the recheck window the PIN is asked again (RULES.md §8).
              - advanceClock: {by: PT31M}
              - name: the PIN set before the kill is still the PIN
                switchIdentity: {app: mail, account: alice@contoso.com, pin: "1111"}
                expect: {failed: conditional-launch}
            """, slow: nil))
            let audit = tmp.path("audit.jsonl")
            let again = try await CLI.run(["run", second.path, "--device-dir", device, "--audit", audit], timeout: 60)
            #expect(again.status == 0, "\(again)")
            let log = try String(contentsOfFile: audit, encoding: .utf8)
            #expect(log.contains("\"verb\":\"signIn\""), "decisions made before the kill are in the log: \(log)")
            #expect(log.contains("\"verb\":\"switchIdentity\""), "\(log)")
        }
    }
}

extension CLI {
    /// Runs a program to completion (no timeout), for clean-up.
    static func runSync(_ argv: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: argv[0])
        p.arguments = Array(argv.dropFirst())
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }
}
