/// What had focus when a blocking card took it, given back when blocking ends: the typing focus
/// (the first responder: a text field and its keyboard) and VoiceOver's cursor. The UIKit and
/// AppKit outputs keep one of each and say only how to read, take and give focus; which element
/// gets it back, and when, is decided here, tested on Linux.
///
/// The element is held weakly: one released while blocked is not kept alive, and gets nothing.
/// Not `Sendable`: each output keeps its own on the main actor.
struct FocusKeeper<Element: AnyObject> {
    /// What had focus when it was taken; `nil` while nothing is held, or once it is gone.
    private weak var saved: Element?
    /// Where taking left the focus (AppKit's cover), or `nil` (UIKit ends editing; VoiceOver's
    /// cursor goes to a card that the give-back does not check).
    private weak var holder: Element?
    private var isHeld = false

    /// Applies one change of a plan (``OverlayPlan/HostChanges``):
    /// - `.take` remembers `focused()` (a second take while one is held keeps the first) and
    ///   calls `take`, which returns where it left the focus, if anywhere; unless `mayTake`
    ///   says that focus is not the host's to take (a field elsewhere in the window), and then
    ///   nothing is taken or given back;
    /// - `.giveBack` calls `giveBack` with what was remembered if `isStillThere` says it is
    ///   still on screen (in the host's window), with `nil` otherwise, and forgets it. Nothing is
    ///   given back if the focus is no longer where taking left it: the app moved it itself
    ///   meanwhile, and it stays there;
    /// - `nil` does nothing.
    mutating func apply(
        _ change: OverlayPlan.FocusChange?,
        focused: () -> Element?,
        mayTake: (Element?) -> Bool = { _ in true },
        take: () -> Element?,
        isStillThere: (Element) -> Bool,
        giveBack: (Element?) -> Void
    ) {
        switch change {
        case .take?:
            if !isHeld {
                let current = focused()
                guard mayTake(current) else { return }
                saved = current
            }
            isHeld = true
            holder = take()
        case .giveBack?:
            guard isHeld else { return }
            defer { (saved, holder, isHeld) = (nil, nil, false) }
            guard holder == nil || focused() === holder else { return }
            giveBack(saved.flatMap { isStillThere($0) ? $0 : nil })
        case nil:
            break
        }
    }

    /// The first of `root` and its descendants (depth first, in `children`'s order) that
    /// `matches`: UIKit has no "current first responder", so the output looks for it among the
    /// host's views.
    static func first(in root: Element, children: (Element) -> [Element], where matches: (Element) -> Bool) -> Element?
    {
        if matches(root) { return root }
        for child in children(root) {
            if let found = first(in: child, children: children, where: matches) { return found }
        }
        return nil
    }

    /// The element that owns typing focus when `responder` is the first responder: AppKit edits a
    /// text field through its window's field editor, which is the first responder meanwhile, so
    /// the field (the editor's `client`) is the one to give focus back to; any other responder
    /// owns its focus.
    static func owner(of responder: Element?, isFieldEditor: Bool, client: Element?) -> Element? {
        isFieldEditor ? client ?? responder : responder
    }
}
