import Testing

@testable import NetworkIndicatorUI

/// What had focus when a blocking card took it (a text field's keyboard, VoiceOver's cursor)
/// is given back when blocking ends, if it is still on screen: the rules behind the UIKit and
/// AppKit outputs, which only say how to read, take and give focus.
@Suite("Focus across a blocking card")
struct FocusKeeperTests {
    /// A view of a tiny hierarchy, with focus or not.
    final class Node {
        let name: String
        var children: [Node]
        var isFocused = false
        var isOnScreen = true

        init(_ name: String, _ children: [Node] = []) {
            self.name = name
            self.children = children
        }
    }

    /// What a shell did, in order: `holder` is where taking leaves the focus (`nil`: nowhere,
    /// as UIKit's end of editing).
    private final class Shell {
        var focused: Node?
        var holder: Node?
        /// Focus the host may take (AppKit: not a field outside the host).
        var mayTake: (Node?) -> Bool = { _ in true }
        var log: [String] = []

        func apply(_ change: OverlayPlan.FocusChange?, to keeper: inout FocusKeeper<Node>) {
            keeper.apply(
                change,
                focused: { focused },
                mayTake: mayTake,
                take: {
                    log.append("take")
                    focused = holder
                    return holder
                },
                isStillThere: { $0.isOnScreen },
                giveBack: { log.append("give back \($0?.name ?? "nothing")") }
            )
        }
    }

    @Test func theFieldThatHadFocusGetsItBackWhenBlockingEnds() {
        let field = Node("amount")  // its screen holds it
        let shell = Shell()
        shell.focused = field
        var keeper = FocusKeeper<Node>()
        shell.apply(.take, to: &keeper)
        #expect(shell.focused == nil)
        shell.apply(nil, to: &keeper)
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log == ["take", "give back amount"])
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log.count == 2, "given back once")
    }

    @Test func aFieldThatLeftTheScreenIsNotGivenFocus() {
        let field = Node("amount")
        let shell = Shell()
        shell.focused = field
        var keeper = FocusKeeper<Node>()
        shell.apply(.take, to: &keeper)
        field.isOnScreen = false
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log == ["take", "give back nothing"])
    }

    @Test func nothingFocusedMeansNothingGivenBack() {
        let shell = Shell()
        var keeper = FocusKeeper<Node>()
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log.isEmpty, "a give-back without a take does nothing")
        shell.apply(.take, to: &keeper)
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log == ["take", "give back nothing"])
    }

    /// AppKit's cover holds the focus while it blocks: it is given back (or let go, `nil`) only
    /// if the cover still holds it. Focus the app moved itself meanwhile stays where it is.
    @Test func focusTheAppMovedWhileBlockedStaysWhereItIs() {
        let (cover, field, search) = (Node("cover"), Node("amount"), Node("search"))
        let shell = Shell()
        shell.holder = cover
        shell.focused = field
        var keeper = FocusKeeper<Node>()
        shell.apply(.take, to: &keeper)
        #expect(shell.focused === shell.holder)
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log == ["take", "give back amount"])
        shell.apply(.take, to: &keeper)
        shell.focused = search
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log == ["take", "give back amount", "take"])
    }

    /// A field outside the host (AppKit: a sidebar's search field in the same window) is not
    /// the blocking card's to take: it keeps the keyboard, and nothing is given back.
    @Test func focusOutsideTheHostIsNotTaken() {
        let sidebar = Node("search")
        let shell = Shell()
        shell.focused = sidebar
        shell.mayTake = { $0 !== sidebar }
        var keeper = FocusKeeper<Node>()
        shell.apply(.take, to: &keeper)
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log.isEmpty)
        #expect(shell.focused === sidebar, "it keeps the keyboard")
    }

    /// The keeper holds what it saved weakly: a field released while blocked is not kept alive.
    @Test func aReleasedFieldIsNotKeptAlive() {
        let shell = Shell()
        var keeper = FocusKeeper<Node>()
        weak var released: Node?
        do {
            let field = Node("amount")
            released = field
            shell.focused = field
            shell.apply(.take, to: &keeper)
        }
        #expect(released == nil)
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log == ["take", "give back nothing"])
    }

    /// A second take while one is held (blocking began again before it ended) keeps the first.
    @Test func aSecondTakeKeepsWhatTheFirstSaved() {
        let (first, second) = (Node("first"), Node("second"))
        let shell = Shell()
        shell.focused = first
        var keeper = FocusKeeper<Node>()
        shell.apply(.take, to: &keeper)
        shell.focused = second
        shell.apply(.take, to: &keeper)
        shell.focused = nil
        shell.apply(.giveBack, to: &keeper)
        #expect(shell.log == ["take", "take", "give back first"])
    }

    /// UIKit has no "current first responder": the output looks for it in the host's views,
    /// depth first.
    @Test func theFocusedViewIsFoundDepthFirst() {
        let deep = Node("deep")
        let tree = Node("host", [Node("bar", [Node("title")]), Node("form", [Node("name"), deep])])
        #expect(FocusKeeper.first(in: tree, children: \.children, where: \.isFocused) == nil)
        deep.isFocused = true
        #expect(FocusKeeper.first(in: tree, children: \.children, where: \.isFocused) === deep)
        tree.isFocused = true
        #expect(FocusKeeper.first(in: tree, children: \.children, where: \.isFocused) === tree)
    }

    /// AppKit edits a text field through the window's field editor, which is the first
    /// responder meanwhile: focus goes back to the field, its client.
    @Test func aFieldEditorGivesFocusBackToItsField() {
        let editor = Node("field editor")
        let field = Node("amount")
        #expect(FocusKeeper.owner(of: editor, isFieldEditor: true, client: field) === field)
        #expect(FocusKeeper.owner(of: editor, isFieldEditor: false, client: field) === editor, "a text view")
        #expect(FocusKeeper.owner(of: editor, isFieldEditor: true, client: nil) === editor)
        #expect(FocusKeeper<Node>.owner(of: nil, isFieldEditor: false, client: nil) == nil)
    }
}
