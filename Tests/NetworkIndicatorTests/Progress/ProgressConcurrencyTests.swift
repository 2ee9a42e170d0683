import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Progress updates, begins and ends from many threads while the fraction is read (run under
/// TSan by CI).
@Suite("Progress under concurrency")
struct ProgressConcurrencyTests {
    @Test func readingWhileManyThreadsUpdateAndEndTasksEndsEveryBatch() {
        let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let child = NetworkIndicatorManager(parent: root, label: "Child")
        let keepBusy = root.beganNetworkTask()
        let readings = LockedState<[Double?]>([])
        DispatchQueue.concurrentPerform(iterations: 9) { index in
            if index == 0 {
                for _ in 0..<2_000 {
                    let reading = root.fractionCompleted
                    readings.withLock { $0.append(reading) }
                    _ = child.fractionCompleted
                }
                return
            }
            let manager = index.isMultiple(of: 2) ? root : child
            for _ in 0..<50 {
                // corelibs' Progress takes no lock: a plain one must be updated where it is
                // read; this one may be updated on any thread.
                let progress = NetworkActivityProgress(totalUnitCount: 100)
                let token = manager.beganNetworkTask(label: "Worker", progress: progress)
                for step in 1...100 { progress.completedUnitCount = Int64(step) }
                manager.finishedNetworkTask(forToken: token)
            }
        }
        let values = readings.withLock { $0 }
        #expect(values.allSatisfy { $0 == nil || (0...1).contains($0!) })
        // The root stays busy without progress: once every worker ended, the batch is over.
        #expect(root.fractionCompleted == nil)
        #expect(child.fractionCompleted == nil)
        #expect(root.progressRollUp.partCount == 0, "the reading folded every ended part")
        #expect(child.progressRollUp.partCount == 0)
        withExtendedLifetime(keepBusy) {}
    }

    @Test func concurrentReadersFoldEachEndedTaskOnce() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let running = Progress(totalUnitCount: 100)
        let keep = manager.beganNetworkTask(progress: running)
        for _ in 0..<100 {
            let ended = Progress(totalUnitCount: 100)
            ended.completedUnitCount = 100
            _ = manager.beganNetworkTask(progress: ended)  // released at once: ended
        }
        let readings = LockedState<[Double?]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let reading = manager.fractionCompleted
            readings.withLock { $0.append(reading) }
        }
        // 100 ended tasks of 100 units, one running at 0: exactly 10_000 of 10_100, every time.
        #expect(readings.withLock { $0 }.allSatisfy { $0 == 10_000.0 / 10_100.0 })
        withExtendedLifetime(keep) {}
    }
}
