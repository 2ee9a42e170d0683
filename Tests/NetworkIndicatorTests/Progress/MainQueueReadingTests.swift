import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// swift-corelibs-foundation's `Progress` takes no lock: a caller's plain `Progress` is read on
/// the main queue only, and a reading on another thread answers what the main queue last read.
/// The package's own progresses, whose counts sit behind a lock, are read on any thread.
@Suite("Reading callers' progress on the main queue")
struct MainQueueReadingTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    /// Reads the fraction on a thread that is not the main one.
    private func fractionOffTheMainThread() -> Double? {
        let fraction = LockedState<Double?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            fraction.withLock { $0 = self.manager.progressSnapshot().fractionCompleted }
            done.signal()
        }
        done.wait()
        return fraction.withLock { $0 }
    }

    @Test func aPlainProgressIsReadOnlyOnTheMainQueue() async {
        let bytes = Progress(totalUnitCount: 100)
        let download = manager.beganNetworkTask(progress: bytes)
        #expect(fractionOffTheMainThread() == nil, "not read on the main queue yet")
        #expect(await MainActor.run { manager.progressSnapshot().fractionCompleted } == 0)
        await MainActor.run { bytes.completedUnitCount = 40 }
        #expect(fractionOffTheMainThread() == 0, "as the main queue last read it")
        #expect(await MainActor.run { manager.progressSnapshot().fractionCompleted } == 0.4)
        #expect(fractionOffTheMainThread() == 0.4)
        withExtendedLifetime(download) {}
    }

    /// A begin on the main queue reads a part cancelled while its task is open: the part leaves
    /// then, so a reading on another thread, which cannot read that `Progress` again, does not
    /// count it at its last reading.
    @Test func aCancelThatABeginReadsHoldsForAReadingElsewhere() async {
        let bytes = Progress(totalUnitCount: 100)
        let download = manager.beganNetworkTask(progress: bytes)
        let upload = manager.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 100))
        await MainActor.run {
            bytes.completedUnitCount = 50
            #expect(manager.progressSnapshot().fractionCompleted == 0.25)
            bytes.cancel()
        }
        let next = await MainActor.run {
            manager.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 100))
        }
        #expect(fractionOffTheMainThread() == 0, "0 of 200: the cancelled part left")
        withExtendedLifetime((download, upload, next)) {}
    }

    @Test func thePackagesOwnProgressIsReadOnAnyThread() {
        let pages = NetworkActivityProgress(totalUnitCount: 4)
        let download = manager.beganNetworkTask(progress: pages)
        pages.completedUnitCount = 1
        #expect(fractionOffTheMainThread() == 0.25)
        withExtendedLifetime(download) {}
    }
}
