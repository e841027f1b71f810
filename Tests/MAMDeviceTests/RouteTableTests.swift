@testable import MAMDevice
import MAMModel
import MAMPolicy
import Testing

/// The broker's route table (`RouteTable`), with no process and no loop: a route kept is
/// found again and becomes the last one; the device's generation moving forgets every route;
/// the table empties itself at its bound; a route is taken only by its own four parties.
@Suite struct RouteTableTests {
    static func route(_ sender: String, as identity: String = "alice@contoso.com", to target: String, receiveAs: String = "") -> RouteTable.Route {
        let key = RouteTable.Key(sender: AppHandle(sender), identity: identity, target: AppHandle(target), receiveAs: receiveAs)
        let owner = Ownership(upn: identity, oid: "", managed: true, sourceBundle: BundleID("com.contoso.\(sender)"))
        let plan = SharePlan(owner: nil, receiver: nil, decision: TransferDecision(decision: .allowed("")), ownership: owner)
        let parties = ShareRecord.Parties(from: sender, fromBundle: BundleID("com.contoso.\(sender)"), identity: identity, to: target, receivedAs: receiveAs, owner: owner)
        return RouteTable.Route(key: key, plan: plan, parties: parties)
    }

    @Test func aKeptRouteIsFoundAndBecomesTheLast() throws {
        var table = RouteTable()
        table.hold(at: 1)
        let mailToWord = Self.route("mail", to: "word")
        #expect(table.route(for: mailToWord.key) == nil, "a miss before anything is kept")
        table.makeRoom()
        table.keep(mailToWord)
        #expect(table.lastLent == nil, "keeping a route does not make it the last one taken")
        let hit = table.route(for: mailToWord.key)
        let found = try #require(hit)
        #expect(found === mailToWord && table.lastLent?.takeUnretainedValue() === mailToWord)
        // Case is not a party's difference (handles are case-folded), an identity is.
        #expect(found.isTaken(sender: AppHandle("MAIL"), identity: "alice@contoso.com", target: AppHandle("word"), receiveAs: ""))
        #expect(!found.isTaken(sender: AppHandle("mail"), identity: "bob@contoso.com", target: AppHandle("word"), receiveAs: ""))
        #expect(!found.isTaken(sender: AppHandle("mail"), identity: "alice@contoso.com", target: AppHandle("word"), receiveAs: "alice@contoso.com"))
        #expect(table.route(for: Self.route("mail", to: "notes").key) == nil)
    }

    @Test func aNewGenerationForgetsEveryRoute() {
        var table = RouteTable()
        table.hold(at: 7)
        let r = Self.route("mail", to: "word")
        table.keep(r)
        _ = table.route(for: r.key)
        table.hold(at: 7)
        #expect(table.count == 1 && table.lastLent != nil, "the same generation keeps them")
        table.hold(at: 8)
        #expect(table.count == 0 && table.lastLent == nil && table.route(for: r.key) == nil)
    }

    @Test func theTableEmptiesItselfAtItsBound() {
        var table = RouteTable()
        table.hold(at: 1)
        for i in 0..<RouteTable.maximum {
            table.makeRoom()
            table.keep(Self.route("mail", as: "alice\(i)@contoso.com", to: "word"))
        }
        #expect(table.count == RouteTable.maximum)
        _ = table.route(for: Self.route("mail", as: "alice0@contoso.com", to: "word").key)
        table.makeRoom()
        #expect(table.count == 0 && table.lastLent == nil, "a child naming one account in ever new spellings cannot grow it")
    }
}
