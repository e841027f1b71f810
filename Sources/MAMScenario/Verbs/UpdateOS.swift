import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy

/// `updateOS`: the user installs a newer iOS. What conditional launch's OS checks
/// (`minimumRequiredOsVersion`, `minimumWarningOsVersion`, `minimumWipeOsVersion` and the
/// maximums) tell the user to do; they read it at the app's next launch, resume or identity
/// switch (Microsoft Learn, app protection conditional launch: "Min OS version").
struct UpdateOSStep: StepVerb {
    static let name = "updateOS"
    static let since = "v1.2"
    static let summary = "the user installs a newer iOS; conditional launch reads it at the next launch or resume"
    static let example = #"updateOS: {version: "18.5"}"#
    static let arguments: [VerbArgument] = [.required("version", .text, "the iOS version installed, newer than the device's (\"18.5\")")]
    static let outcomes: [OutcomeForm] = [.ok, .failedBecause]

    var version: Version

    init(_ a: VerbArgumentReader) {
        let text = a.text("version")
        if let v = Version(text) { version = v } else {
            a.error("version must be a dotted version such as \"18.5\", but it is \"\(text)\"", at: "version")
            version = Version("0")!
        }
    }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [version] in try $0.admin.updateOS(to: version) }) {
        case .success(let old): return (.ok, "iOS \(old) was updated to \(version); apps check it at their next launch or resume", "device")
        case .failure(let e): return (.failed(e.reason), e.message, "device")
        }
    }
}
