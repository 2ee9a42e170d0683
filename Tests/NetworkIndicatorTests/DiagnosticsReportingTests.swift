import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// What a misuse report says: the label a task was begun with, and one line for a storm of
/// identical reports.
@MainActor
@Suite("Diagnostics reports")
struct DiagnosticsReportingTests {
    @Test func aDoubleFinishNamesTheTaskByTheLabelItWasBegunWith() {
        let harness = Harness()
        let request = NSObject()
        harness.manager.beganNetworkTask(withToken: request, label: "upload")
        harness.manager.finishedNetworkTask(forToken: request)
        harness.manager.finishedNetworkTask(forToken: request)
        #expect(harness.diagnostics.all == [NetworkIndicatorDiagnostic(kind: .unknownFinish, label: "upload")])
    }

    /// Unlabelled, an opaque token is named where its task began, as a snapshot names it: its
    /// type's name would not say which of the app's tokens was finished twice.
    @Test func anUnlabelledOpaqueTokenFinishedTwiceIsNamedWhereItBegan() {
        let harness = Harness()
        let (token, line) = (harness.manager.beganNetworkTask(), #line)
        harness.manager.finishedNetworkTask(forToken: token)
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.diagnostics.all.map(\.label) == ["DiagnosticsReportingTests.swift:\(line)"])
    }

    @Test func anOpaqueTokenFinishedTwiceIsNamedByItsLabel() {
        let harness = Harness()
        let upload = harness.manager.beganNetworkTask(label: "upload")
        harness.manager.finishedNetworkTask(forToken: upload)
        harness.manager.finishedNetworkTask(forToken: upload)
        #expect(harness.diagnostics.all == [NetworkIndicatorDiagnostic(kind: .unknownFinish, label: "upload")])
    }

    /// Named by what its own manager knows of it (where it began), never by a label of this one.
    @Test func anOpaqueTokenOfAnotherManagerIsNotNamedByALabelOfThisOne() {
        let harness = Harness()
        let other = Harness()
        let upload = harness.manager.beganNetworkTask(label: "upload")
        harness.manager.finishedNetworkTask(forToken: upload)
        let line = #line + 1
        let stranger = other.manager.beganNetworkTask()
        other.manager.finishedNetworkTask(forToken: stranger)
        harness.manager.finishedNetworkTask(forToken: stranger)  // same slot number, not this manager's
        #expect(harness.diagnostics.all.map(\.label) == ["DiagnosticsReportingTests.swift:\(line)"])
        withExtendedLifetime(upload) {}
    }

    @Test func aReleasedOpaqueTokensLabelIsNotGivenToTheNextInItsSlot() {
        let harness = Harness()
        var upload: NetworkActivityToken? = harness.manager.beganNetworkTask(label: "upload")
        harness.manager.finishedNetworkTask(forToken: upload!)
        upload = nil  // its slot is freed, and taken by the next token
        let (next, line) = (harness.manager.beganNetworkTask(), #line)
        harness.manager.finishedNetworkTask(forToken: next)
        harness.manager.finishedNetworkTask(forToken: next)
        #expect(harness.diagnostics.all.map(\.label) == ["DiagnosticsReportingTests.swift:\(line)"])
    }

    /// A reset ends tasks as a finish does: a finish after it names the task the reset ended, not
    /// an older one of the same token.
    @Test func aFinishAfterAResetNamesTheTaskTheResetEnded() {
        let harness = Harness()
        let request = NSObject()
        harness.manager.beganNetworkTask(withToken: request, label: "upload")
        harness.manager.finishedNetworkTask(forToken: request)
        harness.manager.beganNetworkTask(withToken: request, label: "retry")
        let token = harness.manager.beganNetworkTask(label: "download")
        harness.manager.finishedNetworkTask(forToken: token)
        harness.manager.beganNetworkTask(withToken: token, label: "download again")
        harness.manager.resetNetworkActivity()
        harness.manager.finishedNetworkTask(forToken: request)
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.diagnostics.all.map(\.label) == ["retry", "download again"])
    }

    /// A labelled token that dies unfinished is ended by the sweep; it can never be named again,
    /// so it must not push a live token's label out of the list.
    @Test func deadTokensLeaveTheLabelsOfLiveOnesInPlace() {
        let harness = Harness()
        let request = NSObject()
        harness.manager.beganNetworkTask(withToken: request, label: "upload")
        harness.manager.finishedNetworkTask(forToken: request)
        for index in 0..<TaskLabels.endedCapacity {
            harness.manager.beganNetworkTask(withToken: NSObject(), label: "abandoned \(index)")
        }
        harness.advance(by: 1)  // the sweep ends the dead tokens' tasks
        #expect(harness.manager.activeTaskCount == 0)
        harness.manager.finishedNetworkTask(forToken: request)
        #expect(harness.diagnostics.all.map(\.label) == ["upload"])
    }

    /// A reset ends the groups' operations too, but a group is never finished late by its key:
    /// its label is not remembered, so sixteen labelled groups open at a reset leave the label
    /// of the caller's token ended with them in place.
    @Test func groupsEndedByAResetLeaveATokensLabelInPlace() {
        let harness = Harness()
        let request = NSObject()
        harness.manager.beganNetworkTask(withToken: request, label: "upload")
        let groups = (0..<16).map { NetworkActivityGroup(manager: harness.manager, label: "feed \($0)") }
        for group in groups { group.operationStarted() }
        harness.manager.resetNetworkActivity()
        harness.manager.finishedNetworkTask(forToken: request)
        #expect(harness.diagnostics.all.map(\.label) == ["upload"])
    }

    /// A token begun again with a new label may take another slot than its first run's: a
    /// reset ends the new run's label with the token, and a late finish is named by it.
    @Test func aResetRemembersTheLabelOfATokensRunInItsNewSlot() {
        let harness = Harness()
        let request = NSObject()
        let other = NSObject()
        harness.manager.beganNetworkTask(withToken: request, label: "download")
        harness.manager.beganNetworkTask(withToken: other)
        harness.manager.finishedNetworkTask(forToken: request)
        harness.manager.finishedNetworkTask(forToken: other)
        harness.manager.beganNetworkTask(withToken: request, label: "upload")  // in `other`'s slot
        harness.manager.resetNetworkActivity()
        harness.manager.finishedNetworkTask(forToken: request)
        #expect(harness.diagnostics.all.map(\.label) == ["upload"])
        withExtendedLifetime(other) {}
    }

    @Test func aFinishOfATokenNeverBegunNamesItsType() {
        let harness = Harness()
        harness.manager.finishedNetworkTask(forToken: NSObject())
        #expect(harness.diagnostics.all == [NetworkIndicatorDiagnostic(kind: .unknownFinish, label: "NSObject")])
    }

    @Test func anUnlabelledTokenFinishedTwiceIsNamedByItsType() {
        let harness = Harness()
        let request = NSObject()
        harness.manager.beganNetworkTask(withToken: request)
        harness.manager.finishedNetworkTask(forToken: request)
        harness.manager.finishedNetworkTask(forToken: request)
        #expect(harness.diagnostics.all.map(\.label) == ["NSObject"])
    }

    /// The memory of ended labels is bounded: past the last 16, a late finish falls back to the
    /// type's name. Sixteen is what `finishedNetworkTask(forToken:)` promises: written out, not
    /// taken from `TaskLabels.endedCapacity`.
    @Test func onlyTheLastSixteenEndedLabelsAreRemembered() {
        let harness = Harness()
        let tokens = (0..<17).map { _ in NSObject() }
        for (index, token) in tokens.enumerated() {
            harness.manager.beganNetworkTask(withToken: token, label: "load \(index)")
            harness.manager.finishedNetworkTask(forToken: token)
        }
        harness.manager.finishedNetworkTask(forToken: tokens[0])
        harness.manager.finishedNetworkTask(forToken: tokens[1])
        #expect(harness.diagnostics.all.map(\.label) == ["NSObject", "load 1"])
    }

    @Test func aLabelOfAFinishedTaskIsNotReportedAfterItIsBegunAgainWithAnother() {
        let harness = Harness()
        let request = NSObject()
        harness.manager.beganNetworkTask(withToken: request, label: "upload")
        harness.manager.finishedNetworkTask(forToken: request)
        harness.manager.beganNetworkTask(withToken: request, label: "retry")
        harness.manager.finishedNetworkTask(forToken: request)
        harness.manager.finishedNetworkTask(forToken: request)
        #expect(harness.diagnostics.all.map(\.label) == ["retry"])
    }

    /// The list of ended labels fills between the two ends of one token: its newer label must win
    /// over the older one, still kept.
    @Test func aLateFinishNamesTheLastLabelEvenWhenTheListFilledBetween() {
        let harness = Harness()
        let others = (1..<TaskLabels.endedCapacity).map { _ in NSObject() }
        for (index, token) in others.enumerated() {
            harness.manager.beganNetworkTask(withToken: token, label: "load \(index)")
            harness.manager.finishedNetworkTask(forToken: token)
        }
        let request = NSObject()
        harness.manager.beganNetworkTask(withToken: request, label: "upload")
        harness.manager.finishedNetworkTask(forToken: request)
        harness.manager.beganNetworkTask(withToken: request, label: "retry")
        harness.manager.finishedNetworkTask(forToken: request)
        harness.manager.finishedNetworkTask(forToken: request)
        #expect(harness.diagnostics.all.map(\.label) == ["retry"])
    }

    // MARK: - Coalescing

    @Test func identicalReportsAreWrittenOnceAndSummedUpWhenTheirSecondIsOver() {
        let (coalescer, lines, closeWindows) = Self.coalescer()
        let diagnostic = NetworkIndicatorDiagnostic(kind: .unknownFinish, label: "upload")
        for _ in 0..<1_000 { coalescer.report(diagnostic) }
        #expect(lines() == ["NetworkIndicator: \(diagnostic)\n"], "the first at once, the rest counted")
        closeWindows()
        #expect(
            lines() == [
                "NetworkIndicator: \(diagnostic)\n",
                "NetworkIndicator: … repeated 999 times in 1 s: \(diagnostic)\n",
            ]
        )
    }

    @Test func differentReportsAreEachWrittenAtOnce() {
        let (coalescer, lines, closeWindows) = Self.coalescer()
        let upload = NetworkIndicatorDiagnostic(kind: .unknownFinish, label: "upload")
        let pop = NetworkIndicatorDiagnostic(kind: .popWithoutPush, label: "")
        coalescer.report(upload)
        coalescer.report(pop)
        coalescer.report(upload)
        #expect(lines() == ["NetworkIndicator: \(upload)\n", "NetworkIndicator: \(pop)\n"])
        closeWindows()
        #expect(lines().last == "NetworkIndicator: … repeated once in 1 s: \(upload)\n")
        #expect(lines().count == 3, "the pop had no repeat: nothing to sum up")
    }

    @Test func aReportAfterItsWindowClosedIsWrittenAgain() {
        let (coalescer, lines, closeWindows) = Self.coalescer()
        let pop = NetworkIndicatorDiagnostic(kind: .popWithoutPush, label: "")
        coalescer.report(pop)
        closeWindows()
        coalescer.report(pop)
        #expect(lines() == ["NetworkIndicator: \(pop)\n", "NetworkIndicator: \(pop)\n"])
        closeWindows()
    }

    /// The default handler's writer on a real global-queue timer: the summary comes about a
    /// second later.
    @Test func theDefaultHandlerSumsUpRepeatsInDebugBuilds() async throws {
        let pipe = Pipe()
        // Read as it is written: a thousand lines would fill the pipe and block the writer.
        let read = LockedState(Data())
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            read.withLock { $0.append(data) }
        }
        defer { pipe.fileHandleForReading.readabilityHandler = nil }
        let handler = NetworkIndicatorManager.diagnosticsHandler(writingTo: pipe.fileHandleForWriting)
        let diagnostic = NetworkIndicatorDiagnostic(kind: .unknownFinish, label: "upload")
        for _ in 0..<1_000 { handler(diagnostic) }
        #if DEBUG
        let expected =
            "NetworkIndicator: \(diagnostic)\nNetworkIndicator: … repeated 999 times in 1 s: \(diagnostic)\n"
        await eventually(timeout: 20) { String(decoding: read.withLock { $0 }, as: UTF8.self) == expected }
        #endif
    }

    /// A coalescer whose windows close only when the test says so, and the lines it wrote. Close
    /// the windows before the test ends: a pending close holds the coalescer, which holds it.
    private static func coalescer() -> (DiagnosticsCoalescer, () -> [String], () -> Void) {
        let lines = LockedState<[String]>([])
        let pending = LockedState<[@Sendable () -> Void]>([])
        let coalescer = DiagnosticsCoalescer(
            write: { line in lines.withLock { $0.append(line) } },
            closeLater: { delay, close in
                #expect(delay == 1)
                pending.withLock { $0.append(close) }
            }
        )
        let closeWindows = {
            let due = pending.withLock { pending in
                defer { pending = [] }
                return pending
            }
            for close in due { close() }
        }
        return (coalescer, { lines.withLock { $0 } }, closeWindows)
    }
}
