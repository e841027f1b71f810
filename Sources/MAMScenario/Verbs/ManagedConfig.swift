import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `managedConfig`: the app reads its ManagedApp configuration (DDM `com.apple.configuration.app.managed`).
struct ManagedConfigStep: StepVerb {
    static let name = "managedConfig"
    static let since = "v1.1"
    static let summary = "the app reads its ManagedApp configuration (key: one value of it)"
    static let example = "managedConfig: {app: mail, key: ServerURL}"
    static let arguments: [VerbArgument] = [.app(), .optional("key", .text, "one key of the configuration")]
    static let outcomes: [OutcomeForm] = [.config, .configValue, .none]

    var app: String
    var key: String?

    init(app: String, key: String?) { (self.app, self.key) = (app, key) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(), key: a.optionalText("key")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.service(app, .managedConfig)
        guard r.isAllowed else { return (Observed(r.verdict, allowed: .none), r.verdict.explanation, app) }
        guard case .data(let plist) = r.value,
              let object = try? PropertyListSerialization.propertyList(from: Data(plist), format: nil) else {
            return (.none, r.verdict.explanation, app)
        }
        guard let key else { return (.config(CanonicalJSON.text(object)), r.verdict.explanation, app) }
        guard let dict = object as? [String: Any], let value = dict[key] else {
            return (.none, "\(r.verdict.explanation); no key \"\(key)\"", "\(app): \(key)")
        }
        return (.configValue(CanonicalJSON.scalarText(value), conflict: false), r.verdict.explanation, "\(app): \(key)")
    }
}
