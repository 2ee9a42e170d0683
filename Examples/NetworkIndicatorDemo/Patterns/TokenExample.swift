import Foundation
import NetworkIndicator

/// Pattern 1: the operation is the token. The manager holds it weakly; the task ends at the
/// first sweep after the operation finishes (or is deallocated).
enum TokenExample {
    @MainActor
    static func run() async {
        let indicator = TimelineIndicator()  // keeps its output alive: the manager holds it weakly
        let (timeline, manager) = (indicator.timeline, indicator.manager)
        let queue = OperationQueue()
        let download = BlockOperation { Thread.sleep(forTimeInterval: 0.5) }
        download.completionBlock = { timeline.log("operation finished; the next sweep ends its task") }
        manager.beganNetworkTask(withToken: download, label: "download")
        queue.addOperation(download)
        await indicator.waitUntilHidden()
    }
}
