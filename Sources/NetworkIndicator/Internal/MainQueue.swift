import Dispatch

/// Whether code runs on the main queue. `Thread.isMainThread` cannot tell: on Linux a process
/// may drain the main queue on a thread that Foundation does not take for its main one (an
/// XCTest bundle does), so the queue is marked with a key of its own instead.
///
/// `@unchecked Sendable`: the key (not `Sendable` in Apple's Dispatch) is made and set on the
/// main queue once, in `init`, and only read after.
final class MainQueue: @unchecked Sendable {
    private static let shared = MainQueue()
    private let key = DispatchSpecificKey<Bool>()

    private init() {
        DispatchQueue.main.setSpecific(key: key, value: true)
    }

    /// Whether the caller runs on the main queue (the main actor included).
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: shared.key) == true }
}
