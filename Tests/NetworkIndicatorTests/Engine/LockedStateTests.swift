import Dispatch
import Foundation
import Testing

@testable import NetworkIndicator

/// The lock box's sharing of one lock between boxes (a tree of managers keeps every driver's
/// state under its root's lock).
@Suite("Locked state")
struct LockedStateTests {
    @Test func aBoxUnderAnotherBoxsLockExcludesThatBoxsUsers() {
        let root = LockedState(0)
        let scope = LockedState(0)
        let entered = DispatchSemaphore(value: 0)
        let otherThreadDone = DispatchSemaphore(value: 0)
        let order = LockedState<[String]>([])
        scope.withLock(of: root) { value, _ in
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
        otherThreadDone.wait()
        #expect(order.withLock { $0 } == ["scope", "root"])
        #expect(scope.withLock { $0 } == 1)
    }

    @Test func theProofReachesAnotherBoxUnderTheSameLockWithoutTakingItAgain() {
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

    @Test func theUncheckedFormSharesTheLockAndLendsTheProof() {
        let root = LockedState(0)
        let scope = LockedState(0)
        scope.withLockUnchecked(of: root) { value, held in
            value = 5
            root.withLock(held: held, of: root) { $0 = value * 2 }
        }
        #expect(root.withLock { $0 } == 10)
        #expect(scope.withLock { $0 } == 5)
    }

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
}
