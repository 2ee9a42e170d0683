import Foundation
import NetworkIndicator

/// Pattern 1: the operation is the token. The manager holds it weakly; the task ends at the
/// first sweep after the operation finishes (or is deallocated).
enum TokenExample {
    @MainActor
    static func run() async {
        let timeline = Timeline()
        let manager = makeTimelineManager(timeline)
        let queue = OperationQueue()
        let download = BlockOperation { Thread.sleep(forTimeInterval: 0.5) }
        download.completionBlock = { timeline.log("operation finished; the next sweep ends its task") }
        manager.beganNetworkTask(withToken: download, label: "download")
        queue.addOperation(download)
        await waitUntilHidden(manager)
    }
}
