import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Task events while outputs come and go during a delivery, and a token that ends badly.
extension TaskEventTests {
    /// A watcher that calls `onHearing` each time it hears a batch.
    final class Remover: NetworkActivityTaskEventOutput {
        var onHearing: (() -> Void)?
        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
        func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent]) { onHearing?() }
    }

    /// `removeOutput(_:)`: a removed output is "told nothing more, even by a delivery already
    /// under way". A watcher of a scope, told first, removes another watcher from the app's
    /// manager while it hears a batch; the other hears none of it. With `keepingItOnTheScope`,
    /// the other watches the scope too, where it stays: it still hears the scope's task, and not
    /// the app manager's own.
    @Test(arguments: [false, true])
    func aWatcherRemovedDuringADeliveryHearsNothingMore(keepingItOnTheScope: Bool) {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let (remover, removed) = (Remover(), Watcher())
        feed.addOutput(remover)
        if keepingItOnTheScope { feed.addOutput(removed) }
        harness.manager.addOutput(removed)
        remover.onHearing = { harness.manager.removeOutput(removed) }
        feed.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.settle()
        let began = ["began pushNetworkActivity() in [\"Feed\"]"]
        #expect(Self.summary(removed.events) == (keepingItOnTheScope ? began : []))
    }

    /// A watcher of a scope and of the app's manager, removed from the scope by a watcher told
    /// first: it still hears the scope's tasks through the app's manager, and the app's own.
    @Test func aWatcherRemovedFromAScopeMidDeliveryStillHearsItThroughItsParent() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let (remover, watcher) = (Remover(), Watcher())
        feed.addOutput(remover)
        feed.addOutput(watcher)
        harness.manager.addOutput(watcher)
        remover.onHearing = { feed.removeOutput(watcher) }
        feed.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.settle()
        let began = ["began pushNetworkActivity() in [\"Feed\"]", "began pushNetworkActivity()"]
        #expect(Self.summary(watcher.events) == began)
    }

    /// A labelled token finished from its own `deinit` (a misuse, reported as such): its end is
    /// named by its label, as a snapshot named it a moment before, whether or not the watcher
    /// heard its begin.
    @Test(arguments: [false, true])
    func aTokenFinishedFromItsDeinitEndsNamedByItsLabel(watchingFromTheBegin: Bool) {
        final class Job {
            let manager: NetworkIndicatorManager
            init(manager: NetworkIndicatorManager) { self.manager = manager }
            deinit { manager.finishedNetworkTask(forToken: self) }
        }
        let harness = Harness()
        let watcher = Watcher()
        if watchingFromTheBegin { harness.manager.addOutput(watcher) }
        var job: Job? = Job(manager: harness.manager)
        harness.manager.beganNetworkTask(withToken: job!, label: "upload")
        harness.settle()
        if !watchingFromTheBegin { harness.manager.addOutput(watcher) }
        job = nil
        harness.settle()
        #expect(Self.summary(watcher.events).last == "ended upload swept")
        #expect(harness.diagnostics.kinds == [.finishAfterTokenDeath])
    }
}
