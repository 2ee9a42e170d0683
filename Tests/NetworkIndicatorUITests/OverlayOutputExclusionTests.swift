import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// A parent screen and a child screen (a split view's two panes, a container and its child view
/// controller), each with an overlay output on its own scope: one spinner per task, the
/// innermost's, as the SwiftUI overlays already do (issue 63, item 4).
@MainActor
@Suite("Overlay outputs of nested scopes")
struct OverlayOutputExclusionTests {
    private typealias Output = CoreBackedOutput

    private let scheduler = ManualNetworkIndicatorScheduler()

    /// A manager and a scope of it, each with an output, settled.
    private func parentAndChildWithOutputs() -> (
        parent: NetworkIndicatorManager, child: NetworkIndicatorManager, parentOutput: Output, childOutput: Output
    ) {
        let parent = NetworkIndicatorManager(scheduler: scheduler)
        let child = NetworkIndicatorManager(parent: parent, label: "detail")
        let outputs = (parent: Output(scheduler: scheduler), child: Output(scheduler: scheduler))
        parent.addOutput(outputs.parent)
        child.addOutput(outputs.child)
        settle()
        return (parent, child, outputs.parent, outputs.child)
    }

    private func settle() {
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        scheduler.runPendingWork()
    }

    @Test func aChildScreensLoadDrawsOnlyTheChildsOverlay() {
        let (parent, child, parentOutput, childOutput) = parentAndChildWithOutputs()

        child.pushNetworkActivity()
        settle()
        #expect(childOutput.drawn == [true])
        #expect(parentOutput.drawn.isEmpty, "the child's overlay shows the child's task")

        parent.pushNetworkActivity()
        settle()
        #expect(parentOutput.drawn == [true], "the parent's own task draws the parent's overlay")
    }

    private func progress(_ completed: Int64, of total: Int64) -> Progress {
        let progress = Progress(totalUnitCount: total)
        progress.completedUnitCount = completed
        return progress
    }

    /// Issue 63, item 10: the parent's bar measures the parent's own work, not a child's upload
    /// that the child's overlay draws. Half of the parent's 100 units done reads 50 %, not 25 %
    /// of the 200 units of both; a child's part that ended leaves the parent's bar alone too.
    @Test func theParentsBarLeavesOutTheProgressOfAChildThatDrawsItsOwn() {
        let (parent, child, parentOutput, childOutput) = parentAndChildWithOutputs()
        let upload = progress(0, of: 100)
        var childToken: NetworkActivityToken? = child.beganNetworkTask(label: "Upload", progress: upload)
        let ownToken = parent.beganNetworkTask(label: "Feed", progress: progress(50, of: 100))
        settle()
        scheduler.advance(by: 0.2)
        #expect(parentOutput.drawn == [true] && childOutput.drawn == [true])
        #expect(parentOutput.shown.last?.percent == 50, "the parent's own half, not a quarter of both")
        #expect(childOutput.shown.last?.percent == 0)

        upload.completedUnitCount = 100
        childToken = nil
        settle()
        scheduler.advance(by: 0.2)
        #expect(parentOutput.shown.last?.percent == 50, "the child's finished upload is not the parent's")
        withExtendedLifetime((ownToken, childToken)) {}
    }

    /// Review finding: with a covered child on screen, the parent's bar turned into a spinner
    /// when its own download ended (the re-read found no batch), and never showed 100 %.
    @Test func theParentsOwnDownloadEndsFullBesideACoveredChild() {
        let (parent, child, parentOutput, childOutput) = parentAndChildWithOutputs()
        let childTask = child.beganNetworkTask(label: "Upload", progress: progress(0, of: 100))
        let download = progress(0, of: 100)
        var token: NetworkActivityToken? = parent.beganNetworkTask(label: "Feed", progress: download)
        settle()
        download.completedUnitCount = 73
        scheduler.advance(by: 0.2)
        #expect(parentOutput.shown.last?.percent == 73)
        download.completedUnitCount = 100
        token = nil
        scheduler.runPendingWork()
        #expect(parentOutput.shown.last?.isDeterminate == true, "still a bar as it stays and fades")
        withExtendedLifetime((childTask, token, childOutput)) {}
    }

    /// A scope removed below a covered scope: its ended units stay the covered scope's.
    @Test func aReleasedScopeBelowACoveredOneStaysOutOfTheParentsBar() {
        let (parent, child, parentOutput, childOutput) = parentAndChildWithOutputs()
        var row: NetworkIndicatorManager? = NetworkIndicatorManager(parent: child, label: "row")
        let rowUpload = progress(0, of: 300)
        var rowToken = row?.beganNetworkTask(label: "Row", progress: rowUpload)
        let own = parent.beganNetworkTask(label: "Feed", progress: progress(50, of: 100))
        settle()
        scheduler.advance(by: 0.2)
        #expect(parentOutput.shown.last?.percent == 50)
        rowUpload.completedUnitCount = 300
        rowToken = nil
        row = nil
        settle()
        scheduler.advance(by: 0.2)
        #expect(parentOutput.shown.last?.percent == 50, "the row's finished upload is the child's")
        withExtendedLifetime((own, rowToken, row, childOutput)) {}
    }

    @Test func aGrandchildsOverlayCoversItsTasksInEveryAncestor() {
        let root = NetworkIndicatorManager(scheduler: scheduler)
        let middle = NetworkIndicatorManager(parent: root, label: "list")
        let leaf = NetworkIndicatorManager(parent: middle, label: "row")
        let rootOutput = Output(scheduler: scheduler)
        let leafOutput = Output(scheduler: scheduler)
        root.addOutput(rootOutput)
        leaf.addOutput(leafOutput)
        settle()

        leaf.pushNetworkActivity()
        settle()
        #expect(leafOutput.drawn == [true])
        #expect(rootOutput.drawn.isEmpty, "no scope between them draws, and the root leaves the row's task to it")
    }

    /// Three overlays down one chain: each shows its own scope's tasks, and the root leaves out
    /// the row's task once (inside the list's), not twice.
    @Test func nestedOverlaysEachShowTheirOwnTasks() {
        let root = NetworkIndicatorManager(scheduler: scheduler)
        let middle = NetworkIndicatorManager(parent: root, label: "list")
        let leaf = NetworkIndicatorManager(parent: middle, label: "row")
        let outputs = (
            root: Output(scheduler: scheduler), middle: Output(scheduler: scheduler), leaf: Output(scheduler: scheduler)
        )
        root.addOutput(outputs.root)
        middle.addOutput(outputs.middle)
        leaf.addOutput(outputs.leaf)
        settle()

        leaf.pushNetworkActivity()
        root.pushNetworkActivity()
        settle()
        #expect(outputs.leaf.drawn == [true])
        #expect(outputs.middle.drawn.isEmpty, "the row's task is the row's")
        #expect(outputs.root.drawn == [true], "the root's own task")
    }

    @Test func aChildWhoseOverlayIsRemovedCountsInItsParentAgain() {
        let (_, child, parentOutput, childOutput) = parentAndChildWithOutputs()
        child.pushNetworkActivity()
        settle()
        #expect(parentOutput.drawn.isEmpty)

        child.removeOutput(childOutput)
        settle()
        #expect(childOutput.drawn == [true, false])
        #expect(parentOutput.drawn == [true], "nothing else shows the child's task now")
    }

    /// The documented way to end an output is to let it go: its scope's tasks go back to the
    /// overlay above it, and a later scope at the same address is not taken for it; a task that
    /// runs on shows at the scheduler's next turn, without another count change.
    @Test(arguments: [true, false])
    func aChildOutputThatIsReleasedGivesItsTasksBack(anotherTaskBegins: Bool) {
        let parent = NetworkIndicatorManager(scheduler: scheduler)
        let child = NetworkIndicatorManager(parent: parent, label: "detail")
        let parentOutput = Output(scheduler: scheduler)
        var childOutput: Output? = Output(scheduler: scheduler)
        parent.addOutput(parentOutput)
        child.addOutput(childOutput!)
        settle()
        child.pushNetworkActivity()
        settle()
        #expect(childOutput?.drawn == [true])
        #expect(parentOutput.drawn.isEmpty)

        childOutput = nil  // the child's overlay goes; its task runs on
        if anotherTaskBegins { child.pushNetworkActivity() }
        settle()
        #expect(parentOutput.drawn == [true], "no overlay shows the child's tasks any more")
    }

}
