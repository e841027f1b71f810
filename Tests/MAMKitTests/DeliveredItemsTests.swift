@testable import MAMKit
import MAMModel
import MAMWire
import Testing

/// What a channel remembers of the items handed to its app (`DeliveredItems`), with no host:
/// an id is the sender's to choose, the same app in two spellings is one sender, a re-sent
/// item is recognised, and a declined one is shown again when it comes back.
@Suite struct DeliveredItemsTests {
    @Test func anIdIsTheSendersAndTheSameAppInTwoSpellingsIsOneSender() {
        var delivered = DeliveredItems(capacity: 16)
        let mail = delivered.key(sender: BundleID("com.contoso.mail"), id: "item-1")
        let word = delivered.key(sender: BundleID("com.contoso.word"), id: "item-1")
        let mailAgain = delivered.key(sender: BundleID("COM.Contoso.Mail"), id: "item-1")
        #expect(mail != word, "the same id from two senders is two items")
        #expect(mail == mailAgain, "a bundle id compares folded")
        #expect(delivered.key(sender: BundleID("com.contoso.word"), id: "x").sender == word.sender, "a sender keeps its number")
    }

    @Test func aReSentItemIsRecognisedAndADeclinedOneIsShownAgain() {
        var delivered = DeliveredItems(capacity: 16)
        let key = delivered.key(sender: BundleID("com.contoso.mail"), id: "item-1")
        #expect(!delivered.contains(key))
        let first = delivered.remember(key), again = delivered.remember(key)
        #expect(first && !again && delivered.contains(key))
        delivered.forget(key)
        let afterDecline = delivered.remember(key, hash: key.hashValue)
        #expect(afterDecline, "declined, it is shown again when it comes back")
    }

    @Test func aBatchsHashesAreTheKeysOwn() {
        var delivered = DeliveredItems(capacity: 16)
        let items = ["a", "b", "c"].enumerated().map { i, id in
            BatchedDelivery(seq: UInt64(i + 1), deliver: Deliver(item: Item(id: id, typeIdentifiers: ["public.plain-text"], payload: .inline(Array(id.utf8))),
                                                                  senderBundleID: BundleID("com.contoso.mail"), receivedAs: ""))
        }
        delivered.prepare(items)
        for (i, item) in items.enumerated() {
            let key = delivered.key(sender: item.deliver.senderBundleID, id: item.deliver.item.id)
            #expect(delivered.batchHash(i) == key.hashValue, "remembered with the hash `remember` would compute")
            let remembered = delivered.remember(key, hash: delivered.batchHash(i))
            #expect(remembered && delivered.contains(key))
        }
    }
}
