import MAMModel
import Testing
@testable import MAMKit

@Test func recentIDsForgetTheOldestBeyondTheirCapacity() {
    var ids = RecentSet<String>(capacity: 3)
    for id in ["a", "b", "c"] { ids.remember(id) }
    #expect(ids.contains("a") && ids.contains("b") && ids.contains("c"))
    ids.remember("b")  // already known: nothing is evicted
    ids.remember("d")
    #expect(!ids.contains("a"))
    #expect(ids.contains("b") && ids.contains("c") && ids.contains("d"))
    ids.remember("e")
    #expect(!ids.contains("b"))
    #expect(ids.contains("e"))
}

@Test func theSameItemIDFromTwoSendersIsTwoItems() {
    var ids = RecentIDs(capacity: 8)
    ids.remember(DeliveredItem(sender: "com.contoso.mail", id: "x"))
    #expect(ids.contains(DeliveredItem(sender: "com.contoso.mail", id: "x")))
    #expect(!ids.contains(DeliveredItem(sender: "com.contoso.word", id: "x")))
}
