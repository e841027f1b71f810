public import MAMModel
import Synchronization

extension ShareDecider {
    /// `decide`, as a decision `mamsim mutate` can ask again under another policy
    /// (`PolicyReads`): the device's answers it was given are kept, and asked again it gets
    /// them back; a question it was not asked makes it one that cannot be asked again.
    public static func decideReplayably<Context: ShareDecisionContext>(_ q: ShareQuestion, in fleet: Fleet, _ context: Context) throws -> ShareDecision {
        guard PolicyReads.isRecording else { return try decide(q, in: fleet, context) }
        let answers = DeviceAnswers()
        let recording = Recording(live: context, answers: answers)
        let running = context.targetIsRunning
        return try PolicyReads.decision(in: fleet, live: { try decide(q, in: fleet, recording) }, again: { other in
            try? decide(q, in: other, Replaying(answers: answers, targetIsRunning: running))
        })
    }

    /// The device's answers a share decision was given, by question.
    final class DeviceAnswers: Sendable {
        enum Question: Hashable, Sendable {
            case accessBlock(BundleID), receiver(String), targetAccounts, ownerAtTarget(Account)
            case shown, showsUnmanaged, signedInToSender(String), fileOwner(String)
        }

        enum Answer: Sendable {
            case text(String?), account(Account?), receiver(Account??), accounts([Account]), flag(Bool)
            case unreadable(ShareFileUnreadable)
        }

        let given = Mutex<[Question: Answer]>([:])

        func keep(_ q: Question, _ a: Answer) { given.withLock { $0[q] = a } }
        func answer(_ q: Question) throws -> Answer {
            guard let a = given.withLock({ $0[q] }) else { throw NotAsked() }
            return a
        }
    }

    /// Asked again, the decision asked something it was not asked the first time.
    struct NotAsked: Error {}

    struct Recording<Live: ShareDecisionContext>: ShareDecisionContext {
        let live: Live
        let answers: DeviceAnswers

        func accessBlock(app: BundleID) throws -> String? {
            let a = try live.accessBlock(app: app)
            answers.keep(.accessBlock(app), .text(a))
            return a
        }
        func receiver(named receiveAs: String) throws -> Account?? {
            let a = try live.receiver(named: receiveAs)
            answers.keep(.receiver(receiveAs), .receiver(a))
            return a
        }
        func targetAccounts() throws -> [Account] {
            let a = try live.targetAccounts()
            answers.keep(.targetAccounts, .accounts(a))
            return a
        }
        func ownerSignedInAtTarget(_ owner: Account) throws -> Account? {
            let a = try live.ownerSignedInAtTarget(owner)
            answers.keep(.ownerAtTarget(owner), .account(a))
            return a
        }
        func shownBySender() throws -> Account? {
            let a = try live.shownBySender()
            answers.keep(.shown, .account(a))
            return a
        }
        func senderShowsUnmanaged() throws -> Bool {
            let a = try live.senderShowsUnmanaged()
            answers.keep(.showsUnmanaged, .flag(a))
            return a
        }
        var targetIsRunning: Bool { live.targetIsRunning }
        func signedInToSender(_ identity: String) throws -> Account? {
            let a = try live.signedInToSender(identity)
            answers.keep(.signedInToSender(identity), .account(a))
            return a
        }
        func fileOwner(_ path: String) throws -> Account? {
            do {
                let a = try live.fileOwner(path)
                answers.keep(.fileOwner(path), .account(a))
                return a
            } catch let unreadable as ShareFileUnreadable {
                answers.keep(.fileOwner(path), .unreadable(unreadable))
                throw unreadable
            }
        }
    }

    /// The answers kept, given back; any other question throws `NotAsked`.
    struct Replaying: ShareDecisionContext {
        let answers: DeviceAnswers
        let targetIsRunning: Bool

        func accessBlock(app: BundleID) throws -> String? {
            guard case .text(let a) = try answers.answer(.accessBlock(app)) else { throw NotAsked() }
            return a
        }
        func receiver(named receiveAs: String) throws -> Account?? {
            guard case .receiver(let a) = try answers.answer(.receiver(receiveAs)) else { throw NotAsked() }
            return a
        }
        func targetAccounts() throws -> [Account] {
            guard case .accounts(let a) = try answers.answer(.targetAccounts) else { throw NotAsked() }
            return a
        }
        func ownerSignedInAtTarget(_ owner: Account) throws -> Account? {
            guard case .account(let a) = try answers.answer(.ownerAtTarget(owner)) else { throw NotAsked() }
            return a
        }
        func shownBySender() throws -> Account? {
            guard case .account(let a) = try answers.answer(.shown) else { throw NotAsked() }
            return a
        }
        func senderShowsUnmanaged() throws -> Bool {
            guard case .flag(let a) = try answers.answer(.showsUnmanaged) else { throw NotAsked() }
            return a
        }
        func signedInToSender(_ identity: String) throws -> Account? {
            guard case .account(let a) = try answers.answer(.signedInToSender(identity)) else { throw NotAsked() }
            return a
        }
        func fileOwner(_ path: String) throws -> Account? {
            switch try answers.answer(.fileOwner(path)) {
            case .account(let a): return a
            case .unreadable(let u): throw u
            default: throw NotAsked()
            }
        }
    }
}
