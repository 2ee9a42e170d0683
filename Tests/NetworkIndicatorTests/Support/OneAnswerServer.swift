// Unsafe code in this file: `withUnsafeMutablePointer` to pass a `sockaddr_in` to `bind` and
// `getsockname`, and `withUnsafeBytes` to hand the answer's bytes to `send`. Why it is correct:
// each pointer lives only inside its closure, which makes one system call with the buffer's own
// size. Not a speed trick: BSD sockets take raw pointers, and nothing was measured.

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The URL of a server on 127.0.0.1 that answers one request with `answer`, written as is (a
/// 204 with a `Content-Length`, say, which `LocalHTTPServer` does not send), then closes.
func oneAnswerServer(_ answer: String) throws -> URL {
    #if canImport(Glibc)
    let (socketType, flags) = (Int32(SOCK_STREAM.rawValue), Int32(MSG_NOSIGNAL))
    #else
    let (socketType, flags) = (SOCK_STREAM, Int32(0))
    #endif
    let listener = socket(AF_INET, socketType, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
        }
    }
    guard listener >= 0, bound else { throw LocalHTTPServer.ServerError.socket(errno) }
    Thread.detachNewThread {
        let connection = accept(listener, nil, nil)
        close(listener)
        var (request, buffer) = ("", [UInt8](repeating: 0, count: 4096))
        while !request.contains("\r\n\r\n"), case let count = read(connection, &buffer, buffer.count), count > 0 {
            request += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        _ = Array(answer.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, flags) }
        close(connection)
    }
    return URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/answer")!
}
