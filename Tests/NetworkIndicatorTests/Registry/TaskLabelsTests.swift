import Testing

@testable import NetworkIndicator

/// The registry's one label store: open tokens' labels, and the last ended ones, which name a
/// late (double) finish as its task was begun.
@Suite("Task labels")
struct TaskLabelsTests {
    private final class Token {}

    private func pinned(_ slot: Int) -> TaskReference {
        .pinned(PinnedSlot(slot: Int32(slot), generation: 1))
    }

    /// Past its capacity the list forgets the oldest labels, one per new one, and keeps every
    /// newer one: the two labels over capacity push out the first two, not each other.
    @Test func aFullRingForgetsTheOldestFirst() {
        var labels = TaskLabels()
        let count = TaskLabels.endedCapacity + 2
        for index in 0..<count {
            labels.begin(pinned(index), label: "task \(index)")
            labels.end(pinned(index))
        }
        #expect(labels.endedLabel(of: pinned(0)) == nil)
        #expect(labels.endedLabel(of: pinned(1)) == nil)
        for index in 2..<count {
            let label = labels.endedLabel(of: pinned(index))
            #expect(label == "task \(index)", "the last \(TaskLabels.endedCapacity) are kept")
        }
        #expect(labels.openLabelCount == 0)
    }

    /// A token remembered twice, the list full in between, is named by its newer label (a ring
    /// buffer once put the newer one at its start and found the older one first).
    @Test func theNewerLabelOfOneTokenWinsOnceTheListIsFull() {
        var labels = TaskLabels()
        for index in 1..<TaskLabels.endedCapacity {
            labels.begin(pinned(index), label: "other \(index)")
            labels.end(pinned(index))
        }
        labels.begin(pinned(0), label: "upload")
        labels.end(pinned(0))  // the last place left
        labels.begin(pinned(0), label: "retry")
        labels.end(pinned(0))  // the list full: the oldest goes
        #expect(labels.endedLabel(of: pinned(0)) == "retry")
    }

    /// An open label is found while its token is open, and not among the ended ones; an end not
    /// remembered (a released opaque token) leaves no ended label.
    @Test func anOpenLabelIsNotAnEndedOne() {
        var labels = TaskLabels()
        labels.begin(pinned(0), label: "upload")
        #expect(labels.label(of: pinned(0)) == "upload")
        #expect(labels.endedLabel(of: pinned(0)) == nil)
        labels.end(pinned(0), remembering: false)
        #expect(labels.label(of: pinned(0)) == nil)
        #expect(labels.endedLabel(of: pinned(0)) == nil)
    }

    /// A caller's token's ended label is answered only while the token lives: an object later at
    /// the same address never gets it.
    @Test func anEndedCallersTokenIsNamedOnlyWhileAlive() {
        var labels = TaskLabels()
        var token: Token? = Token()
        let reference = TaskReference.key(ObjectIdentifier(token!))
        labels.begin(reference, label: "sync")
        labels.end(reference, token: WeakWrapper(object: token))
        #expect(labels.endedLabel(of: reference) == "sync")
        token = nil
        #expect(labels.endedLabel(of: reference) == nil)
    }

    /// An unlabelled run's end forgets its own token's older label and no other's, and the test
    /// that guards the scan says "maybe" for every token remembered: slots 3 and 67 share a bit.
    @Test func forgettingOneTokenKeepsTheOthersLabels() {
        var labels = TaskLabels()
        for slot in [3, 67, 5] {
            labels.begin(pinned(slot), label: "task \(slot)")
            labels.end(pinned(slot))
        }
        #expect([3, 67, 5].allSatisfy { labels.mayRemember(pinned($0)) })
        #expect(!labels.mayRemember(pinned(4)), "a bit no remembered token has")
        labels.forget(pinned(3))
        #expect(labels.endedLabel(of: pinned(3)) == nil)
        #expect(labels.endedLabel(of: pinned(67)) == "task 67", "its bit stays set for it")
        #expect(labels.mayRemember(pinned(67)))
        #expect(labels.endedLabel(of: pinned(5)) == "task 5")
        labels.forget(pinned(67))
        #expect(!labels.mayRemember(pinned(3)), "no token with that bit is left")
    }
}
