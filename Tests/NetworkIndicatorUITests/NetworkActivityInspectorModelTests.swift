import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// The live inspector's model (issue 64, step 4c): what the debug view lists.
@MainActor
@Suite("Network activity inspector")
struct NetworkActivityInspectorModelTests {
    private let scheduler = ManualNetworkIndicatorScheduler()

    @Test func itListsOpenTasksByScopeWithAgesThatCountUp() {
        let app = NetworkIndicatorManager(scheduler: scheduler)
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        let model = NetworkActivityInspectorModel(manager: app)
        model.attach()
        let page = feed.beganNetworkTask(label: "feed page 2")
        scheduler.advance(by: 3)
        #expect(model.openLines().count == 3)
        #expect(model.openLines().first == "1 active task(s)")
        #expect(model.openLines()[1] == "  scope Feed ×1, 3.0 s")
        #expect(model.openLines()[2].hasPrefix("    opaque token feed page 2 ×1, 3.0 s, began at "))
        scheduler.advance(by: 2)
        #expect(model.openLines()[1] == "  scope Feed ×1, 5.0 s", "read again on each tick")
        _ = page
    }

    @Test func itListsTheLastEndedTasksNewestFirst() {
        let app = NetworkIndicatorManager(scheduler: scheduler)
        let model = NetworkActivityInspectorModel(manager: app)
        model.attach()
        for index in 0..<(NetworkActivityInspectorModel.endedLimit + 2) {
            var token: NetworkActivityToken? = app.beganNetworkTask(label: "load \(index)")
            scheduler.advance(by: 1)
            token = nil
            _ = token
        }
        scheduler.runPendingWork()
        #expect(model.endedLines.count == NetworkActivityInspectorModel.endedLimit)
        let newest =
            "ended opaque token load 21 after 1.0 s, released; began at NetworkActivityInspectorModelTests.swift:"
        #expect(model.endedLines.first?.hasPrefix(newest) == true)
        #expect(model.endedLines.last?.hasPrefix("ended opaque token load 2 after") == true)
    }

    @Test func detachingStopsListeningAndKeepsWhatItHeard() {
        let app = NetworkIndicatorManager(scheduler: scheduler)
        let model = NetworkActivityInspectorModel(manager: app)
        model.attach()
        app.pushNetworkActivity()
        app.popNetworkActivity()
        scheduler.runPendingWork()
        model.detach()
        app.pushNetworkActivity()
        app.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(model.endedLines.count == 1)
        #expect(app.outputs.isEmpty)
    }
}

/// The pairing behind the Instruments signposts: one interval per task, ended by its own end.
@MainActor
@Suite("Task intervals")
struct TaskIntervalsTests {
    @MainActor
    private final class Recorder: NetworkActivityTaskEventOutput {
        var events: [NetworkActivityTaskEvent] = []
        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
        func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent]) { self.events += events }
    }

    @Test func eachEndEndsItsOwnBeginsInterval() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let early = manager.beganNetworkTask(label: "early")  // begun before anything listens
        let recorder = Recorder()
        manager.addOutput(recorder)
        var first: NetworkActivityToken? = manager.beganNetworkTask(label: "first")
        let second = manager.beganNetworkTask(label: "second")
        first = nil
        manager.finishedNetworkTask(forToken: early)
        scheduler.runPendingWork()

        var intervals = TaskIntervals<String>()
        var ended: [String] = []
        intervals.apply(
            recorder.events,
            begin: { event in
                guard case .began(let activity, _, _) = event else { return "?" }
                return activity.label
            },
            end: { interval, ending in ended.append("\(interval) \(ending.rawValue)") }
        )
        #expect(ended == ["first released"], "a task begun before the output ends nothing")
        #expect(intervals.count == 1, "second is still open")
        _ = (first, second)
    }
}
