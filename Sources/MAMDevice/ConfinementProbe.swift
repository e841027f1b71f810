import Foundation
import MAMLoop

/// What confinement the host's children run under, found out once when the host starts.
public struct ConfinementReport: Sendable, CustomStringConvertible {
    /// The launcher children are started through; `nil` = they are started directly.
    public let launcher: String?
    /// A sentence for the run's header and logs.
    public let description: String

    /// Probes the launcher (`mamsim-confine --probe` prints the kernel's Landlock ABI).
    static func probe(_ configuration: HostConfiguration) throws(HostError) -> ConfinementReport {
        let unconfined = "children are not confined: each can read the whole device directory"
        if configuration.confinement == .none {
            return ConfinementReport(launcher: nil, description: "\(unconfined) (confinement turned off)")
        }
        let launcher = configuration.confinementLauncher
            ?? URL(fileURLWithPath: configuration.appRuntime).deletingLastPathComponent().appendingPathComponent("mamsim-confine").path
        let why: String
        if FileManager.default.isExecutableFile(atPath: launcher) {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-confine-probe-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: out) }
            let status = (try? ChildProcess.run(launcher, arguments: ["--probe"], stdoutPath: out.path)) ?? -1
            let said = (try? String(contentsOf: out, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if status == 0, let abi = Int(said) {
                return ConfinementReport(
                    launcher: launcher,
                    description: "children are confined with Landlock (ABI \(abi)): each reads and writes only its own container and app groups of the device directory")
            }
            why = said.isEmpty ? "\(launcher) --probe failed (status \(status))" : said
        } else {
            why = "\(launcher) is missing; build it with `swift build --product mamsim-confine`"
        }
        if configuration.confinement == .required { throw .loop("confinement is required but unavailable: \(why)") }
        return ConfinementReport(launcher: nil, description: "\(unconfined) (\(why))")
    }
}
