import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire

/// `appConfig`: the app reads an Intune app configuration value (`IntuneMAMAppConfig`'s getters).
struct AppConfigStep: StepVerb {
    static let name = "appConfig"
    static let since = "v1.1"
    static let summary = "the app reads an app configuration value as bool, number or string, resolving several targeted values by query"
    static let example = "appConfig: {app: mail, key: com.microsoft.outlook.Mail.FocusedInbox, type: bool}"
    static let arguments: [VerbArgument] = [
        .app(), .required("key", .text, "the configuration key"),
        .required("type", .choice(AppConfigValueType.allCases.map(\.rawValue)), "the getter"),
        .optional("account", .account(unmanaged: true), "whose configuration (absent: the app's current identity)"),
        .optional("query", .choice(AppConfigLookup.allCases.map(\.rawValue)), "how several values resolve (value: the first)"),
    ]
    static let outcomes: [OutcomeForm] = [.configValue, .configValues, .none]

    var app: String
    var account: Account?
    var key: String
    var type: AppConfigValueType
    var query: AppConfigLookup

    init(app: String, account: Account?, key: String, type: AppConfigValueType, query: AppConfigLookup) {
        (self.app, self.account, self.key, self.type, self.query) = (app, account, key, type, query)
    }

    init(_ a: VerbArgumentReader) {
        let type = a.choice("type", AppConfigValueType.self) ?? .string
        var query = AppConfigLookup.value
        if let x = a["query"], let q = a.choice("query", AppConfigLookup.self) {
            let fits: Set<AppConfigLookup> = type == .bool ? [.value, .all, .any, .or, .and] : [.value, .all, .any, .min, .max]
            if fits.contains(q) { query = q } else {
                a.reader.error(x, "query \(q) does not apply to \(type) values; use one of \(AppConfigLookup.allCases.filter(fits.contains).map(\.rawValue).joined(separator: ", "))")
            }
        }
        self.init(app: a.app(), account: a.optionalAccount("account"), key: a.text("key"), type: type, query: query)
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(app, Service.AppConfig(account: account.map { $0.isEmpty ? "" : $0.description }))
        guard let data = r.allowedAnswer else { return (Observed(r.verdict, allowed: .none), r.verdict.explanation, app) }
        let config = AppConfig(fullData: data)
        let conflict = config.hasConflict(forKey: key)
        let values: [String] = switch type {
        case .bool: config.allBools(forKey: key).map { $0 ? "true" : "false" }
        case .number: config.allNumbers(forKey: key).map(AppConfig.format)
        case .string: config.allStrings(forKey: key)
        }
        let why = "\(r.verdict.explanation); \(key): \(values.isEmpty ? "no \(type) value" : values.joined(separator: ", "))\(conflict ? " (targeted values conflict)" : "")"
        if query == .all { return (.configValues(values, conflict: conflict), why, "\(app): \(key)") }
        let one: String? = switch (type, query) {
        case (.bool, .or), (.bool, .and), (.bool, .any), (.bool, .value):
            config.bool(forKey: key, query: query == .or ? .or : query == .and ? .and : .any).map { $0 ? "true" : "false" }
        case (.number, _):
            config.number(forKey: key, query: query == .min ? .min : query == .max ? .max : .any).map(AppConfig.format)
        case (.string, _):
            config.string(forKey: key, query: query == .min ? .min : query == .max ? .max : .any)
        default: nil
        }
        guard let one else { return (.none, why, "\(app): \(key)") }
        return (.configValue(one, conflict: conflict), why, "\(app): \(key)")
    }
}

/// The type an `appConfig` step reads a value as (`IntuneMAMAppConfig`'s typed getters).
public enum AppConfigValueType: String, Sendable, Hashable, CaseIterable {
    case bool, number, string
}

/// How an `appConfig` step resolves several values: `value`/`any` the first, `all` every one,
/// `or`/`and` for booleans, `min`/`max` for numbers and strings.
public enum AppConfigLookup: String, Sendable, Hashable, CaseIterable {
    case value, all, any, or, and, min, max
}
