import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// Cancels racing finishes and begins on many threads.
@Suite("Cancelling from any thread")
struct CancelRaceTests {
    final class Work: NetworkActivityCancellable, Sendable {
        let cancels = LockedCounter()
        func cancel() { cancels.increment() }
    }

    @Test func aCancelRacingAFinishEndsEachTaskOnce() async {
        let diagnostics = DiagnosticsRecorder()
        let root = NetworkIndicatorManager(
            scheduler: ManualNetworkIndicatorScheduler(),
            diagnosticsHandler: diagnostics.handler
        )
        root.settings.completionCheckInterval = 3600
        let screen = NetworkIndicatorManager(parent: root, label: "screen")
        let rootOwn = root.beganNetworkTask(label: "root's own")
        for round in 0..<50 {
            let works = (0..<40).map { _ in Work() }
            for work in works { screen.beganNetworkTask(withToken: work) }
            DispatchQueue.concurrentPerform(iterations: works.count + 4) { index in
                if index < works.count {
                    screen.finishedNetworkTask(forToken: works[index])
                } else {
                    screen.cancelNetworkTasks()
                }
            }
            #expect(screen.activeTaskCount == 0, "round \(round)")
            #expect(root.activeTaskCount == 1, "round \(round): only the root's own task is left")
            #expect(works.allSatisfy { $0.cancels.value <= 1 }, "round \(round)")
        }
        #expect(diagnostics.kinds.isEmpty, "\(diagnostics.kinds.prefix(3))")
        withExtendedLifetime(rootOwn) {}
    }
}
