public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// Downloads and uploads beside `data(for:tracking:)`: one task each, from the call until it
// returns, throws, or the calling task is cancelled. Each wraps URLSession's own async method,
// with the same availability: on Apple platforms `download` is new in iOS 15 and macOS 12,
// while `upload` (like `data`) is back-deployed to iOS 13 and macOS 10.15. On Linux,
// swift-corelibs-foundation has all four.

extension URLSession {
    /// Downloads `request` to a file like `download(for:)`, with the manager's indicator on for
    /// the whole download.
    ///
    /// The activity ends when the call returns, throws, or its task is cancelled. Safe from any
    /// thread, task or actor.
    ///
    /// The task's bytes roll up into ``NetworkIndicatorManager/progressSnapshot()`` on iOS 16+,
    /// macOS 13+, tvOS 16+ and watchOS 9+, where a task delegate passed with the load sees its
    /// task (and passes `urlSession(_:didCreateTask:)` on to the session's delegate). On older
    /// releases and on Linux the helper cannot see its task: the load is indeterminate.
    ///
    /// - Parameters:
    ///   - request: The request to download.
    ///   - manager: The manager whose indicator shows the download; pass
    ///     ``NetworkIndicatorManager/current`` to count in the calling task's manager.
    ///   - label: The task's label in snapshots and diagnostics; `nil` (the default) names the
    ///     request by method, host and path, without its query, fragment or credentials.
    ///   - delegate: A task delegate of yours for the load, as Foundation's async methods take one
    ///     (authentication challenges, redirects, metrics): it hears the load's task messages,
    ///     beside the package's own progress delegate (iOS 16+, macOS 13+, tvOS 16+, watchOS 9+),
    ///     which forwards them. On Linux it is handed as is to swift-corelibs-foundation's own
    ///     `delegate:`, which (as of Swift 6.3) tells it of the bytes and the response, not of
    ///     the load's completion.
    ///   - file: Where the load began, for snapshots and diagnostics: leave the default, the
    ///     caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    /// - Returns: The downloaded file's location and the response, as `download(for:)` returns
    ///   them. Move or open the file before the next suspension you do not control: Foundation
    ///   may delete it.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func download(
        for request: URLRequest,
        tracking manager: NetworkIndicatorManager,
        label: String? = nil,
        delegate: (any URLSessionTaskDelegate)? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> (URL, URLResponse) {
        try await withTaskProgress(
            tracking: manager,
            label: label ?? ActivityLabel.request(request),
            site: CallSite(fileID: file, line: line),
            delegate: delegate,
            discard: Self.deleteDownloadedFile
        ) {
            try await self.download(for: request, delegate: $0)
        }
    }

    /// Downloads `url` to a file like `download(from:)`, with the manager's indicator on for
    /// the whole download.
    ///
    /// The activity ends when the call returns, throws, or its task is cancelled. Safe from any
    /// thread, task or actor.
    ///
    /// The task's bytes roll up into ``NetworkIndicatorManager/progressSnapshot()`` on iOS 16+,
    /// macOS 13+, tvOS 16+ and watchOS 9+, where a task delegate passed with the load sees its
    /// task (and passes `urlSession(_:didCreateTask:)` on to the session's delegate). On older
    /// releases and on Linux the helper cannot see its task: the load is indeterminate.
    ///
    /// - Parameters:
    ///   - url: The URL to download.
    ///   - manager: The manager whose indicator shows the download; pass
    ///     ``NetworkIndicatorManager/current`` to count in the calling task's manager.
    ///   - label: The task's label in snapshots and diagnostics; `nil` (the default) names the
    ///     load `"GET host/path"`, without the URL's query, fragment or credentials.
    ///   - delegate: A task delegate of yours for the load, as Foundation's async methods take one
    ///     (authentication challenges, redirects, metrics): it hears the load's task messages,
    ///     beside the package's own progress delegate (iOS 16+, macOS 13+, tvOS 16+, watchOS 9+),
    ///     which forwards them. On Linux it is handed as is to swift-corelibs-foundation's own
    ///     `delegate:`, which (as of Swift 6.3) tells it of the bytes and the response, not of
    ///     the load's completion.
    ///   - file: Where the load began, for snapshots and diagnostics: leave the default, the
    ///     caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    /// - Returns: The downloaded file's location and the response, as `download(from:)`
    ///   returns them.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func download(
        from url: URL,
        tracking manager: NetworkIndicatorManager,
        label: String? = nil,
        delegate: (any URLSessionTaskDelegate)? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> (URL, URLResponse) {
        let label = label ?? ActivityLabel.request(method: "GET", url: url)
        return try await withTaskProgress(
            tracking: manager,
            label: label,
            site: CallSite(fileID: file, line: line),
            delegate: delegate,
            discard: Self.deleteDownloadedFile
        ) {
            try await self.download(from: url, delegate: $0)
        }
    }

    /// Uploads `bodyData` with `request` like `upload(for:from:)`, with the manager's indicator
    /// on for the whole upload and its response.
    ///
    /// The activity ends when the call returns, throws, or its task is cancelled. Safe from any
    /// thread, task or actor.
    ///
    /// The task's bytes roll up into ``NetworkIndicatorManager/progressSnapshot()`` on iOS 16+,
    /// macOS 13+, tvOS 16+ and watchOS 9+, where a task delegate passed with the load sees its
    /// task (and passes `urlSession(_:didCreateTask:)` on to the session's delegate). On older
    /// releases and on Linux the helper cannot see its task: the load is indeterminate.
    ///
    /// - Parameters:
    ///   - request: The request to send; its body is ignored.
    ///   - bodyData: The body to upload.
    ///   - manager: The manager whose indicator shows the upload; pass
    ///     ``NetworkIndicatorManager/current`` to count in the calling task's manager.
    ///   - label: The task's label in snapshots and diagnostics; `nil` (the default) names the
    ///     request by method, host and path, without its query, fragment or credentials.
    ///   - delegate: A task delegate of yours for the load, as Foundation's async methods take one
    ///     (authentication challenges, redirects, metrics): it hears the load's task messages,
    ///     beside the package's own progress delegate (iOS 16+, macOS 13+, tvOS 16+, watchOS 9+),
    ///     which forwards them. On Linux it is handed as is to swift-corelibs-foundation's own
    ///     `delegate:`, which (as of Swift 6.3) tells it of the bytes and the response, not of
    ///     the load's completion. Ignored before iOS 15, macOS 12, tvOS 15 and watchOS 8, whose
    ///     async methods take none.
    ///   - file: Where the load began, for snapshots and diagnostics: leave the default, the
    ///     caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    /// - Returns: The response body and metadata, as `upload(for:from:)` returns them.
    public func upload(
        for request: URLRequest,
        from bodyData: Data,
        tracking manager: NetworkIndicatorManager,
        label: String? = nil,
        delegate: (any URLSessionTaskDelegate)? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> (Data, URLResponse) {
        try await withTaskProgress(
            tracking: manager,
            label: label ?? ActivityLabel.request(request),
            site: CallSite(fileID: file, line: line),
            delegate: delegate
        ) { delegate in
            if #available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *), let delegate {
                return try await self.upload(for: request, from: bodyData, delegate: delegate)
            }
            return try await self.upload(for: request, from: bodyData)
        }
    }

    /// Uploads the file at `fileURL` with `request` like `upload(for:fromFile:)`, with the
    /// manager's indicator on for the whole upload and its response.
    ///
    /// The activity ends when the call returns, throws, or its task is cancelled. Safe from any
    /// thread, task or actor.
    ///
    /// The task's bytes roll up into ``NetworkIndicatorManager/progressSnapshot()`` on iOS 16+,
    /// macOS 13+, tvOS 16+ and watchOS 9+, where a task delegate passed with the load sees its
    /// task (and passes `urlSession(_:didCreateTask:)` on to the session's delegate). On older
    /// releases and on Linux the helper cannot see its task: the load is indeterminate.
    ///
    /// - Parameters:
    ///   - request: The request to send; its body is ignored.
    ///   - fileURL: The file whose contents to upload.
    ///   - manager: The manager whose indicator shows the upload; pass
    ///     ``NetworkIndicatorManager/current`` to count in the calling task's manager.
    ///   - label: The task's label in snapshots and diagnostics; `nil` (the default) names the
    ///     request by method, host and path, without its query, fragment or credentials.
    ///   - delegate: A task delegate of yours for the load, as Foundation's async methods take one
    ///     (authentication challenges, redirects, metrics): it hears the load's task messages,
    ///     beside the package's own progress delegate (iOS 16+, macOS 13+, tvOS 16+, watchOS 9+),
    ///     which forwards them. On Linux it is handed as is to swift-corelibs-foundation's own
    ///     `delegate:`, which (as of Swift 6.3) tells it of the bytes and the response, not of
    ///     the load's completion. Ignored before iOS 15, macOS 12, tvOS 15 and watchOS 8, whose
    ///     async methods take none.
    ///   - file: Where the load began, for snapshots and diagnostics: leave the default, the
    ///     caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    /// - Returns: The response body and metadata, as `upload(for:fromFile:)` returns them.
    public func upload(
        for request: URLRequest,
        fromFile fileURL: URL,
        tracking manager: NetworkIndicatorManager,
        label: String? = nil,
        delegate: (any URLSessionTaskDelegate)? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> (Data, URLResponse) {
        try await withTaskProgress(
            tracking: manager,
            label: label ?? ActivityLabel.request(request),
            site: CallSite(fileID: file, line: line),
            delegate: delegate
        ) { delegate in
            if #available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *), let delegate {
                return try await self.upload(for: request, fromFile: fileURL, delegate: delegate)
            }
            return try await self.upload(for: request, fromFile: fileURL)
        }
    }

    /// Deletes the file of a download whose caller had already thrown `URLError(.cancelled)`:
    /// nobody can reach it, and Foundation leaves it where it wrote it.
    @Sendable
    static func deleteDownloadedFile(_ download: (URL, URLResponse)) {
        try? FileManager.default.removeItem(at: download.0)
    }
}
