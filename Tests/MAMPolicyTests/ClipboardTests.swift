import MAMModel
import MAMPolicy
import Testing

/// One paste of RULES.md §3's clipboard table.
struct PasteRow: Sendable, CustomTestStringConvertible {
    let behaviour: String
    let level: ClipboardSharingLevel
    let owner: Account?
    let source: BundleID
    let destination: BundleID
    let receiver: Account?
    let allowed: Bool
    var testDescription: String { "\(level.rawValue): \(behaviour)" }
}

enum ClipboardTable {
    typealias W = World
    static func rows(_ level: ClipboardSharingLevel, outToUnmanaged: Bool, outToManaged: Bool, inFromUnmanaged: Bool,
                     inFromManagedAppUnmanagedData: Bool) -> [PasteRow] {
        [
            PasteRow(behaviour: "managed data pasted into an unmanaged app", level: level,
                     owner: W.alice, source: W.mine, destination: W.notes, receiver: nil, allowed: outToUnmanaged),
            PasteRow(behaviour: "managed data pasted into a policy-managed app as the managed identity", level: level,
                     owner: W.alice, source: W.mine, destination: W.outlook, receiver: W.alice, allowed: outToManaged),
            PasteRow(behaviour: "managed data pasted into a policy-managed app as an unmanaged identity", level: level,
                     owner: W.alice, source: W.outlook, destination: W.mine, receiver: W.bob, allowed: outToUnmanaged),
            PasteRow(behaviour: "unmanaged data from an unmanaged app pasted in as the managed identity", level: level,
                     owner: nil, source: W.notes, destination: W.mine, receiver: W.alice, allowed: inFromUnmanaged),
            PasteRow(behaviour: "unmanaged data copied in a managed app pasted in as the managed identity", level: level,
                     owner: W.bob, source: W.outlook, destination: W.mine, receiver: W.alice, allowed: inFromManagedAppUnmanagedData),
            PasteRow(behaviour: "managed data pasted inside the app it was copied in, same identity", level: level,
                     owner: W.alice, source: W.mine, destination: W.mine, receiver: W.alice, allowed: true),
            PasteRow(behaviour: "unmanaged data pasted between unmanaged identities", level: level,
                     owner: W.bob, source: W.notes, destination: W.mine, receiver: W.bob, allowed: true),
        ]
    }

    static let all: [PasteRow] =
        rows(.allApps, outToUnmanaged: true, outToManaged: true, inFromUnmanaged: true, inFromManagedAppUnmanagedData: true)
        + rows(.managedAppsWithPasteIn, outToUnmanaged: false, outToManaged: true, inFromUnmanaged: true, inFromManagedAppUnmanagedData: true)
        + rows(.managedApps, outToUnmanaged: false, outToManaged: true, inFromUnmanaged: false, inFromManagedAppUnmanagedData: false)
        + rows(.blocked, outToUnmanaged: false, outToManaged: false, inFromUnmanaged: false, inFromManagedAppUnmanagedData: false)
}

@Suite("Clipboard levels")
struct ClipboardTests {
    typealias W = World

    func fleet(_ level: ClipboardSharingLevel, exception: Int = 0) -> Fleet {
        var p = W.strictPolicy()
        p.allowedOutboundClipboardSharingLevel = level
        p.allowedOutboundClipboardSharingExceptionLength = exception
        return W.fleet(policy: p)
    }

    @Test("Every clipboard level decides each paste as RULES.md §3 says", arguments: ClipboardTable.all)
    func clipboardLevelTable(_ row: PasteRow) {
        let result = Enforcer.paste("Q3 numbers", owner: row.owner, copiedIn: row.source, into: row.destination, as: row.receiver, in: fleet(row.level))
        #expect(result.decision.isAllowed == row.allowed, "\(result.decision)")
        if row.allowed {
            #expect(result.text == "Q3 numbers")
        } else {
            #expect(result.decision.blockedBy == .clipboardPolicy)
            #expect(result.text == "Your organization's data cannot be pasted here.")
        }
    }

    @Test func shortPastesWithinTheExceptionLengthPassAnyLevel() {
        let f = fleet(.blocked, exception: 5)
        let short = Enforcer.paste("12345", owner: W.alice, copiedIn: W.mine, into: W.notes, as: nil, in: f)
        #expect(short.decision.isAllowed)
        #expect(short.decision.explanation.contains("allowedOutboundClipboardSharingExceptionLength = 5"), "the limit is named: \(short.decision)")
        let long = Enforcer.paste("123456", owner: W.alice, copiedIn: W.mine, into: W.notes, as: nil, in: f)
        #expect(long.decision.blockedBy == .clipboardPolicy)
        #expect(long.text == Enforcer.blockedPastePlaceholder)
    }

    @Test func blockedLevelStillAllowsPastingWithinTheSourceApp() {
        // Another identity of the same app: the "blocked" level keeps data inside the app.
        let d = Enforcer.pasteDecision(length: 3, owner: W.alice, copiedIn: W.mine, into: W.mine, as: W.bob, in: fleet(.blocked))
        #expect(d.isAllowed)
    }

    /// Microsoft: "the number of characters that may be cut or copied from org data": the
    /// limit is outbound only. Unmanaged text pasted into a managed identity under
    /// `managedApps` stays blocked however short it is.
    @Test(arguments: [(3, true), (6, false)])
    func theCharacterLimitOpensOrgDataGoingOutNeverPastingIn(_ length: Int, _ within: Bool) {
        let f = fleet(.managedApps, exception: 5)
        let text = String(repeating: "x", count: length)
        let out = Enforcer.paste(text, owner: W.alice, copiedIn: W.mine, into: W.notes, as: nil, in: f)
        #expect(out.decision.isAllowed == within, "out: \(out.decision)")
        let into = Enforcer.paste(text, owner: nil, copiedIn: W.notes, into: W.mine, as: W.alice, in: f)
        #expect(into.decision.blockedBy == .clipboardPolicy, "in: \(into.decision)")
    }
}
