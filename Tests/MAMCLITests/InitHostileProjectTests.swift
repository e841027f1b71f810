import Foundation
import Testing

extension CLITests {
    /// `mamsim init` on a hostile project (security issue 46, finding 6): whatever its files
    /// say — newlines, quotes, anchors and aliases, tags, comments, control characters — is
    /// data in the scenario it writes, never scenario text: no app is injected, nothing runs,
    /// and each value reads back exactly as the project wrote it.
    @Suite struct InitHostileProjectTests {
        static func plist(_ body: String) -> String {
            #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>\#(body)</dict></plist>"#
        }
        static func xml(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        }

        @Test func aHostileProjectWritesDataNotScenarioText() async throws {
            let dir = try InitCommandTests.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let marker = dir.appendingPathComponent("pwned").path
            let injection = "evil\n  - id: injected\n    bundle: com.evil.injected\n    executable: /bin/sh\n    arguments: [-c, \"touch \(marker)\"]\n#"
            let keychain = ["com.contoso.mail", "com.microsoft.intune.mam", "a \"quoted\" &anchor *alias !!binary # not a comment: colon\ttab"]
            let groups = ["group.com.contoso.mail", "group.\n- evil", "group.\u{1B}[31mred\u{07}"]
            let app = dir.appendingPathComponent("project/Mail")
            try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
            func array(_ items: [String]) -> String { "<array>" + items.map { "<string>\(Self.xml($0))</string>" }.joined() + "</array>" }
            try Self.plist("""
                <key>CFBundleIdentifier</key><string>com.contoso.mail</string><key>CFBundleExecutable</key><string>Mail</string>
                <key>CFBundleURLTypes</key><array><dict><key>CFBundleURLSchemes</key>\(array(["contoso-mail", "contoso-mail-intunemam", injection]))</dict></array>
                <key>IntuneMAMSettings</key><dict><key>ADALClientId</key><string>x</string></dict>
                """).write(to: app.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
            try Self.plist("""
                <key>keychain-access-groups</key>\(array(keychain))
                <key>com.apple.security.application-groups</key>\(array(groups))
                """).write(to: app.appendingPathComponent("Mail.entitlements"), atomically: true, encoding: .utf8)
            let file = dir.appendingPathComponent("first.yaml").path
            let r = try await CLI.run(["init", dir.appendingPathComponent("project").path, "-o", file], timeout: 120)
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)\n\(text)")
            #expect(!FileManager.default.fileExists(atPath: marker), "the injected app ran during init")
            // Read back by a YAML parser of another implementation.
            let json = dir.appendingPathComponent("first.json").path
            let convert = try await CLI.run(["python3", "-c", "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], 'w'))", file, json],
                                            executable: "/usr/bin/env")
            try #require(convert.status == 0, "\(convert.stderr)\n\(text)")
            let scenario = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
            let apps = try #require(scenario["apps"] as? [[String: Any]])
            #expect(apps.map { $0["bundle"] as? String ?? "" } == ["com.contoso.mail", "com.example.notes"], "\(apps)")
            let mail = try #require(apps.first)
            #expect(mail["keychainGroups"] as? [String] == keychain, "\(mail)")
            #expect(mail["appGroups"] as? [String] == groups, "\(mail)")
            #expect(mail["executable"] == nil && mail["arguments"] == nil, "\(mail)")
            #expect(mail["urlSchemes"] as? [String] == ["contoso-mail", "contoso-mail-intunemam"], "\(mail)")
        }
    }
}
