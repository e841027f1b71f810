public import Foundation
public import MAMActivation
import MAMBundle

/// Our counterpart of Intune's `IntuneMAMConfigurator` for activation rules: rewrites an
/// extension's Info.plist so its `NSExtensionActivationRule` also accepts the
/// `com.microsoft.intune.mam.`-prefixed twin of every type it names, converting a dictionary
/// rule to the equivalent predicate string first (seed 000: "convert the activation rule from
/// the string constants to a predicate string while adding the Intune types").
///
/// Every other key is kept. Running it on its own output changes nothing: the rule is only
/// rewritten when a twin is missing, and an unchanged XML plist is returned byte for byte.
public enum IntuneConfigurator {
    /// What `configure` did to the rule.
    public enum Change: Sendable, Hashable {
        /// No `NSExtension.NSExtensionAttributes.NSExtensionActivationRule` to rewrite.
        case noRule
        /// The rule already accepts every twin.
        case unchanged
        /// Twins added to a predicate string.
        case addedIntuneTypes(ActivationPredicate)
        /// A dictionary rule converted to a predicate string, twins added.
        case convertedDictionary(ActivationPredicate)
    }

    /// The rule as the configurator would write it (predicate form with every twin).
    public static func configuredRule(_ rule: ActivationRule) -> ActivationPredicate {
        rule.asPredicate.addingIntuneTwins
    }

    /// Rewrites an Info.plist (XML or binary) and returns it as XML.
    ///
    /// - Parameter source: the plist's name, for errors.
    public static func configure(infoPlist data: Data, source: String) throws(ActivationRuleError) -> Data {
        try configureReporting(infoPlist: data, source: source).plist
    }

    /// As `configure`, also saying what changed (for `mamsim configure`'s output).
    public static func configureReporting(infoPlist data: Data, source: String) throws(ActivationRuleError) -> (plist: Data, change: Change) {
        var format = PropertyListSerialization.PropertyListFormat.xml
        let root: [String: Any]
        do {
            root = try PropertyListIO.dictionary(from: data, source: source)
            _ = try? PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            throw .plist(error)
        }
        func unchangedOutput() throws(ActivationRuleError) -> Data {
            if format == .xml { return data }
            do { return try PropertyListIO.xmlData(root, source: source) } catch { throw .plist(error) }
        }
        guard var ext = root["NSExtension"] as? [String: Any],
              var attributes = ext["NSExtensionAttributes"] as? [String: Any],
              let ruleValue = attributes["NSExtensionActivationRule"] else {
            return (try unchangedOutput(), .noRule)
        }
        let rule = try ActivationRule(plistValue: ruleValue, source: source)
        let configured = configuredRule(rule)
        let change: Change
        switch rule {
        case .predicate(let p) where p == configured:
            return (try unchangedOutput(), .unchanged)
        case .predicate:
            change = .addedIntuneTypes(configured)
        case .dictionary:
            change = .convertedDictionary(configured)
        }
        attributes["NSExtensionActivationRule"] = configured.formatted
        ext["NSExtensionAttributes"] = attributes
        var rewritten = root
        rewritten["NSExtension"] = ext
        do {
            return (try PropertyListIO.xmlData(rewritten, source: source), change)
        } catch {
            throw .plist(error)
        }
    }
}
