// `NetworkIndicatorProfile progress-cost [requests]`: what a task's progress costs per request
// when nobody reads it, and with a listener attached: a plain opaque begin and release, the same
// with a `Progress`, and `track(_:)` of a URLSession data task (never resumed) ended explicitly,
// beside N other tasks with progress open in the same manager. Best of 5 runs, ns per request.
import Dispatch
import Foundation
import NetworkIndicator
import NetworkIndicatorTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@MainActor
func runProgressCost(requests: Int) {
    let session = URLSession(configuration: .ephemeral)
    let url = URL(string: "http://127.0.0.1:9/never-resumed")!
    print("progress-cost: \(requests) requests, best of 5, ns per request (manual scheduler)")
    print("open  listener  plain  progress  task-alone  track+finish  track-overhead")
    for open in [0, 10, 100] {
        for listening in [false, true] {
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            let others = (0..<open).map { _ in
                manager.beganNetworkTask(progress: Progress.discreteProgress(totalUnitCount: 100))
            }
            let listener = ProgressListener()
            if listening { manager.addOutput(listener) }
            let plain = best { for _ in 0..<requests { _ = manager.beganNetworkTask() } }
            let progress = best {
                for _ in 0..<requests {
                    _ = manager.beganNetworkTask(progress: Progress.discreteProgress(totalUnitCount: 100))
                }
            }
            let taskAlone = best { for _ in 0..<requests { _ = session.dataTask(with: url) } }
            let tracked = best {
                for _ in 0..<requests {
                    let task = session.dataTask(with: url)
                    manager.track(task)
                    manager.finishedNetworkTask(forToken: task)
                }
            }
            let perRequest = { (nanoseconds: UInt64) in Double(nanoseconds) / Double(requests) }
            let columns = [perRequest(plain), perRequest(progress), perRequest(taskAlone), perRequest(tracked)]
            let text = columns.map { String(format: "%8.0f", $0) }.joined(separator: "  ")
            let overhead = String(format: "%8.0f", perRequest(tracked) - perRequest(taskAlone))
            print(String(format: "%4d  %8@", open, listening ? "yes" : "no"), text, overhead)
            withExtendedLifetime((others, listener)) {}
        }
    }
    session.invalidateAndCancel()
}

/// One request shape, looped `requests` times beside `open` other tasks with progress, for
/// callgrind (`progress-plain`, `progress-begin`, `progress-track`, `task-alone`): run it at two
/// request counts and divide the difference of the instruction totals by the difference of the
/// counts, so that start-up and the open tasks' set-up cancel out.
@MainActor
func runProgressScenario(_ scenario: String, requests: Int, open: Int, listening: Bool) {
    let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
    let others = (0..<open).map { _ in
        manager.beganNetworkTask(progress: Progress.discreteProgress(totalUnitCount: 100))
    }
    let listener = ProgressListener()
    if listening { manager.addOutput(listener) }
    let session = URLSession(configuration: .ephemeral)
    let url = URL(string: "http://127.0.0.1:9/never-resumed")!
    for _ in 0..<requests {
        switch scenario {
        case "progress-plain":
            _ = manager.beganNetworkTask()
        case "progress-begin":
            _ = manager.beganNetworkTask(progress: Progress.discreteProgress(totalUnitCount: 100))
        case "task-alone":
            _ = session.dataTask(with: url)
        default:
            let task = session.dataTask(with: url)
            manager.track(task)
            manager.finishedNetworkTask(forToken: task)
        }
    }
    session.invalidateAndCancel()
    withExtendedLifetime((others, listener)) {}
}

/// The fastest of five runs of `body`, in nanoseconds.
private func best(_ body: () -> Void) -> UInt64 {
    var fastest = UInt64.max
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        fastest = min(fastest, DispatchTime.now().uptimeNanoseconds - start)
    }
    return fastest
}

/// An output that asks for the fraction and ignores it: a progress listener, as a bar would be.
@MainActor
final class ProgressListener: NetworkIndicatorOutput {
    var receivesFractionCompleted: Bool { true }
    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
}
