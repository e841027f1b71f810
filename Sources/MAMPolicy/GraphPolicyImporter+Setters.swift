import MAMModel

// How each Graph property of an iosManagedAppProtection is read into the model: one setter per
// value shape (booleans, numbers, strings, Graph's enum values, ISO 8601 durations, versions, the
// apps), each naming the property and what it expected when the export holds something else.
extension GraphPolicyImporter {
    static func bool(_ kp: any WritableKeyPath<IosManagedAppProtection, Bool> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            guard case .bool(let b) = v else { throw c.error(name, v, "true or false") }
            p[keyPath: kp] = b
        })
    }

    static func int(_ kp: any WritableKeyPath<IosManagedAppProtection, Int> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            guard case .number(let n) = v, n.rounded() == n, abs(n) < 1e9 else { throw c.error(name, v, "a whole number") }
            p[keyPath: kp] = Int(n)
        })
    }

    static func string(_ kp: any WritableKeyPath<IosManagedAppProtection, String> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            guard case .string(let s) = v else { throw c.error(name, v, "a string") }
            p[keyPath: kp] = s
        })
    }

    /// `""` means unset for optional strings.
    static func optString(_ kp: any WritableKeyPath<IosManagedAppProtection, String?> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            guard case .string(let s) = v else { throw c.error(name, v, "a string") }
            p[keyPath: kp] = s.isEmpty ? nil : s
        })
    }

    static func strings(_ kp: any WritableKeyPath<IosManagedAppProtection, [String]> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            guard case .array(let items) = v else { throw c.error(name, v, "an array of strings") }
            var out: [String] = []
            for item in items {
                guard case .string(let s) = item else { throw c.error(name, v, "an array of strings") }
                out.append(s)
            }
            p[keyPath: kp] = out
        })
    }

    static func allowed<E: GraphEnum>(_: E.Type) -> String {
        "one of " + E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    }

    static func parseEnum<E: GraphEnum>(_ v: GraphValue, _: E.Type) -> E? {
        guard case .string(let s) = v else { return nil }
        if let e = E(rawValue: s) { return e }
        let folded = s.lowercased()
        return E.allCases.first { $0.rawValue.lowercased() == folded }
    }

    static func enumeration<E: GraphEnum>(_ kp: any WritableKeyPath<IosManagedAppProtection, E> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            guard let e = parseEnum(v, E.self) else { throw c.error(name, v, allowed(E.self)) }
            p[keyPath: kp] = e
        })
    }

    static func optEnumeration<E: GraphEnum>(_ kp: any WritableKeyPath<IosManagedAppProtection, E?> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            if case .string(let s) = v, s.isEmpty { p[keyPath: kp] = nil; return }
            guard let e = parseEnum(v, E.self) else { throw c.error(name, v, allowed(E.self)) }
            p[keyPath: kp] = e
        })
    }

    static func enumList<E: GraphEnum>(_ kp: any WritableKeyPath<IosManagedAppProtection, [E]> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            guard case .array(let items) = v else { throw c.error(name, v, "an array of " + allowed(E.self)) }
            var out: [E] = []
            for item in items {
                guard let e = parseEnum(item, E.self) else {
                    throw c.error(name, item, "an array of " + allowed(E.self))
                }
                if !out.contains(e) { out.append(e) }
            }
            p[keyPath: kp] = out
        })
    }

    static func duration(_ kp: any WritableKeyPath<IosManagedAppProtection, ISODuration> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            guard case .string(let s) = v, let d = ISODuration(s) else {
                throw c.error(name, v, "an ISO-8601 duration such as \"PT12H\" or \"P90D\"")
            }
            p[keyPath: kp] = d
        })
    }

    static func optDuration(_ kp: any WritableKeyPath<IosManagedAppProtection, ISODuration?> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            if case .string(let s) = v, s.isEmpty { p[keyPath: kp] = nil; return }
            guard case .string(let s) = v, let d = ISODuration(s) else {
                throw c.error(name, v, "an ISO-8601 duration such as \"PT12H\" or \"P90D\"")
            }
            p[keyPath: kp] = d
        })
    }

    /// Versions are strings in Graph; documentation samples hold placeholders such as
    /// "Minimum Required Os Version value", which cannot be enforced: warn and leave unset.
    static func version(_ kp: any WritableKeyPath<IosManagedAppProtection, Version?> & Sendable, _ name: String) -> (String, Setter) {
        (name, { p, v, c in
            guard case .string(let s) = v else { throw c.error(name, v, "a version string such as \"14.8\"") }
            if s.isEmpty { p[keyPath: kp] = nil; return }
            guard let version = Version(s) else {
                c.warn(name, "property \"\(name)\" is not a version number (\(v.description)); the check is not enforced")
                p[keyPath: kp] = nil
                return
            }
            p[keyPath: kp] = version
        })
    }

    static let exemptedAppProtocols: (String, Setter) = ("exemptedAppProtocols", { p, v, c in
        let expected = "an array of {\"name\": ..., \"value\": \"scheme;scheme\"} objects"
        guard case .array(let items) = v else { throw c.error("exemptedAppProtocols", v, expected) }
        var pairs: [KeyValuePair] = []
        for item in items {
            guard case .object(let o) = item, case .string(let value)? = o["value"] else {
                throw c.error("exemptedAppProtocols", item, expected)
            }
            var name = ""
            if case .string(let n)? = o["name"] { name = n }
            pairs.append(KeyValuePair(name: name, value: value))
        }
        p.exemptedAppProtocols = pairs
    })

    /// `apps`: our targeted bundle id list (strings), or Graph's expanded `managedMobileApp`
    /// objects (`{"mobileAppIdentifier": {"bundleId": ...}}`).
    static let apps: (String, Setter) = ("apps", { p, v, c in
        let expected = "an array of bundle ids or of managedMobileApp objects with mobileAppIdentifier.bundleId"
        guard case .array(let items) = v else { throw c.error("apps", v, expected) }
        var ids: [BundleID] = []
        for item in items {
            switch item {
            case .string(let s) where !s.isEmpty:
                ids.append(BundleID(s))
            case .object(let o):
                if case .object(let ident)? = o["mobileAppIdentifier"], case .string(let b)? = ident["bundleId"] {
                    ids.append(BundleID(b))
                } else if case .object(let ident)? = o["mobileAppIdentifier"], case .string(let pkg)? = ident["packageId"] {
                    c.warn("apps", "apps entry for Android package \"\(pkg)\" ignored in an iOS policy")
                } else {
                    throw c.error("apps", item, expected)
                }
            default:
                throw c.error("apps", item, expected)
            }
        }
        p.apps = ids
    })
}
