import Foundation
import MAMDocument
import MAMScenario

/// Scenario fixtures next to this file (read in place, not as SwiftPM resources), so the
/// tests run the same from the worktree and from the main package.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A fixture URL relative to `Fixtures/`, so messages name it as `errors/typo-keys.yaml`.
    static func url(_ relative: String) -> URL {
        URL(fileURLWithPath: relative, relativeTo: root)
    }

    static func load(_ relative: String, buildSettings: [String: String] = [:]) throws(ScenarioError) -> Scenario {
        try ScenarioLoader.load(file: url(relative), buildSettings: buildSettings)
    }

    /// The error loading `relative` throws; `nil` when it loads.
    static func error(_ relative: String) -> ScenarioError? {
        do {
            _ = try load(relative)
            return nil
        } catch {
            return error
        }
    }
}
