// A `mutating` read, kept because it pays: `load()` reads the weak reference where it lies in the
// registry's array (reached through `inout`, the array's modify accessor), where a plain read of
// `entries[index].token.object` goes through the array's getter, which copies the entry's weak
// reference (`swift_weakCopyInit`) and destroys the copy: two atomic operations on the token's
// side table. Nothing unsafe: it is an ordinary `mutating` method that changes nothing, and the
// registry only calls it under the manager's lock, where it may mutate anyway. Measured gain,
// same run (Benchmarks `ratios`, the A/B rows "weak load of an entry's token", the one weak load
// of a begin+finish, the library's entry type behind a lock box, finely interleaved rounds):
// 21.9 ns in place against 40.6 ns through the getter, 19 % of an explicit begin+finish (median
// of 7 runs, 18.5–30 %), on the shared 2-core VM of Benchmarks/README.md.

/// Holds a caller's token without keeping it alive: the weak wrapper of the design card.
///
/// Once ``object`` reads `nil` the token is gone, whatever object the runtime later puts at the
/// same address; this is why an entry is identified by its key *and* its wrapper.
struct WeakWrapper {
    weak var object: AnyObject?

    /// The token, strongly, or `nil` if it is gone, read in place (see the file's header).
    @inline(__always)
    mutating func load() -> AnyObject? {
        object
    }
}
