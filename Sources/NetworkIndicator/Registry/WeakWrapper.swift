/// Holds a caller's token without keeping it alive: the weak wrapper of the design card.
///
/// Once ``object`` reads `nil` the token is gone, whatever object the runtime later puts at the
/// same address; this is why an entry is identified by its key *and* its wrapper.
struct WeakWrapper {
    weak var object: AnyObject?
}
