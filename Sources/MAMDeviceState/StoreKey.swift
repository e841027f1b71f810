import Crypto
import Foundation
import MAMModel

/// The key that seals secrets inside the store: the per-account file keys and keychain
/// values are AES-GCM sealed with it, bound to their row (account, group and key), so
/// `device.sqlite` alone — copied, attached to a report, read by a child where no confinement
/// is in force — reveals none of them. It lives beside the store as `store.key` (0600), in the
/// device directory that confined children cannot see.
struct StoreKey {
    static let fileName = "store.key"
    /// Marks a sealed value; a value without it was stored before sealing existed.
    private static let magic = Array("MSK1".utf8)
    let key: SymmetricKey

    /// Reads the directory's key, or creates it (exclusively: two openers agree on one key).
    static func load(in directory: URL) throws -> StoreKey {
        let url = directory.appendingPathComponent(fileName)
        if let data = try? Data(contentsOf: url), data.count == 32 { return StoreKey(key: SymmetricKey(data: data)) }
        let fresh = SymmetricKey(size: .bits256)
        let bytes = fresh.withUnsafeBytes { Data($0) }
        if FileManager.default.createFile(atPath: url.path, contents: bytes, attributes: [.posixPermissions: 0o600]) {
            return StoreKey(key: fresh)
        }
        guard let data = try? Data(contentsOf: url), data.count == 32 else {
            throw DeviceStateError(.internalError, "\(url.path) cannot be created or holds no 32-byte key; remove it only if the device directory is to be reset")
        }
        return StoreKey(key: SymmetricKey(data: data))
    }

    func seal(_ value: Data, row: String) throws -> Data {
        let box = try AES.GCM.seal(value, using: key, authenticating: Data(row.utf8))
        guard let combined = box.combined else { throw DeviceStateError(.internalError, "sealing a stored value failed") }
        return Data(Self.magic) + combined
    }

    func open(_ stored: Data, row: String) throws -> Data {
        guard stored.starts(with: Self.magic) else { return stored }
        do {
            let box = try AES.GCM.SealedBox(combined: stored.dropFirst(Self.magic.count))
            return try AES.GCM.open(box, using: key, authenticating: Data(row.utf8))
        } catch {
            throw DeviceStateError(.internalError, "a sealed value of the store (\(row)) does not open with \(Self.fileName): the store was changed, or the key replaced")
        }
    }
}
