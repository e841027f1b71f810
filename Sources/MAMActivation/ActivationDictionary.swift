/// The dictionary form of `NSExtensionActivationRule` (`NSExtensionActivationSupportsImageWithMaxCount` …).
///
/// Apple documents each key in a sentence and leaves the matching open; our reading, which
/// `evaluate` and `equivalentPredicate` share so the configurator's conversion is faithful:
///
/// - Each attachment is sorted into kinds by its registered types (conformance, not equality):
///   **image** ⊒ `public.image`; **movie** ⊒ `public.movie`; **text** ⊒ `public.text` and not a
///   file URL; **web URL** ⊒ `public.url` and not ⊒ `public.file-url`; **web page** ⊒
///   `com.apple.active-webpage`; **file** ⊒ `public.file-url`, or ⊒ `public.data`/`public.content`
///   without being a URL or text ("all types of files", so an image is also a file).
/// - A key *supports* its kind when present with a count > 0 (`SupportsText` when true); an
///   explicit 0 or `<false/>` is the same as leaving the key out.
/// - Version 1 (no `NSExtensionActivationDictionaryVersion`): an attachment counts against every
///   supported key it matches, so an image counts against both the image and the file limit.
///   Version 2: the file key takes an attachment only when no more specific supported key
///   (image, movie, text, web URL, web page) matches it.
/// - Strict matching (the default for version 1, or `NSExtensionActivationUsesStrictMatching`
///   true) needs every attachment to be taken by some key; fuzzy matching (the default for
///   version 2) needs at least one. Either way every key's max count must hold, the total must
///   be within `…AttachmentsWithMax/MinCount`, and a share with no attachment activates nothing.
public struct ActivationDictionary: Sendable, Hashable {
    public var version: Int = 1
    /// `NSExtensionActivationUsesStrictMatching` as written; `nil` = the version's default.
    public var usesStrictMatching: Bool?
    public var attachmentsMaxCount: Int?
    public var attachmentsMinCount: Int?
    public var fileMaxCount: Int?
    public var imageMaxCount: Int?
    public var movieMaxCount: Int?
    public var webURLMaxCount: Int?
    public var webPageMaxCount: Int?
    public var supportsText: Bool = false
    /// Things accepted but worth a lint warning (`<integer>1` for a boolean, unknown keys).
    public var notes: [String] = []

    public init() {}

    public var isStrict: Bool { usesStrictMatching ?? (version < 2) }

    /// The kinds of attachment the dictionary keys speak of, most specific first.
    public enum Kind: String, Sendable, CaseIterable {
        case image, movie, text, webURL = "web URL", webPage = "web page", file

        /// `1 image`, `2 web URLs`.
        func counted(_ n: Int) -> String { "\(n) \(rawValue)\(n == 1 ? "" : "s")" }
    }

    /// Max count per supported kind (`Int.max` for text, which has no count).
    public var supportedKinds: [(kind: Kind, max: Int)] {
        var kinds: [(Kind, Int)] = []
        func add(_ kind: Kind, _ max: Int?) { if let max, max > 0 { kinds.append((kind, max)) } }
        add(.image, imageMaxCount)
        add(.movie, movieMaxCount)
        if supportsText { kinds.append((.text, Int.max)) }
        add(.webURL, webURLMaxCount)
        add(.webPage, webPageMaxCount)
        add(.file, fileMaxCount)
        return kinds
    }

    // MARK: Reading

    package static let keyPrefix = "NSExtensionActivation"
    static let knownKeys: Set<String> = [
        "NSExtensionActivationDictionaryVersion", "NSExtensionActivationUsesStrictMatching",
        "NSExtensionActivationSupportsAttachmentsWithMaxCount", "NSExtensionActivationSupportsAttachmentsWithMinCount",
        "NSExtensionActivationSupportsFileWithMaxCount", "NSExtensionActivationSupportsImageWithMaxCount",
        "NSExtensionActivationSupportsMovieWithMaxCount", "NSExtensionActivationSupportsWebURLWithMaxCount",
        "NSExtensionActivationSupportsWebPageWithMaxCount", "NSExtensionActivationSupportsText",
    ]

    /// Reads the rule dictionary. `source` names the plist and key path for errors.
    public init(plist: [String: Any], source: String) throws(ExtensionPlistError) {
        func count(_ key: String) throws(ExtensionPlistError) -> Int? {
            guard let raw = plist[key] else { return nil }
            switch PlistValue(raw) {
            case .integer(let n) where n >= 0: return n
            case .string(let s) where Int(s.trimmingWhitespace).map { $0 >= 0 } == true:
                notes.append("\(key) is the string \"\(s)\"; use <integer>")
                return Int(s.trimmingWhitespace)
            default:
                throw ExtensionPlistError(source: source, keyPath: key, message: "expected a non-negative <integer>, found \(PlistValue(raw).kindDescription)")
            }
        }
        func flag(_ key: String) throws(ExtensionPlistError) -> Bool? {
            guard let raw = plist[key] else { return nil }
            switch PlistValue(raw) {
            case .boolean(let b): return b
            case .integer(let n) where n == 0 || n == 1:
                notes.append("\(key) is <integer>\(n)</integer>; accepted as <\(n == 1 ? "true" : "false")/>")
                return n == 1
            case .string(let s) where ["yes", "true", "1", "no", "false", "0"].contains(s.lowercased()):
                notes.append("\(key) is the string \"\(s)\"; use <true/> or <false/>")
                return ["yes", "true", "1"].contains(s.lowercased())
            default:
                throw ExtensionPlistError(source: source, keyPath: key, message: "expected <true/> or <false/>, found \(PlistValue(raw).kindDescription)")
            }
        }
        let p = Self.keyPrefix
        version = try count(p + "DictionaryVersion") ?? 1
        guard version == 1 || version == 2 else {
            throw ExtensionPlistError(source: source, keyPath: p + "DictionaryVersion", message: "expected 1 or 2, found \(version)")
        }
        usesStrictMatching = try flag(p + "UsesStrictMatching")
        attachmentsMaxCount = try count(p + "SupportsAttachmentsWithMaxCount")
        attachmentsMinCount = try count(p + "SupportsAttachmentsWithMinCount")
        fileMaxCount = try count(p + "SupportsFileWithMaxCount")
        imageMaxCount = try count(p + "SupportsImageWithMaxCount")
        movieMaxCount = try count(p + "SupportsMovieWithMaxCount")
        webURLMaxCount = try count(p + "SupportsWebURLWithMaxCount")
        webPageMaxCount = try count(p + "SupportsWebPageWithMaxCount")
        supportsText = try flag(p + "SupportsText") ?? false
        for key in plist.keys.sorted() where !Self.knownKeys.contains(key) {
            notes.append("unknown key \(key) in the activation rule dictionary is ignored")
        }
    }

    // MARK: Matching

    private static func conformsAny(_ a: Attachment, _ type: String, _ types: UTIRegistry) -> Bool {
        a.registeredTypeIdentifiers.contains { types.conforms($0, to: type) }
    }

    /// Whether the attachment is of this kind (before any version-2 precedence).
    public static func attachment(_ a: Attachment, isA kind: Kind, types: UTIRegistry = .system) -> Bool {
        let fileURL = conformsAny(a, "public.file-url", types)
        switch kind {
        case .image: return conformsAny(a, "public.image", types)
        case .movie: return conformsAny(a, "public.movie", types)
        case .text: return conformsAny(a, "public.text", types) && !fileURL
        case .webURL: return conformsAny(a, "public.url", types) && !fileURL
        case .webPage: return conformsAny(a, "com.apple.active-webpage", types)
        case .file:
            return fileURL || ((conformsAny(a, "public.data", types) || conformsAny(a, "public.content", types))
                && !conformsAny(a, "public.url", types) && !conformsAny(a, "public.text", types))
        }
    }

    /// The supported kinds an attachment counts against.
    func counted(_ a: Attachment, types: UTIRegistry) -> [Kind] {
        let matched = supportedKinds.map(\.kind).filter { Self.attachment(a, isA: $0, types: types) }
        if version >= 2, matched.contains(.file), matched.count > 1 { return matched.filter { $0 != .file } }
        return matched
    }

    public func evaluate(_ share: ShareInput, types: UTIRegistry = .system) -> ActivationResult {
        let attachments = share.allAttachments
        let total = attachments.count
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        if supportedKinds.isEmpty {
            return .notActivated(because: "rule supports no kind of attachment (every count is absent or 0 and text is not supported)")
        }
        if total == 0 { return .notActivated(because: "rule requires at least 1 attachment; got 0") }
        let minimum = attachmentsMinCount ?? 1
        if total < minimum { return .notActivated(because: "rule requires at least \(plural(minimum, "attachment")); got \(total)") }
        if let maximum = attachmentsMaxCount, total > maximum {
            return .notActivated(because: "rule accepts at most \(plural(maximum, "attachment")) in all; got \(total)")
        }
        var perKind: [Kind: Int] = [:]
        var rejected: [Attachment] = []
        for a in attachments {
            let kinds = counted(a, types: types)
            if kinds.isEmpty { rejected.append(a) }
            for kind in kinds { perKind[kind, default: 0] += 1 }
        }
        for (kind, max) in supportedKinds where max != Int.max {
            let got = perKind[kind] ?? 0
            if got > max { return .notActivated(because: "rule accepts at most \(kind.counted(max)); got \(got)") }
        }
        let supported = supportedKinds.map(\.kind.rawValue).joined(separator: ", ")
        if isStrict, let first = rejected.first {
            return .notActivated(because: "rule (strict matching) needs every attachment to match a key; attachment \(first) is none of: \(supported)")
        }
        if !isStrict, rejected.count == total {
            return .notActivated(because: "rule (fuzzy matching) needs at least 1 attachment matching a key (\(supported)); got 0 of \(total)")
        }
        let counts = supportedKinds.compactMap { k -> String? in
            guard let n = perKind[k.kind] else { return nil }
            return k.max == Int.max ? k.kind.counted(n) : "\(k.kind.counted(n)) of at most \(k.max)"
        }.joined(separator: ", ")
        return .activated(because: "rule (\(isStrict ? "strict" : "fuzzy") matching, version \(version)) accepts \(counts)")
    }

    // MARK: As a predicate

    /// The kind test on `$attachment`, as predicate text would write it.
    static func predicate(for kind: Kind) -> ActivationPredicate {
        let conforms = { (t: String) in ActivationPredicate.attachmentConforms(to: t) }
        let notFileURL = ActivationPredicate.not(conforms("public.file-url"))
        switch kind {
        case .image: return conforms("public.image")
        case .movie: return conforms("public.movie")
        case .text: return .allOf([conforms("public.text"), notFileURL])
        case .webURL: return .allOf([conforms("public.url"), notFileURL])
        case .webPage: return conforms("com.apple.active-webpage")
        case .file:
            return .anyOf([
                conforms("public.file-url"),
                .allOf([.anyOf([conforms("public.data"), conforms("public.content")]),
                        .not(conforms("public.url")), .not(conforms("public.text"))]),
            ])
        }
    }

    /// The predicate string equivalent to this dictionary for a share of one extension item
    /// (what the share sheet sends). Dictionary limits count attachments across all extension
    /// items, which NSPredicate cannot sum, so the predicate also requires exactly one item.
    public var equivalentPredicate: ActivationPredicate {
        let kinds = supportedKinds
        if kinds.isEmpty { return .constant(false) }
        let attachments = ActivationPredicate.Expression.path("$extensionItem.attachments")
        let total = ActivationPredicate.Expression.key(attachments, "@count")
        func count(_ body: ActivationPredicate) -> ActivationPredicate.Expression {
            .key(.subquery(collection: attachments, variable: "attachment", predicate: body), "@count")
        }
        func cmp(_ l: ActivationPredicate.Expression, _ op: ActivationPredicate.Operator, _ r: ActivationPredicate.Expression) -> ActivationPredicate {
            .comparison(.init(.direct, l, op, r))
        }
        let specific = kinds.map(\.kind).filter { $0 != .file }
        func countedTest(_ kind: Kind) -> ActivationPredicate {
            if kind == .file, version >= 2, !specific.isEmpty {
                return .allOf([Self.predicate(for: .file), .not(.anyOf(specific.map(Self.predicate(for:))))])
            }
            return Self.predicate(for: kind)
        }
        var parts: [ActivationPredicate] = [cmp(total, .greaterOrEqual, .number(max(1, attachmentsMinCount ?? 1)))]
        if let maximum = attachmentsMaxCount { parts.append(cmp(total, .lessOrEqual, .number(maximum))) }
        let accepted = ActivationPredicate.anyOf(kinds.map { countedTest($0.kind) })
        parts.append(isStrict ? cmp(count(accepted), .equal, total) : cmp(count(accepted), .greaterOrEqual, .number(1)))
        for (kind, maximum) in kinds where maximum != Int.max {
            parts.append(cmp(count(countedTest(kind)), .lessOrEqual, .number(maximum)))
        }
        let perItem = ActivationPredicate.Expression.subquery(collection: .path("extensionItems"), variable: "extensionItem", predicate: .allOf(parts))
        return .allOf([
            cmp(.path("extensionItems.@count"), .equal, .number(1)),
            cmp(.key(perItem, "@count"), .equal, .number(1)),
        ])
    }
}
