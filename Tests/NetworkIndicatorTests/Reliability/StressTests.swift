import Foundation
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Stress")
struct StressTests {
    /// 4 threads × 250 000 random operations of every kind against one manager on the real main
    /// queue, then everything ended: the count is 0, the indicator hidden, the last update false.
    @Test func fourThreadsOfRandomOperationsLeaveNothingBehind() async {
        let manager = NetworkIndicatorManager()
        manager.completionCheckInterval = 0.01
        manager.completionDelay = 0.005
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
        let deadline = Date().addingTimeInterval(2)
        while manager.isIndicatorVisible && Date() < deadline {
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        #expect(!manager.isIndicatorVisible)
        #expect(collector.values.last == false)
        #expect(diagnostics.count > 0, "random pops and finishes include misuse, reported not fatal")
    }
}
