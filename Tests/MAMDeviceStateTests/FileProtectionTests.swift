import Foundation
import MAMModel
import MAMPolicy
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import MAMDeviceState

/// Containers, file owners and encryption at rest; `protect`/`unprotect`/`protectionInfo`.
@Suite struct FileProtectionTests {
    func device(_ dir: DeviceDirectory) throws -> DeviceState {
        let d = try dir.open()
        try signIn(d, World.mail, World.alice, World.bob)
        return d
    }

    @Test func managedFileIsCiphertextOnDiskAndPlainWhenRead() throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        let info = try d.writeFile(app: World.mail, path: ContainerPath("Docs/q3.xlsx"), data: [UInt8]("quarterly numbers"), owner: "ALICE@contoso.com")
        #expect(info == ProtectionInfo(owner: "alice@contoso.com", isEncrypted: true))
        let disk = try #require(dir.bytesOnDisk("containers/com.contoso.Mail/Docs/q3.xlsx"))
        #expect(!disk.contains([UInt8]("quarterly numbers")))
        #expect(d.protectionInfo(data: disk) == ProtectionInfo(owner: "alice@contoso.com", isEncrypted: true))
        #expect(try d.readFile(app: World.mail, path: ContainerPath("Docs/q3.xlsx")).text == "quarterly numbers")
        #expect(try d.fileOwner(app: World.mail, path: ContainerPath("Docs/q3.xlsx")) == "alice@contoso.com")
    }

    @Test func unmanagedAndUnownedFilesArePlainOnDisk() throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        try d.writeFile(app: World.mail, path: ContainerPath("bob.txt"), data: [UInt8]("holiday"), owner: "bob@outlook.com")
        try d.writeFile(app: World.mail, path: ContainerPath("cache.bin"), data: [UInt8]("cache"), owner: nil)
        #expect(dir.bytesOnDisk("containers/com.contoso.Mail/bob.txt") == [UInt8]("holiday"))
        #expect(dir.bytesOnDisk("containers/com.contoso.Mail/cache.bin") == [UInt8]("cache"))
        #expect(try d.fileOwner(app: World.mail, path: ContainerPath("cache.bin")) == "")
        #expect(try d.fileOwner(app: World.mail, path: ContainerPath("never-written")) == nil)
    }

    @Test func changingAFilesOwnerReprotectsItsBytes() throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        let path = ContainerPath("draft.txt")
        try d.writeFile(app: World.mail, path: path, data: [UInt8]("draft"), owner: "bob@outlook.com")
        #expect(try d.setFileOwner(app: World.mail, path: path, owner: "alice@contoso.com").isEncrypted)
        #expect(!(dir.bytesOnDisk("containers/com.contoso.Mail/draft.txt") ?? []).contains([UInt8]("draft")))
        #expect(try !d.setFileOwner(app: World.mail, path: path, owner: "").isEncrypted)
        #expect(dir.bytesOnDisk("containers/com.contoso.Mail/draft.txt") == [UInt8]("draft"))
    }

    @Test func appGroupFilesAreSharedOnlyWithEntitledApps() throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        try signIn(d, World.outlook, World.alice)
        let shared = ContainerPath("shared.txt", in: .appGroup(World.group))
        try d.writeFile(app: World.outlook, path: shared, data: [UInt8]("for mail"), owner: "alice@contoso.com")
        #expect(try d.readFile(app: World.mail, path: shared).text == "for mail")
        #expect(try d.readFile(app: World.mailShare, path: ContainerPath(parsing: "group:group.com.contoso/shared.txt")).text == "for mail")
        let error = #expect(throws: DeviceStateError.self) { try d.readFile(app: World.notes, path: shared) }
        #expect(error?.reason == .appGroupEntitlement)
        #expect(error?.message == "com.example.notes is not entitled to app group group.com.contoso; its application groups are []")
    }

    @Test(arguments: [
        ("../com.microsoft.Office.Outlook/secret.txt", "\"..\" would leave the container; name a path inside it"),
        ("Docs/../../escape.txt", "\"..\" would leave the container; name a path inside it"),
        ("/etc/passwd", "absolute paths are never accepted from an app; name a path relative to its container"),
        ("./", "it names no file"),
    ])
    func pathsLeavingTheContainerAreRefused(path: String, why: String) throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        let error = #expect(throws: DeviceStateError.self) {
            try d.writeFile(app: World.mail, path: ContainerPath(path), data: [1], owner: nil)
        }
        #expect(error?.reason == .badRequest)
        #expect(error?.message == "com.contoso.Mail named the path \"\(path)\", which is refused: \(why)")
    }

    @Test func symbolicLinksInsideAContainerAreNotFollowed() throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        let sandbox = try d.sandboxURL(app: World.mail)
        let outlook = try d.sandboxURL(app: World.outlook)
        try FileManager.default.createSymbolicLink(at: sandbox.appendingPathComponent("peek"), withDestinationURL: outlook)
        let error = #expect(throws: DeviceStateError.self) { try d.readFile(app: World.mail, path: ContainerPath("peek/x.txt")) }
        #expect(error?.message.hasSuffix("it passes through a symbolic link") == true)
    }

    @Test func writingAsAnAccountThatIsNotSignedInIsRefused() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        let error = #expect(throws: DeviceStateError.self) {
            try d.writeFile(app: World.mail, path: ContainerPath("x.txt"), data: [1], owner: "alice@contoso.com")
        }
        #expect(error?.reason == .notSignedIn)
        #expect(error?.message == "com.contoso.Mail cannot write x.txt as alice@contoso.com: that account is not signed in to com.contoso.Mail; sign it in first, or write as the unmanaged identity \"\"")
        // An extension writes with its containing app's accounts.
        try signIn(d, World.mail, World.alice)
        #expect(try d.writeFile(app: World.mailShare, path: ContainerPath("x.txt"), data: [1], owner: "alice@contoso.com").isEncrypted)
    }

    @Test func readingAFileThatDoesNotExistSaysWhich() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        let error = #expect(throws: DeviceStateError.self) { try d.readFile(app: World.mail, path: ContainerPath("Docs/none.txt")) }
        #expect(error?.message == "com.contoso.Mail asked for Docs/none.txt, which does not exist in its containers")
    }

    @Test func protectEncryptsManagedDataAndHeadsUnmanagedData() throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        let secret = [UInt8]("board minutes")
        let managed = try d.protect(app: World.mail, data: secret, owner: "alice@contoso.com")
        #expect(!managed.contains(secret))
        #expect(d.protectionInfo(data: managed) == ProtectionInfo(owner: "alice@contoso.com", isEncrypted: true))
        #expect(try d.unprotect(app: World.mail, data: managed) == secret)

        let personal = try d.protect(app: World.mail, data: secret, owner: "bob@outlook.com")
        #expect(personal.count > secret.count)
        #expect(Array(personal.suffix(secret.count)) == secret)
        #expect(d.protectionInfo(data: personal) == ProtectionInfo(owner: "bob@outlook.com", isEncrypted: false))
        #expect(try d.unprotect(app: World.mail, data: personal) == secret)
    }

    @Test func unprotectReturnsDataItDidNotProduceUnchanged() throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        for foreign in [[UInt8](), [UInt8]("plain text"), [UInt8]("MAMSIMP1"), [UInt8]("MAMSIMP1") + [7, 0, 0]] {
            #expect(try d.unprotect(app: World.mail, data: foreign) == foreign)
            #expect(d.protectionInfo(data: foreign) == nil)
        }
    }

    @Test func tamperedProtectedDataIsRefusedNotReturned() throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        var sealed = try d.protect(app: World.mail, data: [UInt8]("pay 100"), owner: "alice@contoso.com")
        sealed[sealed.count - 1] ^= 0xff
        let error = #expect(throws: DeviceStateError.self) { try d.unprotect(app: World.mail, data: sealed) }
        #expect(error?.message == "data owned by alice@contoso.com failed its integrity check and cannot be decrypted: it was changed after it was protected")
    }

    @Test func protectedDataStillOpensAfterAHostRestart() throws {
        let dir = try DeviceDirectory()
        let sealed = try device(dir).protect(app: World.mail, data: [UInt8]("keep"), owner: "alice@contoso.com")
        #expect(try dir.open().unprotect(app: World.mail, data: sealed) == [UInt8]("keep"))
        // Another device (directory) holds no key for it.
        let other = try DeviceDirectory()
        let elsewhere = try other.open()
        try signIn(elsewhere, World.mail, World.alice)
        let error = #expect(throws: DeviceStateError.self) { try elsewhere.unprotect(app: World.mail, data: sealed) }
        #expect(error?.message.contains("this device holds no key for that account") == true)
    }

    // MARK: Attacks: one app never reads another's data

    @Test func protectAndUnprotectNeedTheOwnerSignedInToTheAskingApp() throws {
        let dir = try DeviceDirectory()
        let d = try device(dir)
        let sealed = try d.protect(app: World.mail, data: [UInt8]("board minutes"), owner: "alice@contoso.com")
        // notes has no account: it can neither open alice's data nor seal data as alice.
        let open = #expect(throws: DeviceStateError.self) { try d.unprotect(app: World.notes, data: sealed) }
        #expect(open?.reason == .notSignedIn)
        let seal = #expect(throws: DeviceStateError.self) { try d.protect(app: World.notes, data: [1], owner: "alice@contoso.com") }
        #expect(seal?.reason == .notSignedIn)
        // Unmanaged data stays readable by anyone: it is not encrypted.
        let personal = try d.protect(app: World.mail, data: [UInt8]("lunch"), owner: "")
        #expect(try d.unprotect(app: World.notes, data: personal) == [UInt8]("lunch"))
    }

    @Test func aSharedGroupFileOfAliceIsNeitherReadNorReplacedByAnAppWhereOnlyBobIsSignedIn() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        try signIn(d, World.outlook, World.alice)
        try signIn(d, World.mail, World.bob)
        let shared = ContainerPath("shared.txt", in: .appGroup(World.group))
        try d.writeFile(app: World.outlook, path: shared, data: [UInt8]("alice's plan"), owner: "alice@contoso.com")
        let read = #expect(throws: DeviceStateError.self) { try d.readFile(app: World.mail, path: shared) }
        #expect(read?.reason == .notSignedIn)
        let replace = #expect(throws: DeviceStateError.self) {
            try d.writeFile(app: World.mail, path: shared, data: [UInt8]("bob's now"), owner: "bob@outlook.com")
        }
        #expect(replace?.reason == .notSignedIn)
        #expect(try d.readFile(app: World.outlook, path: shared).text == "alice's plan")
        #expect(try d.fileOwner(app: World.outlook, path: shared) == "alice@contoso.com")
    }

    @Test func aHardLinkToAnotherAppsFileIsNotReadThroughAndAWriteReplacesTheLinkNotTheTarget() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        try d.writeFile(app: World.outlook, path: ContainerPath("secret.txt"), data: [UInt8]("outlook's"), owner: nil)
        try d.writeFile(app: World.notes, path: ContainerPath("mine.txt"), data: [UInt8]("notes'"), owner: nil)
        let target = dir.url.appendingPathComponent("containers/com.microsoft.Office.Outlook/secret.txt").path
        let link = dir.url.appendingPathComponent("containers/com.example.notes/stolen.txt").path
        #expect(Glibc.link(target, link) == 0)
        let error = #expect(throws: DeviceStateError.self) { try d.readFile(app: World.notes, path: ContainerPath("stolen.txt")) }
        #expect(error?.message.contains("hard links") == true, "\(String(describing: error))")
        try d.writeFile(app: World.notes, path: ContainerPath("stolen.txt"), data: [UInt8]("overwritten"), owner: nil)
        #expect(try d.readFile(app: World.outlook, path: ContainerPath("secret.txt")).text == "outlook's")
    }

    @Test func aDirectorySwappedForASymbolicLinkIsRefusedWhereItIsUsed() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        try d.writeFile(app: World.outlook, path: ContainerPath("Docs/secret.txt"), data: [UInt8]("outlook's"), owner: nil)
        try d.writeFile(app: World.notes, path: ContainerPath("Docs/mine.txt"), data: [UInt8]("notes'"), owner: nil)
        // The swap a racing child would make between the host's check and its use.
        let docs = dir.url.appendingPathComponent("containers/com.example.notes/Docs")
        try FileManager.default.removeItem(at: docs)
        try FileManager.default.createSymbolicLink(atPath: docs.path, withDestinationPath: dir.url.appendingPathComponent("containers/com.microsoft.Office.Outlook/Docs").path)
        let parts = ["Docs", "secret.txt"]
        #expect(throws: ContainerIO.Failure.self) {
            try ContainerIO.read(root: dir.url.appendingPathComponent("containers/com.example.notes"), parts: parts)
        }
        let error = #expect(throws: DeviceStateError.self) { try d.readFile(app: World.notes, path: ContainerPath("Docs/secret.txt")) }
        #expect(error?.message.contains("symbolic link") == true)
    }
}
