// Unsafe code in this file: `withUnsafePointer`/`withUnsafeMutablePointer` to pass a
// `sockaddr_in` to `bind` and `getsockname`, and `withUnsafeBytes` to hand bytes to `send`. Why
// it is correct: each pointer lives only inside its closure, which makes one system call with
// the buffer's own size. It is not a speed trick: BSD sockets take raw pointers, and a test
// server needs no faster path, so nothing was measured.

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 that answers the test API of `OpenAPI/openapi.yaml`, for
/// a real round trip through the generated client and `URLSessionTransport` with no outside
/// network. (Adapted from the root package's test server, `LocalHTTPServer`.)
///
/// - `GET /greeting?name=N` answers `{"message":"Hello, N"}`, or 404 with a text body when N is
///   `missing` (an undocumented response). When N is `held`, the answer waits until the client
///   closes the connection (then none is sent) or for ``holdSeconds``.
/// - `GET /stream?chunks=N` answers N chunks (`Self.chunk(i)`) with chunked transfer encoding,
///   a few milliseconds apart.
///
/// Each connection gets one response and is closed.
final class LoopbackAPIServer: Sendable {
    let port: UInt16
    private let listener: Int32

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
        Thread.detachNewThread { Self.acceptLoop(listener) }
    }

    /// Wakes the accept loop, which closes the listener itself: closed here, its descriptor
    /// could be reused by another test's server before the loop's next `accept`, which would
    /// then answer that server's requests (seen once in a parallel run: a held response answered
    /// at once).
    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// How long a `held` greeting waits for the client to go away before it answers.
    static let holdSeconds = 20

    var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// The `index`th chunk of `/stream`.
    static func chunk(_ index: Int) -> String {
        "chunk \(index) of the stream\n"
    }

    private static func acceptLoop(_ listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)
                return
            }
            Thread.detachNewThread { respond(on: connection) }
        }
    }

    private static func respond(on connection: Int32) {
        defer { close(connection) }
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.ends(with: Array("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            request += buffer[0..<count]
        }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
        let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        let components = URLComponents(string: target)
        let query = components?.queryItems ?? []
        switch components?.path {
        case "/greeting":
            let name = query.first { $0.name == "name" }?.value ?? "you"
            if name == "held", !clientStayed(on: connection, seconds: holdSeconds) {
                return
            }
            if name == "missing" {
                send(status: "404 Not Found", type: "text/plain", body: "no greeting for \(name)", on: connection)
            } else {
                send(
                    status: "200 OK",
                    type: "application/json",
                    body: #"{"message":"Hello, \#(name)"}"#,
                    on: connection
                )
            }
        case "/stream":
            let chunks = query.first { $0.name == "chunks" }?.value.flatMap { Int($0) } ?? 1
            stream(chunks: chunks, on: connection)
        default:
            send(status: "404 Not Found", type: "text/plain", body: "unknown", on: connection)
        }
    }

    /// Waits up to `seconds` for the client to close the connection; returns whether it stayed.
    private static func clientStayed(on connection: Int32, seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        // 0: closed by the client; -1: the timeout (or an error), nothing more to read.
        return read(connection, &byte, 1) != 0
    }

    private static func send(status: String, type: String, body: String, on connection: Int32) {
        transmit(
            "HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\nContent-Type: \(type)\r\n"
                + "Connection: close\r\n\r\n\(body)",
            on: connection
        )
    }

    private static func stream(chunks: Int, on connection: Int32) {
        transmit(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/octet-stream\r\n"
                + "Connection: close\r\n\r\n",
            on: connection
        )
        for index in 0..<chunks {
            let chunk = Self.chunk(index)
            transmit(String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n", on: connection)
            usleep(5_000)
        }
        transmit("0\r\n\r\n", on: connection)
    }

    private static func transmit(_ text: String, on connection: Int32) {
        _ = Array(text.utf8).withUnsafeBytes { sendAnswer(connection, $0.baseAddress, $0.count) }
    }

    enum ServerError: Error {
        case socket(Int32)
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

/// `send` flags for the server's answers. A client may close its connection before an answer is
/// written (a cancelled load); on Linux, writing to it would raise SIGPIPE and end the whole test
/// process, so the signal is turned off for each send. (Darwin has no `MSG_NOSIGNAL`.)
#if canImport(Glibc)
private let sendFlags = Int32(MSG_NOSIGNAL)
#else
private let sendFlags: Int32 = 0
#endif

/// `send` with ``sendFlags``, out of the server's scope (whose own `send` method would shadow it).
private func sendAnswer(_ connection: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    send(connection, bytes, count, sendFlags)
}
