/// The units one request's progress reports, from its request body's bytes to its response
/// body's: pure, no lock. ``RequestProgress`` keeps it behind its lock and publishes what it
/// returns.
///
/// Invariants, whatever the order and size of the reports: the fraction (completed ÷ total)
/// never falls, and it stays below 1 until the request ends (the manager then counts an ended
/// request as done, or drops it if it failed). Every count from outside (a body's length, a
/// `Content-Length`, a read) is clamped (``maximumLength``) and every sum saturates, so nothing
/// here can trap and no total reaches the manager near `Int64.max`.
///
/// - A request body of known length `U` counts against `U + reserve` units, where the reserve
///   (``reserve(forUploadOf:)``) stands for the response, whose size nobody knows yet: the upload
///   alone never fills the request, and a transport that reads the whole body before sending it
///   (the buffered one) moves the fraction only to the upload's share.
/// - When the response's length `L` is known, the request weighs `U + L` bytes (a response that
///   has no body is a known length of 0: the request weighs `U`): it starts from
///   the larger of what the upload showed and `U ÷ (U + L)`, and the response's bytes fill the
///   rest, linearly.
/// - A response of unknown length after an upload holds what the upload showed until the end; read
///   to its end, the request then weighs its upload and the bytes read (the reserve goes: it
///   stood for bytes nobody counted). With no upload of known length the request stays
///   indeterminate.
struct RequestProgressState: Sendable {
    /// The smallest reserve for the response: a small request body (a JSON query) then shows
    /// next to nothing before the response, which is most of the work, while a large one (64 KiB
    /// or more) counts for half the request.
    static let minimumResponseReserve: Int64 = 65_536

    /// The most bytes a body counts for, 2⁵³ (8 PiB): a length from outside (a
    /// `Content-Length` of `Int64.max`) is clamped to it, so that the manager's sums, in
    /// `Double`, stay exact and far from `Int64.max`.
    static let maximumLength: Int64 = 1 << 53

    /// What the progress reports: a total (not positive while unknown) and the units done.
    struct Units: Equatable, Sendable {
        let total: Int64
        let completed: Int64
    }

    private enum Phase: Equatable, Sendable {
        /// The request runs and its body, of known length, is being read.
        case sending(length: Int64)
        /// The request runs, with no body of known length.
        case waiting
        /// The response's body, of `expected` bytes, is read; the response's bytes fill the
        /// units from `base` to the total.
        case receiving(expected: Int64, base: Int64)
        /// A response of unknown length (or none) after an upload of `upload` bytes (0: none): the
        /// units stay as they are until the end.
        case holding(upload: Int64)
        /// The request ended, failed or was cancelled.
        case over
    }

    private var phase: Phase
    /// The units published last.
    private(set) var units: Units
    /// The most bytes any one reader has read of the response body.
    private var received: Int64 = 0

    /// A request whose body is `uploadLength` bytes long, or `nil` when its length is unknown or
    /// there is no body.
    init(uploadLength: Int64?) {
        if let uploadLength, uploadLength > 0 {
            let uploadLength = min(uploadLength, Self.maximumLength)
            phase = .sending(length: uploadLength)
            units = Units(
                total: Self.saturatingSum(uploadLength, Self.reserve(forUploadOf: uploadLength)),
                completed: 0
            )
        } else {
            phase = .waiting
            units = Units(total: -1, completed: 0)
        }
    }

    /// The units that stand for the response while its size is unknown.
    static func reserve(forUploadOf length: Int64) -> Int64 {
        max(length, minimumResponseReserve)
    }

    /// The transport has read `count` bytes of the request body through one reader. Returns the
    /// units to publish, or `nil` when nothing changes (the response is here, or the read is
    /// not the furthest).
    mutating func sent(upTo count: Int64) -> Units? {
        guard case .sending(let length) = phase else { return nil }
        return publish(completed: min(max(count, 0), length))
    }

    /// The response arrived, with a body of `expectedLength` bytes (`nil` when unknown, 0 when
    /// the response has no body). The request body counts as sent from now on. Returns the units
    /// to publish, or `nil` when nothing changes.
    mutating func responseArrived(expectedLength: Int64?) -> Units? {
        let upload: Int64
        switch phase {
        case .sending(let length): upload = length
        case .waiting: upload = 0
        case .receiving, .holding, .over: return nil
        }
        guard let length = expectedLength, length >= 0 else {
            phase = .holding(upload: upload)
            return upload > 0 ? publish(completed: upload) : nil
        }
        guard length > 0 else {
            // No body: the request weighs its upload alone, all sent.
            phase = .holding(upload: 0)
            return upload > 0 ? publish(total: upload, completed: upload) : nil
        }
        let expectedLength = min(length, Self.maximumLength)
        let total = Self.saturatingSum(upload, expectedLength)
        // What the upload showed, at most all of its share, in the new units (rounded up, so as
        // never to fall), or its bytes' own weight if that is more.
        let shown = Self.scaled(total, by: upload, over: max(units.total, 1), roundingUp: true)
        // Below the total: `shown` is at most half of it, `upload` at most `total - 1`.
        let base = max(shown, upload)
        phase = .receiving(expected: expectedLength, base: base)
        return publish(total: total, completed: base)
    }

    /// A reader has read `count` bytes of the response body so far. Returns the units to
    /// publish, or `nil` when nothing changes (the length is unknown, the request ended, or
    /// another reader of a body that can be read many times is further along).
    mutating func received(upTo count: Int64) -> Units? {
        guard count > received else { return nil }
        if case .holding = phase { received = count }
        guard case .receiving(let expected, let base) = phase else { return nil }
        received = count
        let read = min(count, expected)
        return publish(completed: base + Self.scaled(units.total - base, by: read, over: expected, roundingUp: false))
    }

    /// The request ends. Returns whether it failed, so that its progress is cancelled before its
    /// task ends: it failed unless a reader `reachedEnd` of the response body having read every
    /// byte its length promised (or the length was unknown). `nil` when it had already ended.
    mutating func end(reachedEnd: Bool) -> Bool? {
        guard phase != .over else { return nil }
        defer { phase = .over }
        if case .receiving(let expected, _) = phase { return !reachedEnd || received < expected }
        return !reachedEnd
    }

    /// A reader reached the end of a response of unknown length: the request weighs its upload
    /// and the bytes read, all done (the request ends next, so the fraction may reach 1 here, and
    /// it never falls: a 1-byte upload answered by nothing goes from 1/65 537 to 1/1). Returns
    /// the units to publish, or `nil` when nothing changes (no upload to weigh, or the length was
    /// known).
    mutating func readToTheEnd() -> Units? {
        guard case .holding(let upload) = phase, upload > 0 else { return nil }
        let total = Self.saturatingSum(upload, min(received, Self.maximumLength))
        units = Units(total: total, completed: total)
        return units
    }

    /// Sets the units, keeping the fraction below 1 and never letting it fall; `nil` if nothing
    /// changes.
    private mutating func publish(total: Int64? = nil, completed: Int64) -> Units? {
        let total = total ?? units.total
        let next = Units(total: total, completed: min(completed, max(total - 1, 0)))
        guard next != units, total != units.total || next.completed > units.completed else { return nil }
        units = next
        return next
    }

    /// `a + b` for non-negative values, `Int64.max` when it would overflow.
    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// `value × numerator ÷ denominator`, for `0 ≤ numerator ≤ denominator` and `0 < denominator`
    /// (so the result fits), without overflow in between.
    static func scaled(_ value: Int64, by numerator: Int64, over denominator: Int64, roundingUp: Bool) -> Int64 {
        let product = value.multipliedFullWidth(by: numerator)
        let (quotient, remainder) = denominator.dividingFullWidth(product)
        return roundingUp && remainder > 0 ? quotient + 1 : quotient
    }
}
