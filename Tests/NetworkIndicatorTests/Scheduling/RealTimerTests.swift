import Foundation
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A few tests on the real main queue with short intervals and generous deadlines.
@MainActor
@Suite("Real main-queue timers")
struct RealTimerTests {
    private func makeManager() -> NetworkIndicatorManager {
        let manager = NetworkIndicatorManager()
        manager.settings.completionCheckInterval = 0.02
        manager.settings.completionDelay = 0
        return manager
    }

    @Test func operationOnAQueueEndsItsTaskWhenItFinishes() async {
        let manager = makeManager()
        let collector = VisibilityCollector(manager)
        await collector.wait { $0 == [false] }
        let queue = OperationQueue()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let operation = BlockOperation {
            started.signal()
            release.wait()
        }
        manager.beganNetworkTask(withToken: operation)
        queue.addOperation(operation)
        let shown = await collector.wait { $0 == [false, true] }
        #expect(shown == [false, true], "\(shown)")
        started.wait()
        release.signal()
        #expect(await collector.wait { $0.count == 3 } == [false, true, false])
        #expect(manager.activeTaskCount == 0)
        #expect(operation.isFinished, "ended through completion while we still hold it")
    }

    @Test func interleavedTasksShowOnceAndHideOnce() async {
        let manager = makeManager()
        let collector = VisibilityCollector(manager)
        await collector.wait { $0 == [false] }

        let queue = OperationQueue()
        let finishA = DispatchSemaphore(value: 0)
        let taskA = BlockOperation { finishA.wait() }
        manager.beganNetworkTask(withToken: taskA)  // A starts: an operation token
        queue.addOperation(taskA)
        await collector.wait { $0 == [false, true] }

        var taskB: NetworkActivityToken? = manager.beganNetworkTask()  // B starts: opaque
        try? await Task.sleep(nanoseconds: 30_000_000)  // spacing only: B stays open a while
        taskB = nil  // B ends
        let taskC = NSObject()
        manager.beganNetworkTask(withToken: taskC)  // C starts: explicit finish
        try? await Task.sleep(nanoseconds: 30_000_000)  // spacing only: C overlaps A a while
        finishA.signal()  // A ends (at the next sweep)
        await eventually { manager.activeTaskCount == 1 }  // a sweep has seen A finished
        #expect(manager.activeTaskCount == 1)
        manager.finishedNetworkTask(forToken: taskC)  // C ends

        await collector.wait { $0.count >= 3 }  // the hide has been seen
        // That no fourth value follows is an absence, which no condition can signal: the only
        // honest check is a bounded quiet period (5 sweep intervals) before looking again.
        try? await Task.sleep(nanoseconds: 100_000_000)
        #expect(collector.values == [false, true, false])
        _ = taskB
    }

    @Test func threadsHammeringBeginAndFinishLeaveNothingBehind() async {
        let manager = makeManager()
        let collector = VisibilityCollector(manager)
        await collector.wait { $0 == [false] }
        let holder = manager.beganNetworkTask()  // keeps the indicator on throughout
        await collector.wait { $0 == [false, true] }

        await Task.detached {
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                var generator = SystemRandomNumberGenerator()
                var held: [AnyObject] = []
                for step in 0..<5_000 {
                    switch Int.random(in: 0..<5, using: &generator) {
                    case 0:
                        let token = NSObject()
                        manager.beganNetworkTask(withToken: token)
                        held.append(token)
                    case 1:
                        if let token = held.popLast() { manager.finishedNetworkTask(forToken: token) }
                    case 2:
                        manager.beganNetworkTask(withToken: NSObject())  // dies at once
                    case 3:
                        _ = manager.beganNetworkTask(label: "thread \(thread) step \(step)")
                    default:
                        manager.pushNetworkActivity()
                        manager.popNetworkActivity()
                    }
                }
                for token in held { manager.finishedNetworkTask(forToken: token) }
            }
        }.value

        _ = consume holder
        #expect(await collector.wait { $0.count == 3 } == [false, true, false])
        #expect(manager.activeTaskCount == 0)
    }

    @Test func delaysHideShortTasksAndBridgeGapsOnTheRealMainQueue() async {
        let manager = makeManager()
        manager.settings.startDelay = 0.1
        manager.settings.completionDelay = 0.1
        let collector = VisibilityCollector(manager)
        await collector.wait { $0 == [false] }

        // Shorter than the start delay (no timing assertion: only what the indicator did).
        let blip = manager.beganNetworkTask()
        manager.finishedNetworkTask(forToken: blip)
        // Longer than the start delay, then a second task inside the completion delay.
        var first: NetworkActivityToken? = manager.beganNetworkTask()
        await collector.wait { $0 == [false, true] }
        first = nil
        let second = manager.beganNetworkTask()
        try? await Task.sleep(nanoseconds: 20_000_000)  // spacing only: the second task lasts a while
        manager.finishedNetworkTask(forToken: second)
        #expect(await collector.wait { $0.count == 3 } == [false, true, false])
        _ = first
    }

    @Test func heldCompletedURLSessionTaskEndsOnTheRealSweep() async throws {
        let server = try LocalHTTPServer()
        let manager = makeManager()
        let collector = VisibilityCollector(manager)
        await collector.wait { $0 == [false] }
        let session = URLSession(configuration: .ephemeral)
        let task = session.dataTask(with: server.url("/delay/20"))
        manager.track(task)
        task.resume()
        #expect(await collector.wait { $0.count == 3 } == [false, true, false])
        #expect(task.state == .completed, "still held by the test, ended by its completed state")
        session.finishTasksAndInvalidate()
    }
}
