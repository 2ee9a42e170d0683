/// The names the snapshot and the diagnostics give to tasks begun without a label.
enum ActivityLabel {
    /// The push/pop counter's label.
    static let push = "pushNetworkActivity()"

    /// A token's default label: the name of its type.
    static func typeName(of object: AnyObject) -> String {
        String(describing: type(of: object))
    }

    /// The label of `entry`: `label`, the one given at its first begin, or a default for its
    /// kind (`object` is its live token, if any).
    static func of(_ entry: borrowing TaskRegistry.Entry, label: String?, object: AnyObject?) -> String {
        if let label { return label }
        switch entry.kind {
        case .token, .completionReportingToken:
            return object.map(typeName(of:)) ?? "deallocated token"
        case .opaqueToken, .load:
            return "NetworkActivityToken"
        case .group:
            return "NetworkActivityGroup"
        }
    }
}
