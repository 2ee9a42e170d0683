import Foundation
import NetworkIndicator

/// Several simulated downloads at once, using the three patterns of the design card, with a
/// timeline of the indicator turning on and off. Needs no network; ends by itself in ~6 s.
@MainActor
func runOfflineDemo() async {
    let timeline = Timeline()
    let manager = NetworkIndicatorManager()
    manager.completionCheckInterval = 0.25
    manager.completionDelay = 0.2
    manager.addOutput(
        ClosureNetworkIndicatorOutput { isVisible in
            timeline.log(isVisible ? "● indicator ON  (\(manager.activeTaskCount) task(s))" : "○ indicator OFF")
        }
    )

    // 1. Operations as tokens: the queue owns them; each task ends when its operation is done.
    // One at a time, so that the blocking sleeps standing in for transfers hold one thread only.
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    for (name, seconds) in [("thumbnail-1.jpg", 0.8), ("thumbnail-2.jpg", 0.7)] {
        let operation = BlockOperation {
            timeline.log("start \(name) (Operation token)")
            Thread.sleep(forTimeInterval: seconds)
            timeline.log("done  \(name)")
        }
        manager.beganNetworkTask(withToken: operation, label: name)
        queue.addOperation(operation)
    }

    let transfers = DispatchGroup()

    // 2. An opaque token held by the download, then dropped.
    transfers.enter()
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
        let token = manager.beganNetworkTask(label: "profile.json")
        timeline.log("start profile.json (opaque token)")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.2) {
            withExtendedLifetime(token) {}
            timeline.log("done  profile.json (token released)")
            transfers.leave()
        }
    }

    // 3. Explicit finish, after a pause long enough for the indicator to go off and on again.
    transfers.enter()
    DispatchQueue.global().asyncAfter(deadline: .now() + 3.0) {
        let request = SimulatedRequest()
        manager.beganNetworkTask(withToken: request, label: "upload.bin")
        timeline.log("start upload.bin (explicit finish)")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.0) {
            manager.finishedNetworkTask(forToken: request)
            timeline.log("done  upload.bin (finishedNetworkTask)")
            transfers.leave()
        }
    }

    await withCheckedContinuation { continuation in
        transfers.notify(queue: .global()) { continuation.resume() }
    }

    // Let the operations, the sweep and the completion delay turn the indicator off.
    let deadline = Date().addingTimeInterval(4)
    while (manager.activeTaskCount > 0 || manager.isIndicatorVisible) && Date() < deadline {
        try? await Task.sleep(nanoseconds: 50_000_000)
    }
    timeline.log(manager.isIndicatorVisible ? "indicator still on: something is wrong" : "all done")
}

/// Stands for a request object the app keeps while the transfer runs.
private final class SimulatedRequest: Sendable {}
