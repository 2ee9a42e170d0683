import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// How an ended part is read: a group's finish ends its complete part, and a caller's plain
/// `Progress` that ended is folded from a main-queue reading, never from an older one.
@Suite("Reading ended parts")
struct EndedPartReadingTests {
    /// The group's finish ends the part that is complete, not the oldest: the bar never reads
    /// 100 % while the other operation runs.
    @Test func aGroupsFinishEndsItsCompletePartFirst() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let big = NetworkActivityProgress(totalUnitCount: 100)
        let small = NetworkActivityProgress(totalUnitCount: 10)
        uploads.operationStarted(progress: big)
        uploads.operationStarted(progress: small)
        big.completedUnitCount = 30
        small.completedUnitCount = 10
        uploads.operationFinished()
        #expect(manager.progressSnapshot().fractionCompleted == 40.0 / 110, "small done, big at 30 of 100")
        big.completedUnitCount = 60
        #expect(manager.progressSnapshot().fractionCompleted == 70.0 / 110, "big still runs")
    }

    /// With no part complete, the finish ends the oldest running one, as before.
    @Test func aGroupsFinishWithNoCompletePartEndsTheOldest() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = NetworkActivityProgress(totalUnitCount: 100)
        let second = NetworkActivityProgress(totalUnitCount: 100)
        uploads.operationStarted(progress: first)
        uploads.operationStarted(progress: second)
        second.completedUnitCount = 20
        uploads.operationFinished()
        #expect(manager.progressSnapshot().fractionCompleted == 120.0 / 200, "first counted done, second at 20")
    }

    /// A cancelled part whose token went on the main queue leaves its batch, even when another
    /// thread begins a task before the main queue reads again.
    @MainActor
    @Test func aCancelledPlainProgressLeavesItsBatchWhenAnotherThreadBeginsFirst() async {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let running = manager.beganNetworkTask(label: "running", progress: NetworkActivityProgress(totalUnitCount: 100))
        let bytes = Progress(totalUnitCount: 100)
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: bytes)
        bytes.completedUnitCount = 50
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        bytes.cancel()
        download = nil
        let other = NetworkActivityProgress(totalUnitCount: 100)
        let began = LockedState<NetworkActivityToken?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            began.withLock { $0 = manager.beganNetworkTask(label: "other", progress: other) }
            done.signal()
        }
        done.wait()
        #expect(manager.progressSnapshot().fractionCompleted == 0, "0 of 200: the cancelled one left")
        withExtendedLifetime((download, began, running)) {}
    }
}
