import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// ShowingProgress.md: "A reset is not a cancel: it ends the tasks it finds, and their parts
/// count as any ended part does." A failure recorded for such a part afterwards (its group's
/// `cancelOperations()`, its scoped body throwing or cancelled, its tracked sequence throwing)
/// comes after its end and changes nothing, whether or not anyone read the bar in between.
///
/// In each test, a screen's scope is reset while its parent's own download (0 of 100) keeps
/// the batch running; the scope's part stood at 50 of 100 and ends done: 100 of 200. The reset
/// may come from any thread: off the main queue a plain `Progress` cannot be read then, but
/// what the reset ended stays ended as the reset found it.
@MainActor
@Suite("A failure after a reset")
struct ResetThenFailureTests {
    private struct Failure: Error {}

    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    /// Runs `body` on another thread and waits for it.
    private func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done, execute: body)
        done.wait()
    }

    @Test(arguments: [false, true])
    func aGroupsCancelAfterAResetLeavesTheResetPartDone(readBetween: Bool) {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let download = manager.beganNetworkTask(progress: progress(0, of: 100))
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        uploads.operationStarted(progress: progress(50, of: 100))
        screen.resetNetworkActivity()
        if readBetween { #expect(manager.progressSnapshot().fractionCompleted == 0.5) }
        uploads.cancelOperations()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5)
        #expect(snapshot.completedUnitCount == 100)
        #expect(snapshot.totalUnitCount == 200)
        withExtendedLifetime((download, uploads)) {}
    }

    @Test(arguments: [false, true])
    func aScopedBodyThatThrowsAfterAResetLeavesItsPartDone(readBetween: Bool) async {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let download = manager.beganNetworkTask(progress: progress(0, of: 100))
        do {
            try await screen.withNetworkActivity(progress: progress(50, of: 100)) {
                #expect(manager.progressSnapshot().fractionCompleted == 0.25)
                screen.resetNetworkActivity()
                if readBetween { _ = manager.progressSnapshot() }
                throw Failure()
            }
        } catch {}
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(download) {}
    }

    @Test(arguments: [false, true])
    func aScopedBodyCancelledAfterAResetLeavesItsPartDone(readBetween: Bool) async {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let download = manager.beganNetworkTask(progress: progress(0, of: 100))
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let (started, didStart) = AsyncStream.makeStream(of: Void.self)
        let body = Task { @MainActor in
            await screen.withNetworkActivity(progress: progress(50, of: 100)) {
                didStart.yield()
                for await _ in gate {}
            }
        }
        for await _ in started { break }
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        screen.resetNetworkActivity()
        if readBetween { _ = manager.progressSnapshot() }
        body.cancel()
        open.finish()
        await body.value
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(download) {}
    }

    @Test(arguments: [false, true])
    func aTrackedSequenceThatThrowsAfterAResetLeavesItsPartDone(readBetween: Bool) async {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let download = manager.beganNetworkTask(progress: progress(0, of: 100))
        let (pages, input) = AsyncThrowingStream.makeStream(of: Int.self)
        var iterator = pages.trackingNetworkActivity(in: screen, expectedElementCount: 2, weight: 100)
            .makeAsyncIterator()
        input.yield(1)
        _ = try? await iterator.next()
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        screen.resetNetworkActivity()
        if readBetween { _ = manager.progressSnapshot() }
        input.finish(throwing: Failure())
        _ = try? await iterator.next()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(download) {}
    }

    /// The sequence throws while the reset, on another thread, reads the parts it ended (held
    /// at the part read before the sequence's): its part still ends as the reset found it.
    @Test func aTrackedSequenceThatThrowsWhileTheResetReadsLeavesItsPartDone() async {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let download = manager.beganNetworkTask(progress: progress(0, of: 100))
        let gated = GatedProgress(total: 100, completed: 50)
        let upload = screen.beganNetworkTask(progress: gated)
        let (pages, input) = AsyncThrowingStream.makeStream(of: Int.self)
        var iterator = pages.trackingNetworkActivity(in: screen, expectedElementCount: 2, weight: 100)
            .makeAsyncIterator()
        input.yield(1)
        _ = try? await iterator.next()
        #expect(manager.progressSnapshot().fractionCompleted == 100.0 / 300)
        gated.holdNextReading()
        let resetDone = DispatchGroup()
        DispatchQueue.global().async(group: resetDone) { screen.resetNetworkActivity() }
        await withCheckedContinuation { held in
            DispatchQueue.global().async {
                gated.waitUntilHeld()
                held.resume()
            }
        }
        input.finish(throwing: Failure())
        _ = try? await iterator.next()
        gated.releaseReading()
        await withCheckedContinuation { done in resetDone.notify(queue: .global()) { done.resume() } }
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.completedUnitCount == 200, "both of the screen's parts ended done")
        #expect(snapshot.totalUnitCount == 300)
        withExtendedLifetime((download, upload)) {}
    }

    /// The reset comes from another thread, the group's cancel then comes on the main queue
    /// or another thread, and only then does the main queue read the bar.
    @Test(arguments: [false, true])
    func aGroupsCancelAfterAResetOnAnotherThreadLeavesTheResetPartDone(cancelOnMainQueue: Bool) {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let download = manager.beganNetworkTask(progress: progress(0, of: 100))
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        uploads.operationStarted(progress: progress(50, of: 100))
        onAnotherThread { screen.resetNetworkActivity() }
        if cancelOnMainQueue {
            uploads.cancelOperations()
        } else {
            onAnotherThread { uploads.cancelOperations() }
        }
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5)
        #expect(snapshot.completedUnitCount == 100)
        #expect(snapshot.totalUnitCount == 200)
        withExtendedLifetime((download, uploads)) {}
    }

    @Test func aScopedBodyThatThrowsAfterAResetOnAnotherThreadLeavesItsPartDone() async {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let download = manager.beganNetworkTask(progress: progress(0, of: 100))
        do {
            try await screen.withNetworkActivity(progress: progress(50, of: 100)) {
                #expect(manager.progressSnapshot().fractionCompleted == 0.25)
                onAnotherThread { screen.resetNetworkActivity() }
                throw Failure()
            }
        } catch {}
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(download) {}
    }

    /// What the reset found holds for the tasks it ended, not for the same progress begun again:
    /// a group's operation reset, begun again with its progress and then cancelled, all before
    /// the main queue reads, leaves as cancelled.
    @Test func aPartBegunAgainAfterAResetFailsWithItsNewTask() {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let download = manager.beganNetworkTask(progress: progress(0, of: 100))
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        let upload = progress(50, of: 100)
        uploads.operationStarted(progress: upload)
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        onAnotherThread {
            screen.resetNetworkActivity()
            uploads.operationStarted(progress: upload)
            uploads.cancelOperations()
        }
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0)
        #expect(snapshot.totalUnitCount == 100, "the upload's units left with it")
        withExtendedLifetime((download, uploads)) {}
    }
}
