import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ActivityLabel {
    /// The default label of a request's task: `"METHOD host/path"`, such as
    /// `"GET api.example.com/v1/photos"`.
    ///
    /// Labels end up in snapshots, diagnostics and the logs an app writes from them, so the label
    /// names the request by what is not secret: the method (left out when unknown), the host and
    /// the path (`/` when empty). It never holds the query, the fragment, the user or the
    /// password, which carry API keys, signatures and tokens; the scheme and port are left out
    /// too. A URL without a host (`data:`, `file:`) is named by its scheme alone, since its path
    /// may be its content. `nil` without a URL, so that the task keeps its kind's default.
    static func request(method: String?, url: URL?) -> String? {
        guard let url else { return nil }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let place: String
        if let host = components?.host ?? url.absoluteURL.host, !host.isEmpty {
            let path = components?.percentEncodedPath ?? url.absoluteURL.path
            place = host + (path.isEmpty ? "/" : path)
        } else {
            place = (url.scheme ?? "") + ":"
        }
        guard let method, !method.isEmpty else { return place }
        return method + " " + place
    }

    /// The default label of `request`'s task (see ``request(method:url:)``).
    static func request(_ request: URLRequest?) -> String? {
        Self.request(method: request?.httpMethod, url: request?.url)
    }

    /// The default label of `task`: that of the request it was made with.
    static func request(of task: URLSessionTask) -> String? {
        request(task.originalRequest)
    }
}
