import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `managedConfig`: the app reads its ManagedApp configuration (DDM `com.apple.configuration.app.managed`),
/// or with `legacy: true` the managed app configuration that came before it (UserDefaults
/// `com.apple.configuration.managed`, from the declaration's `LegacyAppConfigAssetReference`).
struct ManagedConfigStep: StepVerb {
    static let name = "managedConfig"
    static let since = "v1.1"
    static let summary = "the app reads its ManagedApp configuration (key: one value of it)"
    static let example = "managedConfig: {app: mail, key: ServerURL}"
    static let arguments: [VerbArgument] = [
        .app(), .optional("key", .text, "one key of the configuration"),
        .optional("legacy", .bool, "the legacy managed configuration (UserDefaults com.apple.configuration.managed) instead (v1.2)"),
    ]
    static let outcomes: [OutcomeForm] = [.config, .configValue, .none]

    var app: String
    var key: String?
    var legacy: Bool

    init(app: String, key: String?, legacy: Bool = false) { (self.app, self.key, self.legacy) = (app, key, legacy) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(), key: a.optionalText("key"), legacy: a.bool("legacy", default: false)) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(app, Service.ManagedConfig(legacy: legacy))
        guard r.isAllowed else { return (Observed(r.verdict, allowed: .none), r.verdict.explanation, app) }
        guard let plist = r.answer,
              let object = try? PropertyListSerialization.propertyList(from: Data(plist), format: nil) else {
            return (.none, r.verdict.explanation, app)
        }
        guard let key else { return (.config(CanonicalJSON.text(object)), r.verdict.explanation, app) }
        guard let dict = object as? [String: Any], let value = dict[key] else {
            return (.none, "\(r.verdict.explanation); no key \"\(key)\"", "\(app): \(key)")
        }
        // The key's own words: the whole configuration's size is no fact of this key (a
        // change elsewhere in it would read as this step explained otherwise).
        return (.configValue(CanonicalJSON.scalarText(value), conflict: false), "\(app) read \(key.debugDescription) from its managed configuration", "\(app): \(key)")
    }
}
