import Foundation
import MAMBundle
@testable import MAMExtensions
import Testing

/// Issue 97, item 4: the Intune App SDK a project's lock files pin, judged against Microsoft's
/// dated requirements (Learn, What's new in Intune notices; the SDK's README).
@Suite struct SDKVersionLintTests {
    func folder(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-sdkversion-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    @Test func aPinnedSDKIsJudgedByEachNoticeItFallsUnder() throws {
        let root = try folder([
            // SwiftPM format 2, the SDK 20.5.0: the late-June warning and the January 19 launch block (Xcode 16 line).
            "App.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved":
                #"{"pins": [{"identity": "ms-intune-app-sdk-ios", "kind": "remoteSourceControl", "location": "https://github.com/microsoftconnect/ms-intune-app-sdk-ios", "state": {"revision": "x", "version": "20.5.0"}}], "version": 2}"#,
            // CocoaPods, 21.0.2: the Xcode 26 line's launch block only.
            "Other/Podfile.lock": "PODS:\n  - IntuneMAMSwift (21.0.2)\n\nDEPENDENCIES:\n  - IntuneMAMSwift\n",
            // SwiftPM format 1, 22.2.0: nothing.
            "Current/Package.resolved": #"{"object": {"pins": [{"package": "IntuneMAMSwift", "repositoryURL": "https://github.com/microsoftconnect/ms-intune-app-sdk-ios.git", "state": {"version": "22.2.0"}}]}, "version": 1}"#,
            // Its own pods are never the project's.
            "Pods/Podfile.lock": "PODS:\n  - IntuneMAMSwift (1.0.0)\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let findings = SDKVersionLint.reports(root: root, displayName: ".").flatMap(\.findings)
        #expect(findings.allSatisfy { $0.rule == "intune-sdk-version" && $0.severity == .warning })
        let swiftPM = findings.filter { $0.file.hasSuffix("swiftpm/Package.resolved") }
        #expect(swiftPM.count == 2 && swiftPM.allSatisfy { $0.keyPath == "pins[ms-intune-app-sdk-ios].state.version" }, "\(swiftPM)")
        #expect(swiftPM.contains { $0.problem.contains("late June 2026") } && swiftPM.contains { $0.problem.contains("January 19, 2026") })
        let pods = findings.filter { $0.file == "Other/Podfile.lock" }
        #expect(pods.count == 1 && pods[0].problem.contains("21.1.0 or later") && pods[0].keyPath == "PODS.IntuneMAMSwift", "\(pods)")
        #expect(!findings.contains { $0.file.hasPrefix("Current/") || $0.file.hasPrefix("Pods/") })
    }
}
