import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Stress")
struct StressTests {
    /// 4 threads × 250 000 random operations of every kind against one manager on the real main
    /// queue, then everything ended: the count is 0, the indicator hidden, the last update false.
    @Test func fourThreadsOfRandomOperationsLeaveNothingBehind() async {
        let manager = NetworkIndicatorManager()
        manager.settings.completionCheckInterval = 0.01
        manager.settings.completionDelay = 0.005
        let diagnostics = DiagnosticCounter()
        manager.diagnosticsHandler = diagnostics.handler
        let collector = VisibilityCollector(manager)

        await Task.detached {
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                var generator = SeededGenerator(seed: UInt64(thread))
                var tokens: [NSObject] = []
                var opaque: [NetworkActivityToken] = []
                let group = NetworkActivityGroup(manager: manager)
                for _ in 0..<250_000 {
                    switch Int.random(in: 0..<12, using: &generator) {
                    case 0:
                        let token = NSObject()
                        manager.beganNetworkTask(withToken: token)
                        if tokens.count < 64 { tokens.append(token) }
                    case 1:
                        if let token = tokens.popLast() { manager.finishedNetworkTask(forToken: token) }
                    case 2:
                        if !tokens.isEmpty { tokens.removeFirst() }  // dies: ends at a sweep
                    case 3:
                        if opaque.count < 64 { opaque.append(manager.beganNetworkTask()) }
                    case 4:
                        if !opaque.isEmpty { opaque.removeLast() }
                    case 5:
                        manager.pushNetworkActivity()
                    case 6:
                        manager.popNetworkActivity()
                    case 7:
                        group.operationStarted()
                    case 8:
                        group.operationFinished()
                    case 9:
                        if Int.random(in: 0..<100, using: &generator) == 0 { group.cancelOperations() }
                    case 10:
                        if Int.random(in: 0..<1_000, using: &generator) == 0 { manager.resetNetworkActivity() }
                    default:
                        _ = manager.activeTaskCount
                    }
                }
                for token in tokens { manager.finishedNetworkTask(forToken: token) }
            }
        }.value
        // Pushes and pops were random: end whatever is left.
        manager.resetNetworkActivity()

        let values = await collector.wait { $0.last == false && manager.activeTaskCount == 0 }
        #expect(manager.activeTaskCount == 0)
        #expect(values.last == false)
        await eventually { !manager.isIndicatorVisible }
        #expect(!manager.isIndicatorVisible)
        #expect(collector.values.last == false)
        #expect(diagnostics.count > 0, "random pops and finishes include misuse, reported not fatal")
    }

    nonisolated static let treeOperationCount = 40_000

    /// 4 threads × 40 000 random operations of every kind (weak tokens, some begun in several
    /// managers, opaque tokens, push/pop, groups, resets) on every manager of a 3-level tree on a
    /// manual scheduler, while the main actor runs its hops, delays and sweeps. Each thread then
    /// finishes or releases what it began: after a sweep every count is 0, every indicator hidden.
    @Test func fourThreadsOnEveryManagerOfATreeLeaveNothingBehind() async {
        let scheduler = ManualNetworkIndicatorScheduler()
        let diagnostics = DiagnosticCounter()
        let root = NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: diagnostics.handler)
        let child = NetworkIndicatorManager(parent: root, label: "child 1")
        let managers = [
            root, child, NetworkIndicatorManager(parent: root, label: "child 2"),
            NetworkIndicatorManager(parent: child, label: "grandchild"),
        ]
        let outputs = managers.map { _ in RecordingNetworkIndicatorOutput() }
        for (index, manager) in managers.enumerated() {
            manager.settings.startDelay = [0, 0.02, 0.03, 0][index]
            manager.settings.completionDelay = [0.05, 0, 0.02, 0][index]
            manager.settings.minimumVisibleDuration = [0, 0, 0.05, 0][index]
            manager.settings.completionCheckInterval = 0.1
            manager.addOutput(outputs[index])
        }
        scheduler.runPendingWork()

        let done = LockedState(false)
        let work = Task.detached {
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                Self.randomOperations(on: managers, seed: UInt64(thread) + 1_000)
            }
            done.withLock { $0 = true }
        }
        // Meanwhile the main actor runs the hops, delay timers and sweeps as manual time passes.
        while !done.withLock({ $0 }) {
            scheduler.advance(by: 0.01)
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        await work.value

        // Quiet now: each manager has at most one hop, one delay timer and one sweep pending.
        #expect(scheduler.pendingWorkCount <= 3 * managers.count)
        let counts = managers.map(\.activeTaskCount)
        #expect(counts[0] == ManagerOwnTasks(of: managers[0]).count + counts[1] + counts[2])
        #expect(counts[1] == ManagerOwnTasks(of: managers[1]).count + counts[3])
        // Only tokens that died unfinished may still count, until the sweep.
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(managers.map(\.activeTaskCount) == [0, 0, 0, 0])
        #expect(managers.map(\.isIndicatorVisible) == [false, false, false, false])
        #expect(outputs.map(\.isVisible) == [false, false, false, false])
        #expect(scheduler.pendingWorkCount == 0, "no weak token left: the sweeps stopped")
        #expect(diagnostics.count > 0, "random pops and finishes include misuse, reported not fatal")
    }

    /// One thread's random operations on `managers`, then it finishes or releases all it began.
    ///
    /// A thread pops only after its own pushes (and sometimes without any), and finishes only
    /// tokens it began, so that after the last reset every task begun has its end later: the
    /// counts come back to 0 whatever the other threads and the resets did meanwhile.
    private nonisolated static func randomOperations(on managers: [NetworkIndicatorManager], seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var tokens: [(token: NSObject, manager: Int)] = []
        var opaque: [NetworkActivityToken] = []
        var pushes = Array(repeating: 0, count: managers.count)
        let groups = managers.map { NetworkActivityGroup(manager: $0) }
        for _ in 0..<treeOperationCount {
            let index = Int.random(in: 0..<managers.count, using: &generator)
            let manager = managers[index]
            switch Int.random(in: 0..<12, using: &generator) {
            case 0:
                // A new token, or one this thread holds, begun (again) in any manager.
                let token =
                    tokens.isEmpty || Bool.random(using: &generator)
                    ? NSObject() : tokens[Int.random(in: 0..<tokens.count, using: &generator)].token
                manager.beganNetworkTask(withToken: token)
                if tokens.count < 64 { tokens.append((token, index)) }
            case 1:
                if let (token, index) = tokens.popLast() { managers[index].finishedNetworkTask(forToken: token) }
            case 2:
                if !tokens.isEmpty { tokens.removeFirst() }  // never finished: ends at its death's sweep
            case 3:
                if opaque.count < 64 { opaque.append(manager.beganNetworkTask()) }
            case 4:
                if !opaque.isEmpty { opaque.remove(at: Int.random(in: 0..<opaque.count, using: &generator)) }
            case 5:
                manager.pushNetworkActivity()
                pushes[index] += 1
            case 6:
                manager.popNetworkActivity()  // sometimes without a push of this thread's
                pushes[index] = max(0, pushes[index] - 1)
            case 7:
                groups[index].operationStarted()
            case 8:
                groups[index].operationFinished()
            case 9:
                if Int.random(in: 0..<50, using: &generator) == 0 { groups[index].cancelOperations() }
            case 10:
                if Int.random(in: 0..<500, using: &generator) == 0 { manager.resetNetworkActivity() }
            default:
                if Int.random(in: 0..<100, using: &generator) == 0 {
                    _ = manager.activitySnapshot()
                } else {
                    _ = manager.activeTaskCount
                }
            }
        }
        for (token, index) in tokens { managers[index].finishedNetworkTask(forToken: token) }
        for (index, count) in pushes.enumerated() {
            for _ in 0..<count { managers[index].popNetworkActivity() }
        }
        // The groups, opaque tokens and the remaining tokens are released here.
    }
}
