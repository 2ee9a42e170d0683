#if canImport(ObjectiveC)
public import Foundation

/// A session delegate that counts every task of its session in a manager, from each resume to
/// its completion, and passes every delegate message on to your own delegate (iOS 16+,
/// macOS 13+, tvOS 16+, watchOS 9+).
///
/// `urlSession(_:didCreateTask:)`, new in those releases, reaches the session's delegate for
/// every task the session makes, however it is made (`dataTask`, `data(for:)`, `bytes(for:)`,
/// a framework's call), so no code is needed at each call:
///
/// ```swift
/// let session = URLSession(
///     configuration: .default,
///     delegate: NetworkActivitySessionDelegate(manager: .shared, forwardingTo: appDelegate),
///     delegateQueue: nil
/// )
/// ```
///
/// Every message your delegate implements reaches it unchanged: the delegate answers
/// `responds(to:)` for your delegate's methods and forwards them, and calls your
/// `urlSession(_:didCreateTask:)` after its own. A task delegate (`data(for:delegate:)`) that
/// implements `urlSession(_:didCreateTask:)` itself takes that message: such a task is not
/// counted. On older releases, and on Linux, use ``NetworkActivityTrackingSession``.
///
/// A task counts only if ``countsTask`` says so: by default every task but a WebSocket or stream
/// task (``NetworkActivityTrackingSession/countsTaskByDefault(_:)``), which is a connection, open
/// for as long as it is used, not a load.
///
/// The session keeps its delegate, and this delegate keeps yours, until the session is
/// invalidated. Messages arrive on the session's delegate queue and are forwarded on it.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
public final class NetworkActivitySessionDelegate: NSObject, URLSessionTaskDelegate {
    /// The manager that counts the session's tasks.
    public let manager: NetworkIndicatorManager

    /// Your delegate, which receives every message it implements.
    public let forwardee: (any URLSessionDelegate)?

    /// Whether a task of the session counts:
    /// ``NetworkActivityTrackingSession/countsTaskByDefault(_:)`` unless told otherwise. Called
    /// once per task, in `urlSession(_:didCreateTask:)`, on the session's delegate queue.
    public let countsTask: @Sendable (URLSessionTask) -> Bool

    /// Creates a delegate that counts in `manager` and forwards to `delegate`.
    ///
    /// - Parameters:
    ///   - manager: The manager that counts the session's tasks; `.shared` by default.
    ///   - delegate: Your own session delegate, or `nil`.
    ///   - countsTask: Whether a task counts; see ``countsTask``.
    public init(
        manager: NetworkIndicatorManager = .shared,
        forwardingTo delegate: (any URLSessionDelegate)? = nil,
        countsTask: @escaping @Sendable (URLSessionTask) -> Bool = NetworkActivityTrackingSession.countsTaskByDefault
    ) {
        self.manager = manager
        self.forwardee = delegate
        self.countsTask = countsTask
    }

    /// Counts `task` from each resume to its completion if ``countsTask`` says so, then tells
    /// your delegate.
    public func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
        if countsTask(task) { manager.countWhileRunning(task) }
        (forwardee as? any URLSessionTaskDelegate)?.urlSession?(session, didCreateTask: task)
    }

    /// `true` for this delegate's own methods and for every method your delegate implements.
    public override func responds(to aSelector: Selector!) -> Bool {
        super.responds(to: aSelector) || (forwardee?.responds(to: aSelector) ?? false)
    }

    /// `true` for the protocols this delegate or yours conforms to (the session may ask).
    public override func conforms(to aProtocol: Protocol) -> Bool {
        super.conforms(to: aProtocol) || (forwardee?.conforms(to: aProtocol) ?? false)
    }

    /// Your delegate, for the messages this one does not implement itself.
    public override func forwardingTarget(for aSelector: Selector!) -> Any? {
        if let forwardee, !super.responds(to: aSelector), forwardee.responds(to: aSelector) {
            return forwardee
        }
        return super.forwardingTarget(for: aSelector)
    }
}
#endif
