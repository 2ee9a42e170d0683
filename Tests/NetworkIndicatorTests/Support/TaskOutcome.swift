import Testing

/// What `load` ended with, waited for through a flag for at most 30 s (a cancel is what must end
/// it: with the cancel broken, the load would wait for a held response, and awaiting its result
/// would too). Throws `CancellationError` after recording an issue if it did not end.
func outcome<T: Sendable>(of load: Task<T, any Error>) async throws -> Result<Void, any Error> {
    let ended = LockedStateBox<Result<Void, any Error>?>(nil)
    Task.detached {
        let result = await load.result.map { _ in () }
        ended.update { $0 = result }
    }
    guard await eventually(timeout: 30, { ended.read() != nil }) else { throw CancellationError() }
    return ended.read()!
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
