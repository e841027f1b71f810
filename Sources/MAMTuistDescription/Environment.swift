// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.
import Foundation

/// The `TUIST_` environment variables a manifest reads: `Environment.appName` is `TUIST_APP_NAME`.
@dynamicMemberLookup
public enum Environment {
    public enum Value: Equatable {
        case string(String)

        var value: String {
            switch self {
            case let .string(value): value
            }
        }
    }

    public static subscript(dynamicMember member: String) -> Value? {
        value(for: member)
    }

    static func value(for key: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Value? {
        environment["TUIST_" + snakeCase(key).uppercased()].map(Value.string)
    }

    /// `appName` → `app_name`, `myURLValue` → `my_url_value`.
    static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var out = ""
        for (index, character) in characters.enumerated() {
            if index > 0, character.isUppercase {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    out.append("_")
                }
            }
            out.append(contentsOf: character.lowercased())
        }
        return out
    }
}

extension Optional where Wrapped == Environment.Value {
    /// The variable's text, or `defaultString` when it is not set.
    public func getString(default defaultString: String) -> String {
        if case let .string(value)? = self { return value }
        return defaultString
    }

    /// The variable as a Boolean (1/0, true/false, yes/no, in lower or upper case), or
    /// `defaultBoolean` when it is not set or is none of those.
    public func getBoolean(default defaultBoolean: Bool) -> Bool {
        guard let value = self?.value else { return defaultBoolean }
        if ["1", "true", "TRUE", "yes", "YES"].contains(value) { return true }
        if ["0", "false", "FALSE", "no", "NO"].contains(value) { return false }
        return defaultBoolean
    }
}
