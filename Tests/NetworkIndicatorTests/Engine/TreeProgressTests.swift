import Foundation
import Testing

@testable import NetworkIndicator

/// Progress parts in the tree value, each interleaving forced step by step: no lock, no thread.
/// A reader lists the parts, reads them "outside the lock" (here, in between two events), then
/// stores the readings and folds; a reading of `nil` is a caller's plain `Progress` read off the
/// main queue.
@Suite("Progress parts in the tree")
struct TreeProgressTests {
    private final class Token {}

    private var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
    private let root = IndicatorTree.rootID
    /// What the tree hands back to release after the lock.
    private var keptAlive: [AnyObject] = []

    /// Begins a task for `token` in `node` and lists its part; returns the part.
    @discardableResult
    private mutating func begin(
        _ token: AnyObject,
        _ progress: Progress,
        in node: IndicatorTree.NodeID = IndicatorTree.rootID,
        now: TimeInterval = 0
    ) -> ProgressEntry {
        var time = EventTime(preread: now)
        _ = tree.apply(.begin(.token(token), label: nil, site: .none), in: node, time: &time)
        let part = ProgressEntry(progress: progress, weight: nil, token: token, node: node, pinned: nil, failure: nil)
        var loaded: [AnyObject] = []
        tree.addPart(part, reading: ProgressReading(of: progress, weight: nil), now: now, keepingAlive: &loaded)
        return part
    }

    private mutating func list(_ node: IndicatorTree.NodeID = IndicatorTree.rootID) -> [IndicatorTree.PartToRead] {
        tree.partsToRead(from: node, settling: false, keepingAlive: &keptAlive)
    }

    /// Reads the listed parts as the main queue does, or (`offMain`) leaving plain ones unread.
    private func read(_ parts: [IndicatorTree.PartToRead], offMain: Bool = false) -> [IndicatorTree.PartToRead] {
        parts.map { part in
            var part = part
            let plainOffMain = offMain && part.entry.readsOnMainQueueOnly
            part.reading = plainOffMain ? nil : ProgressReading(of: part.entry.progress, weight: nil)
            return part
        }
    }

    private mutating func fold(
        _ readings: [IndicatorTree.PartToRead],
        in node: IndicatorTree.NodeID = IndicatorTree.rootID
    ) -> Batch.Summary {
        tree.foldProgress(from: node, settling: false, readings: readings, now: 1, keepingAlive: &keptAlive).summary
    }

    private mutating func readingNow(_ node: IndicatorTree.NodeID = IndicatorTree.rootID) -> Batch.Summary {
        fold(read(list(node)), in: node)
    }

    /// Listed [P], Q added, P finished, folded: the fold sees Q running, so the batch goes on
    /// (a fold of the reader's own list would find nothing running and reset it). P ended after
    /// it was listed: it waits for a reading after its end, at its last reading, then counts
    /// as done.
    @Test mutating func aPartAddedAfterTheListKeepsTheBatchRunning() {
        let p = Token()
        let q = Token()
        let first = NetworkActivityProgress(totalUnitCount: 100)
        begin(p, first)
        first.completedUnitCount = 40
        let listed = read(list())
        begin(q, NetworkActivityProgress(totalUnitCount: 100))
        var time = EventTime(preread: 1)
        _ = tree.apply(.finish(.key(ObjectIdentifier(p))), in: root, time: &time)
        let summary = fold(listed)
        #expect(summary.isRunning)
        #expect(summary.completed == 40 && summary.total == 200, "P waits at 40, Q at 0")
        let next = readingNow()
        #expect(next.completed == 100 && next.total == 200, "P read after its end counts as done")
        #expect(tree.progressParts(of: root).count == 1)
    }

    /// A plain `Progress` cancelled, then its token released: a fold off the main queue cannot
    /// read it, so it waits (never counted as done); the next main-queue fold reads it cancelled
    /// and drops it from both sums.
    @Test mutating func aCancelledPlainPartFoldedOffTheMainQueueWaitsForAMainReading() {
        var download: Token? = Token()
        let other = Token()
        let bytes = Progress(totalUnitCount: 100)
        begin(download!, bytes)
        begin(other, NetworkActivityProgress(totalUnitCount: 100))
        bytes.completedUnitCount = 50
        #expect(readingNow().completed == 50)
        bytes.cancel()
        download = nil
        let offMain = fold(read(list(), offMain: true))
        #expect(offMain.completed != 150, "never counted as done")
        #expect(tree.progressParts(of: root).count == 2, "it waits, listed")
        let onMain = readingNow()
        #expect(onMain.completed == 0 && onMain.total == 100, "0 of 100: the cancelled one left")
        #expect(tree.progressParts(of: root).count == 1)
    }

    /// Two parts under one token (a group's operations), one complete: the finish of one task
    /// ends the complete part, and the other runs on (40 of 110, not 100 %).
    @Test mutating func aFinishUnderARepeatedTokenEndsItsCompletePartFirst() {
        let uploads = ActivityKey()  // a group's key: its parts leave by the group's rules
        let big = NetworkActivityProgress(totalUnitCount: 100)
        let small = NetworkActivityProgress(totalUnitCount: 10)
        begin(uploads, big)
        begin(uploads, small)
        big.completedUnitCount = 30
        small.completedUnitCount = 10
        var time = EventTime(preread: 1)
        _ = tree.apply(.finish(.key(ObjectIdentifier(uploads))), in: root, time: &time)
        let summary = readingNow()
        #expect(summary.isRunning)
        #expect(summary.completed == 40 && summary.total == 110)
        #expect(tree.progressParts(of: root).map(\.progress) == [big])
    }

    /// The same finish, folded off the main queue while one part is a plain `Progress` whose
    /// reading is old: which part finished cannot be told, so none leaves until a fresh reading.
    @Test mutating func aFinishUnderARepeatedTokenWaitsForFreshReadings() {
        let uploads = ActivityKey()  // a group's key: its parts leave by the group's rules
        let big = NetworkActivityProgress(totalUnitCount: 100)
        let small = Progress(totalUnitCount: 10)
        begin(uploads, big)
        begin(uploads, small)
        small.completedUnitCount = 10
        var time = EventTime(preread: 1)
        _ = tree.apply(.finish(.key(ObjectIdentifier(uploads))), in: root, time: &time)
        _ = fold(read(list(), offMain: true))
        #expect(tree.progressParts(of: root).count == 2, "small's old reading says 0 of 10")
        let summary = readingNow()
        #expect(summary.completed == 10 && summary.total == 110, "small done, big at 0")
    }

    /// A fold off the main queue finds a group's plain upload stale beside an operation without
    /// progress: fewer running parts than open operations and no finish since, so nothing waits
    /// for a reading. Two finishes then land before the next fold, on the main queue: they take
    /// the part of unknown size first (as an operation without progress), not the oldest, and
    /// the upload counts on at 30 of 100, not as done.
    @Test mutating func aStaleFoldWithoutAFinishLeavesTheNextFinishesTakingUnknownSizeFirst() {
        let other = Token()
        let download = NetworkActivityProgress(totalUnitCount: 100)
        begin(other, download)  // keeps the batch running
        let uploads = ActivityKey()  // a group's key: its parts leave by the group's rules
        let upload = Progress(totalUnitCount: 100)
        upload.completedUnitCount = 30
        begin(uploads, upload)
        let unknown = NetworkActivityProgress(totalUnitCount: -1)
        begin(uploads, unknown)  // of unknown size, begun after the upload
        var time = EventTime(preread: 1)
        _ = tree.apply(.begin(.token(uploads), label: nil, site: .none), in: root, time: &time)  // no progress
        _ = fold(read(list(), offMain: true))  // the upload's reading is stale: 2 running parts, 3 open
        #expect(tree.progressParts(of: root).count == 3)
        _ = tree.apply(.finish(.key(ObjectIdentifier(uploads))), in: root, time: &time)
        _ = tree.apply(.finish(.key(ObjectIdentifier(uploads))), in: root, time: &time)
        let summary = readingNow()
        #expect(summary.completed == 30 && summary.total == 200, "the upload at 30, the other at 0")
        #expect(tree.progressParts(of: root).map(\.progress) == [download, upload], "the unknown one left")
        withExtendedLifetime((other, unknown)) {}
    }

    /// A part begun in a grandchild is listed in each ancestor; settling from a sibling folds
    /// the root's ended part, read once.
    @Test mutating func aPartRollsUpToEveryAncestor() {
        var time = EventTime(preread: 0)
        let child = tree.addNode(childOf: root, label: "child")
        let grandchild = tree.addNode(childOf: child, label: "grandchild")
        let sibling = tree.addNode(childOf: root, label: "sibling")
        let token = Token()
        begin(token, NetworkActivityProgress(totalUnitCount: 100), in: grandchild)
        #expect([grandchild, child, root].allSatisfy { tree.progressParts(of: $0).count == 1 })
        #expect(tree.progressParts(of: sibling).isEmpty)
        _ = tree.apply(.finish(.key(ObjectIdentifier(token))), in: grandchild, time: &time)
        let toRead = tree.partsToRead(from: sibling, settling: true, keepingAlive: &keptAlive)
        #expect(toRead.count == 1 && toRead[0].hadEnded)
        _ = tree.foldProgress(from: sibling, settling: true, readings: read(toRead), now: 1, keepingAlive: &keptAlive)
        #expect(tree.progressParts(of: root).isEmpty)
        #expect(tree.progressParts(of: child).count == 1, "not on the sibling's chain")
    }

    /// Nothing of a caller's is released under the lock: a part that leaves in a fold, and the
    /// token loaded to count its tasks, come back to the caller, who releases them after it
    /// (the last reference to a `Progress` may be the part's; a token's `deinit` takes the lock).
    @Test mutating func whatAFoldLetsGoIsReleasedAfterTheLock() {
        var token: Token? = Token()
        let part = WeakReference(begin(token!, NetworkActivityProgress(totalUnitCount: 100)))
        let weakToken = WeakReference(token)
        #expect(list().count == 1)
        #expect(keptAlive.contains { $0 === token }, "the token loaded under the lock")
        keptAlive.removeAll()
        var time = EventTime(preread: 1)
        _ = tree.apply(.finish(.key(ObjectIdentifier(token!))), in: root, time: &time)
        token = nil
        _ = readingNow()
        #expect(tree.progressParts(of: root).isEmpty, "the part left")
        #expect(part.object != nil, "held for the caller")
        keptAlive.removeAll()
        #expect(part.object == nil && weakToken.object == nil, "released once the caller lets go")
    }

    /// A settling reader walks the chain from a scope to the root; a part begun in the scope is
    /// listed in both batches, and read once.
    @Test mutating func aSettlingReaderListsEachPartOnce() {
        let child = tree.addNode(childOf: root, label: "Feed")
        let inChild = Progress(totalUnitCount: 10)
        let inRoot = Progress(totalUnitCount: 20)
        begin(Token(), inChild, in: child)
        begin(Token(), inRoot)
        let parts = tree.partsToRead(from: child, settling: true, keepingAlive: &keptAlive)
        #expect(
            parts.map { ObjectIdentifier($0.entry.progress) } == [ObjectIdentifier(inChild), ObjectIdentifier(inRoot)]
        )
    }

    /// A part whose tasks all ended after the begin's settle, found in the next begin's hold: its
    /// batch, with nothing running, ends before the new part is listed, which starts its own.
    /// A batch that still runs keeps the ended part, waiting for a reading after its end.
    @Test mutating func aPartEndedSinceTheSettleEndsItsBatchBeforeTheNextBegin() {
        let p = Token()
        let first = NetworkActivityProgress(totalUnitCount: 100)
        begin(p, first)
        first.completedUnitCount = 50
        _ = readingNow()
        var time = EventTime(preread: 1)
        _ = tree.apply(.finish(.key(ObjectIdentifier(p))), in: root, time: &time)
        tree.foldPartsEndedSinceSettle(from: root, now: 2, keepingAlive: &keptAlive)
        #expect(tree.progressParts(of: root).isEmpty, "the batch ended without the finished part")
        let q = Token()
        let r = Token()
        begin(q, NetworkActivityProgress(totalUnitCount: 100), now: 2)
        begin(r, NetworkActivityProgress(totalUnitCount: 100), now: 2)
        _ = tree.apply(.finish(.key(ObjectIdentifier(q))), in: root, time: &time)
        tree.foldPartsEndedSinceSettle(from: root, now: 3, keepingAlive: &keptAlive)
        #expect(tree.progressParts(of: root).count == 2, "r runs: q waits for a reading after its end")
        #expect(readingNow().total == 200)
        withExtendedLifetime((p, q, r)) {}
    }

    /// A part whose token is gone has ended once: the next begin's check folds it, and the one
    /// after finds nothing new to fold.
    @Test mutating func aPartWhoseTokenIsGoneIsNotedEnded() {
        var token: Token? = Token()
        let part = begin(token!, NetworkActivityProgress(totalUnitCount: 100))
        let other = Token()
        begin(other, NetworkActivityProgress(totalUnitCount: 100))
        token = nil
        keptAlive = []
        #expect(!part.hasEnded)
        tree.foldPartsEndedSinceSettle(from: root, now: 1, keepingAlive: &keptAlive)
        #expect(part.hasEnded, "noted: a later begin's check skips it")
        withExtendedLifetime(other) {}
    }

    /// A group's operation outlives only the group's own listed parts: with another task's part
    /// listed and none of the group's, its begin asks its caller for no settle (a settle reads
    /// every part); with one of the group's listed, it does.
    @Test mutating func aGroupsBeginOutlivesOnlyItsOwnParts() {
        let group = Token()
        let other = Token()
        begin(other, NetworkActivityProgress(totalUnitCount: 100))
        var time = EventTime(preread: 1)
        let groupBegin = TaskEvent.begin(
            .keyed(ObjectIdentifier(group), object: group, kind: .group),
            label: nil,
            site: .none
        )
        #expect(tree.apply(groupBegin, in: root, time: &time).0 == .applied, "the other task's part is not the group's")
        let part = ProgressEntry(
            progress: NetworkActivityProgress(totalUnitCount: 10),
            weight: nil,
            token: group,
            node: root,
            pinned: nil,
            failure: nil
        )
        tree.addPart(part, reading: ProgressReading(of: part.progress, weight: nil), now: 1, keepingAlive: &keptAlive)
        #expect(tree.apply(groupBegin, in: root, time: &time).0 == .outlivedParts)
        #expect(part.isOutlived)
    }
}
