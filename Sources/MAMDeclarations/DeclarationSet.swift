import Crypto
import MAMActivation
public import Foundation
import X509

/// The declarations a device holds, with the bytes of their assets, validated as a whole:
/// every reference names a declared asset of the right type and every asset's data reads as
/// its type says (RULES.md §9, seed 004).
///
/// The device has no network: an asset's `https` `DataURL` is served from the file of that name
/// beside the declaration, and its `Size` and `Hash-SHA-256` are checked.
public struct DeclarationSet: Sendable {
    /// By `Identifier`.
    public private(set) var declarations: [String: Declaration] = [:]
    /// Asset data by asset `Identifier`.
    public private(set) var assetData: [String: [UInt8]] = [:]

    public init() {}

    /// A declaration and its asset's bytes, as read from files.
    public struct Entry: Sendable, Codable, Hashable {
        public let declaration: Declaration
        public let assetData: [UInt8]?

        public init(declaration: Declaration, assetData: [UInt8]?) {
            self.declaration = declaration
            self.assetData = assetData
        }
    }

    /// Every declaration with its asset data, to store the set.
    public var entries: [Entry] {
        declarations.values.sorted { $0.identifier < $1.identifier }.map { Entry(declaration: $0, assetData: assetData[$0.identifier]) }
    }

    /// What applying a batch noticed but accepted (unknown keys, types not simulated).
    public struct Note: Sendable, Hashable, CustomStringConvertible {
        public let file: String
        public let keyPath: String
        public let message: String
        public var description: String { keyPath.isEmpty ? "\(file): \(message)" : "\(file): \(keyPath): \(message)" }
    }

    // MARK: Reading

    /// Reads declaration files (`*.json`) and folders of them (sorted, recursively), with the
    /// asset files beside them. `displayBase` shortens paths in messages.
    public static func read(_ urls: [URL], displayBase: URL? = nil) throws(DeclarationError) -> ([Entry], [Note]) {
        var files: [URL] = []
        for url in urls {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else {
                throw DeclarationError(file: show(url, displayBase), keyPath: "", "does not exist; name a declaration file (JSON) or a folder of them")
            }
            if isDir.boolValue {
                let found = (FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
                    .filter { $0.pathExtension.lowercased() == "json" }
                    .sorted { $0.path < $1.path }
                if found.isEmpty {
                    throw DeclarationError(file: show(url, displayBase), keyPath: "", "holds no declaration (*.json) files")
                }
                // A file a declaration's DataURL names is that asset's data (a userpassword
                // credential is JSON too), not a declaration.
                let assets = Set(found.flatMap(assetFiles))
                files += found.filter { !assets.contains($0.standardizedFileURL.path) }
            } else {
                files.append(url)
            }
        }
        var entries: [Entry] = []
        var notes: [Note] = []
        for file in files {
            let (entry, n) = try readOne(file, shown: show(file, displayBase))
            entries.append(entry)
            notes += n
        }
        return (entries, notes)
    }

    /// The asset data file a declaration file names (`Payload.Reference.DataURL`, beside it),
    /// read leniently: a file that is not a declaration names none.
    static func assetFiles(of url: URL) -> [String] {
        guard let data = try? InputFile.contents(of: url, limit: 1 << 20),
              let top = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let payload = top["Payload"] as? [String: Any], let reference = payload["Reference"] as? [String: Any],
              let dataURL = reference["DataURL"] as? String, let name = URL(string: dataURL)?.lastPathComponent, !name.isEmpty, name != "/" else { return [] }
        return [url.deletingLastPathComponent().appendingPathComponent(name).standardizedFileURL.path]
    }

    static func show(_ url: URL, _ base: URL?) -> String {
        guard let base else { return url.path }
        let b = base.standardizedFileURL.path + "/"
        let p = url.standardizedFileURL.path
        return p.hasPrefix(b) ? String(p.dropFirst(b.count)) : p
    }

    static func readOne(_ url: URL, shown: String) throws(DeclarationError) -> (Entry, [Note]) {
        let data: Data
        // Bounded before it is parsed, as every input of mamsim is; the error names the limit.
        do { data = try InputFile.contents(of: url) } catch {
            throw DeclarationError(file: shown, keyPath: "", "cannot be read (\((error as? InputFile.TooLarge)?.description ?? error.localizedDescription))")
        }
        return try parse(data, at: url, shown: shown)
    }

    /// One declaration from its bytes; its asset (if any) is read beside `url`.
    public static func parse(_ data: Data, at url: URL, shown: String) throws(DeclarationError) -> (Entry, [Note]) {
        let root: DeclarationValue
        do { root = try JSONDecoder().decode(DeclarationValue.self, from: data) } catch {
            throw DeclarationError(file: shown, keyPath: "", "is not valid JSON (\(describe(error))); a declaration is a JSON object with Type, Identifier, ServerToken and Payload")
        }
        guard case .object(let top) = root else {
            throw DeclarationError(file: shown, keyPath: "", "holds \(root.kind); a declaration is a JSON object with Type, Identifier, ServerToken and Payload")
        }
        var notes: [Note] = []
        func required(_ key: String) throws(DeclarationError) -> String {
            guard let v = top[key] else { throw DeclarationError(file: shown, keyPath: key, "is missing; every declaration has Type, Identifier, ServerToken and Payload") }
            guard case .string(let s) = v, !s.isEmpty else { throw DeclarationError(file: shown, keyPath: key, "must be a non-empty string, but it is \(v.kind)") }
            return s
        }
        let type = try required("Type")
        let identifier = try required("Identifier")
        let token = try required("ServerToken")
        var payload: [String: DeclarationValue] = [:]
        if let p = top["Payload"] {
            guard case .object(let o) = p else { throw DeclarationError(file: shown, keyPath: "Payload", "must be a dictionary, but it is \(p.kind)") }
            payload = o
        } else if Schema.payloads[type] != nil {
            throw DeclarationError(file: shown, keyPath: "Payload", "is missing; a \(type) declaration needs one")
        }
        for key in top.keys.sorted() where !["Type", "Identifier", "ServerToken", "Payload"].contains(key) {
            notes.append(Note(file: shown, keyPath: key, message: "unknown top-level key ignored"))
        }
        let declaration = Declaration(type: type, identifier: identifier, serverToken: token, payload: payload, source: shown)
        guard let schema = Schema.payloads[type] else {
            notes.append(Note(file: shown, keyPath: "Type", message: "\(type) is not simulated by this device; the declaration is kept but has no effect"))
            return (Entry(declaration: declaration, assetData: nil), notes)
        }
        notes += try Schema.check(payload, against: schema, path: "Payload", file: shown)
        if type == DeclarationType.appManaged { try checkAppManaged(payload, file: shown) }
        var bytes: [UInt8]?
        if declaration.isAsset {
            bytes = try assetBytes(declaration, besides: url, shown: shown)
            try checkAssetContent(declaration, bytes!, shown: shown)
        }
        return (Entry(declaration: declaration, assetData: bytes), notes)
    }

    /// One and only one of `AppStoreID`, `BundleID`, `ManifestURL` (Apple's schema); the
    /// simulated device knows its apps by bundle id. `ExtensionConfigs` keys are
    /// `"<bundle id> (<team id>)"`.
    static func checkAppManaged(_ payload: [String: DeclarationValue], file: String) throws(DeclarationError) {
        let given = ["AppStoreID", "BundleID", "ManifestURL"].filter { payload[$0] != nil }
        guard given.count == 1 else {
            throw DeclarationError(file: file, keyPath: "Payload", given.isEmpty
                ? "names no app; give BundleID (one and only one of AppStoreID, BundleID, ManifestURL)"
                : "names the app \(given.count) ways (\(given.joined(separator: ", "))); keep one — BundleID for this device")
        }
        guard given[0] == "BundleID" else {
            throw DeclarationError(file: file, keyPath: "Payload.\(given[0])", "the simulated device knows its apps by bundle id; name the app with BundleID")
        }
        for key in (payload["ExtensionConfigs"]?.object ?? [:]).keys.sorted() {
            guard let open = key.lastIndex(of: "("), key.hasSuffix(")"), open > key.startIndex,
                  key[key.index(before: open)] == " ",
                  !key[key.index(after: open)..<key.index(before: key.endIndex)].isEmpty else {
                throw DeclarationError(file: file, keyPath: "Payload.ExtensionConfigs.\(key)", "keys are \"<extension bundle id> (<team id>)\", e.g. \"com.example.app.share (ABCDE12345)\"")
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let c) = error { return (c.underlyingError.map { "\($0)" }) ?? c.debugDescription }
        return "\(error)"
    }

    /// The asset's data: the file named by the last component of its `https` `DataURL`, beside
    /// the declaration; `Size` and `Hash-SHA-256` must match when given.
    static func assetBytes(_ d: Declaration, besides url: URL, shown: String) throws(DeclarationError) -> [UInt8] {
        let reference = d.payload["Reference"]?.object ?? [:]
        let dataURL = reference["DataURL"]?.string ?? ""
        guard dataURL.lowercased().hasPrefix("https://"), let parsed = URL(string: dataURL), !parsed.lastPathComponent.isEmpty,
              parsed.lastPathComponent != "/" else {
            throw DeclarationError(file: shown, keyPath: "Payload.Reference.DataURL", "must be an https:// URL ending in a file name, but it is \"\(dataURL)\"")
        }
        let name = parsed.lastPathComponent
        let file = url.deletingLastPathComponent().appendingPathComponent(name)
        let data: Data
        do { data = try InputFile.contents(of: file) } catch let tooLarge as InputFile.TooLarge {
            throw DeclarationError(file: shown, keyPath: "Payload.Reference.DataURL", tooLarge.description)
        } catch {
            throw DeclarationError(file: shown, keyPath: "Payload.Reference.DataURL", "the device has no network: put the asset's data in \(name) beside the declaration")
        }
        let bytes = Array(data)
        if case .number(let size)? = reference["Size"], Int(exactly: size) != bytes.count {
            throw DeclarationError(file: shown, keyPath: "Payload.Reference.Size", "says \(Int(exactly: size).map(String.init) ?? "\(size)") bytes, but \(name) has \(bytes.count); update Size (or the file)")
        }
        if case .string(let hash)? = reference["Hash-SHA-256"] {
            let actual = SHA256Digest.hex(bytes)
            guard hash.lowercased() == actual else {
                throw DeclarationError(file: shown, keyPath: "Payload.Reference.Hash-SHA-256", "does not match \(name) (its SHA-256 is \(actual)); update the hash (or the file)")
            }
        }
        return bytes
    }

    /// The asset's data must read as its type says, so a bad password or a damaged file is an
    /// error when the declaration arrives, not when an app first asks.
    static func checkAssetContent(_ d: Declaration, _ bytes: [UInt8], shown: String) throws(DeclarationError) {
        let path = "Payload.Reference.DataURL"
        switch d.type {
        case DeclarationType.data:
            // A configuration is a property list; other data assets are opaque.
            break
        case DeclarationType.userPassword:
            _ = try Credentials.userPassword(bytes, file: shown, path: path)
        case DeclarationType.certificate:
            _ = try Credentials.certificate(bytes, file: shown, path: path)
        case DeclarationType.identity:
            _ = try Credentials.identity(bytes, file: shown, path: path)
        case DeclarationType.scep, DeclarationType.acme:
            _ = try Credentials.enrollment(bytes, type: d.type, file: shown, path: path)
        default:
            break
        }
    }

    // MARK: Applying

    /// The set with `entries` added (an `Identifier` already held is replaced), checked as a
    /// whole. Throws without changing anything when a reference is broken.
    public func applying(_ entries: [Entry]) throws(DeclarationError) -> DeclarationSet {
        var next = self
        for e in entries {
            next.declarations[e.declaration.identifier] = e.declaration
            if let data = e.assetData { next.assetData[e.declaration.identifier] = data } else { next.assetData[e.declaration.identifier] = nil }
        }
        try next.checkReferences()
        return next
    }

    /// The set without `identifier`; throws when a configuration still references it.
    public func removing(_ identifier: String) throws(DeclarationError) -> DeclarationSet {
        guard declarations[identifier] != nil else {
            let known = declarations.keys.sorted()
            throw DeclarationError(file: identifier, keyPath: "", "no declaration has this Identifier; the device holds \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }
        var next = self
        next.declarations[identifier] = nil
        next.assetData[identifier] = nil
        try next.checkReferences()
        return next
    }

    /// Every asset reference of every app configuration names a declared asset of a type it
    /// accepts.
    func checkReferences() throws(DeclarationError) {
        for d in declarations.values.sorted(by: { $0.identifier < $1.identifier }) where d.type == DeclarationType.appManaged {
            if let config = d.payload["AppConfig"]?.object { try checkAppConfig(config, in: d, path: "Payload.AppConfig") }
            for (key, value) in (d.payload["ExtensionConfigs"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let config = value.object { try checkAppConfig(config, in: d, path: "Payload.ExtensionConfigs.\(key)") }
            }
            if let legacy = d.payload["LegacyAppConfigAssetReference"]?.string {
                try checkReference(legacy, types: [DeclarationType.data], in: d, path: "Payload.LegacyAppConfigAssetReference")
            }
        }
    }

    func checkAppConfig(_ config: [String: DeclarationValue], in d: Declaration, path: String) throws(DeclarationError) {
        if let ref = config["DataAssetReference"]?.string {
            // Data that is not a property list is accepted, as a device would: the app then
            // gets no configuration and the admin log says why.
            try checkReference(ref, types: [DeclarationType.data], in: d, path: "\(path).DataAssetReference")
        }
        let kinds: [(String, [String])] = [("Passwords", [DeclarationType.userPassword]), ("Certificates", [DeclarationType.certificate]),
                                           ("Identities", [DeclarationType.identity, DeclarationType.scep, DeclarationType.acme])]
        for (key, types) in kinds {
            var seen: Set<String> = []
            for (i, item) in (config[key]?.array ?? []).enumerated() {
                let o = item.object ?? [:]
                let id = o["Identifier"]?.string ?? ""
                guard seen.insert(id).inserted else {
                    throw DeclarationError(file: d.source, keyPath: "\(path).\(key)[\(i)].Identifier", "\"\(id)\" is used twice in \(key); each secret needs its own identifier")
                }
                try checkReference(o["AssetReference"]?.string ?? "", types: types, in: d, path: "\(path).\(key)[\(i)].AssetReference")
            }
        }
    }

    func checkReference(_ ref: String, types: [String], in d: Declaration, path: String) throws(DeclarationError) {
        guard let asset = declarations[ref] else {
            throw DeclarationError(file: d.source, keyPath: path, "names \"\(ref)\", which no declaration of this batch or of the device has; apply the asset declaration with it")
        }
        guard types.contains(asset.type) else {
            throw DeclarationError(file: d.source, keyPath: path, "names \"\(ref)\", a \(asset.type) declaration; it must be \(types.joined(separator: " or "))")
        }
    }
}

/// The declaration types this device understands.
public enum DeclarationType {
    public static let appManaged = "com.apple.configuration.app.managed"
    public static let data = "com.apple.asset.data"
    public static let userPassword = "com.apple.asset.credential.userpassword"
    public static let certificate = "com.apple.asset.credential.certificate"
    public static let identity = "com.apple.asset.credential.identity"
    public static let scep = "com.apple.asset.credential.scep"
    public static let acme = "com.apple.asset.credential.acme"
}

/// SHA-256 as lowercase hex, as `Hash-SHA-256` and certificate fingerprints are written.
public enum SHA256Digest {
    public static func hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
