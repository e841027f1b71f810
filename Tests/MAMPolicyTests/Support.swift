import MAMModel
import MAMPolicy
import Testing

/// Shared parties of the tests: the managed test account, an unmanaged one, and the apps of
/// the seeds' set-ups (your multi-identity app, another managed app, an unmanaged app).
enum World {
    static let alice = Account(upn: "alice@contoso.com", oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10", tenant: "contoso.onmicrosoft.com")
    static let bob = Account(upn: "bob@outlook.com", oid: "9F1D2C3B-0000-4000-8000-00000000B0B0")
    static let carol = Account(upn: "carol@fabrikam.com", oid: "c0c0c0c0-1111-4222-8333-444455556666")

    /// Your app: multi-identity, SDK-integrated.
    static let mine: BundleID = "com.contoso.Mail"
    /// Another managed app (like Outlook), signed in only with the managed account.
    static let outlook: BundleID = "com.microsoft.Office.Outlook"
    static let word: BundleID = "com.microsoft.Office.Word"
    /// A plain app without the SDK.
    static let notes: BundleID = "com.example.notes"
    static let wordOpenIn: BundleID = "com.microsoft.Office.Word.OpenIn"
    static let skypeLike: BundleID = "com.skype.skype"

    /// The seeds' policy: send and receive org data with policy-managed apps only.
    static func strictPolicy() -> IosManagedAppProtection {
        var p = IosManagedAppProtection(displayName: "Contoso strict")
        p.allowedOutboundDataTransferDestinations = .managedApps
        p.allowedInboundDataTransferSources = .managedApps
        return p
    }

    static func fleet(policy: IosManagedAppProtection = strictPolicy(), device: DeviceFacts = DeviceFacts()) -> Fleet {
        var f = Fleet(device: device)
        f.add(alice, policy: policy)
        f.add(bob)
        f.add(carol)
        f.install(AppDescriptor(bundleID: mine, multiIdentity: true, urlSchemes: ["contoso-mail"],
                                keychainAccessGroups: ["com.contoso.Mail", "com.microsoft.intune.mam"], appGroups: ["group.com.contoso"]))
        f.install(AppDescriptor(bundleID: outlook, urlSchemes: ["ms-outlook"]))
        f.install(AppDescriptor(bundleID: word, urlSchemes: ["ms-word"]))
        f.install(AppDescriptor(bundleID: notes, sdkIntegrated: false, urlSchemes: ["notes"]))
        f.install(AppDescriptor(bundleID: skypeLike, sdkIntegrated: false, urlSchemes: ["Skype"]))
        f.install(AppDescriptor(bundleID: wordOpenIn, kind: .action, containingApp: word, openInActionExtension: true))
        return f
    }
}

/// Where the copies of the shared policy fixtures are: `Tests/Fixtures/shared/fixtures/policies`.
enum Fixtures {
    static var policiesDirectory: String {
        // #filePath = <root>/Tests/MAMPolicyTests/Support.swift
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(2)  // Support.swift, MAMPolicyTests
        return parts.joined(separator: "/") + "/Fixtures/shared/fixtures/policies"
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        let path = policiesDirectory + "/" + name
        return try readFile(path)
    }

    static func policy(_ name: String) throws -> IosManagedAppProtection {
        let result = try GraphPolicyImporter.importPolicies(bytes(name), source: name)
        #expect(result.policies.count == 1)
        return try #require(result.policies.first)
    }
}

struct FixtureMissing: Error, CustomStringConvertible {
    let path: String
    var description: String { "cannot read fixture \(path)" }
}

/// Reads a whole file with the C library, so the tests need no Foundation.
func readFile(_ path: String) throws -> [UInt8] {
    guard let f = fopen(path, "rb") else { throw FixtureMissing(path: path) }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    return out
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `text` as UTF-16LE with a BOM and CRLF line ends, as Intune's PowerShell exports are.
func utf16LEWithBOMAndCRLF(_ text: String) -> [UInt8] {
    let crlf = text.replacingNewlines()
    var bytes: [UInt8] = [0xFF, 0xFE]
    for unit in crlf.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
    return bytes
}
