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
        // An XML plist keeps its text: only the rule's value is replaced, so key order,
        // comments and indentation stay as the developer wrote them. The edit is checked by
        // reading it back; anything unexpected falls back to writing the plist anew.
        if format == .xml, let text = String(data: data, encoding: .utf8),
           let edited = replacingRule(in: text, with: configured.formatted),
           let reread = try? PropertyListIO.dictionary(from: Data(edited.utf8), source: source),
           NSDictionary(dictionary: reread).isEqual(to: rewritten) {
            return (Data(edited.utf8), change)
        }
        do {
            return (try PropertyListIO.xmlData(rewritten, source: source), change)
        } catch {
            throw .plist(error)
        }
    }

    /// `text` with the value after its one `<key>NSExtensionActivationRule</key>` (a
    /// `<string>` or a `<dict>`) replaced by `<string>rule</string>`; `nil` when the text is
    /// not laid out that way.
    static func replacingRule(in text: String, with rule: String) -> String? {
        let key = "<key>NSExtensionActivationRule</key>"
        guard let keyRange = text.range(of: key), text.range(of: key, range: keyRange.upperBound..<text.endIndex) == nil else { return nil }
        guard let start = text[keyRange.upperBound...].firstIndex(where: { !$0.isWhitespace }) else { return nil }
        let rest = text[start...]
        var end: String.Index
        if rest.hasPrefix("<string>") {
            guard let close = text.range(of: "</string>", range: start..<text.endIndex) else { return nil }
            end = close.upperBound
        } else if rest.hasPrefix("<dict>") {
            var depth = 0
            var i = start
            end = start
            while i < text.endIndex {
                if text[i...].hasPrefix("<dict>") { depth += 1; i = text.index(i, offsetBy: 6); continue }
                if text[i...].hasPrefix("</dict>") {
                    depth -= 1
                    i = text.index(i, offsetBy: 7)
                    if depth == 0 { end = i; break }
                    continue
                }
                i = text.index(after: i)
            }
            guard depth == 0, end > start else { return nil }
        } else {
            return nil
        }
        let escaped = rule.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        return text.replacingCharacters(in: start..<end, with: "<string>\(escaped)</string>")
    }
}

extension IntuneConfigurator.Change: CustomStringConvertible {
    /// What `mamsim configure` did, for a person.
    public var description: String {
        func twins(_ p: ActivationPredicate) -> String {
            let types = p.mentionedTypes.filter(UTIRegistry.isIntuneType)
            return types.isEmpty ? "no Intune types" : types.joined(separator: ", ")
        }
        switch self {
        case .noRule: return "has no NSExtensionActivationRule; nothing to do"
        case .unchanged: return "the activation rule already accepts every Intune type; unchanged"
        case .addedIntuneTypes(let p): return "activation rule now also names \(twins(p)); every other key kept in place"
        case .convertedDictionary(let p): return "dictionary activation rule converted to a predicate string naming \(twins(p)) beside the original types; every other key kept in place"
        }
    }
}
