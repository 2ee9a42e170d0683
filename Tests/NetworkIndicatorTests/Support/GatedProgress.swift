import Dispatch
import Foundation

@testable import NetworkIndicator

/// A progress whose next reading can be held, so that a test can act while a reader has
/// sampled some parts and not yet folded them.
final class GatedProgress: Progress, SelfReadingProgress, @unchecked Sendable {
    private let counts: ProgressReading
    private let isHeld = LockedState(false)
    private let held = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    init(total: Double, completed: Double) {
        counts = ProgressReading(total: total, completed: completed)
        super.init(parent: nil, userInfo: nil)
    }

    func holdNextReading() { isHeld.withLock { $0 = true } }
    func waitUntilHeld() { held.wait() }
    func releaseReading() { released.signal() }

    var reading: ProgressReading {
        let holds = isHeld.withLock { isHeld in
            defer { isHeld = false }
            return isHeld
        }
        if holds {
            held.signal()
            released.wait()
        }
        return counts
    }
}
