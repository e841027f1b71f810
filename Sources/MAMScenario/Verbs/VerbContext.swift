import Foundation
import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire

/// What a verb reads its arguments through: typed getters over the step's mapping that record a
/// problem (with file, line and key) instead of failing, so one load reports every mistake.
/// A getter for a required key is called only after the loader checked the key is present.
struct VerbArgumentReader {
    let loading: Loading
    let fields: Fields
    /// The arguments' mapping (where a problem about the step as a whole points).
    let node: Located

    var reader: DocumentReader { loading.reader }

    subscript(_ key: String) -> Located? { fields[key] }
    func has(_ key: String) -> Bool { fields.has(key) }

    func error(_ message: String, at key: String? = nil) {
        reader.error(key.flatMap { fields[$0] } ?? node, message)
    }

    func app(_ key: String = "app", extensions: Bool = true) -> String {
        loading.handle(fields[key]!, what: key, allowExtensions: extensions) ?? ""
    }

    func text(_ key: String) -> String { reader.string(fields[key]!, what: key) ?? "" }

    func optionalText(_ key: String) -> String? { fields[key].flatMap { reader.string($0, what: key) } }

    func account(_ key: String, unmanaged: Bool = false) -> Account {
        loading.account(fields[key]!, what: key, allowUnmanaged: unmanaged) ?? Account(upn: "")
    }

    /// Absent or null is nil; `""` is the unmanaged identity.
    func optionalAccount(_ key: String) -> Account? {
        guard let x = fields[key], !x.isNull else { return nil }
        return loading.account(x, what: key, allowUnmanaged: true)
    }

    /// A list of scenario accounts (`""` the unmanaged identity); absent: nil.
    func optionalAccounts(_ key: String) -> [Account]? {
        guard let x = fields[key], !x.isNull, let items = reader.list(x, what: key) else { return nil }
        return items.compactMap { loading.account($0, what: "each entry of \(key)", allowUnmanaged: true) }
    }

    /// A save/open location's account (RULES.md §4): any account, declared or not — one the
    /// device does not know is unmanaged, said as a warning in case it is a typo.
    func locationAccount(_ key: String) -> Account? {
        guard let x = fields[key], !x.isNull, let name = reader.string(x, what: key) else { return nil }
        if name.isEmpty { return Account(upn: "") }
        if let known = loading.accounts.first(where: { $0.account.matches(name) }) { return known.account }
        let upns = loading.accounts.map(\.account.upn)
        let hint = Suggestion.closest(to: name, among: upns).map { " (did you mean \"\($0)\"?)" } ?? ""
        reader.warn(x, "\(name) is not an account of this scenario\(hint): the location belongs to an account the device does not know, which is unmanaged")
        return Account(upn: name)
    }

    func bool(_ key: String, default value: Bool) -> Bool {
        fields[key].flatMap { reader.bool($0, what: key) } ?? value
    }

    func choice<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type) -> E? where E.RawValue == String {
        fields[key].flatMap { loading.enumValue($0, type, what: key) }
    }

    func item(_ key: String = "item") -> ScenarioItem {
        loading.readItem(fields[key]!) ?? ScenarioItem(type: "", content: .text(""))
    }

    /// A name declared in a scenario section (`what` says which), with a did-you-mean.
    func declaredName(_ key: String, among names: [String], what: String, plural: String, section: String) -> String {
        let name = text(key)
        if !names.contains(name) {
            reader.error(fields[key]!, "no \(what) named \"\(name)\"" + (Suggestion.closest(to: name, among: names).map { "; did you mean \"\($0)\"?" }
                ?? (names.isEmpty ? "; declare it under \(section):" : "; the \(plural) are: \(names.joined(separator: ", "))")))
        }
        return name
    }
}

/// What a verb runs against: the host, the scenario, what the apps received, and the step.
struct StepRun {
    let host: HostController
    let scenario: Scenario
    let received: ReceivedLog
    let step: Step

    /// A service of the OS or the SDK, decided by the host for `app` as if it had asked
    /// (copy, paste, save, open, print, notify, keychain, share sheet, files, secrets).
    func service(_ app: String, _ request: ServiceRequest, context: ServiceContext = .main) async -> ServiceResult {
        await host.run { try $0.services.perform(request, for: $0.app(app), in: context) }
    }

    /// The same, typed: the verdict and the call's answer as its own Swift type.
    func call<Call: ServiceCall>(_ app: String, _ call: Call, context: ServiceContext = .main) async -> Reply<Call.Answer> {
        Reply(await service(app, call.request, context: context), for: Call.self)
    }

    /// How the host names an account: its UPN, or its OID when it has no UPN.
    static func key(_ account: Account) -> String { account.upn.isEmpty ? account.oid : account.upn }

    /// A file call's verdict as an outcome: a refusal the device's rules make (another
    /// account's data, an app group the app is not entitled to) is `blocked`.
    static func fileObserved(_ v: Verdict, allowed: Observed) -> Observed {
        switch v {
        case .failed(let r, _) where r == .notSignedIn || r == .appGroupEntitlement: .blocked(r)
        default: Observed(v, allowed: allowed)
        }
    }

    /// A file call the device could not carry out, as the step's outcome: refusals its rules
    /// make are `blocked` (`fileObserved`), the rest `failed`.
    static func fileFailed(_ e: DeviceStateError, _ parties: String) -> StepOutcome {
        (fileObserved(.failed(e.reason, e.message), allowed: .ok), e.message, parties)
    }

    /// What the app's keychain call returned: the iOS status, or the failure to make the call.
    /// The group a keychain call named, or the one the device resolved when it named none
    /// (`how`: the default group of a write, the group a read's search ended in).
    static func keychainGroup(_ r: ServiceResult, asked: String?, how: String) -> String {
        if let asked { return asked }
        if let group = Service.KeychainGet.answer(from: r.value)?.group, !group.isEmpty { return "\(group) (\(how))" }
        return "(\(how))"
    }

    static func keychainObserved(_ r: ServiceResult, success: Observed) -> Observed {
        guard let status = Service.KeychainGet.answer(from: r.value)?.status else { return Observed(r.verdict, allowed: success) }
        switch status {
        case .success: return success
        case .missingEntitlement: return .blocked(.keychainEntitlement)
        case .itemNotFound: return .error(Int(status.rawValue))
        }
    }

    /// Conditional launch's report as an outcome, and as a sentence with its warnings.
    static func launched(_ report: LaunchCheckReport) -> Observed { Observed(report.decision, allowed: .ok) }

    static func explained(_ report: LaunchCheckReport) -> String {
        ([report.decision.explanation] + report.warnings).joined(separator: "; ")
    }

    /// An account as the wire names an identity (`""` = unmanaged).
    static func identity(_ account: Account) -> String { account.isEmpty ? "" : account.upn }
}
