import Foundation
import NetworkIndicator

/// Several simulated downloads at once, using the three patterns of the design card, with a
/// timeline of the indicator turning on and off, and at the end a Gantt chart of the tasks and
/// the indicator as they really ran. Needs no network; ends by itself in ~4 s.
@MainActor
func runOfflineDemo() async {
    let timeline = Timeline()
    let log = ActivityLog(timeline: timeline)
    let manager = NetworkIndicatorManager()
    manager.settings.completionCheckInterval = 0.25
    manager.settings.completionDelay = 0.2
    // The manager holds its outputs weakly: `recorder` lives until the chart is drawn.
    let recorder = ActivityRecorder(log: log, manager: manager)
    manager.addOutput(recorder)

    // 1. Operations as tokens: the queue owns them; each task ends when its operation is done.
    // One at a time, so that the blocking sleeps standing in for transfers hold one thread only.
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    for (name, seconds) in [("thumbnail-1.jpg", 0.8), ("thumbnail-2.jpg", 0.7)] {
        let operation = BlockOperation {
            log.workStarted(name)
            timeline.log("start \(name) (Operation token)")
            Thread.sleep(forTimeInterval: seconds)
            log.workDone(name)
            timeline.log("done  \(name)")
        }
        manager.beganNetworkTask(withToken: operation, label: name)
        log.began(name, isWorking: false)
        queue.addOperation(operation)
    }

    let transfers = DispatchGroup()

    // 2. An opaque token held by the download, then dropped.
    transfers.enter()
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
        let token = manager.beganNetworkTask(label: "profile.json")
        log.began("profile.json")
        timeline.log("start profile.json (opaque token)")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.2) {
            withExtendedLifetime(token) {}  // the closure's release releases the token: the task ends
            log.workDone("profile.json")
            timeline.log("done  profile.json (token released)")
            transfers.leave()
        }
    }

    // 3. Explicit finish, after a pause long enough for the indicator to go off and on again.
    transfers.enter()
    DispatchQueue.global().asyncAfter(deadline: .now() + 3.0) {
        let request = SimulatedRequest()
        manager.beganNetworkTask(withToken: request, label: "upload.bin")
        log.began("upload.bin")
        timeline.log("start upload.bin (explicit finish)")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.0) {
            manager.finishedNetworkTask(forToken: request)
            log.workDone("upload.bin")
            timeline.log("done  upload.bin (finishedNetworkTask)")
            transfers.leave()
        }
    }

    await withCheckedContinuation { continuation in
        transfers.notify(queue: .global()) { continuation.resume() }
    }

    // Let the operations, the sweep and the completion delay turn the indicator off.
    let hidden = await waitUntilIndicatorHidden(manager, timeout: 4)
    timeline.log(hidden ? "all done" : "indicator still on: something is wrong")

    timeline.write("\nWhat ran when, as recorded: each task from its begin call until the manager ended it,")
    timeline.write("and the indicator as its output was told.\n")
    timeline.write(log.chart(completionDelay: manager.settings.completionDelay))
    withExtendedLifetime(recorder) {}
}

/// Stands for a request object the app keeps while the transfer runs.
private final class SimulatedRequest: Sendable {}
