import Foundation

// The files the loads of the tests write and receive. Each is removed when the test is done with
// it, so that runs leave nothing in the temporary directory. What remains is Foundation's:
// swift-corelibs-foundation writes every download to a `<UUID>.tmp` file there from its start and
// never deletes it, so the file of a download that fails or is cancelled, which nobody receives,
// stays behind.

/// Runs `body` with a new file in the temporary directory that holds `text`, and removes the file
/// once `body` returns or throws. Loads that read the file must have ended by then.
func withTemporaryFile<Value>(
    containing text: String,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (_ file: URL) async throws -> Value
) async throws -> Value {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID()).txt")
    try Data(text.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    return try await body(file)
}

/// The contents of the file a download handed over (what `download(for:)` returns, what a
/// completion handler or `didFinishDownloadingTo` receives), which is then removed: the file is
/// the receiver's to move or delete, and swift-corelibs-foundation never deletes it.
func contentsOfDownloadedFile(at location: URL) throws -> Data {
    defer { removeDownloadedFile(at: location) }
    return try Data(contentsOf: location)
}

/// Removes the file a download handed over, which the receiver does not read.
func removeDownloadedFile(at location: URL) {
    try? FileManager.default.removeItem(at: location)
}
