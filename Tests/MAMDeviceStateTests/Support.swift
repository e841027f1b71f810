import Foundation
import MAMModel
import MAMPolicy
import Testing
@testable import MAMDeviceState

/// The parties of seed 001's exit criteria: a managed test account (alice, with a policy), an
/// unmanaged one (bob), a second managed one (carol, another tenant's policy), your
/// multi-identity app, another managed single-identity app sharing an app group, an app
/// without the SDK and a share extension of your app.
enum World {
    static let alice = Account(upn: "alice@contoso.com", oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10", tenant: "contoso.onmicrosoft.com")
    static let bob = Account(upn: "bob@outlook.com", oid: "9F1D2C3B-0000-4000-8000-00000000B0B0")
    static let carol = Account(upn: "carol@fabrikam.com", oid: "c0c0c0c0-1111-4222-8333-444455556666")

    /// Your app: multi-identity.
    static let mail: BundleID = "com.contoso.Mail"
    /// Another managed app, single-identity, sharing `group.com.contoso`.
    static let outlook: BundleID = "com.microsoft.Office.Outlook"
    static let notes: BundleID = "com.example.notes"
    static let mailShare: BundleID = "com.contoso.Mail.Share"
    static let group = "group.com.contoso"

    static func strictPolicy() -> IosManagedAppProtection {
        var p = IosManagedAppProtection(displayName: "Contoso strict")
        p.allowedOutboundDataTransferDestinations = .managedApps
        p.allowedInboundDataTransferSources = .managedApps
        p.deviceComplianceRequired = true
        return p
    }

    static func fabrikamPolicy() -> IosManagedAppProtection {
        IosManagedAppProtection(displayName: "Fabrikam baseline")
    }

    static func fleet(policy: IosManagedAppProtection = strictPolicy(), device: DeviceFacts = DeviceFacts()) -> Fleet {
        var f = Fleet(device: device)
        f.add(alice, policy: policy)
        f.add(bob)
        f.add(carol, policy: fabrikamPolicy())
        f.install(AppDescriptor(bundleID: mail, multiIdentity: true, urlSchemes: ["contoso-mail"],
                                keychainAccessGroups: ["com.contoso.Mail", "com.microsoft.intune.mam"], appGroups: [group]))
        f.install(AppDescriptor(bundleID: outlook, urlSchemes: ["ms-outlook"],
                                keychainAccessGroups: ["com.microsoft.Office.Outlook", "com.microsoft.intune.mam"], appGroups: [group]))
        f.install(AppDescriptor(bundleID: notes, sdkIntegrated: false, urlSchemes: ["notes"]))
        f.install(AppDescriptor(bundleID: mailShare, kind: .share, containingApp: mail,
                                keychainAccessGroups: ["com.contoso.Mail", "com.microsoft.intune.mam"], appGroups: [group]))
        return f
    }
}

/// A fresh device directory per test, removed when the test ends.
final class DeviceDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-state-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Opens the device (again): what a host (re)start does.
    func open(_ fleet: Fleet = World.fleet(), policies: [IosManagedAppProtection] = []) throws -> DeviceState {
        try DeviceState(directory: url, fleet: fleet, policies: policies)
    }

    /// The bytes on disk of a file, as another process would read them.
    func bytesOnDisk(_ relative: String) -> [UInt8]? {
        FileManager.default.contents(atPath: url.appendingPathComponent(relative).path).map { Array($0) }
    }

    func exists(_ relative: String) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent(relative).path)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

extension Array where Element == UInt8 {
    init(_ text: String) { self = Array(text.utf8) }
    var text: String { String(decoding: self, as: UTF8.self) }

    func contains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        for i in 0...(count - needle.count) where self[i..<(i + needle.count)].elementsEqual(needle) { return true }
        return false
    }
}

/// Signs `accounts` in to `app` and expects each to be allowed.
func signIn(_ device: DeviceState, _ app: BundleID, _ accounts: Account...) throws {
    for a in accounts {
        let r = try device.signIn(app: app, account: a.upn)
        #expect(r.isAllowed, "\(a) should sign in to \(app): \(r)")
    }
}

/// The seed's "data of this account is managed" check: a file the account owns is encrypted
/// on disk and policy applies to the account's identity.
func isManagedData(_ dir: DeviceDirectory, _ device: DeviceState, file: String, app: BundleID, owner: Account) throws -> Bool {
    let plain = "data of \(owner.upn)"
    try device.writeFile(app: app, path: ContainerPath(file), data: [UInt8](plain), owner: owner.upn)
    let onDisk = dir.bytesOnDisk("containers/\(app.rawValue)/\(file)") ?? []
    return !onDisk.contains([UInt8](plain)) && device.isManaged(identity: owner.upn)
}
