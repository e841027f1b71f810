import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire
import Yams

/// `setAppConfig`: the admin changes or removes an app configuration policy.
struct SetAppConfigStep: StepVerb {
    static let name = "setAppConfig"
    static let since = "v1.1"
    static let summary = "changes (settings:) or removes (remove: true) an app configuration declared under appConfigs; running apps whose configuration changes are notified"
    static let example = "setAppConfig: {name: outlook, settings: {com.microsoft.outlook.Mail.FocusedInbox: false}}"
    static let arguments: [VerbArgument] = [
        .required("name", .text, "an app configuration declared under appConfigs:"),
        .optional("settings", .mapping, "the new key/value pairs"),
        .optional("remove", .bool, "true: the configuration is removed"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var name: String
    /// `nil`: the configuration is removed.
    var settings: [KeyValuePair]?

    init(name: String, settings: [KeyValuePair]?) { (self.name, self.settings) = (name, settings) }

    init(_ a: VerbArgumentReader) {
        name = a.declaredName("name", among: a.loading.appConfigs.map(\.name), what: "app configuration", plural: "app configurations", section: "appConfigs")
        let remove = a.bool("remove", default: false)
        var settings: [KeyValuePair]?
        if let x = a["settings"] {
            if remove { a.reader.error(x, "setAppConfig takes settings: or remove: true, not both") }
            if case .mapping(let m) = x.node {
                settings = m.compactMap { k, value in
                    guard case .scalar(let s) = value else {
                        a.reader.error(Located(node: value, path: x.child(k.scalar?.string ?? "")), "a setting's value must be text, a number or a boolean")
                        return nil
                    }
                    return KeyValuePair(name: k.scalar?.string ?? "", value: s.string)
                }
            } else {
                a.reader.error(x, "settings must be a mapping of keys to values, but it is \(x.shape)")
            }
        } else if !remove {
            a.error("setAppConfig needs settings: (the new key/value pairs) or remove: true")
        }
        self.settings = remove ? nil : (settings ?? [])
    }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.complete({ [name, settings] host, done in host.admin.setAppConfig(named: name, settings: settings, done) }) {
        case .success(let told):
            let what = settings.map { "\"\(name)\" now sets \($0.map { "\($0.name) = \($0.value)" }.joined(separator: ", "))" } ?? "\"\(name)\" removed"
            return (.ok, "\(what); \(told) running app/account pair(s) notified", name)
        case .failure(let e): return (.failed(e.reason), e.message, name)
        }
    }
}
