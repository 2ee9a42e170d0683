import Dispatch
import Foundation
import Testing

@testable import NetworkIndicator

/// The lock box's two forms exclude each other's users: the checked one and the unchecked one
/// (which the driver uses where a caller's object enters or leaves its tree).
@Suite("Locked state")
struct LockedStateTests {
    /// The two ways to take the lock: checked, and unchecked.
    enum Form: CaseIterable, Sendable {
        case checked, unchecked
    }

    @Test(arguments: Form.allCases)
    func eachFormExcludesOtherThreads(form: Form) {
        let box = LockedState(0)
        let entered = DispatchSemaphore(value: 0)
        let otherThreadDone = DispatchSemaphore(value: 0)
        let order = LockedState<[String]>([])
        let holdTheLock = { (value: inout Int) in
            value += 1
            // Another thread takes the same lock: it must wait until this body returns.
            Thread.detachNewThread {
                entered.signal()
                box.withLock { _ in order.withLock { $0.append("other") } }
                otherThreadDone.signal()
            }
            entered.wait()
            // Long enough for an unguarded `box.withLock` to have run; a correct lock makes
            // this wait irrelevant, so it cannot make the test fail when the lock works.
            Thread.sleep(forTimeInterval: 0.05)
            order.withLock { $0.append("holder") }
        }
        switch form {
        case .checked: box.withLock { holdTheLock(&$0) }
        case .unchecked: box.withLockUnchecked { holdTheLock(&$0) }
        }
        otherThreadDone.wait()
        #expect(order.withLock { $0 } == ["holder", "other"])
        #expect(box.withLock { $0 } == 1)
    }
}
