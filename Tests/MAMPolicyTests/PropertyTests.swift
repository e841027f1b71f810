import Foundation
import MAMModel
import MAMPolicy
import PropertyBased
import Testing

/// Random worlds for property tests, built from a list of small integers so the generator
/// shrinks well.
enum RandomWorld {
    static let choices = Gen.int(in: 0...1_000).array(of: 16)

    static func pick<E: CaseIterable>(_ n: Int, _: E.Type) -> E {
        let all = Array(E.allCases)
        return all[n % all.count]
    }

    static func policy(_ c: [Int]) -> IosManagedAppProtection {
        var p = IosManagedAppProtection(displayName: "random \(c[0])")
        p.allowedOutboundDataTransferDestinations = pick(c[0], DataTransferLevel.self)
        p.allowedInboundDataTransferSources = pick(c[1], DataTransferLevel.self)
        p.allowedOutboundClipboardSharingLevel = pick(c[2], ClipboardSharingLevel.self)
        p.filterOpenInToOnlyManagedApps = c[3] % 2 == 0
        p.disableProtectionOfManagedOutboundOpenInData = c[4] % 2 == 0
        p.protectInboundDataFromUnknownSources = c[5] % 2 == 0
        if c[6] % 3 == 0 { p.apps = [World.mine, World.outlook] }
        if c[7] % 4 == 0 { p.exemptedAppProtocols = [KeyValuePair(name: "x", value: "notes")] }
        return p
    }

    static func fleet(_ c: [Int], policy: IosManagedAppProtection) -> Fleet {
        var f = World.fleet(policy: policy, device: DeviceFacts(mdmEnrolled: c[8] % 2 == 0))
        f.install(AppDescriptor(bundleID: World.notes, sdkIntegrated: c[9] % 5 == 0, urlSchemes: ["notes"], mdmManaged: c[10] % 2 == 0))
        return f
    }

    static let apps: [BundleID] = [World.mine, World.outlook, World.word, World.notes, World.skypeLike, World.wordOpenIn]
    /// Parties: `nil`, the personal identity `""`, unmanaged bob, managed alice.
    static let parties: [Account?] = [nil, Account(upn: ""), World.bob, World.alice]
    static let unmanagedParties: [Account?] = [nil, Account(upn: ""), World.bob, World.carol]

    /// The same account in another letter case, by the bits of `n`.
    static func recased(_ a: Account?, _ n: Int) -> Account? {
        guard let a else { return nil }
        func flip(_ s: String) -> String {
            String(s.enumerated().map { i, ch in (n >> (i % 10)) & 1 == 1 ? Character(ch.uppercased()) : Character(ch.lowercased()) })
        }
        return Account(upn: flip(a.upn), oid: flip(a.oid), tenant: a.tenant)
    }
}

@Suite("Properties of the transfer rules")
struct PropertyTests {
    typealias R = RandomWorld

    @Test func unmanagedToUnmanagedAlwaysPassesForAnyPolicy() async {
        await propertyCheck(count: 300, input: R.choices) { c in
            let fleet = R.fleet(c, policy: R.policy(c))
            let owner = R.unmanagedParties[c[11] % 4], receiver = R.unmanagedParties[c[12] % 4]
            let from = R.apps[c[13] % R.apps.count], to = R.apps[c[14] % R.apps.count]
            let d = Enforcer.transfer(owner: owner, from: from, to: to, receivedAs: receiver, in: fleet)
            #expect(d.isAllowed, "\(d)")
            #expect(d.reowned == nil)
            #expect(Enforcer.pasteDecision(length: c[15], owner: owner, copiedIn: from, into: to, as: receiver, in: fleet).isAllowed)
        }
    }

    @Test func decisionsNeverDependOnTheLetterCaseOfAnAccount() async {
        await propertyCheck(count: 300, input: R.choices) { c in
            let fleet = R.fleet(c, policy: R.policy(c))
            let owner = R.parties[c[11] % 4], receiver = R.parties[c[12] % 4]
            let from = R.apps[c[13] % R.apps.count], to = R.apps[c[14] % R.apps.count]
            let plain = Enforcer.transfer(owner: owner, from: from, to: to, receivedAs: receiver, in: fleet)
            let cased = Enforcer.transfer(owner: R.recased(owner, c[15]), from: from, to: to,
                                          receivedAs: R.recased(receiver, c[15] / 7), in: fleet)
            #expect(plain.decision.blockedBy == cased.decision.blockedBy)
            #expect(plain.reowned?.upnKey == cased.reowned?.upnKey)
            let save = Enforcer.save(owner: owner, to: .oneDriveForBusiness, locationAccount: receiver, app: World.mine, in: fleet)
            let savedCased = Enforcer.save(owner: R.recased(owner, c[15]), to: .oneDriveForBusiness,
                                           locationAccount: R.recased(receiver, c[10]), app: World.mine, in: fleet)
            #expect(save.blockedBy == savedCased.blockedBy)
        }
    }

    @Test func allAppsOutboundAndInboundNeverBlockATransfer() async {
        await propertyCheck(count: 300, input: R.choices) { c in
            var p = R.policy(c)
            p.allowedOutboundDataTransferDestinations = .allApps
            p.allowedInboundDataTransferSources = .allApps
            let fleet = R.fleet(c, policy: p)
            let owner = R.parties[c[11] % 4], receiver = R.parties[c[12] % 4]
            let from = R.apps[c[13] % R.apps.count], to = R.apps[c[14] % R.apps.count]
            let d = Enforcer.transfer(owner: owner, from: from, to: to, receivedAs: receiver, in: fleet)
            #expect(d.isAllowed, "\(d)")
        }
    }

    @Test func reowningHappensOnlyUnderIncomingOrgData() async {
        await propertyCheck(count: 300, input: R.choices) { c in
            let p = R.policy(c)
            let fleet = R.fleet(c, policy: p)
            let owner = R.parties[c[11] % 4], receiver = R.parties[c[12] % 4]
            let from = R.apps[c[13] % R.apps.count], to = R.apps[c[14] % R.apps.count]
            let d = Enforcer.transfer(owner: owner, from: from, to: to, receivedAs: receiver, in: fleet)
            // MDM-only value: it takes effect on an MDM-enrolled device only.
            let enrolled: Bool = fleet.device.mdmEnrolled
            let inboundAll: Bool = p.allowedInboundDataTransferSources == .allApps
            let incomingOrgData: Bool = inboundAll && p.protectInboundDataFromUnknownSources && enrolled
            // Managed only where the account's policy targets the app (RULES.md §1).
            let receiverManaged = fleet.isManaged(receiver, in: to)
            let ownerUnmanaged = !fleet.isManaged(owner, in: from)
            if d.reowned != nil {
                #expect(incomingOrgData && receiverManaged && ownerUnmanaged && d.isAllowed)
                #expect(d.reowned == World.alice)
            }
            if incomingOrgData && receiverManaged && ownerUnmanaged {
                #expect(d.reowned == World.alice, "\(d)")
            }
        }
    }
}

/// The audit log's dates are written and read by arithmetic: the same text as Foundation's
/// ISO 8601 formatter writes, and the same instant as it reads, for any time it covers.
@Suite struct InstantFormatTests {
    @Test func writtenAndReadAsFoundationDoes() {
        var generator = SystemRandomNumberGenerator()
        let formatter = ISO8601DateFormatter()
        var samples: [Double] = [0, 59, 86_399, 86_400, 951_782_400, 1_767_258_000, 4_107_542_399, 253_402_300_799]
        for _ in 0..<2_000 { samples.append(Double(UInt64.random(in: 0..<253_402_300_800, using: &generator))) }
        for _ in 0..<2_000 { samples.append(Double.random(in: 0..<4_000_000_000, using: &generator)) }
        for s in samples {
            let written = Instant(secondsSince1970: s).description
            #expect(written == formatter.string(from: Date(timeIntervalSince1970: s)), "\(s)")
            #expect(Instant(iso8601: written)?.secondsSince1970 == formatter.date(from: written)?.timeIntervalSince1970, "\(written)")
        }
        for bad in ["2026-02-30T09:00:00Z", "2026-13-01T09:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01 09:00:00Z", "２０２６-01-01T09:00:00Z"] {
            #expect(Instant(iso8601: bad)?.secondsSince1970 == formatter.date(from: bad)?.timeIntervalSince1970, "\(bad)")
        }
    }
}
