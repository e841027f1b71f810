import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `keychainSet`: the app writes a keychain item in an access group (its entitlements decide).
struct KeychainSetStep: StepVerb {
    static let name = "keychainSet"
    static let since = "v1"
    static let summary = "writes a keychain value in an access group the app must be entitled to"
    static let example = "keychainSet: {app: mail, group: ABCDE12345.com.contoso.shared, key: token, value: s3cret}"
    static let arguments: [VerbArgument] = [
        .app(), .optional("group", .text, nullable: false, "the keychain access group (absent, v1.2: the app's default group, the first of its keychain-access-groups, else its app ID)"),
        .required("key", .text, "the item's key"), .required("value", .text, "the value written"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .error]

    var app: String
    var group: String?
    var key: String
    var value: String

    init(app: String, group: String?, key: String, value: String) { (self.app, self.group, self.key, self.value) = (app, group, key, value) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(), group: a.optionalText("group"), key: a.text("key"), value: a.text("value")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.service(app, .keychainSet(group: group ?? "", key: key, value: Array(value.utf8)))
        return (StepRun.keychainObserved(r, success: .ok), r.verdict.explanation, "\(app) → \(StepRun.keychainGroup(r, asked: group, how: "default group"))/\(key)")
    }
}
