import MAMModel
import MAMPolicy
import MAMWire

/// A share on its way through the broker, once routed: its sequence number, its sender, its
/// destination (by reference: a known route reads two of its fields, where taking its
/// `AppSpec` out would retain every one), and its record as far as it got. The broker's steps
/// take it whole, beside the request it answers: the request stays where the frame's decoder
/// left it and is lent (a copy of one is 10 retains and 10 releases per share). The delivery
/// takes the record.
struct ShareInFlight: ~Copyable {
    let seq: UInt64
    let sender: ChildConnection
    let destination: AppRegistry.Entry
    /// Its record, until the delivery or the answer takes it (moved out, not copied: a copy
    /// of a record is a dozen retains).
    var record: ShareRecord?

    /// A share first seen by the rules: its record names the parties as the sender asked.
    init(fresh request: borrowing ShareRequest, seq: UInt64, from sender: ChildConnection, to destination: AppRegistry.Entry) {
        self.init(seq: seq, sender: sender, destination: destination, record: ShareRecord(
            from: sender.handle, fromBundle: sender.bundleID, identity: request.identity, to: destination.spec.handle,
            receivedAs: request.receiveAs, itemID: request.item.id, owner: nil, outcome: .delivered))
    }

    init(seq: UInt64, sender: ChildConnection, destination: AppRegistry.Entry, record: consuming ShareRecord?) {
        self.seq = seq
        self.sender = sender
        self.destination = destination
        self.record = record
    }
}

/// What a share's delivery is decided to be: its owner, who receives it, the decision
/// and the stamp. A class: a stream of shares takes the same plan item after item, and a
/// reference costs one retain where the accounts it holds cost a dozen.
final class SharePlan {
    let owner: Account?
    let receiver: Account?
    let decision: TransferDecision
    /// What the delivery is stamped with (it depends on the fleet and both apps only,
    /// which a route table's generation holds still).
    let ownership: Ownership
    /// The receiver's UPN (`""`: none), which every delivery and record names: read out
    /// of `receiver` it copied the whole account, five strings, twice per share.
    let receiverUPN: String

    init(owner: Account?, receiver: Account?, decision: TransferDecision, ownership: Ownership) {
        self.owner = owner
        self.receiver = receiver
        self.decision = decision
        self.ownership = ownership
        receiverUPN = receiver?.upn ?? ""
    }
}
