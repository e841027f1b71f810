import Crypto
import Foundation
import MAMModel

/// Who owns a protected buffer or file, and whether its bytes are encrypted
/// (`IntuneMAMDataProtectionInfo`).
public struct ProtectionInfo: Sendable, Hashable {
    /// The owner's identity as recorded (`""` = unowned).
    public let owner: String
    public let isEncrypted: Bool
}

/// The envelope `protect` produces and managed files are stored in (seed 001, "Shared data"):
/// a header naming the owner, then the data — AES-GCM sealed for a managed owner, plain for
/// an unmanaged one.
///
/// Layout: `MAMSIMP1` (8 bytes) · flags (1 byte, bit 0 = encrypted) · owner length
/// (2 bytes, big-endian) · owner (UTF-8) · body. An encrypted body is the AES-GCM combined
/// form (12-byte nonce · ciphertext · 16-byte tag) with the header as authenticated data, so
/// the owner cannot be rewritten without the key.
enum ProtectedData {
    static let magic: [UInt8] = Array("MAMSIMP1".utf8)

    struct Parsed {
        let info: ProtectionInfo
        let header: [UInt8]
        let body: ArraySlice<UInt8>
    }

    static func header(owner: String, encrypted: Bool) -> [UInt8] {
        let name = Array(owner.utf8.prefix(Int(UInt16.max)))
        return magic + [encrypted ? 1 : 0, UInt8(name.count >> 8), UInt8(name.count & 0xff)] + name
    }

    /// The envelope of `data` owned by `owner`, sealed with `key` when one is given.
    static func seal(_ data: [UInt8], owner: String, key: SymmetricKey?) throws -> [UInt8] {
        let head = header(owner: owner, encrypted: key != nil)
        guard let key else { return head + data }
        let box = try AES.GCM.seal(data, using: key, authenticating: head)
        guard let combined = box.combined else {
            // Only nil for a nonce of non-standard size, which `seal` never makes.
            throw DeviceStateError(.badRequest, "AES-GCM produced no combined form for data owned by \(owner)")
        }
        return head + Array(combined)
    }

    /// The header of `data`, or `nil` when `data` is not an envelope.
    static func parse(_ data: [UInt8]) -> Parsed? {
        let fixed = magic.count + 3
        guard data.count >= fixed, data.starts(with: magic) else { return nil }
        let flags = data[magic.count]
        guard flags & ~1 == 0 else { return nil }
        let length = Int(data[magic.count + 1]) << 8 | Int(data[magic.count + 2])
        guard data.count >= fixed + length else { return nil }
        let name = data[fixed..<fixed + length]
        // `String(validating:)` needs macOS 15; decoding and comparing is the portable check.
        let owner = String(decoding: name, as: UTF8.self)
        guard owner.utf8.elementsEqual(name) else { return nil }
        let encrypted = flags & 1 == 1
        if encrypted, data.count < fixed + length + 28 { return nil }
        return Parsed(info: ProtectionInfo(owner: owner, isEncrypted: encrypted),
                      header: Array(data[..<(fixed + length)]), body: data[(fixed + length)...])
    }

    /// The data inside a parsed envelope; `key` is the owner's key for an encrypted one.
    static func open(_ parsed: Parsed, key: SymmetricKey?) throws -> [UInt8] {
        guard parsed.info.isEncrypted else { return Array(parsed.body) }
        guard let key else {
            throw DeviceStateError(.badRequest, "data owned by \(parsed.info.owner) is encrypted, but this device holds no key for that account; it was protected on another device or its key was lost")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: parsed.body)
            return Array(try AES.GCM.open(box, using: key, authenticating: parsed.header))
        } catch {
            throw DeviceStateError(.badRequest, "data owned by \(parsed.info.owner) failed its integrity check and cannot be decrypted: it was changed after it was protected")
        }
    }
}
