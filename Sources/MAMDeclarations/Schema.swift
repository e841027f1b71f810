/// The payload keys of the declaration types the device simulates, as Apple's
/// device-management schema states them (`declarative/declarations/`): type, presence, allowed
/// values. A key of the wrong type or a missing required key is an error naming its path; an
/// unknown key is a note (a newer OS may know it).
enum Schema {
    indirect enum Kind: Sendable {
        case string(allowed: [String]?)
        case integer
        case boolean
        case data
        /// A dictionary with these keys.
        case dictionary([Key])
        /// A dictionary whose keys are free (e.g. `ExtensionConfigs`), each value of this kind.
        case map(Kind)
        /// A dictionary not checked further (keys the device does not act on).
        case anyDictionary
        case array(Kind)

        var word: String {
            switch self {
            case .string: "a string"
            case .integer: "an integer"
            case .boolean: "a boolean"
            case .data: "base64 data"
            case .dictionary, .map, .anyDictionary: "a dictionary"
            case .array: "an array"
            }
        }
    }

    struct Key: Sendable {
        let name: String
        let kind: Kind
        let required: Bool
        init(_ name: String, _ kind: Kind, required: Bool = false) {
            self.name = name
            self.kind = kind
            self.required = required
        }
    }

    static let reference = Key("Reference", .dictionary([
        Key("DataURL", .string(allowed: nil), required: true), Key("ContentType", .string(allowed: nil)),
        Key("Size", .integer), Key("Hash-SHA-256", .string(allowed: nil)),
    ]), required: true)
    static let authentication = Key("Authentication", .dictionary([Key("Type", .string(allowed: ["MDM", "None"]), required: true)]))
    static let accessible = Key("Accessible", .string(allowed: ["Default", "AfterFirstUnlock"]))

    static let secretList = Kind.array(.dictionary([
        Key("Identifier", .string(allowed: nil), required: true), Key("AssetReference", .string(allowed: nil), required: true),
    ]))
    static let appConfig = Kind.dictionary([
        Key("DataAssetReference", .string(allowed: nil)), Key("Passwords", secretList),
        Key("Identities", secretList), Key("Certificates", secretList),
    ])

    static let payloads: [String: [Key]] = [
        DeclarationType.appManaged: [
            Key("AppStoreID", .string(allowed: nil)), Key("BundleID", .string(allowed: nil)), Key("ManifestURL", .string(allowed: nil)),
            Key("InstallBehavior", .anyDictionary), Key("IncludeInBackup", .boolean), Key("Attributes", .anyDictionary),
            Key("AppConfig", appConfig), Key("ExtensionConfigs", .map(appConfig)),
            Key("LegacyAppConfigAssetReference", .string(allowed: nil)),
        ],
        DeclarationType.data: [reference, authentication],
        DeclarationType.userPassword: [reference, authentication],
        DeclarationType.certificate: [reference, authentication],
        DeclarationType.identity: [reference, authentication, accessible],
        DeclarationType.scep: [reference, authentication, accessible],
        DeclarationType.acme: [reference, authentication, accessible],
    ]

    static func check(_ payload: [String: DeclarationValue], against keys: [Key], path: String, file: String) throws(DeclarationError) -> [DeclarationSet.Note] {
        var notes: [DeclarationSet.Note] = []
        try checkDictionary(payload, keys, path: path, file: file, notes: &notes)
        return notes
    }

    static func checkDictionary(_ dict: [String: DeclarationValue], _ keys: [Key], path: String, file: String,
                                notes: inout [DeclarationSet.Note]) throws(DeclarationError) {
        for key in keys where key.required && dict[key.name] == nil {
            throw DeclarationError(file: file, keyPath: "\(path).\(key.name)", "is missing; it is required (\(key.kind.word))")
        }
        for name in dict.keys.sorted() {
            guard let key = keys.first(where: { $0.name == name }) else {
                notes.append(DeclarationSet.Note(file: file, keyPath: "\(path).\(name)", message: "unknown key ignored"))
                continue
            }
            try checkValue(dict[name]!, key.kind, path: "\(path).\(name)", file: file, notes: &notes)
        }
    }

    static func checkValue(_ value: DeclarationValue, _ kind: Kind, path: String, file: String,
                           notes: inout [DeclarationSet.Note]) throws(DeclarationError) {
        func wrong() -> DeclarationError {
            DeclarationError(file: file, keyPath: path, "must be \(kind.word), but it is \(value.kind)")
        }
        switch (kind, value) {
        case (.string(let allowed), .string(let s)):
            if let allowed, !allowed.contains(s) {
                throw DeclarationError(file: file, keyPath: path, "is \"\(s)\"; it must be one of \(allowed.joined(separator: ", "))")
            }
        case (.integer, .number(let n)):
            guard Int64(exactly: n) != nil else { throw wrong() }
        case (.boolean, .bool), (.data, .string), (.anyDictionary, .object):
            break
        case (.dictionary(let keys), .object(let o)):
            try checkDictionary(o, keys, path: path, file: file, notes: &notes)
        case (.map(let inner), .object(let o)):
            for (k, v) in o.sorted(by: { $0.key < $1.key }) { try checkValue(v, inner, path: "\(path).\(k)", file: file, notes: &notes) }
        case (.array(let inner), .array(let items)):
            for (i, v) in items.enumerated() { try checkValue(v, inner, path: "\(path)[\(i)]", file: file, notes: &notes) }
        default:
            throw wrong()
        }
    }
}
