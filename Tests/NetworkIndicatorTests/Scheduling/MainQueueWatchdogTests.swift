import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A process whose main queue never runs (a synchronous `main`) is told so once, with the fix;
/// a process whose main queue runs is never told anything. The watch's marker, clock and timer
/// are given by hand here: the test process's own main queue runs.
@Suite("Main queue watchdog")
struct MainQueueWatchdogTests {
    /// The watch's inputs, moved by hand. The closures given to the watchdog hold the watch
    /// weakly: its state keeps the watchdog's look, which keeps them.
    private final class Watch: Sendable {
        private let state = LockedState((now: 0.0, markerRan: false, looks: [@Sendable () -> Bool]()))

        var markerRan: Bool {
            get { state.withLock { $0.markerRan } }
            set { state.withLock { $0.markerRan = newValue } }
        }

        /// Starts watching `manager`'s driver, the marker enqueued at time 0.
        func start(for manager: NetworkIndicatorManager) {
            MainQueueWatchdog.watch(
                manager.driver,
                marker: { [weak self] in self?.state.withLock { (0, $0.markerRan) } ?? (0, true) },
                now: { [weak self] in self?.state.withLock { $0.now } ?? 0 },
                every: { [weak self] interval, look in
                    #expect(interval == MainQueueWatchdog.checkInterval)
                    self?.state.withLock { $0.looks.append(look) }
                    return NoTimer()
                }
            )
        }

        /// Moves the clock to `time` and looks; returns whether the watch goes on.
        func look(at time: TimeInterval) -> Bool {
            let look = state.withLock { state in
                state.now = time
                return state.looks[0]
            }
            return look()
        }
    }

    private struct NoTimer: NetworkIndicatorTimer {
        func cancel() {}
    }

    private func makeManager() -> (NetworkIndicatorManager, DiagnosticsRecorder) {
        let diagnostics = DiagnosticsRecorder()
        let manager = NetworkIndicatorManager(
            scheduler: ManualNetworkIndicatorScheduler(),
            diagnosticsHandler: diagnostics.handler
        )
        return (manager, diagnostics)
    }

    @Test func aMainQueueThatNeverRunsIsReportedOnceWhileTasksAreOpen() {
        let (manager, diagnostics) = makeManager()
        let watch = Watch()
        watch.start(for: manager)
        #expect(watch.look(at: 10), "nothing open: nothing to report yet")
        let token = manager.beganNetworkTask(label: "download")
        #expect(watch.look(at: 11) == false, "reported, and the watch ends")
        #expect(
            diagnostics.all == [
                NetworkIndicatorDiagnostic(kind: .mainQueueNotRunning(openTasks: 1), label: "main queue")
            ]
        )
        #expect(diagnostics.all.first?.description.contains("dispatchMain()") == true, "it says how to fix it")
        withExtendedLifetime(token) {}
    }

    @Test func aMainQueueIsGivenAGracePeriod() {
        let (manager, diagnostics) = makeManager()
        let watch = Watch()
        watch.start(for: manager)
        let token = manager.beganNetworkTask()
        #expect(watch.look(at: MainQueueWatchdog.gracePeriod - 1))
        #expect(diagnostics.all.isEmpty)
        #expect(watch.look(at: MainQueueWatchdog.gracePeriod) == false)
        #expect(diagnostics.all.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test func aMainQueueThatRunsEndsTheWatchWithNoReport() {
        let (manager, diagnostics) = makeManager()
        let watch = Watch()
        watch.start(for: manager)
        let token = manager.beganNetworkTask()
        watch.markerRan = true
        #expect(watch.look(at: 60) == false)
        #expect(diagnostics.all.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func theWatchEndsWithItsManager() {
        var (manager, diagnostics): (NetworkIndicatorManager?, DiagnosticsRecorder) = makeManager()
        let watch = Watch()
        watch.start(for: manager!)
        manager = nil
        #expect(watch.look(at: 60) == false)
        #expect(diagnostics.all.isEmpty)
    }

    @Test(
        arguments: [
            (false, 4.9, 3, MainQueueWatchdog.Verdict.keepWatching),
            (false, 5.0, 3, .report(openTasks: 3)),
            (false, 60, 0, .keepWatching),
            (true, 60, 3, .stop),
        ] as [(Bool, TimeInterval, Int?, MainQueueWatchdog.Verdict)]
    )
    func verdicts(markerRan: Bool, waited: TimeInterval, openTasks: Int?, expected: MainQueueWatchdog.Verdict) {
        #expect(MainQueueWatchdog.verdict(markerRan: markerRan, waited: waited, openTasks: openTasks) == expected)
    }
}
