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

/// Decides the kind of a caller's token, remembering the answer for the last token type: apps
/// use one or two token types, and a protocol-conformance check costs more than the rest of a
/// begin. Kept behind the manager's lock.
struct TokenClassifier {
    private var lastType: ObjectIdentifier?
    private var lastTypeReportsCompletion = false

    /// The kind of a task begun with `token`; `isOwnOpaqueToken` when it is a
    /// ``NetworkActivityToken`` of the manager that begins it (its `deinit` reports its end).
    mutating func kind(of token: AnyObject, isOwnOpaqueToken: Bool) -> TaskKind {
        if isOwnOpaqueToken { return .opaqueToken }
        let type = ObjectIdentifier(Swift.type(of: token))
        if type != lastType {
            lastType = type
            lastTypeReportsCompletion = token is any NetworkActivityCompletionReporting
        }
        return lastTypeReportsCompletion ? .completionReportingToken : .token
    }
}
