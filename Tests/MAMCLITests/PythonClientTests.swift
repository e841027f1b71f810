import Foundation
import Testing

extension CLITests {
    /// `clients/python` is a package pip installs: the installed `mamsim_client` imports with
    /// its generated protobuf code and speaks protocol version 2.
    @Suite struct PythonClientTests {
        /// A Python string literal of `text`.
        static func pythonString(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }

        /// Runs `python3 args` and returns its status and output.
        static func python(_ args: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
            try ReportValidator.run("/usr/bin/env", ["python3"] + args, environment: environment)
        }

        @Test func thePackageImportsAndInstallsWithPip() throws {
            let source = CLI.repo("clients/python/src").path
            let (ran, printed) = try Self.python(["-c", "import mamsim_client as m; print(m.PROTOCOL_VERSION, m.pb.Frame.DESCRIPTOR.full_name)"],
                                                 environment: ["PYTHONPATH": source])
            #expect(ran == 0 && printed.contains("2 mamsim.v2.Frame"), "\(printed)")
            let (checked, said) = try Self.python(["-c", """
                import glob, os, tomllib
                root = \(Self.pythonString(CLI.repo("clients/python").path))
                p = tomllib.load(open(os.path.join(root, "pyproject.toml"), "rb"))
                data = p["tool"]["setuptools"]["package-data"]["mamsim_client"]
                shipped = [f for pattern in data for f in glob.glob(os.path.join(root, "src", "mamsim_client", pattern))]
                assert p["project"]["name"] == "mamsim-client", p["project"]["name"]
                assert any(d.startswith("protobuf") for d in p["project"]["dependencies"])
                assert any(f.endswith("mamsim_pb2.py") for f in shipped), shipped
                print("ok")
                """])
            #expect(checked == 0 && said.contains("ok"), "\(said)")
            // Building a wheel offline needs setuptools and wheel in this Python.
            let probe = try? Self.python(["-c", "import setuptools, wheel, pip"])
            guard probe?.0 == 0 else {
                print("python3 has no setuptools, wheel and pip: the pip install of clients/python was not tried (\(probe?.1.split(separator: "\n").last ?? ""))")
                return
            }
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-pyclient-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: target) }
            let build = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-pyclient-src-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: build) }
            // A copy, so the build leaves nothing in the repository.
            try FileManager.default.copyItem(at: CLI.repo("clients/python"), to: build)
            let (status, output) = try Self.python(["-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                                                    "--disable-pip-version-check", "--target", target.path, build.path])
            #expect(status == 0, "\(output)")
            let (installed, text) = try Self.python(["-c", "import mamsim_client as m; print(m.PROTOCOL_VERSION, m.pb.Frame.DESCRIPTOR.full_name)"],
                                                    environment: ["PYTHONPATH": target.path])
            #expect(installed == 0 && text.contains("2 mamsim.v2.Frame"), "\(text)")
        }
    }
}
