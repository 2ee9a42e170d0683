// Shared by the model-based test and the libFuzzer target (Fuzz/), which compiles this file
// into the library's own module with -D NETWORK_INDICATOR_FUZZ.
import Foundation

#if !NETWORK_INDICATOR_FUZZ
@testable import NetworkIndicator
#endif

/// One step of a randomized run, on a tree of four managers: m0 (the root), its children m1
/// and m2, and m3, a child of m1. Weak token objects are shared by all managers (one object may
/// have tasks in several); opaque tokens, groups and pushes belong to one manager.
enum ModelOperation: Equatable, CustomStringConvertible {
    case beginToken(manager: Int, slot: Int)
    case finishToken(manager: Int, slot: Int)
    /// Drops the token object: its tasks in every manager end at that manager's next sweep.
    case releaseToken(slot: Int)
    case beginOpaque(manager: Int, slot: Int)
    case finishOpaque(manager: Int, slot: Int)
    case releaseOpaque(manager: Int, slot: Int)
    case push(manager: Int)
    case pop(manager: Int)
    /// `resetNetworkActivity()` on one manager: its subtree ends everything.
    case reset(manager: Int)
    /// Releases child manager `manager` (m1 with m3 under it, m2 or m3) and puts a fresh one in
    /// its place: its opaque tokens and groups (which keep it alive) are dropped after it.
    case releaseChild(manager: Int)
    case groupStart(manager: Int, slot: Int)
    case groupFinish(manager: Int, slot: Int)
    case groupCancel(manager: Int, slot: Int)
    case groupRelease(manager: Int, slot: Int)
    /// Advance the clock by one sweep interval: every dead token is gone afterwards.
    case sweep
    /// Advance the clock by `milliseconds`.
    case advance(milliseconds: Int)
    /// Sweep, then wait out every delay: visibility must match the count, for every manager.
    case settle

    static let tokenSlots = 6
    static let opaqueSlots = 4
    static let groupSlots = 3
    /// Each manager's parent (`nil` for the root): m1 and m2 under m0, m3 under m1.
    static let parents: [Int?] = [nil, 0, 0, 1]
    static var managerCount: Int { parents.count }

    /// Decodes one operation from two bytes (a kind and an argument). The argument's two high
    /// bits pick the manager, its six low bits the slot; bytes from before the tree decode to
    /// the same operations on a manager, the root for arguments below 64.
    init(kind: UInt8, argument: UInt8) {
        let manager = Int(argument >> 6)
        let slot = Int(argument & 63)
        switch kind % 16 {
        case 0: self = .beginToken(manager: manager, slot: slot % Self.tokenSlots)
        case 1: self = .finishToken(manager: manager, slot: slot % Self.tokenSlots)
        case 2: self = .releaseToken(slot: slot % Self.tokenSlots)
        case 3: self = .beginOpaque(manager: manager, slot: slot % Self.opaqueSlots)
        case 4: self = .finishOpaque(manager: manager, slot: slot % Self.opaqueSlots)
        case 5: self = .releaseOpaque(manager: manager, slot: slot % Self.opaqueSlots)
        case 6: self = .push(manager: manager)
        case 7: self = .pop(manager: manager)
        case 8:
            switch slot % 8 {
            case 0: self = .reset(manager: manager)
            case 1: self = .releaseChild(manager: 1 + manager % 3)
            default: self = .push(manager: manager)
            }
        case 9: self = .groupStart(manager: manager, slot: slot % Self.groupSlots)
        case 10: self = .groupFinish(manager: manager, slot: slot % Self.groupSlots)
        case 11: self = .groupCancel(manager: manager, slot: slot % Self.groupSlots)
        case 12: self = .groupRelease(manager: manager, slot: slot % Self.groupSlots)
        case 13: self = .sweep
        case 14: self = .advance(milliseconds: Int(argument) * 5)
        default: self = .settle
        }
    }

    var description: String {
        switch self {
        case .beginToken(let manager, let slot): "beginToken(m\(manager), \(slot))"
        case .finishToken(let manager, let slot): "finishToken(m\(manager), \(slot))"
        case .releaseToken(let slot): "releaseToken(\(slot))"
        case .beginOpaque(let manager, let slot): "beginOpaque(m\(manager), \(slot))"
        case .finishOpaque(let manager, let slot): "finishOpaque(m\(manager), \(slot))"
        case .releaseOpaque(let manager, let slot): "releaseOpaque(m\(manager), \(slot))"
        case .push(let manager): "push(m\(manager))"
        case .pop(let manager): "pop(m\(manager))"
        case .reset(let manager): "reset(m\(manager))"
        case .releaseChild(let manager): "releaseChild(m\(manager))"
        case .groupStart(let manager, let slot): "groupStart(m\(manager), \(slot))"
        case .groupFinish(let manager, let slot): "groupFinish(m\(manager), \(slot))"
        case .groupCancel(let manager, let slot): "groupCancel(m\(manager), \(slot))"
        case .groupRelease(let manager, let slot): "groupRelease(m\(manager), \(slot))"
        case .sweep: "sweep"
        case .advance(let milliseconds): "advance(\(milliseconds) ms)"
        case .settle: "settle"
        }
    }
}

/// A reference model (plain counts, no threads, no timers) run in lockstep with a real tree of
/// managers on one manual scheduler. ``apply(_:)`` returns a description of the first
/// disagreement. After every step, for every manager: its count is its own tasks plus its
/// children's counts, and its own tasks are the model's (give or take dead weak tokens not yet
/// swept); after a settle, each manager's indicator shows exactly while its count is positive.
@MainActor
final class ModelChecker {
    private final class ModelToken {}

    private static let managerCount = ModelOperation.managerCount
    private static let labels = ["root", "child 1", "child 2", "grandchild"]
    /// Each manager's children.
    private static let children: [[Int]] = (0..<managerCount).map { manager in
        (0..<managerCount).filter { ModelOperation.parents[$0] == manager }
    }

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let diagnostics = DiagnosticCounter()
    private let delays: [(start: TimeInterval, completion: TimeInterval)]
    private let settleTime: TimeInterval

    // The real objects.
    private var managers: [NetworkIndicatorManager?]
    private var outputs: [RecordingNetworkIndicatorOutput] = []
    /// Outputs of released managers: told that the indicator is gone, at the next settle.
    private var releasedOutputs: [RecordingNetworkIndicatorOutput] = []
    /// A released manager that its opaque tokens or groups keep alive, while they are dropped.
    private weak var releasing: NetworkIndicatorManager?
    private var releasingIndex: Int?
    private var tokens: [ModelToken?] = Array(repeating: nil, count: ModelOperation.tokenSlots)
    private var opaqueTokens: [[NetworkActivityToken?]] = Array(
        repeating: Array(repeating: nil, count: ModelOperation.opaqueSlots),
        count: ModelOperation.managerCount
    )
    private var groups: [[NetworkActivityGroup?]] = Array(
        repeating: Array(repeating: nil, count: ModelOperation.groupSlots),
        count: ModelOperation.managerCount
    )

    // The model: each manager's own tasks.
    private var own = Array(repeating: OwnTasks(), count: ModelOperation.managerCount)
    private var expectedDiagnostics = 0

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

    private init(delays: [(start: TimeInterval, completion: TimeInterval)]) {
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
    private func makeManager(_ index: Int) {
        let manager =
            if let parent = ModelOperation.parents[index] {
                NetworkIndicatorManager(parent: managers[parent]!, label: Self.labels[index])
            } else {
                NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: diagnostics.handler)
            }
        manager.startDelay = delays[index].start
        manager.completionDelay = delays[index].completion
        manager.completionCheckInterval = 1
        manager.addOutput(outputs[index])
        managers[index] = manager
    }

    /// The real root manager, for tests of the checker itself.
    var managerForTesting: NetworkIndicatorManager { managers[0]! }

    /// The real manager `index`, for tests of the checker itself.
    func managerForTesting(_ index: Int) -> NetworkIndicatorManager { managers[index]! }

    /// The model's count of `manager`: its own tasks and its descendants'.
    private func modelCount(_ manager: Int) -> Int {
        Self.children[manager].reduce(own[manager].total) { $0 + modelCount($1) }
    }

    /// `manager` and its descendants, parents before children.
    private static func subtree(_ manager: Int) -> [Int] {
        [manager] + children[manager].flatMap { subtree($0) }
    }

    /// The real manager `index`: the checker's, or a released one still kept alive.
    private func realManager(_ index: Int) -> NetworkIndicatorManager? {
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
    private func sweep() {
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        for manager in 0..<Self.managerCount { own[manager].deadTaskBound = 0 }
    }

    /// The model's side of a reset or release: `manager` has no task of its own.
    private func endOwnTasks(_ manager: Int) {
        own[manager] = OwnTasks()
    }

    /// Releases child `child` and its descendants (deepest first), then creates fresh ones in
    /// their places. Each is released by dropping the checker's reference, then its opaque
    /// tokens and groups, which keep it alive: its count stays until the last of them goes,
    /// then its remaining tasks (weak tokens, pushes) end in every ancestor.
    private func release(_ child: Int, during operation: ModelOperation) -> String? {
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

    /// After dropping one reference to released manager `manager`, which `holders` objects
    /// still keep alive: it is alive exactly while they do, and the counts agree.
    private func checkHolders(
        _ holders: Int,
        of manager: Int,
        during operation: ModelOperation,
        dropping dropped: String
    ) -> String? {
        if holders == 0 { endOwnTasks(manager) }
        guard (releasing != nil) == (holders > 0) else {
            return "after \(operation), dropping \(dropped): released m\(manager) alive \(releasing != nil), "
                + "but \(holders) opaque tokens and groups hold it"
        }
        return checkCounts(after: "\(operation), dropping \(dropped)")
    }

    /// For every manager: its count is its own tasks plus its children's counts, and its own
    /// tasks are the model's (plus at most its dead tokens' tasks awaiting the sweep).
    private func checkCounts(after step: @autoclosure () -> String) -> String? {
        // Leaves first, each manager read once: a manager's children are after it.
        var counts = [0, 0, 0, 0]
        for manager in (0..<Self.managerCount).reversed() {
            guard let real = realManager(manager) else { continue }
            let count = real.activeTaskCount
            let (ownCount, pushes) = real.driver.withRegistry { ($0.activeTaskCount, $0.pushCount) }
            counts[manager] = count
            var children = 0
            for child in Self.children[manager] { children += counts[child] }
            guard count == ownCount + children else {
                return "after \(step()): m\(manager) counts \(count), but its own tasks \(ownCount) "
                    + "+ its children's \(children) = \(ownCount + children)"
            }
            let model = own[manager]
            guard ownCount >= model.total && ownCount <= model.total + model.deadTaskBound, pushes == model.pushes
            else {
                return "after \(step()): m\(manager) has \(ownCount) own tasks (\(pushes) pushes), model "
                    + "\(model.total) (\(model.pushes) pushes, + up to \(model.deadTaskBound) awaiting the sweep); "
                    + "activeTaskCount \(count), model \(modelCount(manager))"
            }
        }
        return nil
    }

    private func check(after operation: ModelOperation) -> String? {
        if let failure = checkCounts(after: "\(operation)") { return failure }
        guard diagnostics.count == expectedDiagnostics else {
            return "after \(operation): \(diagnostics.count) diagnostics, model expects \(expectedDiagnostics)"
        }
        if case .settle = operation { return checkSettled() }
        return nil
    }

    /// After a settle: every manager's indicator and output show exactly while its count is
    /// positive, its snapshot lists its active children, only sweep timers are pending, and
    /// released managers' outputs were told the indicator is gone.
    private func checkSettled() -> String? {
        var sweepingManagers = 0
        for index in 0..<Self.managerCount {
            let manager = managers[index]!
            let count = modelCount(index)
            let visible = manager.isIndicatorVisible
            guard visible == (count > 0), outputs[index].isVisible == visible else {
                return
                    "after settle: m\(index) indicator \(visible), output \(outputs[index].isVisible), model count \(count)"
            }
            if manager.driver.withRegistry({ $0.sweptEntryCount > 0 }) { sweepingManagers += 1 }
            if !Self.children[index].isEmpty {
                // One record per active child, with its count.
                let records = manager.activitySnapshot().activities.filter { $0.kind == .childManager }
                let active = Self.children[index].filter { modelCount($0) > 0 }
                let matches =
                    records.count == active.count
                    && records.allSatisfy { record in
                        active.contains { Self.labels[$0] == record.label && modelCount($0) == record.taskCount }
                    }
                guard matches else {
                    return "after settle: m\(index)'s snapshot lists children "
                        + "\(records.map { "\($0.label): \($0.taskCount)" }), model "
                        + "\(active.map { "\(Self.labels[$0]): \(modelCount($0))" })"
                }
            }
            for slot in 0..<ModelOperation.groupSlots {
                guard let group = groups[index][slot] else { continue }
                guard group.activeOperationCount == own[index].counts[OwnTasks.Kind.group.rawValue][slot] else {
                    return "after settle: group m\(index)/\(slot) has \(group.activeOperationCount) operations, "
                        + "model \(own[index].counts[OwnTasks.Kind.group.rawValue][slot])"
                }
            }
        }
        guard scheduler.pendingWorkCount == sweepingManagers else {
            return "after settle: \(scheduler.pendingWorkCount) pending work items, "
                + "\(sweepingManagers) managers track weak tokens (one sweep timer each)"
        }
        guard !releasedOutputs.contains(where: \.isVisible) else {
            return "after settle: a released manager's output still shows the indicator"
        }
        releasedOutputs.removeAll()
        return nil
    }
}

/// The model of one manager's own tasks (its descendants' are theirs).
private struct OwnTasks {
    enum Kind: Int {
        case token, opaque, group
    }

    /// Open tasks by kind and slot.
    private(set) var counts = [
        Array(repeating: 0, count: ModelOperation.tokenSlots),
        Array(repeating: 0, count: ModelOperation.opaqueSlots),
        Array(repeating: 0, count: ModelOperation.groupSlots),
    ]
    private(set) var pushes = 0
    /// Every open task: the sum of ``counts`` and ``pushes``, kept as they change.
    private(set) var total = 0
    /// Tasks of dead tokens that the real manager may still count until its next sweep.
    var deadTaskBound = 0

    mutating func begin(_ kind: Kind, _ slot: Int) {
        counts[kind.rawValue][slot] += 1
        total += 1
    }

    /// Ends one task; `false` (misuse) if there is none.
    mutating func finish(_ kind: Kind, _ slot: Int) -> Bool {
        guard counts[kind.rawValue][slot] > 0 else { return false }
        counts[kind.rawValue][slot] -= 1
        total -= 1
        return true
    }

    /// Ends every task in the slot; returns how many there were.
    @discardableResult
    mutating func end(_ kind: Kind, _ slot: Int) -> Int {
        let ended = counts[kind.rawValue][slot]
        counts[kind.rawValue][slot] = 0
        total -= ended
        return ended
    }

    mutating func push() {
        pushes += 1
        total += 1
    }

    /// Ends one push; `false` (misuse) if there is none.
    mutating func pop() -> Bool {
        guard pushes > 0 else { return false }
        pushes -= 1
        total -= 1
        return true
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
