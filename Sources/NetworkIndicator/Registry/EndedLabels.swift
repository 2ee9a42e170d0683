/// The labels of the last ``capacity`` labelled tokens whose tasks all ended, so that a late
/// (double) finish names the task as begun ("upload"), not by its token's type. A caller's
/// token is kept with a weak reference to it, so an object later at the same address never gets
/// a dead token's label; an opaque token by its pinned slot and generation, which no later token
/// shares. Only labelled tokens come here, so unlabelled ones pay nothing.
struct EndedLabels {
    static let capacity = 16

    private enum Owner {
        case token(ObjectIdentifier, WeakWrapper)
        case pinned(PinnedSlot)
    }

    private struct Ended {
        let owner: Owner
        let label: String
    }

    /// Oldest first, so that a token remembered twice is found by its newer label.
    private var ended: [Ended] = []

    /// Keeps `label` for the token `key` (held weakly by `token`), forgetting the oldest if full.
    mutating func remember(_ label: String, key: ObjectIdentifier, token: WeakWrapper) {
        remember(Ended(owner: .token(key, token), label: label))
    }

    /// Keeps `label` for the opaque token pinned at `pinned`, whose tasks were finished.
    mutating func remember(_ label: String, pinned: PinnedSlot) {
        remember(Ended(owner: .pinned(pinned), label: label))
    }

    private mutating func remember(_ new: Ended) {
        if ended.count == Self.capacity { ended.removeFirst() }
        ended.append(new)
    }

    /// The label the token `reference` names was last begun with, if it is among the last
    /// ``capacity`` ended and (a caller's token) still alive. Called with the lock held, for a
    /// token the caller still holds: the weak reference yields that token (or `nil`), so no
    /// object is released here.
    func label(of reference: TaskReference) -> String? {
        for index in ended.indices.reversed() {
            switch (ended[index].owner, reference) {
            case (.token(let key, var token), .key(let wanted)) where key == wanted:
                return token.load() != nil ? ended[index].label : nil
            case (.pinned(let pinned), .pinned(let wanted)) where pinned == wanted:
                return ended[index].label
            default:
                continue
            }
        }
        return nil
    }
}
