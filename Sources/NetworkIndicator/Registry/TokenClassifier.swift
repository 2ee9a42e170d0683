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
