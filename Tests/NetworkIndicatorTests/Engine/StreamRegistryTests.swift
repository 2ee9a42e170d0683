import Testing

@testable import NetworkIndicator

@Suite("Stream registry")
struct StreamRegistryTests {
    @Test func streamsOpenAtOnceAreEachKeptAndRemovedOnTheirOwn() {
        var registry = StreamRegistry()
        let (first, firstContinuation) = AsyncStream.makeStream(of: Bool.self)
        let (second, secondContinuation) = AsyncStream.makeStream(of: Bool.self)
        let firstID = registry.add(firstContinuation)
        let secondID = registry.add(secondContinuation)
        #expect(firstID != secondID)
        #expect(registry.all.count == 2)
        #expect(registry.takeDelivery(visibilityChanged: false).primed.count == 2, "both hear the current value")
        registry.remove(firstID)
        #expect(registry.all.count == 1, "removing one stream leaves the other")
        #expect(registry.takeDelivery(visibilityChanged: true).updated.count == 1)
        _ = (first, second)
    }

    @Test func aNewStreamTakesNoPartInTheChangeOfItsFirstDelivery() {
        var registry = StreamRegistry()
        let (old, oldContinuation) = AsyncStream.makeStream(of: Bool.self)
        _ = registry.add(oldContinuation)
        _ = registry.takeDelivery(visibilityChanged: false)
        let (new, newContinuation) = AsyncStream.makeStream(of: Bool.self)
        _ = registry.add(newContinuation)
        let delivery = registry.takeDelivery(visibilityChanged: true)
        #expect(delivery.updated.count == 1)
        #expect(delivery.primed.count == 1)
        _ = (old, new)
    }

    @Test func closingANewStreamLeavesTheOtherNewStreamsToBePrimed() {
        var registry = StreamRegistry()
        let (first, firstContinuation) = AsyncStream.makeStream(of: Bool.self)
        let (second, secondContinuation) = AsyncStream.makeStream(of: Bool.self)
        _ = registry.add(firstContinuation)
        let secondID = registry.add(secondContinuation)
        registry.remove(secondID)  // closed before its first value
        #expect(
            registry.takeDelivery(visibilityChanged: false).primed.count == 1,
            "the first still hears the current value"
        )
        _ = (first, second)
    }
}
