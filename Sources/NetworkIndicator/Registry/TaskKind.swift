/// How a task was begun, which decides how it ends.
enum TaskKind: UInt8, Sendable {
    /// A caller's object, held weakly; ends when it dies.
    case token
    /// A caller's object that can also report that its work is over (an `Operation`, a
    /// `URLSessionTask`, a ``NetworkActivityCompletionReporting`` type).
    case completionReportingToken
    /// A ``NetworkActivityToken`` of this manager: its `deinit` ends it.
    case opaqueToken
    /// A ``NetworkActivityGroup``: its `deinit` ends it.
    case group

    /// Whether the entry holds a weak reference that the sweep must check.
    var isSwept: Bool { self == .token || self == .completionReportingToken }
}
