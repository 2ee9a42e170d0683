/// How a task was begun, which decides how it ends.
enum TaskKind: UInt8, Sendable {
    /// A caller's object, held weakly; ends when it dies.
    case token
    /// A caller's object that can also report that its work is over (an `Operation`, a
    /// `URLSessionTask`, a ``NetworkActivityCompletionReporting`` type).
    case completionReportingToken
    /// A ``NetworkActivityToken`` of this manager: its `deinit` ends it.
    case opaqueToken
    /// A ``NetworkActivityGroup``: its `deinit` ends it. The entry holds the group's key weakly,
    /// so that a cancel reaches the group's handler.
    case group
    /// A load of the package's async `URLSession` helpers: the helper ends it when the call
    /// returns or throws, so it is never swept. The entry holds the load weakly, so that a
    /// cancel reaches it.
    case load

    /// Whether the entry holds a weak reference that the sweep must check.
    @inline(__always)
    var isSwept: Bool { self == .token || self == .completionReportingToken }

    /// Whether the entry holds a weak reference (cleared when its slot is freed).
    @inline(__always)
    var holdsObject: Bool { self != .opaqueToken }
}

/// Decides the kind of a caller's token, remembering the answer for the last token type: apps
/// use one or two token types, and a protocol-conformance check costs more than the rest of a
/// begin. Kept behind the manager's lock. (The manager's own opaque tokens never come here: they
/// have pinned slots.)
struct TokenClassifier {
    private var lastType: ObjectIdentifier?
    private var lastTypeReportsCompletion = false

    /// The kind of a task begun with the caller's object `token`, held weakly.
    @inline(__always)
    mutating func kind(of token: AnyObject) -> TaskKind {
        let type = ObjectIdentifier(Swift.type(of: token))
        if type != lastType {
            lastType = type
            lastTypeReportsCompletion = token is any NetworkActivityCompletionReporting
        }
        return lastTypeReportsCompletion ? .completionReportingToken : .token
    }
}
