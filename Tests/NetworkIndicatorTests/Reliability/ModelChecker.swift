// Shared by the model-based test and the libFuzzer target (Fuzz/), which compiles this file
// into the library's own module with -D NETWORK_INDICATOR_FUZZ.
import Foundation

#if !NETWORK_INDICATOR_FUZZ
@testable import NetworkIndicator
#endif

/// One step of a randomized run.
enum ModelOperation: Equatable, CustomStringConvertible {
    case beginToken(slot: Int)
    case finishToken(slot: Int)
    case releaseToken(slot: Int)
    case beginOpaque(slot: Int)
    case finishOpaque(slot: Int)
    case releaseOpaque(slot: Int)
    case push
    case pop
    case reset
    case groupStart(slot: Int)
    case groupFinish(slot: Int)
    case groupCancel(slot: Int)
    case groupRelease(slot: Int)
    /// Advance the clock by one sweep interval: every dead token is gone afterwards.
    case sweep
    /// Advance the clock by `milliseconds`.
    case advance(milliseconds: Int)
    /// Sweep, then wait out every delay: visibility must match the count.
    case settle

    static let tokenSlots = 6
    static let opaqueSlots = 4
    static let groupSlots = 3

    /// Decodes one operation from two bytes (a kind and an argument).
    init(kind: UInt8, argument: UInt8) {
        let argument = Int(argument)
        switch kind % 16 {
        case 0: self = .beginToken(slot: argument % Self.tokenSlots)
        case 1: self = .finishToken(slot: argument % Self.tokenSlots)
        case 2: self = .releaseToken(slot: argument % Self.tokenSlots)
        case 3: self = .beginOpaque(slot: argument % Self.opaqueSlots)
        case 4: self = .finishOpaque(slot: argument % Self.opaqueSlots)
        case 5: self = .releaseOpaque(slot: argument % Self.opaqueSlots)
        case 6: self = .push
        case 7: self = .pop
        case 8: self = argument % 8 == 0 ? .reset : .push
        case 9: self = .groupStart(slot: argument % Self.groupSlots)
        case 10: self = .groupFinish(slot: argument % Self.groupSlots)
        case 11: self = .groupCancel(slot: argument % Self.groupSlots)
        case 12: self = .groupRelease(slot: argument % Self.groupSlots)
        case 13: self = .sweep
        case 14: self = .advance(milliseconds: argument * 5)
        default: self = .settle
        }
    }

    var description: String {
        switch self {
        case .beginToken(let slot): "beginToken(\(slot))"
        case .finishToken(let slot): "finishToken(\(slot))"
        case .releaseToken(let slot): "releaseToken(\(slot))"
        case .beginOpaque(let slot): "beginOpaque(\(slot))"
        case .finishOpaque(let slot): "finishOpaque(\(slot))"
        case .releaseOpaque(let slot): "releaseOpaque(\(slot))"
        case .push: "push"
        case .pop: "pop"
        case .reset: "reset"
        case .groupStart(let slot): "groupStart(\(slot))"
        case .groupFinish(let slot): "groupFinish(\(slot))"
        case .groupCancel(let slot): "groupCancel(\(slot))"
        case .groupRelease(let slot): "groupRelease(\(slot))"
        case .sweep: "sweep"
        case .advance(let milliseconds): "advance(\(milliseconds) ms)"
        case .settle: "settle"
        }
    }
}

/// A reference model (plain counts, no threads, no timers) run in lockstep with a real manager
/// on a manual scheduler. ``apply(_:)`` returns a description of the first disagreement.
@MainActor
final class ModelChecker {
    private final class ModelToken {}

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager
    private let output = RecordingNetworkIndicatorOutput()
    private let diagnostics = DiagnosticCounter()
    private let settleTime: TimeInterval

    // The real objects.
    private var tokens: [ModelToken?] = Array(repeating: nil, count: ModelOperation.tokenSlots)
    private var opaqueTokens: [NetworkActivityToken?] = Array(repeating: nil, count: ModelOperation.opaqueSlots)
    private var groups: [NetworkActivityGroup?] = Array(repeating: nil, count: ModelOperation.groupSlots)

    // The model.
    private var tokenCounts = Array(repeating: 0, count: ModelOperation.tokenSlots)
    private var opaqueCounts = Array(repeating: 0, count: ModelOperation.opaqueSlots)
    private var groupCounts = Array(repeating: 0, count: ModelOperation.groupSlots)
    private var pushCount = 0
    /// Tasks of dead tokens that the real manager may still count until the next sweep.
    private var deadTaskBound = 0
    private var expectedDiagnostics = 0

    init(startDelay: TimeInterval, completionDelay: TimeInterval) {
        manager = NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: diagnostics.handler)
        manager.startDelay = startDelay
        manager.completionDelay = completionDelay
        manager.completionCheckInterval = 1
        settleTime = startDelay + completionDelay + 0.01
        manager.addOutput(output)
        scheduler.runPendingWork()
    }

    /// The real manager, for tests of the checker itself.
    var managerForTesting: NetworkIndicatorManager { manager }

    private var liveCount: Int {
        tokenCounts.reduce(0, +) + opaqueCounts.reduce(0, +) + groupCounts.reduce(0, +) + pushCount
    }

    /// Applies `operation` to both sides; returns `nil` if they agree afterwards.
    func apply(_ operation: ModelOperation) -> String? {
        switch operation {
        case .beginToken(let slot):
            let token = tokens[slot] ?? ModelToken()
            tokens[slot] = token
            manager.beganNetworkTask(withToken: token)
            tokenCounts[slot] += 1
        case .finishToken(let slot):
            guard let token = tokens[slot] else { return check(after: operation) }
            manager.finishedNetworkTask(forToken: token)
            if tokenCounts[slot] > 0 { tokenCounts[slot] -= 1 } else { expectedDiagnostics += 1 }
        case .releaseToken(let slot):
            tokens[slot] = nil
            deadTaskBound += tokenCounts[slot]
            tokenCounts[slot] = 0
        case .beginOpaque(let slot):
            if let token = opaqueTokens[slot] {
                manager.beganNetworkTask(withToken: token)
            } else {
                opaqueTokens[slot] = manager.beganNetworkTask()
            }
            opaqueCounts[slot] += 1
        case .finishOpaque(let slot):
            guard let token = opaqueTokens[slot] else { return check(after: operation) }
            manager.finishedNetworkTask(forToken: token)
            if opaqueCounts[slot] > 0 { opaqueCounts[slot] -= 1 } else { expectedDiagnostics += 1 }
        case .releaseOpaque(let slot):
            opaqueTokens[slot] = nil
            opaqueCounts[slot] = 0
        case .push:
            manager.pushNetworkActivity()
            pushCount += 1
        case .pop:
            manager.popNetworkActivity()
            if pushCount > 0 { pushCount -= 1 } else { expectedDiagnostics += 1 }
        case .reset:
            manager.resetNetworkActivity()
            tokenCounts = tokenCounts.map { _ in 0 }
            opaqueCounts = opaqueCounts.map { _ in 0 }
            groupCounts = groupCounts.map { _ in 0 }
            pushCount = 0
            deadTaskBound = 0
        case .groupStart(let slot):
            let group = groups[slot] ?? NetworkActivityGroup(manager: manager)
            groups[slot] = group
            group.operationStarted()
            groupCounts[slot] += 1
        case .groupFinish(let slot):
            guard let group = groups[slot] else { return check(after: operation) }
            group.operationFinished()
            if groupCounts[slot] > 0 { groupCounts[slot] -= 1 } else { expectedDiagnostics += 1 }
        case .groupCancel(let slot):
            groups[slot]?.cancelOperations()
            groupCounts[slot] = 0
        case .groupRelease(let slot):
            groups[slot] = nil
            groupCounts[slot] = 0
        case .sweep:
            scheduler.runPendingWork()
            scheduler.advance(by: manager.completionCheckInterval)
            deadTaskBound = 0
        case .advance(let milliseconds):
            scheduler.advance(by: TimeInterval(milliseconds) / 1000)
        case .settle:
            scheduler.runPendingWork()
            scheduler.advance(by: manager.completionCheckInterval)
            deadTaskBound = 0
            scheduler.advance(by: settleTime)
        }
        return check(after: operation)
    }

    private func check(after operation: ModelOperation) -> String? {
        let real = manager.activeTaskCount
        let live = liveCount
        guard real >= live && real <= live + deadTaskBound else {
            return
                "after \(operation): activeTaskCount \(real), model \(live) (+ up to \(deadTaskBound) awaiting the sweep)"
        }
        guard diagnostics.count == expectedDiagnostics else {
            return "after \(operation): \(diagnostics.count) diagnostics, model expects \(expectedDiagnostics)"
        }
        if case .settle = operation {
            let visible = manager.isIndicatorVisible
            guard visible == (live > 0), output.isVisible == visible else {
                return "after settle: indicator \(visible), output \(output.isVisible), model count \(live)"
            }
            guard
                scheduler.pendingWorkCount
                    == (manager.activitySnapshot().activities.contains { $0.kind == .weakToken } ? 1 : 0)
            else {
                return "after settle: \(scheduler.pendingWorkCount) pending work items"
            }
        }
        return nil
    }
}

/// Counts diagnostics from any thread.
final class DiagnosticCounter: Sendable {
    private let storage = LockedState(0)
    var count: Int { storage.withLock { $0 } }
    var handler: NetworkIndicatorDiagnosticsHandler {
        { [storage] _ in storage.withLock { $0 += 1 } }
    }
}
