/// The labels of the last ``capacity`` labelled tokens whose tasks all ended, so that a late
/// (double) finish names the task as begun ("upload"), not by its token's type. Each is kept with
/// a weak reference to its token, so an object later at the same address never gets a dead
/// token's label. Only labelled callers' tokens come here, so unlabelled pairs pay nothing.
struct EndedLabels {
    static let capacity = 16

    private struct Ended {
        var key: ObjectIdentifier
        var token: WeakWrapper
        var label: String
    }

    private var ended: [Ended] = []
    private var oldest = 0

    /// Keeps `label` for the token `key` (held weakly by `token`), forgetting the oldest if full.
    mutating func remember(_ label: String, key: ObjectIdentifier, token: WeakWrapper) {
        let new = Ended(key: key, token: token, label: label)
        if ended.count < Self.capacity {
            ended.append(new)
        } else {
            ended[oldest] = new
            oldest = (oldest + 1) % Self.capacity
        }
    }

    /// The label the token `key` was last begun with, if it is still alive and among the last
    /// ``capacity`` ended. Called with the lock held, for a token the caller still holds: the
    /// weak reference yields that token (or `nil`), so no object is released here.
    mutating func label(of key: ObjectIdentifier) -> String? {
        for index in ended.indices.reversed() where ended[index].key == key {
            return ended[index].token.load() != nil ? ended[index].label : nil
        }
        return nil
    }
}
