import Foundation
import Testing

@testable import NetworkIndicator

/// On the tree value (no lock, no thread): what a fold lets go comes back in `keptAlive`
/// (CONTRIBUTING.md: no `deinit` of a caller's runs under the lock), and nothing a part leaves
/// behind is inherited by a later part at its address.
@Suite("What a fold lets go")
struct FoldLetsGoTests {
    private final class Token {}

    private var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
    private let root = IndicatorTree.rootID
    private var keptAlive: [AnyObject] = []

    @discardableResult
    private mutating func begin(_ token: AnyObject, _ progress: Progress?, now: TimeInterval = 0) -> ProgressEntry? {
        var time = EventTime(preread: now)
        if let key = token as? ActivityKey {
            _ = tree.apply(
                .begin(.keyed(ObjectIdentifier(key), object: key, kind: .group), label: nil, site: .none),
                in: root,
                time: &time
            )
        } else {
            _ = tree.apply(.begin(.token(token), label: nil, site: .none), in: root, time: &time)
        }
        guard let progress else { return nil }
        let part = ProgressEntry(progress: progress, weight: nil, token: token, node: root, pinned: nil, failure: nil)
        var loaded: [AnyObject] = []
        tree.addPart(part, reading: ProgressReading(of: progress, weight: nil), now: now, keepingAlive: &loaded)
        return part
    }

    private mutating func readingNow(offMain: Bool = false) -> (Batch.Summary, Bool) {
        let parts = tree.partsToRead(from: root, settling: false, keepingAlive: &keptAlive).map { part in
            var part = part
            let plainOffMain = offMain && part.entry.readsOnMainQueueOnly
            part.reading = plainOffMain ? nil : ProgressReading(of: part.entry.progress, weight: nil)
            return part
        }
        let folded = tree.foldProgress(from: root, settling: false, readings: parts, now: 1, keepingAlive: &keptAlive)
        return (folded.summary, folded.hasUnmeasuredTasks)
    }

    /// A group's part that left done while its operation was open is kept by the batch
    /// (`groupParts`); once another part of the group is listed, the next fold replaces it
    /// there and drops the last reference to it, and to its `Progress`, during the fold.
    @Test mutating func aGroupPartKeptForItsDoneCountIsReleasedAfterTheLock() {
        let other = Token()
        begin(other, NetworkActivityProgress(totalUnitCount: 100))  // keeps the batch running
        let key = ActivityKey()
        var first: NetworkActivityProgress? = NetworkActivityProgress(totalUnitCount: 100)
        let weakFirst = WeakReference(first)
        let weakEntry = WeakReference(begin(key, first!))
        begin(key, nil)  // a later operation outlives the first part
        first!.completedUnitCount = 100
        _ = readingNow()  // the first leaves as done, measuring its operation
        #expect(tree.progressParts(of: root).count == 1, "only the other part stays listed")
        first = nil
        keptAlive.removeAll()
        #expect(weakEntry.object != nil, "held by the batch's groupParts (the group's operations are open)")
        begin(key, NetworkActivityProgress(totalUnitCount: 100))  // the group begins again with progress
        _ = readingNow()
        #expect(weakFirst.object != nil, "what the fold let go is handed back, to release after the lock")
        keptAlive.removeAll()
        #expect(weakFirst.object == nil)
        withExtendedLifetime((other, key)) {}
    }

    /// A token begun twice with one plain progress whose tasks both end; read off the main
    /// queue it waits, and the batch ends (nothing runs) without it: its extra begin leaves
    /// with it, so a new part allocated at the freed part's address does not inherit it. The
    /// allocator usually reuses the address at once; the test checks only the tries where it
    /// did.
    @Test mutating func aWaitingPartsRepeatedBeginsOutliveIt() {
        var reused = false
        for _ in 0..<200 where !reused {
            tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
            keptAlive.removeAll()
            let token = Token()
            var identity: ObjectIdentifier?
            do {
                let plain = Progress(totalUnitCount: 100)
                let entry = begin(token, plain)!
                begin(token, plain)  // once more with the same progress: a repeated begin
                identity = ObjectIdentifier(entry)
                var time = EventTime(preread: 1)
                _ = tree.apply(.finish(.key(ObjectIdentifier(token))), in: root, time: &time)
                _ = tree.apply(.finish(.key(ObjectIdentifier(token))), in: root, time: &time)
            }
            _ = readingNow(offMain: true)  // ended, unread: it waits; nothing runs: the batch ends
            #expect(tree.progressParts(of: root).isEmpty)
            keptAlive.removeAll()  // the waiting part is freed
            let next = Token()
            let bytes = NetworkActivityProgress(totalUnitCount: 100)
            var time = EventTime(preread: 2)
            _ = tree.apply(.begin(.token(next), label: nil, site: .none), in: root, time: &time)  // no progress
            let entry = begin(next, bytes)!
            guard ObjectIdentifier(entry) == identity else { continue }
            reused = true
            let (summary, unmeasured) = readingNow()
            #expect(summary.isRunning)
            #expect(unmeasured, "one of next's two tasks has no progress: it is not measured")
            withExtendedLifetime(token) {}
        }
    }
}
