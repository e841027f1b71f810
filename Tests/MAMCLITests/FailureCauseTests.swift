import Foundation
import MAMTestSupport
import Testing

/// A run that fails says why: what the child wrote to stderr before it died, the protocol
/// mistake the host cut it off for; and it leaves no temporary device behind.
extension CLITests {
    @Suite struct FailureCauseTests {
        static func folder() throws -> TemporaryDirectory {
            let tmp = try TemporaryDirectory(prefix: "mamsim-causes")
            try FileManager.default.createDirectory(atPath: tmp.path("missing-piece"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: tmp.path("not-mamsim"), withIntermediateDirectories: true)
            // A program that cannot start: it says what it misses and exits.
            try tmp.write("missing-piece/run", "#!/bin/sh\necho 'ExampleCAApp is missing; build it with swift build --product ExampleCAApp' >&2\nexit 2\n", executable: true)
            // A program that speaks another protocol on the channel.
            try tmp.write("not-mamsim/run", "#!/bin/sh\nprintf 'GET / HTTP/1.1\\r\\n\\r\\n' >&3\nsleep 5\n", executable: true)
            for name in ["missing-piece", "not-mamsim"] {
                try tmp.write("\(name).yaml", """
                    name: \(name)
                    accounts: [{upn: alice@contoso.com}]
                    apps:
                      - {id: mail, bundle: com.contoso.mail, executable: \(name)/run}
                    steps:
                      - signIn: {app: mail, account: alice@contoso.com}
                        expect: ok
                    """)
            }
            try FileManager.default.createDirectory(atPath: tmp.path("cache"), withIntermediateDirectories: true)
            return tmp
        }

        /// The repository's Python archiver and its client library in `tmp/` (as laid out in the
        /// repository) with `correct` (a line the library must still have) changed to `wrong`,
        /// and `s.yaml` sharing one item to it.
        static func brokenArchiver(in tmp: TemporaryDirectory, named name: String, replacing correct: String, with wrong: String) throws {
            try FileManager.default.createDirectory(atPath: tmp.path("plugins"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: tmp.path("clients"), withIntermediateDirectories: true)
            try copyTestTree(CLI.repo("plugins/python-archiver").path, to: tmp.path("plugins/python-archiver"))
            try copyTestTree(CLI.repo("clients/python").path, to: tmp.path("clients/python"))
            let library = "clients/python/src/mamsim_client/runtime.py"
            let text = try String(contentsOfFile: tmp.path(library), encoding: .utf8)
            #expect(text.contains(correct), "the library still has the line this test breaks (\(name))")
            try tmp.write(library, text.replacingOccurrences(of: correct, with: wrong))
            try tmp.write("s.yaml", """
                name: \(name)
                accounts: [{upn: alice@contoso.com}]
                apps:
                  - {id: mail, bundle: com.contoso.mail}
                extensions:
                  - {id: archive, plugin: plugins/python-archiver, container: mail}
                steps:
                  - share: {from: mail, to: archive, item: {type: public.plain-text, text: hi}}
                    expect: delivered
                """)
        }

        static func devicesLeft(_ tmp: TemporaryDirectory) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: tmp.path("cache/mamsim"))) ?? []).filter { $0.hasPrefix("mamsim-device-") }
        }

        @Test func theCauseIsInTheReportAndNothingIsLeft() async throws {
            let tmp = try Self.folder()
            defer { tmp.remove() }
            let env = ["XDG_CACHE_HOME": tmp.path("cache")]
            let run = try await CLI.run(["run", "missing-piece.yaml"], in: tmp.url, timeout: 60, environment: env)
            #expect(run.status == 2, "\(run)")
            #expect(run.stderr.contains("mail ended before completing the handshake: exited with status 2; its stderr ended with: ExampleCAApp is missing; build it with swift build --product ExampleCAApp"), "\(run)")
            #expect(Self.devicesLeft(tmp).isEmpty, "a failed start leaves no device: \(Self.devicesLeft(tmp))")

            let suite = try await CLI.run(["test", ".", "--format", "junit", "--output", "report.xml"], in: tmp.url, timeout: 60, environment: env)
            #expect(suite.status == 1, "\(suite)")
            let junit = try String(contentsOfFile: tmp.path("report.xml"), encoding: .utf8)
            #expect(junit.contains("ExampleCAApp is missing"), "the child's own words reach the report: \(junit)")
            #expect(junit.contains("the host cut it off: sent a bad frame"), "the protocol mistake is named: \(junit)")
            #expect(Self.devicesLeft(tmp).isEmpty, "\(Self.devicesLeft(tmp))")
        }

        /// A plugin built for another protocol version (the repository's Python archiver with its
        /// version changed): the step says which version it spoke and which the host speaks.
        @Test func aPluginOfAnotherProtocolVersionIsNamed() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-protocol")
            defer { tmp.remove() }
            try Self.brokenArchiver(in: tmp, named: "old protocol", replacing: "PROTOCOL_VERSION = 2", with: "PROTOCOL_VERSION = 99")
            let run = try await CLI.run(["run", "s.yaml"], in: tmp.url, timeout: 120)
            #expect(run.status == 1, "\(run)")
            #expect(run.stdout.contains("archive ended before acknowledging the item") && run.stdout.contains("speaks protocol version 99; this host speaks 2"), "\(run.stdout)")
        }

        /// The repository's Python archiver with one protocol mistake each: the step line names
        /// it. `edit` turns the library's correct line into the mistake.
        @Test(arguments: [
            ("no Hello", "    channel.send(pb.Frame(hello=pb.Hello(protocol_version=PROTOCOL_VERSION, pid=os.getpid(), runtime=runtime)))",
             "    channel.send(pb.Frame(ping=pb.Ping(payload=b\"hi\")))", "the host cut it off: sent ping before hello"),
            ("no reply_to", "pb.DeliverAck(item_id=item.id, accepted=accepted)), reply_to=frame.seq)",
             "pb.DeliverAck(item_id=item.id, accepted=accepted)))", "the host cut it off: sent deliver_ack without reply_to"),
        ])
        func aPluginsProtocolMistakeIsNamed(mistake: String, correct: String, wrong: String, cause: String) async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-mistake")
            defer { tmp.remove() }
            try Self.brokenArchiver(in: tmp, named: mistake, replacing: correct, with: wrong)
            let run = try await CLI.run(["run", "s.yaml"], in: tmp.url, timeout: 120)
            #expect(run.status == 1, "\(run)")
            let line = run.stdout.split(separator: "\n").first { $0.contains("share mail") } ?? ""
            #expect(line.contains("archive ended before acknowledging the item") && line.contains(cause), "\(mistake): \(run.stdout)")
        }

        /// An app whose program is not there is refused when the scenario loads, naming the
        /// file, line and key.
        @Test func aMissingProgramIsNamedAtLoad() async throws {
            let tmp = try TemporaryDirectory(prefix: "mamsim-missing")
            defer { tmp.remove() }
            try tmp.write("s.yaml", """
                name: missing program
                accounts: [{upn: alice@contoso.com}]
                apps:
                  - {id: mail, bundle: com.contoso.mail, executable: nowhere/run}
                steps:
                  - signIn: {app: mail, account: alice@contoso.com}
                """)
            let run = try await CLI.run(["run", "s.yaml"], in: tmp.url, timeout: 60)
            #expect(run.status == 2, "\(run)")
            #expect(run.stderr.contains("s.yaml:4:") && run.stderr.contains("apps[0].executable: file \"nowhere/run\" does not exist"), "\(run)")
        }
    }
}
