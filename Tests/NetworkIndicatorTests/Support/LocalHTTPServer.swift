import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests that need a real URLSession round trip and no
/// outside network. `GET /delay/N` answers after N milliseconds; any other path at once. Each
/// connection gets one response and is closed. Between ``holdResponses()`` and
/// ``releaseResponses()`` no response is sent, so a test can look at a load while it is surely
/// still in flight.
final class LocalHTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let held = DispatchGroup()

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
        Thread.detachNewThread { Self.acceptLoop(listener, held: held) }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
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

    private static func acceptLoop(_ listener: Int32, held: DispatchGroup) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread.detachNewThread { respond(on: connection, held: held) }
        }
    }

    private static func respond(on connection: Int32, held: DispatchGroup) {
        defer { close(connection) }
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.ends(with: Array("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            request += buffer[0..<count]
        }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
        let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        if path.hasPrefix("/delay/"), let milliseconds = UInt32(path.dropFirst("/delay/".count)) {
            usleep(milliseconds * 1_000)
        }
        held.wait()
        let body = "ok \(path)"
        let response =
            "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n\(body)"
        _ = Array(response.utf8).withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
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
