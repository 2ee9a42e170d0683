// Shared by the model-based test and the libFuzzer target (Fuzz/), which compiles the files of
// this folder into the library's own module with -D NETWORK_INDICATOR_FUZZ (.ci/fuzz.sh).
import Foundation

#if !NETWORK_INDICATOR_FUZZ
@testable import NetworkIndicator
import NetworkIndicatorTesting
#endif

/// A reference model (plain counts, no threads, no timers) run in lockstep with a real tree of
/// managers on one manual scheduler. ``apply(_:)`` returns a description of the first
/// disagreement. After every step, for every manager: its count is its own tasks plus its
/// children's counts, and its own tasks are the model's (give or take dead weak tokens not yet
/// swept); after a settle, each manager's indicator shows exactly while its count is positive.
@MainActor
final class ModelChecker {
    final class ModelToken {}

    static let managerCount = ModelOperation.managerCount
    static let labels = ["root", "child 1", "child 2", "grandchild"]
    /// Each manager's children.
    static let children: [[Int]] = (0..<managerCount).map { manager in
        (0..<managerCount).filter { ModelOperation.parents[$0] == manager }
    }

    let scheduler = ManualNetworkIndicatorScheduler()
    let diagnostics = DiagnosticCounter()
    let delays: [(start: TimeInterval, completion: TimeInterval)]
    let settleTime: TimeInterval

    // The real objects.
    var managers: [NetworkIndicatorManager?]
    var outputs: [RecordingNetworkIndicatorOutput] = []
    /// Outputs of released managers: told that the indicator is gone, at the next settle.
    var releasedOutputs: [RecordingNetworkIndicatorOutput] = []
    /// A released manager that its opaque tokens or groups keep alive, while they are dropped.
    weak var releasing: NetworkIndicatorManager?
    var releasingIndex: Int?
    var tokens: [ModelToken?] = Array(repeating: nil, count: ModelOperation.tokenSlots)
    var opaqueTokens: [[NetworkActivityToken?]] = Array(
        repeating: Array(repeating: nil, count: ModelOperation.opaqueSlots),
        count: ModelOperation.managerCount
    )
    var groups: [[NetworkActivityGroup?]] = Array(
        repeating: Array(repeating: nil, count: ModelOperation.groupSlots),
        count: ModelOperation.managerCount
    )

    // The model: each manager's own tasks.
    var own = Array(repeating: OwnTasks(), count: ModelOperation.managerCount)
    var expectedDiagnostics = 0

    /// A tree whose root has `startDelay` and `completionDelay`, its descendants none.
    convenience init(startDelay: TimeInterval, completionDelay: TimeInterval) {
        self.init(delays: [(startDelay, completionDelay)] + Array(repeating: (0, 0), count: Self.managerCount - 1))
    }

    /// A tree whose manager m has a start delay of 0.3 s if bit 2m of `delayBits` is set, and a
    /// completion delay of 0.2 s if bit 2m + 1 is.
    convenience init(delayBits: UInt8) {
        self.init(
            delays: (0..<Self.managerCount).map { manager in
                (delayBits >> (2 * manager) & 1 == 0 ? 0 : 0.3, delayBits >> (2 * manager + 1) & 1 == 0 ? 0 : 0.2)
            }
        )
    }

    init(delays: [(start: TimeInterval, completion: TimeInterval)]) {
        self.delays = delays
        settleTime = delays.map { $0.start + $0.completion }.max()! + 0.01
        managers = Array(repeating: nil, count: Self.managerCount)
        for manager in 0..<Self.managerCount {
            outputs.append(RecordingNetworkIndicatorOutput())
            makeManager(manager)
        }
        scheduler.runPendingWork()
    }

    deinit {
        // Work still pending holds its manager's engine, which holds the scheduler: release
        // every manager (a child released with tasks asks its parent for a hop), then run what
        // they left, so that nothing of the tree outlives the checker (LeakSanitizer, fuzzing).
        MainActor.assumeIsolated {
            releasing = nil
            opaqueTokens = []
            groups = []
            managers = []
            scheduler.runPendingWork()
        }
    }

    /// Creates manager `index` (its parent must exist), with its delays and its output.
    func makeManager(_ index: Int) {
        let manager =
            if let parent = ModelOperation.parents[index] {
                NetworkIndicatorManager(parent: managers[parent]!, label: Self.labels[index])
            } else {
                NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: diagnostics.handler)
            }
        manager.settings.startDelay = delays[index].start
        manager.settings.completionDelay = delays[index].completion
        manager.settings.completionCheckInterval = 1
        manager.addOutput(outputs[index])
        managers[index] = manager
    }

    /// The real root manager, for tests of the checker itself.
    var managerForTesting: NetworkIndicatorManager { managers[0]! }

    /// The real manager `index`, for tests of the checker itself.
    func managerForTesting(_ index: Int) -> NetworkIndicatorManager { managers[index]! }

    /// The model's count of `manager`: its own tasks and its descendants'.
    func modelCount(_ manager: Int) -> Int {
        Self.children[manager].reduce(own[manager].total) { $0 + modelCount($1) }
    }

    /// `manager` and its descendants, parents before children.
    static func subtree(_ manager: Int) -> [Int] {
        [manager] + children[manager].flatMap { subtree($0) }
    }

    /// The real manager `index`: the checker's, or a released one still kept alive.
    func realManager(_ index: Int) -> NetworkIndicatorManager? {
        managers[index] ?? (releasingIndex == index ? releasing : nil)
    }

    /// Applies `operation` to both sides; returns `nil` if they agree afterwards.
    func apply(_ operation: ModelOperation) -> String? {
        switch operation {
        case .beginToken(let manager, let slot):
            let token = tokens[slot] ?? ModelToken()
            tokens[slot] = token
            managers[manager]!.beganNetworkTask(withToken: token)
            own[manager].begin(.token, slot)
        case .finishToken(let manager, let slot):
            guard let token = tokens[slot] else { return check(after: operation) }
            managers[manager]!.finishedNetworkTask(forToken: token)
            if !own[manager].finish(.token, slot) { expectedDiagnostics += 1 }
        case .releaseToken(let slot):
            tokens[slot] = nil
            for manager in 0..<Self.managerCount {
                own[manager].deadTaskBound += own[manager].end(.token, slot)
            }
        case .beginOpaque(let manager, let slot):
            if let token = opaqueTokens[manager][slot] {
                managers[manager]!.beganNetworkTask(withToken: token)
            } else {
                opaqueTokens[manager][slot] = managers[manager]!.beganNetworkTask()
            }
            own[manager].begin(.opaque, slot)
        case .finishOpaque(let manager, let slot):
            guard let token = opaqueTokens[manager][slot] else { return check(after: operation) }
            managers[manager]!.finishedNetworkTask(forToken: token)
            if !own[manager].finish(.opaque, slot) { expectedDiagnostics += 1 }
        case .releaseOpaque(let manager, let slot):
            opaqueTokens[manager][slot] = nil
            own[manager].end(.opaque, slot)
        case .push(let manager):
            managers[manager]!.pushNetworkActivity()
            own[manager].push()
        case .pop(let manager):
            managers[manager]!.popNetworkActivity()
            if !own[manager].pop() { expectedDiagnostics += 1 }
        case .reset(let manager):
            managers[manager]!.resetNetworkActivity()
            for member in Self.subtree(manager) { endOwnTasks(member) }
        case .releaseChild(let manager):
            if let failure = release(manager, during: operation) { return failure }
        case .groupStart(let manager, let slot):
            let group = groups[manager][slot] ?? NetworkActivityGroup(manager: managers[manager]!)
            groups[manager][slot] = group
            group.operationStarted()
            own[manager].begin(.group, slot)
        case .groupFinish(let manager, let slot):
            guard let group = groups[manager][slot] else { return check(after: operation) }
            group.operationFinished()
            if !own[manager].finish(.group, slot) { expectedDiagnostics += 1 }
        case .groupCancel(let manager, let slot):
            groups[manager][slot]?.cancelOperations()
            own[manager].end(.group, slot)
        case .groupRelease(let manager, let slot):
            groups[manager][slot] = nil
            own[manager].end(.group, slot)
        case .sweep:
            sweep()
        case .advance(let milliseconds):
            scheduler.advance(by: TimeInterval(milliseconds) / 1000)
        case .settle:
            sweep()
            scheduler.advance(by: settleTime)
        }
        return check(after: operation)
    }

    /// Runs the pending hops, then one sweep interval: every manager sweeps.
    func sweep() {
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        for manager in 0..<Self.managerCount { own[manager].deadTaskBound = 0 }
    }

    /// The model's side of a reset or release: `manager` has no task of its own.
    func endOwnTasks(_ manager: Int) {
        own[manager] = OwnTasks()
    }

    /// Releases child `child` and its descendants (deepest first), then creates fresh ones in
    /// their places. Each is released by dropping the checker's reference, then its opaque
    /// tokens and groups, which keep it alive: its count stays until the last of them goes,
    /// then its remaining tasks (weak tokens, pushes) end in every ancestor.
    func release(_ child: Int, during operation: ModelOperation) -> String? {
        let subtree = Self.subtree(child)
        for manager in subtree.reversed() {
            releasing = managers[manager]
            releasingIndex = manager
            managers[manager] = nil
            releasedOutputs.append(outputs[manager])
            outputs[manager] = RecordingNetworkIndicatorOutput()
            var holders = opaqueTokens[manager].count { $0 != nil } + groups[manager].count { $0 != nil }
            if let failure = checkHolders(holders, of: manager, during: operation, dropping: "the manager") {
                return failure
            }
            for slot in 0..<ModelOperation.opaqueSlots where opaqueTokens[manager][slot] != nil {
                opaqueTokens[manager][slot] = nil
                own[manager].end(.opaque, slot)
                holders -= 1
                let dropped = "opaque token m\(manager)/\(slot)"
                if let failure = checkHolders(holders, of: manager, during: operation, dropping: dropped) {
                    return failure
                }
            }
            for slot in 0..<ModelOperation.groupSlots where groups[manager][slot] != nil {
                groups[manager][slot] = nil
                own[manager].end(.group, slot)
                holders -= 1
                let dropped = "group m\(manager)/\(slot)"
                if let failure = checkHolders(holders, of: manager, during: operation, dropping: dropped) {
                    return failure
                }
            }
        }
        releasingIndex = nil
        for manager in subtree { makeManager(manager) }
        return nil
    }
}
