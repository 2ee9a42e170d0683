/// Where AppKit's key presses go while a `.blocksHost` card's load runs: the AppKit output
/// watches the app's key-down events then (a local event monitor) and routes each as this says.
/// Plain Swift, tested on Linux; the shell only reads an event's window and modifiers.
///
/// - Typing already stops at the cover, which is the window's first responder.
/// - Key equivalents would reach the host's views first (a default button's Return, a Cancel
///   button's Escape, a button's ⌘ shortcut): while the cover has the keyboard, those without ⌘
///   are dropped in its window, and those with ⌘ go to the menu bar only, so that Quit, Close
///   and Hide still work. The cover takes the keyboard only from the host (or from nobody): a
///   field elsewhere in the window keeps it, and its keys go there.
///   A menu command the menu bar sends to the first responder goes from the cover to the window,
///   never to the host or its view controller.
/// - Other windows of the app are left alone.
enum BlockedKeys {
    /// What to do with one key-down event.
    enum Route: Equatable, Sendable {
        /// Let AppKit deliver it as usual.
        case pass
        /// Deliver it to nobody.
        case drop
        /// Offer it to the menu bar's key equivalents only, then deliver it to nobody.
        case menuBarOnly

        /// Performs the route: `pass()` for ``pass``, `toMenuBar()` then `nil` for
        /// ``menuBarOnly``, `nil` for ``drop``.
        func perform<Event>(pass: () -> Event?, toMenuBar: () -> Void) -> Event? {
            switch self {
            case .pass:
                return pass()
            case .drop:
                return nil
            case .menuBarOnly:
                toMenuBar()
                return nil
            }
        }
    }

    /// The route of a key-down event in the blocked host's window (`isInBlockedWindow`) or
    /// another, while the cover has that window's keyboard (`coverHasKeyboard`: the keyboard was
    /// in the host, or nowhere, when blocking began) or not, with the Command key held
    /// (`hasCommand`) or not. While the keyboard is elsewhere in the window (a sidebar's search
    /// field), keys go there as usual.
    static func route(isInBlockedWindow: Bool, coverHasKeyboard: Bool, hasCommand: Bool) -> Route {
        guard isInBlockedWindow, coverHasKeyboard else { return .pass }
        return hasCommand ? .menuBarOnly : .drop
    }
}

/// Something a shell holds only while a blocking card's load runs, such as AppKit's key-down
/// monitor (``BlockedKeys``): started when the host stops taking input, stopped when it takes
/// it again. Plain Swift, tested on Linux. Not `Sendable`: each output keeps its own on the
/// main actor.
struct WhileBlocked<Resource> {
    /// What `start` made, until `stop` is given it.
    private(set) var resource: Resource?

    /// Starts the resource when `changes` turn the host's input off (once, however often),
    /// stops it when they turn it on again, and does nothing otherwise.
    mutating func apply(_ changes: OverlayPlan.HostChanges, start: () -> Resource, stop: (Resource) -> Void) {
        switch changes.takesInput {
        case false?:
            resource = resource ?? start()
        case true?:
            defer { resource = nil }
            resource.map(stop)
        case nil:
            break
        }
    }
}
