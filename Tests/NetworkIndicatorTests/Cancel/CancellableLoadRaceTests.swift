import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The async helpers' loads against a cancel from another thread that may land at any point of
/// their start: each caller is resumed exactly once (a second resume of its continuation would
/// crash the process), and every load's task ends. In memory: the load returns at once.
@Suite("Loads cancelled while they start")
struct CancellableLoadRaceTests {
    /// Enough rounds that a cancel lands inside each step of the start many times over (about
    /// half a second).
    private static let rounds = 40_000

    @Test func cancelsRacingTheStartOfLoadsResumeEachCallerOnce() async throws {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let stop = LockedStateBox(false)
        let canceller = Thread {
            while !stop.read() { manager.cancelNetworkTasks() }
        }
        canceller.start()
        var (returned, cancelled) = (0, 0)
        for _ in 0..<Self.rounds {
            do {
                _ = try await CancellableLoad<Int>.run(in: manager, label: "race", site: .none, progress: nil) { 1 }
                returned += 1
            } catch let error as URLError where error.code == .cancelled {
                cancelled += 1
            }
        }
        stop.update { $0 = true }
        #expect(returned + cancelled == Self.rounds)
        #expect(manager.activeTaskCount == 0)
    }
}
