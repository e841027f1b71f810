/// One Uniform Type Identifier as declared: its direct parents, filename extensions and MIME types.
///
/// Declarations come from the embedded system table (`uti-hierarchy.tsv`) or from a plugin's
/// `UTExportedTypeDeclarations` / `UTImportedTypeDeclarations`.
public struct UTTypeDeclaration: Sendable, Hashable {
    public var identifier: String
    /// Direct parents (`UTTypeConformsTo`), in declaration order.
    public var conformsTo: [String]
    /// Lowercased, without the dot (`public.filename-extension`).
    public var filenameExtensions: [String]
    public var mimeTypes: [String]

    public init(identifier: String, conformsTo: [String] = [], filenameExtensions: [String] = [], mimeTypes: [String] = []) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions.map { $0.lowercased() }
        self.mimeTypes = mimeTypes
    }
}

/// The UTI conformance tree the host uses to evaluate activation rules.
///
/// Identifiers compare case-insensitively (Apple: "UTIs are case-insensitive"), so every lookup
/// folds case; declarations keep their spelling for display. Conformance is reflexive and
/// transitive over `conformsTo`. An undeclared identifier conforms only to itself, with one
/// exception for Intune's renamed types (see `conforms(_:to:)`).
public struct UTIRegistry: Sendable {
    /// Prefix Intune puts in front of every type of managed data (`com.microsoft.intune.mam.public.jpeg`).
    public static let intunePrefix = "com.microsoft.intune.mam."

    private var declarations: [String: UTTypeDeclaration] = [:]
    /// Folded extension -> identifiers in declaration order (the first is the preferred one).
    private var byExtension: [String: [String]] = [:]

    /// The 80 system types of `uti-hierarchy.tsv`, embedded in the module.
    public static let system: UTIRegistry = {
        do { return try UTIRegistry(tsv: embeddedUTIHierarchyTSV) } catch {
            preconditionFailure("the embedded UTI table is malformed: \(error)")
        }
    }()

    /// An empty tree; `conforms` is then identity only.
    public init() {}

    /// Reads the fixture format: a header line, then `uti<TAB>parents<TAB>extensions<TAB>mime_types`
    /// with comma-separated lists. A parents column that starts with `(` is a note, not a list.
    public init(tsv: String) throws {
        let lines = tsv.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, rawLine) in lines.enumerated() where index > 0 {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if line.trimmingWhitespace.isEmpty { continue }
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let identifier = columns.first, !identifier.isEmpty, !identifier.contains(" ") else {
                throw UTIRegistryError(line: index + 1, message: "expected a type identifier in the first column, found \"\(line)\"")
            }
            func list(_ column: Int) -> [String] {
                guard column < columns.count, !columns[column].hasPrefix("(") else { return [] }
                return columns[column].split(separator: ",").map { String($0).trimmingWhitespace }.filter { !$0.isEmpty }
            }
            declare(UTTypeDeclaration(identifier: identifier, conformsTo: list(1), filenameExtensions: list(2), mimeTypes: list(3)))
        }
    }

    /// Every declared identifier, in no particular order.
    public var identifiers: [String] { declarations.values.map(\.identifier) }

    public func declaration(for identifier: String) -> UTTypeDeclaration? {
        declarations[identifier.lowercased()]
    }

    /// Adds or replaces a declaration (an exported declaration is authoritative for its type).
    public mutating func declare(_ declaration: UTTypeDeclaration) {
        let key = declaration.identifier.lowercased()
        if let old = declarations[key] {
            for ext in old.filenameExtensions { byExtension[ext]?.removeAll { $0.lowercased() == key } }
        }
        declarations[key] = declaration
        for ext in declaration.filenameExtensions { byExtension[ext, default: []].append(declaration.identifier) }
    }

    /// Our reading of Apple's rule for imported declarations: they describe a type owned by
    /// someone else, so a declaration already known (system or exported) wins.
    public mutating func declareImported(_ declaration: UTTypeDeclaration) {
        if self.declaration(for: declaration.identifier) == nil { declare(declaration) }
    }

    /// This tree plus the types a plugin declares in its Info.plist
    /// (`UTExportedTypeDeclarations` first, then `UTImportedTypeDeclarations`).
    public func adding(declarationsFrom infoPlist: [String: Any]) -> UTIRegistry {
        var copy = self
        func read(_ key: String) -> [UTTypeDeclaration] {
            guard let entries = infoPlist[key] as? [Any] else { return [] }
            return entries.compactMap { entry in
                guard let dict = entry as? [String: Any], let id = dict["UTTypeIdentifier"] as? String else { return nil }
                let tags = dict["UTTypeTagSpecification"] as? [String: Any] ?? [:]
                return UTTypeDeclaration(
                    identifier: id,
                    conformsTo: Self.stringList(dict["UTTypeConformsTo"]),
                    filenameExtensions: Self.stringList(tags["public.filename-extension"]),
                    mimeTypes: Self.stringList(tags["public.mime-type"]))
            }
        }
        for declaration in read("UTExportedTypeDeclarations") { copy.declare(declaration) }
        for declaration in read("UTImportedTypeDeclarations") { copy.declareImported(declaration) }
        return copy
    }

    /// Info.plist lets a single string stand for a one-element array.
    private static func stringList(_ value: Any?) -> [String] {
        if let string = value as? String { return [string] }
        return (value as? [Any])?.compactMap { $0 as? String } ?? []
    }

    /// True when `type` is `other` or descends from it.
    ///
    /// Our reading for undeclared `com.microsoft.intune.mam.T`: Intune renames managed data's
    /// types so that extensions which did not opt in stop matching them. We therefore let
    /// `com.microsoft.intune.mam.T` conform to what T conforms to *under the same prefix*
    /// (`…mam.public.jpeg` conforms to `…mam.public.image` and `…mam.public.data`) and not to the
    /// unprefixed types: were it to conform to `public.data`, every unconfigured `public.data`
    /// rule would accept managed data and Intune's filtering would be void. A declared prefixed
    /// type follows its declaration.
    public func conforms(_ type: String, to other: String) -> Bool {
        let from = type.lowercased(), to = other.lowercased()
        if from == to { return true }
        let prefix = Self.intunePrefix
        if declarations[from] == nil, from.hasPrefix(prefix) {
            guard to.hasPrefix(prefix) else { return false }
            return conforms(String(from.dropFirst(prefix.count)), to: String(to.dropFirst(prefix.count)))
        }
        return ancestors(ofFolded: from).contains(to)
    }

    /// The folded identifiers `type` conforms to, itself included.
    public func supertypes(of type: String) -> Set<String> {
        ancestors(ofFolded: type.lowercased())
    }

    private func ancestors(ofFolded start: String) -> Set<String> {
        var seen: Set<String> = [start]
        var queue = [start]
        while let next = queue.popLast() {
            for parent in declarations[next]?.conformsTo ?? [] {
                let folded = parent.lowercased()
                if seen.insert(folded).inserted { queue.append(folded) }
            }
        }
        return seen
    }

    /// The types declaring this filename extension (with or without the leading dot), preferred first.
    public func types(forFilenameExtension ext: String) -> [String] {
        let folded = (ext.hasPrefix(".") ? String(ext.dropFirst()) : ext).lowercased()
        return byExtension[folded] ?? []
    }

    /// The preferred type for a filename extension, e.g. `pdf` -> `com.adobe.pdf`.
    public func preferredType(forFilenameExtension ext: String) -> String? {
        types(forFilenameExtension: ext).first
    }

    /// The type identifier with Intune's prefix (unchanged when it already has it).
    public static func intuneTwin(of type: String) -> String {
        isIntuneType(type) ? type : intunePrefix + type
    }

    public static func isIntuneType(_ type: String) -> Bool {
        type.lowercased().hasPrefix(intunePrefix)
    }
}

/// A line of the UTI table that cannot be read.
public struct UTIRegistryError: Error, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "UTI table line \(line): \(message)" }
}

extension StringProtocol {
    package var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
