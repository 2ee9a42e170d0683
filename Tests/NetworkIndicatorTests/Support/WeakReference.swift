/// A weak reference to an object, for tests that check when it is freed.
///
/// `weak let` needs Swift 6.2 (SE-0481), newer than the package's minimum, and a local
/// `weak var` that is never assigned warns on newer compilers; a stored property does neither.
struct WeakReference<Object: AnyObject> {
    /// The object, or `nil` once it has been freed.
    weak var object: Object?

    init(_ object: Object?) {
        self.object = object
    }
}
