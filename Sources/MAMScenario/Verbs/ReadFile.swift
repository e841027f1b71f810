import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `readFile`: the app reads a file; another account's data is refused.
struct ReadFileStep: AppFileVerb {
    static let name = "readFile"
    static let since = "v1.1"
    static let summary = "the app reads a file from its container or an app group"
    static let example = "readFile: {app: mail, path: Documents/q3.txt}"
    static let pathAbout = "a path in the app's container, or group:<id>/<path>"
    static let outcomes: [OutcomeForm] = [.text, .blocked, .failedBecause]

    var app: String
    var path: String

    init(app: String, path: String) { (self.app, self.path) = (app, path) }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(app, Service.ReadFile(path: path))
        if let bytes = r.allowedAnswer { return (.text(String(decoding: bytes, as: UTF8.self)), r.verdict.explanation, "\(app) ← \(path)") }
        return (StepRun.fileObserved(r.verdict, allowed: .ok), r.verdict.explanation, "\(app) ← \(path)")
    }
}
