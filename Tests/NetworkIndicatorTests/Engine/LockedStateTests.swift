import Dispatch
import Foundation
import Testing

@testable import NetworkIndicator

/// The lock box's sharing of one lock between boxes (a tree of managers keeps every driver's
/// state under its root's lock).
@Suite("Locked state")
struct LockedStateTests {
    /// The two ways to take a shared lock: checked, and unchecked (which the driver uses where a
    /// caller's object enters or leaves the state).
    enum Form: CaseIterable, Sendable {
        case checked, unchecked
    }

    @Test(arguments: Form.allCases)
    func aBoxUnderAnotherBoxsLockExcludesThatBoxsUsers(form: Form) {
        let root = LockedState(0)
        let scope = LockedState(0)
        let entered = DispatchSemaphore(value: 0)
        let otherThreadDone = DispatchSemaphore(value: 0)
        let order = LockedState<[String]>([])
        let holdTheLock = { (value: inout Int) in
            value += 1
            // Another thread takes the root's own lock: it must wait until this body returns.
            Thread.detachNewThread {
                entered.signal()
                root.withLock { _ in order.withLock { $0.append("root") } }
                otherThreadDone.signal()
            }
            entered.wait()
            // Long enough for an unguarded `root.withLock` to have run; a correct lock makes
            // this wait irrelevant, so it cannot make the test fail when the lock works.
            Thread.sleep(forTimeInterval: 0.05)
            order.withLock { $0.append("scope") }
        }
        switch form {
        case .checked: scope.withLock(of: root) { value, _ in holdTheLock(&value) }
        case .unchecked: scope.withLockUnchecked(of: root) { value, _ in holdTheLock(&value) }
        }
        otherThreadDone.wait()
        #expect(order.withLock { $0 } == ["scope", "root"])
        #expect(scope.withLock { $0 } == 1)
    }

    /// A relocking mutant would hang here: the time limit makes that a failure.
    @Test(.timeLimit(.minutes(1)))
    func theProofReachesAnotherBoxUnderTheSameLockWithoutTakingItAgain() {
        let root = LockedState(10)
        let scope = LockedState(1)
        // The lock is not recursive: taking it again here would never return.
        let sum = scope.withLock(of: root) { scopeValue, held in
            scopeValue += 1
            return root.withLock(held: held, of: root) { rootValue in
                rootValue += scopeValue
                return rootValue
            }
        }
        #expect(sum == 12)
        #expect(root.withLock { $0 } == 12)
        #expect(scope.withLock { $0 } == 2)
    }

    @Test(.timeLimit(.minutes(1)))
    func theUncheckedFormLendsTheProof() {
        let root = LockedState(0)
        let scope = LockedState(0)
        scope.withLockUnchecked(of: root) { value, held in
            value = 5
            root.withLock(held: held, of: root) { $0 = value * 2 }
        }
        #expect(root.withLock { $0 } == 10)
        #expect(scope.withLock { $0 } == 5)
    }

    // Exit tests need Swift 6.2's Swift Testing, and a platform that can start a process.
    #if compiler(>=6.2) && (os(macOS) || os(Linux) || os(Windows))
    @Test func aProofOfAnotherLockStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let held = LockedState(0)
            let other = LockedState(0)
            let scope = LockedState(0)
            scope.withLock(of: held) { _, proof in
                // `other`'s lock is not the one held: reaching a box under it is refused.
                other.withLock(held: proof, of: other) { $0 += 1 }
            }
        }
    }
    #endif
}
