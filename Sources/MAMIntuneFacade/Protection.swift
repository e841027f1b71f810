public import Foundation
import MAMKit
import MAMModel
import MAMWire

/// Whose data something is, as the SDK's protection managers answer.
public protocol IntuneMAMDataProtectionInfo: AnyObject {
    var accountId: String? { get }
}

public protocol IntuneMAMFileProtectionInfo: AnyObject {
    var accountId: String? { get }
}

final class OwnerInfo: IntuneMAMDataProtectionInfo, IntuneMAMFileProtectionInfo, Sendable {
    let accountId: String?
    init(_ accountId: String?) { self.accountId = accountId }
}

/// Data protection: data encrypted for an account by the host, readable by the apps its
/// policy lets have it.
public final class IntuneMAMDataProtectionManager: Sendable {
    private static let shared = IntuneMAMDataProtectionManager()

    public class func instance() -> IntuneMAMDataProtectionManager { shared }

    /// `data` protected for `accountId`; `nil` when the host refuses.
    public func protect(_ data: Data, accountId: String, file: String = #fileID, line: UInt = #line) -> Data? {
        Strict.checkAccountId(accountId, "IntuneMAMDataProtectionManager.protect(_:accountId:)", file, line)
        return MAMIntuneFacade.blocking(Service.Protect(data: Array(data), owner: accountId), as: nil)?.allowedAnswer.map { Data($0) }
    }

    public func protect(_ string: String, accountId: String, file: String = #fileID, line: UInt = #line) -> String? {
        protect(Data(string.utf8), accountId: accountId, file: file, line: line).map { $0.base64EncodedString() }
    }

    /// Protected data back in clear; `nil` when this app may not have it.
    public func unprotect(_ data: Data) -> Data? {
        MAMIntuneFacade.blocking(Service.Unprotect(data: Array(data)), as: nil)?.allowedAnswer.map { Data($0) }
    }

    public func unprotectString(_ string: String) -> String? {
        guard let data = Data(base64Encoded: string), let clear = unprotect(data) else { return nil }
        return String(decoding: clear, as: UTF8.self)
    }

    /// Whose data `data` is; `nil` when it carries no protection.
    public func protectionInfo(_ data: Data) -> (any IntuneMAMDataProtectionInfo)? {
        guard let summary = MAMIntuneFacade.blocking(Service.ProtectionInfo(data: Array(data)), as: nil)?.allowedAnswer, let summary else { return nil }
        return OwnerInfo(summary.owner)
    }
}

/// File protection: a file in the app's containers (`Documents/x`, `group:<id>/x`) belongs
/// to an account, which the host records with the file.
public final class IntuneMAMFileProtectionManager: Sendable {
    private static let shared = IntuneMAMFileProtectionManager()

    public class func instance() -> IntuneMAMFileProtectionManager { shared }

    /// Makes the file at `path` `accountId`'s (`nil` or `""`: personal), its contents kept.
    public func protect(_ path: String, accountId: String?, file: String = #fileID, line: UInt = #line) {
        Strict.checkAccountId(accountId, "IntuneMAMFileProtectionManager.protect(_:accountId:)", file, line)
        let read = MAMIntuneFacade.blocking(Service.ReadFile(path: path), as: nil)
        guard let data = read?.allowedAnswer else {
            // Protection is of a file that exists: one that does not is a protection the app
            // thinks it made, and nothing marks what it writes there next. (The host says a
            // missing file is one that "does not exist in its containers".)
            if let read, case .failed(.badRequest, let why) = read.verdict, why.contains("does not exist") {
                Strict.report(.protectMissingFile, "IntuneMAMFileProtectionManager.protect(_:accountId:)", file, line,
                              "no file is at \(path) yet: write the file first, then protect it (or write it inside IntuneMAMSwiftContextManager.setAccountId(_:forScope:) so it takes the account as it is made)")
            }
            return
        }
        _ = MAMIntuneFacade.blocking(Service.WriteFile(path: path, data: data, owner: accountId ?? ""), as: nil)
    }

    /// Whose file `path` is; `nil` when the host knows no such file.
    public func protectionInfo(_ path: String) -> (any IntuneMAMFileProtectionInfo)? {
        guard let info = MAMIntuneFacade.blocking(Service.FileOwner(path: path), as: nil)?.allowedAnswer else { return nil }
        return OwnerInfo(info.owner)
    }
}
