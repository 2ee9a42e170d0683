import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Numbers that come from outside (a `Content-Length`, a caller's total, a subclass's fraction)
/// never trap and never reach the bar as NaN, a negative or a fraction outside 0...1.
@MainActor
@Suite("Values from outside")
struct OutsideValueTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    private func expectSane(_ snapshot: NetworkProgressSnapshot, sourceLocation: SourceLocation = #_sourceLocation) {
        if let fraction = snapshot.fractionCompleted {
            #expect(fraction.isFinite && (0...1).contains(fraction), sourceLocation: sourceLocation)
        }
        #expect(snapshot.completedUnitCount >= 0, sourceLocation: sourceLocation)
        #expect(snapshot.totalUnitCount >= 0, sourceLocation: sourceLocation)
        #expect(snapshot.completedUnitCount <= snapshot.totalUnitCount, sourceLocation: sourceLocation)
        if let left = snapshot.estimatedTimeRemaining {
            #expect(left.isFinite && left >= 0, sourceLocation: sourceLocation)
        }
    }

    @Test func totalsAddingUpPastInt64MaxSaturate() {
        let first = manager.beganNetworkTask(progress: progress(0, of: Int64.max - 1))
        let second = manager.beganNetworkTask(progress: progress(Int64.max / 2, of: Int64.max - 1))
        let snapshot = manager.progressSnapshot()
        expectSane(snapshot)
        #expect(snapshot.totalUnitCount == Int64.max)
        #expect(snapshot.fractionCompleted == 0.25)
        withExtendedLifetime((first, second)) {}
    }

    @Test func aSingleTotalOfInt64MaxDoesNotTrap() {
        let download = manager.beganNetworkTask(progress: progress(Int64.max, of: Int64.max))
        let snapshot = manager.progressSnapshot()
        expectSane(snapshot)
        #expect(snapshot.totalUnitCount == Int64.max)
        #expect(snapshot.completedUnitCount == Int64.max)
        #expect(snapshot.fractionCompleted == 1)
        withExtendedLifetime(download) {}
    }

    @Test func weightsAddingUpPastInt64MaxSaturate() {
        let first = manager.beganNetworkTask(progress: progress(1, of: 2), weight: Int64.max)
        let second = manager.beganNetworkTask(progress: progress(1, of: 2), weight: Int64.max)
        let snapshot = manager.progressSnapshot()
        expectSane(snapshot)
        #expect(snapshot.totalUnitCount == Int64.max)
        #expect(snapshot.fractionCompleted == 0.5)
        withExtendedLifetime((first, second)) {}
    }

    @Test func aNegativeTotalIsUnknown() {
        let download = manager.beganNetworkTask(progress: progress(5, of: -10))
        let snapshot = manager.progressSnapshot()
        expectSane(snapshot)
        #expect(snapshot.fractionCompleted == nil)
        #expect(snapshot.hasIndeterminateWork)
        withExtendedLifetime(download) {}
    }

    @Test func aNegativeCompletedCountReadsAsNothingDone() {
        let download = manager.beganNetworkTask(progress: progress(-50, of: 100))
        let snapshot = manager.progressSnapshot()
        expectSane(snapshot)
        #expect(snapshot.fractionCompleted == 0)
        withExtendedLifetime(download) {}
    }

    @Test func aCompletedCountPastTheTotalReadsAsAllDone() {
        let download = manager.beganNetworkTask(progress: progress(500, of: 100))
        let snapshot = manager.progressSnapshot()
        expectSane(snapshot)
        #expect(snapshot.fractionCompleted == 1)
        #expect(snapshot.completedUnitCount == 100)
        withExtendedLifetime(download) {}
    }

    @Test func aNegativeWeightTakesNoPart() {
        let weighed = manager.beganNetworkTask(progress: progress(1, of: 2), weight: -100)
        let other = manager.beganNetworkTask(progress: progress(1, of: 4))
        let snapshot = manager.progressSnapshot()
        expectSane(snapshot)
        #expect(snapshot.fractionCompleted == 0.25)
        #expect(snapshot.totalUnitCount == 4)
        withExtendedLifetime((weighed, other)) {}
    }

    /// On Linux no caller can hand the manager such a fraction (`fractionCompleted` is not
    /// open there), so the reading that every fraction passes through is tested directly.
    @Test(arguments: [Double.nan, -Double.nan, Double.infinity, -Double.infinity, -300, -0.5, 700])
    func aReadingBringsAnyCompletedCountIntoItsTotal(_ completed: Double) {
        let reading = ProgressReading(total: 100, completed: completed)
        #expect(reading.completed == (completed.isNaN ? 0 : min(max(completed, 0), 100)))
        #expect(reading.isDeterminate)
    }

    @Test(arguments: [Double.nan, Double.infinity, -Double.infinity, 0, -1])
    func aReadingOfATotalThatIsNotAPositiveNumberIsUnknown(_ total: Double) {
        let reading = ProgressReading(total: total, completed: 5)
        #expect(!reading.isDeterminate)
        #expect(reading.completed == 0)
    }

    #if canImport(ObjectiveC)
    @Test(arguments: [Double.nan, -Double.nan, Double.infinity, -Double.infinity, -3, 7])
    func aFractionThatIsNotInZeroToOneNeverReachesTheBar(_ fraction: Double) {
        let strange = manager.beganNetworkTask(progress: FixedFractionProgress(total: 100, fraction: fraction))
        let other = manager.beganNetworkTask(progress: progress(50, of: 100))
        let snapshot = manager.progressSnapshot()
        expectSane(snapshot)
        let expected = fraction.isNaN ? 0.25 : (min(max(fraction, 0), 1) * 100 + 50) / 200
        #expect(snapshot.fractionCompleted == expected)
        withExtendedLifetime((strange, other)) {}
    }
    #endif
}

#if canImport(ObjectiveC)
/// A `Progress` whose `fractionCompleted` is whatever a subclass says, as an Apple platform
/// allows: the package must not trust it.
private final class FixedFractionProgress: Progress, @unchecked Sendable {
    private let fraction: Double

    init(total: Int64, fraction: Double) {
        self.fraction = fraction
        super.init(parent: nil, userInfo: nil)
        totalUnitCount = total
    }

    override var fractionCompleted: Double { fraction }
}
#endif
