// Unsafe code in this file: `withUnsafePointer`/`withUnsafeMutablePointer` to pass a
// `sockaddr_in` to `bind` and `getsockname`, and `withUnsafeBytes` to hand bytes to `send`. Why
// it is correct: each pointer lives only inside its closure, which makes one system call with
// the buffer's own size. It is not a speed trick: BSD sockets take raw pointers, and a test
// server needs no faster path, so nothing was measured.

import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests that need a real URLSession round trip and no
/// outside network. `GET /delay/N` answers after N milliseconds; any other path at once. Each
/// connection gets one response and is closed. `GET /half/N` answers with a body of 2N bytes
/// (its `Content-Length` sent), the first N at once and the rest once responses are released.
/// `GET /cut/N` sends N bytes of a body of 4N and closes the connection: a failed load.
/// `/whole/N` answers with N bytes at once, even while responses are held; `/head/N`, as a
/// server answers a HEAD, with a `Content-Length` of N and no body, at once too (`/head/N/S`
/// with status S instead of 200: a 204 or 304 that still gives a length); `/unsized`, with a
/// body and no `Content-Length`, at once. Between
/// ``holdResponses()`` and ``releaseResponses()`` no response is sent, so a test can look at a
/// load while it is surely still in flight.
final class LocalHTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let held = DispatchGroup()
    private let cuts = DispatchGroup()
    private let received = ThreadCount()
    private let waiting = ThreadCount()

    /// How many requests the server has read whole, headers and body: a load counted here has
    /// sent everything it will send, and waits only for its response.
    var requestsReceived: Int { received.value }

    /// How many held responses (a `/half/N` load's second half among them) still wait for
    /// ``releaseResponses()`` on a connection that its client keeps open. A held response whose
    /// client closes its connection (a cancelled load, once swift-corelibs-foundation has stopped
    /// it) is dropped unsent.
    ///
    /// A test that cancels held loads waits for this to fall to the loads it keeps running before
    /// it releases the responses: a response sent to a load whose cancel Foundation has not
    /// finished yet completes that load first, and the cancel then crashes the process inside
    /// swift-corelibs-foundation ("Trying to access a behaviour for a task that in not in the
    /// registry", TaskRegistry.swift:118).
    var heldResponses: Int { waiting.value }

    /// Waits until ``heldResponses`` is `remaining`: every held load but the `remaining` ones the
    /// test keeps running has been stopped by its client. A test that cancels held loads calls
    /// this before ``releaseResponses()``.
    func waitUntilCancelledLoadsHaveStopped(
        leavingHeld remaining: Int = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await eventually(sourceLocation: sourceLocation) { heldResponses == remaining }
    }

    init() throws {
        #if canImport(Glibc)
        let socketType = Int32(SOCK_STREAM.rawValue)
        #else
        let socketType = SOCK_STREAM
        #endif
        let listener = socket(AF_INET, socketType, 0)
        guard listener >= 0 else { throw ServerError.socket(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw ServerError.socket(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.port = UInt16(bigEndian: address.sin_port)
        let held = held
        let cuts = cuts
        let received = received
        let waiting = waiting
        Thread.detachNewThread {
            Self.acceptLoop(listener, held: held, cuts: cuts, received: received, waiting: waiting)
        }
    }

    /// Wakes the accept loop, which closes the listener itself: closed here, its descriptor
    /// could be reused by another test's server before the loop's next `accept`, which would
    /// then answer that server's requests (seen once in a parallel run: a held response answered
    /// at once).
    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Holds every response (after its delay) until the matching ``releaseResponses()``.
    func holdResponses() {
        held.enter()
    }

    /// Sends the responses held since ``holdResponses()``.
    func releaseResponses() {
        held.leave()
    }

    /// Keeps every `/cut/N` connection open after its first bytes, until ``cutConnections()``.
    func holdCuts() {
        cuts.enter()
    }

    /// Closes the `/cut/N` connections held since ``holdCuts()``.
    func cutConnections() {
        cuts.leave()
    }

    private static func acceptLoop(
        _ listener: Int32,
        held: DispatchGroup,
        cuts: DispatchGroup,
        received: ThreadCount,
        waiting: ThreadCount
    ) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)
                return
            }
            Thread.detachNewThread {
                respond(on: connection, held: held, cuts: cuts, received: received, waiting: waiting)
            }
        }
    }

    private static func respond(
        on connection: Int32,
        held: DispatchGroup,
        cuts: DispatchGroup,
        received: ThreadCount,
        waiting: ThreadCount
    ) {
        defer { close(connection) }
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        while headerEnd == nil {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            request += buffer[0..<count]
            headerEnd = request.endOfHeaders()
        }
        // A read may have taken the body's first bytes along with the headers.
        let early = Array(request[headerEnd!...])
        request.removeLast(early.count)
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
        let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        let bodySize = readBody(on: connection, headers: String(decoding: request, as: UTF8.self), early: early)
        received.increment()
        if path.hasPrefix("/delay/"), let milliseconds = UInt32(path.dropFirst("/delay/".count)) {
            usleep(milliseconds * 1_000)
        }
        if path.hasPrefix("/half/"), let half = Int(path.dropFirst("/half/".count)) {
            sendInHalves(half, on: connection, held: held, waiting: waiting)
            return
        }
        if path.hasPrefix("/whole/"), let size = Int(path.dropFirst("/whole/".count)) {
            let head = "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n"
            for bytes in [Array(head.utf8), [UInt8](repeating: 0x77, count: size)] {
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
            }
            return
        }
        let headPath = path.hasPrefix("/head/") ? path.dropFirst("/head/".count).split(separator: "/") : []
        if let length = headPath.first.flatMap({ Int($0) }) {
            // The answer to a HEAD (or a 204, 304): the length a GET's body would have, and no body.
            let status = headPath.dropFirst().first.flatMap { Int($0) } ?? 200
            let head =
                "HTTP/1.1 \(status) \(status == 200 ? "OK" : "No Body")\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n"
            _ = Array(head.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
            return
        }
        if path == "/unsized" {
            let answer = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nno length"
            _ = Array(answer.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
            return
        }
        if path.hasPrefix("/cut/"), let sent = Int(path.dropFirst("/cut/".count)) {
            sendAndCut(sent, on: connection, cuts: cuts)
            return
        }
        guard waitWhileHeld(held, on: connection, waiting: waiting) else { return }
        let body = bodySize.map { "ok \(path) \($0) bytes" } ?? "ok \(path)"
        let response =
            "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n\(body)"
        _ = Array(response.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
    }

    /// Waits until responses are released, and answers `true`; or `false` as soon as the client
    /// closes `connection` first (nothing is left to answer). Counted in `waiting` meanwhile.
    private static func waitWhileHeld(_ held: DispatchGroup, on connection: Int32, waiting: ThreadCount) -> Bool {
        waiting.increment()
        defer { waiting.decrement() }
        return waitUntilReleased(held, on: connection)
    }

    /// Waits until responses are released (`true`), or until the client closes `connection`
    /// first (`false`).
    private static func waitUntilReleased(_ held: DispatchGroup, on connection: Int32) -> Bool {
        while held.wait(timeout: .now() + .milliseconds(5)) == .timedOut {
            if clientClosed(connection) { return false }
        }
        return true
    }

    /// Whether the client has closed `connection` (a read would see its end), without blocking.
    private static func clientClosed(_ connection: Int32) -> Bool {
        var probe = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        guard poll(&probe, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(connection, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) <= 0
    }

    /// Sends the headers of a 2 × `half`-byte body and its first half, then the second half once
    /// responses are released: a load surely halfway through for as long as they are held. Its
    /// second half counts as a held response (``heldResponses``) from before the first byte goes,
    /// so a test that saw the first half arrive sees it counted, and it is dropped if the client
    /// closes the connection first (a cancelled load).
    private static func sendInHalves(_ half: Int, on connection: Int32, held: DispatchGroup, waiting: ThreadCount) {
        waiting.increment()
        defer { waiting.decrement() }
        let head = "HTTP/1.1 200 OK\r\nContent-Length: \(half * 2)\r\nConnection: close\r\n\r\n"
        let chunk = [UInt8](repeating: 0x61, count: half)
        for bytes in [Array(head.utf8), chunk] {
            _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
        }
        guard waitUntilReleased(held, on: connection) else { return }
        _ = chunk.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
    }

    /// Sends the headers of a 4 × `sent`-byte body and its first quarter, then closes the
    /// connection once cuts are not held: the client sees the load fail a quarter of the way.
    private static func sendAndCut(_ sent: Int, on connection: Int32, cuts: DispatchGroup) {
        defer { cuts.wait() }
        let head = "HTTP/1.1 200 OK\r\nContent-Length: \(sent * 4)\r\nConnection: close\r\n\r\n"
        for bytes in [Array(head.utf8), [UInt8](repeating: 0x63, count: sent)] {
            _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
        }
    }

    /// Reads the request's body, if it has one, and returns its size (for chunked bodies, the
    /// size on the wire): a body left unread would make `close` reset the connection.
    private static func readBody(on connection: Int32, headers: String, early: [UInt8]) -> Int? {
        let lowercased = headers.lowercased()
        if lowercased.contains("expect: 100-continue") {
            _ = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8).withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, sendFlags)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        if lowercased.contains("transfer-encoding: chunked") {
            var received = early
            while !received.ends(with: Array("0\r\n\r\n".utf8)) {
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { break }
                received += buffer[0..<count]
            }
            return received.count
        }
        let lengthLine = lowercased.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
        guard let lengthLine,
            let length = Int(lengthLine.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
            length > 0
        else { return nil }
        var remaining = length - early.count
        while remaining > 0 {
            let count = read(connection, &buffer, min(buffer.count, remaining))
            guard count > 0 else { break }
            remaining -= count
        }
        return length - remaining
    }

    enum ServerError: Error {
        case socket(Int32)
    }
}

extension Array where Element == UInt8 {
    /// The index just past the blank line that ends an HTTP header, if it has arrived.
    fileprivate func endOfHeaders() -> Int? {
        let marker = Array("\r\n\r\n".utf8)
        guard count >= marker.count else { return nil }
        for start in 0...(count - marker.count) where Array(self[start..<(start + marker.count)]) == marker {
            return start + marker.count
        }
        return nil
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

/// A count kept by the connection threads (``LocalHTTPServer/requestsReceived``,
/// ``LocalHTTPServer/heldResponses``).
private final class ThreadCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func increment() { lock.withLock { count += 1 } }

    func decrement() { lock.withLock { count -= 1 } }
}

/// `send` flags for the server's answers. A client may close its connection before an answer is
/// written (a cancelled load); on Linux, writing to it would raise SIGPIPE and end the whole test
/// process, so the signal is turned off for each send. (Darwin has no `MSG_NOSIGNAL`.)
#if canImport(Glibc)
private let sendFlags = Int32(MSG_NOSIGNAL)
#else
private let sendFlags: Int32 = 0
#endif

/// A request of `url` with the HTTP method `method` ("POST", "PUT", …).
func httpRequest(_ method: String, _ url: URL) -> URLRequest {
    var request = URLRequest(url: url)
    request.httpMethod = method
    return request
}
