/// The labels of the last few labelled tokens whose tasks all ended, so that a finish that comes
/// too late (a double finish) names the task as it was begun ("upload"), not by its token's type
/// ("NSObject").
///
/// Bounded: it keeps the last ``capacity`` labels and forgets the oldest first. Each is kept with
/// a weak reference to its token, so that an object later allocated at the same address is never
/// given a dead token's label. Only labelled entries of callers' tokens come here, when their
/// last task ends, so an unlabelled begin and finish pays nothing.
struct EndedLabels {
    /// How many labels are kept.
    static let capacity = 16

    private struct Ended {
        var key: ObjectIdentifier
        var token: WeakWrapper
        var label: String
    }

    private var ended: [Ended] = []
    /// Where the next label goes once ``capacity`` are kept: the oldest.
    private var oldest = 0

    /// Keeps `label` for the token `key` (held weakly by `token`), forgetting the oldest label
    /// if ``capacity`` are kept already.
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
