import Testing

@testable import NetworkIndicator

/// The list of the last ended labels, which names a late (double) finish as its task was begun.
@Suite("Ended labels")
struct EndedLabelsTests {
    /// Past its capacity the list forgets the oldest labels, one per new one, and keeps every
    /// newer one: the two labels over capacity push out the first two, not each other.
    @Test func aFullRingForgetsTheOldestFirst() {
        var labels = EndedLabels()
        let count = EndedLabels.capacity + 2
        for index in 0..<count {
            labels.remember("task \(index)", pinned: PinnedSlot(slot: Int32(index), generation: 1))
        }
        #expect(labels.label(of: .pinned(PinnedSlot(slot: 0, generation: 1))) == nil)
        #expect(labels.label(of: .pinned(PinnedSlot(slot: 1, generation: 1))) == nil)
        for index in 2..<count {
            let label = labels.label(of: .pinned(PinnedSlot(slot: Int32(index), generation: 1)))
            #expect(label == "task \(index)", "the last \(EndedLabels.capacity) are kept")
        }
    }

    /// A token remembered twice, the list full in between, is named by its newer label (a ring
    /// buffer once put the newer one at its start and found the older one first).
    @Test func theNewerLabelOfOneTokenWinsOnceTheListIsFull() {
        var labels = EndedLabels()
        for index in 1..<EndedLabels.capacity {
            labels.remember("other \(index)", pinned: PinnedSlot(slot: Int32(index), generation: 1))
        }
        let token = PinnedSlot(slot: 0, generation: 1)
        labels.remember("upload", pinned: token)  // the last place left
        labels.remember("retry", pinned: token)  // the list full: the oldest goes
        #expect(labels.label(of: .pinned(token)) == "retry")
    }
}
