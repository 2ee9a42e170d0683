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
        let readings = LockedState<[NetworkProgressSnapshot]>([])
        DispatchQueue.concurrentPerform(iterations: 9) { index in
            if index == 0 {
                for _ in 0..<2_000 {
                    let reading = root.progressSnapshot()
                    readings.withLock { $0.append(reading) }
                    _ = child.progressSnapshot().fractionCompleted
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
        // Every reading is whole parts of 100 units, none done past its total, and the root's
        // own task, of no size, always shows beside them.
        for reading in readings.withLock({ $0 }) {
            #expect(reading.totalUnitCount % 100 == 0)
            #expect(reading.completedUnitCount <= reading.totalUnitCount)
            #expect(reading.hasIndeterminateWork)
            if let fraction = reading.fractionCompleted {
                #expect(abs(fraction - Double(reading.completedUnitCount) / Double(reading.totalUnitCount)) < 0.01)
            } else {
                #expect(reading.totalUnitCount == 0)
            }
        }
        // The root stays busy without progress: once every worker ended, the batch is over.
        #expect(root.progressSnapshot().fractionCompleted == nil)
        #expect(child.progressSnapshot().fractionCompleted == nil)
        #expect(root.progressRollUp.partCount == 0, "the reading folded every ended part")
        #expect(child.progressRollUp.partCount == 0)
        withExtendedLifetime(keepBusy) {}
    }

    @Test func concurrentReadersFoldEachEndedTaskOnce() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let running = NetworkActivityProgress(totalUnitCount: 100)
        let keep = manager.beganNetworkTask(progress: running)
        for _ in 0..<100 {
            let ended = NetworkActivityProgress(totalUnitCount: 100)
            ended.completedUnitCount = 100
            _ = manager.beganNetworkTask(progress: ended)  // released at once: ended
        }
        let readings = LockedState<[Double?]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let reading = manager.progressSnapshot().fractionCompleted
            readings.withLock { $0.append(reading) }
        }
        // 100 ended tasks of 100 units, one running at 0: exactly 10_000 of 10_100, every time.
        #expect(readings.withLock { $0 }.allSatisfy { $0 == 10_000.0 / 10_100.0 })
        withExtendedLifetime(keep) {}
    }

    /// A reader reads the parts outside the lock; a part that ends and is folded by another
    /// caller meanwhile must not count twice, once as running and once as done.
    @Test func aReaderThatSampledBeforeAPartEndedCountsItOnce() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let gate = GatedProgress(total: 100, completed: 20)
        var part: NetworkActivityToken? = manager.beganNetworkTask(progress: gate)
        let other = manager.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 100))
        gate.holdNextReading()
        let reading = LockedState<Double??>(nil)
        let reader = DispatchGroup()
        DispatchQueue.global().async(group: reader) {
            let fraction = manager.progressSnapshot().fractionCompleted
            reading.withLock { $0 = fraction }
        }
        gate.waitUntilHeld()
        part = nil
        // A begin with progress folds the ended part as done: 100 of 100.
        let third = manager.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 100))
        gate.releaseReading()
        reader.wait()
        // The reader folds the parts listed when it folds: the part done (100 of 100), `other`
        // and `third` at 0 of 100. Counted twice it would read (20 + 0 + 0 + 100) of 400.
        #expect(reading.withLock { $0 } == 100.0 / 300)
        withExtendedLifetime((part, other, third)) {}
    }
}
