import Foundation
@testable import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import Testing

/// Where a shared file lands (`Inbox`), on a device store and no process: under a name the
/// host chooses, never over a file delivered before, owned by the share's final owner only
/// where that account is signed in to the destination.
@Suite struct InboxTests {
    let config: HostConfiguration
    let state: DeviceState
    let inbox: Inbox
    let mail: AppSpec, word: AppSpec

    init() throws {
        config = try makeConfiguration(apps: 2)
        state = try DeviceState(directory: config.deviceDirectory, fleet: config.fleet)
        inbox = Inbox(state: state, identities: Identities(state: state))
        (mail, word) = (config.apps[0], config.apps[1])
        _ = try state.signIn(app: mail.bundleID, account: alice.upn)
    }

    func file(_ name: String, id: String = "step3") -> Item {
        Item(id: id, typeIdentifiers: ["com.adobe.pdf"], payload: .file(path: "Documents/q3.pdf"), fileName: name)
    }

    @Test func aFileLandsUnderItsIDAndNameAndNeverOverAnEarlierOne() throws {
        _ = try state.writeFile(app: mail.bundleID, path: ContainerPath(parsing: "Documents/q3.pdf"), data: Array("%PDF-1.4".utf8), owner: alice.upn)
        let first = try inbox.place("Documents/q3.pdf", of: file("q3.pdf"), from: mail, in: word, finalOwner: nil).get()
        let second = try inbox.place("Documents/q3.pdf", of: file("q3.pdf"), from: mail, in: word, finalOwner: nil).get()
        #expect(first == "Inbox/step3-q3.pdf" && second == "Inbox/step3-2-q3.pdf")
        #expect(try state.readFile(app: word.bundleID, path: ContainerPath(parsing: second)) == Array("%PDF-1.4".utf8))
    }

    @Test(arguments: [("../../etc/passwd", "Inbox/step3-passwd"), ("a\\b\u{7}.pdf", "Inbox/step3-a_b_.pdf"), ("..", "Inbox/step3-item"), ("", "Inbox/step3-item")])
    func aFileNameIsMadeSafe(name: String, lands: String) throws {
        _ = try state.writeFile(app: mail.bundleID, path: ContainerPath(parsing: "Documents/q3.pdf"), data: [1], owner: nil)
        #expect(try inbox.place("Documents/q3.pdf", of: file(name), from: mail, in: word, finalOwner: nil).get() == lands)
    }

    @Test func theCopyKeepsItsOwnerOnlyWhereTheOwnerIsSignedIn() throws {
        _ = try state.writeFile(app: mail.bundleID, path: ContainerPath(parsing: "Documents/q3.pdf"), data: [1], owner: alice.upn)
        let personal = try inbox.place("Documents/q3.pdf", of: file("q3.pdf"), from: mail, in: word, finalOwner: alice).get()
        #expect(try state.fileOwner(app: word.bundleID, path: ContainerPath(parsing: personal)) == "", "alice is not signed in to word: unowned")
        _ = try state.signIn(app: word.bundleID, account: alice.upn)
        let owned = try inbox.place("Documents/q3.pdf", of: file("q3.pdf"), from: mail, in: word, finalOwner: alice).get()
        #expect(try state.fileOwner(app: word.bundleID, path: ContainerPath(parsing: owned)) == alice.upn)
    }

    @Test func aFileTheSenderDoesNotHoldIsItsBadRequest() throws {
        let refused = inbox.place("Documents/none.pdf", of: file("none.pdf"), from: mail, in: word, finalOwner: nil)
        guard case .failure(let notPlaced) = refused else { Issue.record("placed: \(refused)"); return }
        #expect(notPlaced.verdict.reason == .badRequest)
        #expect(notPlaced.verdict.explanation.hasPrefix("app0 cannot share Documents/none.pdf"))
    }
}
