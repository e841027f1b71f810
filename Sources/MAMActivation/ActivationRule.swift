/// An extension's `NSExtensionActivationRule` in either of its two forms.
///
/// The share sheet lists a share or action extension only when its rule accepts what is being
/// shared; `evaluate` answers that with a reason a person can read.
public enum ActivationRule: Sendable, Hashable, CustomStringConvertible {
    case dictionary(ActivationDictionary)
    case predicate(ActivationPredicate)

    /// Reads the value of `NSExtensionActivationRule` as PropertyListSerialization returns it: a
    /// `String` (predicate) or a `[String: Any]` (dictionary).
    ///
    /// - Parameter source: who the rule belongs to, for errors (`plugins/x/Info.plist`).
    public init(plistValue: Any, source: String) throws(ActivationRuleError) {
        let keyPath = "NSExtension.NSExtensionAttributes.NSExtensionActivationRule"
        if let text = plistValue as? String {
            do {
                self = .predicate(try ActivationPredicate(parsing: text, source: "\(source): \(keyPath)"))
            } catch {
                throw .syntax(error)
            }
        } else if let dict = plistValue as? [String: Any] {
            do {
                self = .dictionary(try ActivationDictionary(plist: dict, source: source))
            } catch {
                var e = error
                e.keyPath = keyPath + "." + e.keyPath
                throw .plist(e)
            }
        } else {
            throw .plist(ExtensionPlistError(source: source, keyPath: keyPath,
                message: "expected a predicate <string> or a <dict> of NSExtensionActivation… keys, found \(PlistValue(plistValue).kindDescription)"))
        }
    }

    /// Parses a bare rule string (a `.txt` rule, a CLI argument).
    public init(predicate text: String, source: String = "activation rule") throws(ActivationRuleError) {
        do { self = .predicate(try ActivationPredicate(parsing: text, source: source)) } catch { throw .syntax(error) }
    }

    public func evaluate(_ share: ShareInput, types: UTIRegistry = .system) -> ActivationResult {
        switch self {
        case .dictionary(let d): return d.evaluate(share, types: types)
        case .predicate(let p): return p.evaluate(share, types: types)
        }
    }

    /// The rule as a predicate (the dictionary form converted, see `ActivationDictionary.equivalentPredicate`).
    public var asPredicate: ActivationPredicate {
        switch self {
        case .dictionary(let d): return d.equivalentPredicate
        case .predicate(let p): return p
        }
    }

    public var description: String {
        switch self {
        case .dictionary(let d): return "dictionary rule (version \(d.version), \(d.isStrict ? "strict" : "fuzzy")): " + d.equivalentPredicate.description
        case .predicate(let p): return p.description
        }
    }
}

/// Why an activation rule could not be read.
public enum ActivationRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The predicate string does not parse.
    case syntax(ActivationRuleSyntaxError)
    /// The dictionary form has a key of the wrong type (or the rule is neither string nor dict).
    case plist(ExtensionPlistError)

    public var description: String {
        switch self {
        case .syntax(let e): return e.description
        case .plist(let e): return e.description
        }
    }
}
