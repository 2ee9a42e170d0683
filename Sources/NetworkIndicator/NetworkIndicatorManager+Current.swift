// `@TaskLocal` is a macro in the Swift 6 SDKs (Xcode 16 and later, the package's minimum, and
// every Swift 6 toolchain on Linux), which all have the Synchronization module. The Swift 5.9
// SDKs that `.ci/apple-sdk-check.sh` type-checks against declare it as a property wrapper, whose
// static storage Swift 6 rejects as shared mutable state: there, and only there, `current`
// is left out (no supported toolchain compiles that branch).
#if canImport(Synchronization)
extension NetworkIndicatorManager {
    /// The manager that work started in the current task counts in: ``shared`` unless a caller
    /// up the task tree bound another with `$current.withValue(_:operation:)`.
    ///
    /// Apps build one API client and call it from many screens. Bind a screen's manager (a
    /// scope made with ``init(parent:label:)``) around the calls the screen makes, and the
    /// integrations that default to it count each call in that screen, and through it in its
    /// ancestors, with no manager passed down:
    ///
    /// ```swift
    /// let posts = try await NetworkIndicatorManager.$current.withValue(screen) {
    ///     try await client.listPosts()  // NetworkActivityMiddleware() counts it in `screen`
    /// }
    /// ```
    ///
    /// The openapi middleware made without a manager reads it at each request, and the
    /// `URLSession` helpers read it when passed `tracking: .current`. It is a `@TaskLocal`:
    /// child tasks (`async let`, task groups, `Task { }`) inherit the binding, a detached task
    /// does not, and the binding ends when `withValue`'s closure returns. Reading it is safe from
    /// any thread; outside any task it is ``shared``.
    @TaskLocal public static var current: NetworkIndicatorManager = .shared
}
#endif
