import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A group's finish off the main queue beside plain `Progress` parts waits for a main-queue
/// reading (ShowingProgress.md, "Edge cases"), while operations of unknown size may begin. What
/// it takes must not depend on whether anyone read in between: it takes the oldest running part,
/// as a reading at once would have had it, not an operation of unknown size begun after it.
@MainActor
@Suite("A group's finish that waits for a reading")
struct WaitingFinishTests {
    enum Step: Sendable { case finish, beginOfUnknownSize }

    /// Where the readings are made: the app's manager alone, or the app and the screen whose
    /// group it is.
    enum Reader: Sendable, CaseIterable { case app, screen }

    nonisolated static let scenarios: [[Step]] = [
        [.finish, .beginOfUnknownSize],
        [.finish, .beginOfUnknownSize, .beginOfUnknownSize],
        [.finish, .beginOfUnknownSize, .finish],
    ]

    @Test(arguments: scenarios, [false, true])
    func whatAWaitingFinishTakesDoesNotDependOnAReadingInBetween(steps: [Step], inAScreen: Bool) async {
        let readEveryStep = await run(steps, readingAfter: Set(steps.indices), inAScreen: inAScreen)
        let readers: [Reader] = inAScreen ? Reader.allCases : [.app]
        for reader in readers {
            for readAfter in [nil] + steps.indices.map(Optional.some) {
                let once = Set(readAfter.map { [$0] } ?? [])
                let reading = await run(steps, readingAfter: once, by: reader, inAScreen: inAScreen)
                #expect(reading == readEveryStep, "read by \(reader) after step \(String(describing: readAfter))")
            }
        }
    }

    /// The first scenario, in numbers: the 30 % upload leaves as done, the 50 % one runs on,
    /// and the later operation of unknown size runs unmeasured (150 of 300, with the other
    /// download at 0).
    @Test func aWaitingFinishTakesTheOldestUploadNotALaterOperationOfUnknownSize() async {
        let (app, _) = await run([.finish, .beginOfUnknownSize], readingAfter: [], inAScreen: false)
        #expect(app.fractionCompleted == 150.0 / 300)
        #expect(app.hasIndeterminateWork)
    }

    /// A waited finish skips the rule "a part of unknown size leaves first" for its own
    /// decision only: once the group's parts have all left and a reading has found none of them
    /// listed, a finish of a later round takes that round's operation of unknown size, not its
    /// oldest part. Here the later round's 10 % upload runs on (210 of 400: the first round's
    /// two uploads done, the other download at 0); taking it as done would read 300 of 400.
    @Test func aFinishInALaterRoundStillTakesTheOperationOfUnknownSizeFirst() async {
        let app = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let other = app.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 100))
        let uploads = NetworkActivityGroup(manager: app, label: "uploads")
        var progresses: [Progress] = []
        for completed: Int64 in [30, 50] {
            let upload = Progress(totalUnitCount: 100)
            upload.completedUnitCount = completed
            progresses.append(upload)
            uploads.operationStarted(progress: upload)
        }
        _ = app.progressSnapshot()
        // The first round, off the main queue: a finish that waits for a reading, then every
        // operation finishes before one is read, so that no reading decides that finish.
        let firstUnsized = Progress(totalUnitCount: -1)
        progresses.append(firstUnsized)
        await Task.detached { uploads.operationFinished() }.value
        await Task.detached { uploads.operationStarted(progress: firstUnsized) }.value
        await Task.detached { uploads.operationFinished() }.value
        await Task.detached { uploads.operationFinished() }.value
        _ = app.progressSnapshot()  // the round's parts leave
        _ = app.progressSnapshot()  // none of the group's is listed
        // The later round, begun off the main queue: no reading decides a finish before the last.
        let upload = Progress(totalUnitCount: 100)
        upload.completedUnitCount = 10
        let unsized = Progress(totalUnitCount: -1)
        progresses += [upload, unsized]
        await Task.detached { uploads.operationStarted(progress: upload) }.value
        await Task.detached { uploads.operationStarted(progress: unsized) }.value
        uploads.operationFinished()
        let snapshot = app.progressSnapshot()
        #expect(snapshot.fractionCompleted == 210.0 / 400)
        #expect(snapshot.completedUnitCount == 210)
        #expect(snapshot.totalUnitCount == 400)
        withExtendedLifetime((other, uploads, progresses)) {}
    }

    /// Runs `steps` off the main queue, each after a download at 0 of 100 and a group with two
    /// plain `Progress` uploads at 30 and 50 of 100, read once; reads on the main queue after the
    /// steps at `readingAfter`, by `reader`. Returns the app's and the screen's last readings.
    private func run(
        _ steps: [Step],
        readingAfter: Set<Int>,
        by reader: Reader = .app,
        inAScreen: Bool
    ) async -> (app: NetworkProgressSnapshot, screen: NetworkProgressSnapshot?) {
        let app = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let screen = inAScreen ? NetworkIndicatorManager(parent: app, label: "screen") : nil
        let other = app.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 100))
        let uploads = NetworkActivityGroup(manager: screen ?? app, label: "uploads")
        for completed: Int64 in [30, 50] {
            let upload = Progress(totalUnitCount: 100)
            upload.completedUnitCount = completed
            uploads.operationStarted(progress: upload)
        }
        _ = app.progressSnapshot()
        _ = screen?.progressSnapshot()
        var later: [Progress] = []
        for (index, step) in steps.enumerated() {
            switch step {
            case .finish:
                await Task.detached { uploads.operationFinished() }.value
            case .beginOfUnknownSize:
                let progress = Progress(totalUnitCount: -1)
                later.append(progress)
                await Task.detached { uploads.operationStarted(progress: progress) }.value
            }
            guard readingAfter.contains(index) else { continue }
            _ = reader == .app ? app.progressSnapshot() : screen?.progressSnapshot()
        }
        let readings = (app.progressSnapshot(), screen?.progressSnapshot())
        withExtendedLifetime((other, uploads, later)) {}
        return readings
    }
}
