import Dispatch
import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A tree of managers is reset and read in one moment: no other thread sees a reset half done,
/// and no snapshot mixes two moments of the tree.
///
/// The time limits guard a thread loop that never ends, not speed: each test takes 7 s of wall
/// time here among the run's other tests, 17 s under the thread sanitizer.
@Suite("Scopes: atomic reset and snapshot")
struct ScopesAtomicityTests {
    /// A reset of a root ends its own tasks and its scope's together: a thread that reads the
    /// root's count meanwhile sees all of them or none, never the root's alone.
    @Test(.timeLimit(.minutes(10)))
    func aReadDuringAResetSeesAllOrNothing() {
        let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let child = NetworkIndicatorManager(parent: root)
        var halfReset: [Int] = []
        for _ in 0..<2_000 {
            root.pushNetworkActivity()
            child.pushNetworkActivity()
            let reading = DispatchSemaphore(value: 0)
            let seen = LockedState<[Int]>([])
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                reading.signal()
                while true {
                    let count = root.activeTaskCount
                    if count == 0 { break }
                    if count != 2 { seen.withLock { $0.append(count) } }
                }
                done.signal()
            }
            reading.wait()
            root.resetNetworkActivity()
            done.wait()
            halfReset += seen.withLock { $0 }
        }
        #expect(halfReset.isEmpty, "counts seen between the scope's reset and the root's: \(halfReset.prefix(5))")
        withExtendedLifetime(child) {}
    }

    /// A snapshot of a root while another thread begins and finishes in its scope: the tasks
    /// of its records (its own entries and the scope's record) always add up to its count.
    @Test(.timeLimit(.minutes(10)))
    func aSnapshotIsOneMomentOfTheTree() {
        let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let child = NetworkIndicatorManager(parent: root, label: "scope")
        root.pushNetworkActivity()
        let stop = LockedState(false)
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            started.signal()
            while !stop.withLock({ $0 }) {
                child.pushNetworkActivity()
                child.popNetworkActivity()
            }
            done.signal()
        }
        started.wait()
        var torn: [NetworkActivitySnapshot] = []
        for _ in 0..<20_000 {
            let snapshot = root.activitySnapshot()
            if snapshot.activities.map(\.taskCount).reduce(0, +) != snapshot.activeTaskCount {
                torn.append(snapshot)
            }
        }
        stop.withLock { $0 = true }
        done.wait()
        #expect(
            torn.isEmpty,
            "snapshots whose records miss the count: \(torn.first.map(String.init(describing:)) ?? "")"
        )
    }
}
