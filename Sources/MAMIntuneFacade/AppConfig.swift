public import Foundation
import MAMKit
import MAMModel
import MAMWire

/// How several policies' booleans combine (the SDK's raw values).
public enum IntuneMAMBoolQueryType: UInt, Sendable, CaseIterable {
    case any = 0
    case or = 1
    case and = 2
}

/// How several policies' numbers combine (the SDK's raw values).
public enum IntuneMAMNumberQueryType: UInt, Sendable, CaseIterable {
    case any = 0
    case min = 1
    case max = 2
}

/// How several policies' strings combine (the SDK's raw values).
public enum IntuneMAMStringQueryType: UInt, Sendable, CaseIterable {
    case any = 0
    case min = 1
    case max = 2
}

/// An account's app configuration: one dictionary per configuration policy that targets it.
public protocol IntuneMAMAppConfig: AnyObject {
    var fullData: [[AnyHashable: Any]]? { get }
    func hasConflict(_ key: String) -> Bool
    func boolValue(forKey key: String, queryType: IntuneMAMBoolQueryType) -> NSNumber?
    func numberValue(forKey key: String, queryType: IntuneMAMNumberQueryType) -> NSNumber?
    func stringValue(forKey key: String, queryType: IntuneMAMStringQueryType) -> String?
    func allBools(forKey key: String) -> [NSNumber]?
    func allNumbers(forKey key: String) -> [NSNumber]?
    func allStrings(forKey key: String) -> [String]?
}

/// The configuration the host answered, read with mamsim's own rules (`AppConfig`).
final class HostAppConfig: IntuneMAMAppConfig, Sendable {
    let config: AppConfig
    /// The account whose configuration it is, as the app named it (`nil`: the identity in
    /// effect, looked up when a key is first read).
    let account: String?

    init(_ config: AppConfig, account: String?) {
        self.config = config
        self.account = account
    }

    /// Tells the host the app's code read `key` (`mamsim mutate` tells a key the code reads
    /// from one it never consults).
    private func read(_ key: String) {
        let owner = account ?? ThreadIdentity.accountId ?? IntuneMAMPolicyManager.instance().getProcessAccountId() ?? ""
        GettersRead.readKey(key, account: owner)
    }

    var fullData: [[AnyHashable: Any]]? {
        for key in Set(config.fullData.flatMap(\.keys)).sorted() { read(key) }
        return config.fullData.isEmpty ? nil : config.fullData.map { Dictionary(uniqueKeysWithValues: $0.map { (AnyHashable($0.key), $0.value as Any) }) }
    }

    func hasConflict(_ key: String) -> Bool {
        read(key)
        return config.hasConflict(forKey: key)
    }

    func boolValue(forKey key: String, queryType: IntuneMAMBoolQueryType) -> NSNumber? {
        read(key)
        let query: AppConfig.Query = switch queryType {
        case .any: .any
        case .or: .or
        case .and: .and
        }
        return config.bool(forKey: key, query: query).map { NSNumber(value: $0) }
    }

    func numberValue(forKey key: String, queryType: IntuneMAMNumberQueryType) -> NSNumber? {
        read(key)
        return config.number(forKey: key, query: Self.query(queryType.rawValue)).map { NSNumber(value: $0) }
    }

    func stringValue(forKey key: String, queryType: IntuneMAMStringQueryType) -> String? {
        read(key)
        return config.string(forKey: key, query: Self.query(queryType.rawValue))
    }

    func allBools(forKey key: String) -> [NSNumber]? {
        read(key)
        return Self.nonEmpty(config.allBools(forKey: key).map { NSNumber(value: $0) })
    }
    func allNumbers(forKey key: String) -> [NSNumber]? {
        read(key)
        return Self.nonEmpty(config.allNumbers(forKey: key).map { NSNumber(value: $0) })
    }
    func allStrings(forKey key: String) -> [String]? {
        read(key)
        return Self.nonEmpty(config.allStrings(forKey: key))
    }

    private static func query(_ raw: UInt) -> AppConfig.Query { raw == 1 ? .min : raw == 2 ? .max : .any }
    private static func nonEmpty<T>(_ values: [T]) -> [T]? { values.isEmpty ? nil : values }
}

/// The SDK's entry to app configuration: each `appConfig` asks the host once.
public final class IntuneMAMAppConfigManager: Sendable {
    private static let shared = IntuneMAMAppConfigManager()

    public class func instance() -> IntuneMAMAppConfigManager { shared }

    /// The configuration of `accountId` (`nil`: the identity in effect); empty when the host
    /// does not answer or the account is not signed in to the app.
    public func appConfig(forAccountId accountId: String?, file: String = #fileID, line: UInt = #line) -> any IntuneMAMAppConfig {
        Strict.checkAccountId(accountId, "appConfig(forAccountId:)", file, line)
        let data = MAMIntuneFacade.blocking(Service.AppConfig(account: accountId), as: nil)?.allowedAnswer ?? []
        return HostAppConfig(AppConfig(fullData: data), account: accountId)
    }
}
