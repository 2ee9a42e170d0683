import Testing

@testable import NetworkIndicatorUI

/// Where AppKit's key presses go while a `.blocksHost` card blocks its host's window: none of the
/// host's views (a default button's Return, a Cancel button's Escape, a button's ⌘ shortcut),
/// but the menu bar still gets ⌘ commands (Quit, Close, Hide), and other windows are left alone.
@Suite("Keys while a card blocks")
struct BlockedKeysTests {
    @Test func inTheBlockedWindowKeyEquivalentsReachOnlyTheMenuBar() {
        #expect(BlockedKeys.route(isInBlockedWindow: true, coverHasKeyboard: true, hasCommand: false) == .drop)
        #expect(BlockedKeys.route(isInBlockedWindow: true, coverHasKeyboard: true, hasCommand: true) == .menuBarOnly)
    }

    @Test func otherWindowsAreLeftAlone() {
        #expect(BlockedKeys.route(isInBlockedWindow: false, coverHasKeyboard: true, hasCommand: false) == .pass)
        #expect(BlockedKeys.route(isInBlockedWindow: false, coverHasKeyboard: true, hasCommand: true) == .pass)
    }

    /// The keyboard was in a field outside the host (a sidebar's search) when blocking began:
    /// the cover did not take it, and its keys go there.
    @Test func aFieldOutsideTheHostKeepsItsKeys() {
        #expect(BlockedKeys.route(isInBlockedWindow: true, coverHasKeyboard: false, hasCommand: false) == .pass)
        #expect(BlockedKeys.route(isInBlockedWindow: true, coverHasKeyboard: false, hasCommand: true) == .pass)
    }

    /// The shell turns a route into what it returns to AppKit: the event itself, or nothing
    /// (after the menu bar had its chance).
    @Test func eachRouteDoesOneThing() {
        var log: [String] = []
        let routes: [BlockedKeys.Route] = [.pass, .drop, .menuBarOnly]
        let results = routes.map { route in
            route.perform(
                pass: {
                    log.append("pass")
                    return "event"
                },
                toMenuBar: { log.append("menu bar") }
            )
        }
        #expect(results == ["event", nil, nil])
        #expect(log == ["pass", "menu bar"])
    }

    /// The monitor runs from the first moment of the load to its end, once.
    @Test func theKeyMonitorRunsWhileTheHostIsBlocked() {
        var log: [String] = []
        var monitor = WhileBlocked<Int>()
        var next = 0
        func apply(_ changes: OverlayPlan.HostChanges) {
            monitor.apply(
                changes,
                start: {
                    next += 1
                    log.append("start \(next)")
                    return next
                },
                stop: { log.append("stop \($0)") }
            )
        }
        apply(.init(takesInput: false))
        apply(.init())
        apply(.init(takesInput: false))
        #expect(monitor.resource == 1 && log == ["start 1"])
        apply(.init(takesInput: true))
        apply(.init(takesInput: true))
        #expect(monitor.resource == nil && log == ["start 1", "stop 1"])
    }
}
