/// An array as an async sequence, for tests.
struct AsyncArray<Element: Sendable>: AsyncSequence, Sendable {
    let elements: [Element]

    func makeAsyncIterator() -> Iterator { Iterator(remaining: elements[...]) }

    struct Iterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Element>
        mutating func next() async -> Element? { remaining.popFirst() }
    }
}

extension Array where Element: Sendable {
    var async: AsyncArray<Element> { AsyncArray(elements: self) }
}
