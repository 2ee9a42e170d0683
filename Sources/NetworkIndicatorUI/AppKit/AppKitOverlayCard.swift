// Apple APIs used, with the availability Apple's documentation gives (the package needs
// macOS 10.15, so none needs an `#available` check):
// - NSVisualEffectView with .hudWindow (10.14+) and .withinWindow blending (10.10+), wantsLayer,
//   NSAppearance(named: .darkAqua) (10.14+),
//   CALayer.masksToBounds,
//   layer, hitTest(_:), NSStackView (10.9+), NSTextField(labelWithString:) (10.12+), layout
//   anchors (10.11+).
// - NSProgressIndicator: .spinning and .bar styles (NSProgressIndicator.Style 10.14+),
//   isIndeterminate, minValue, maxValue, doubleValue, startAnimation(_:)/stopAnimation(_:),
//   isDisplayedWhenStopped, controlSize (10.0+).
// - NSFont.systemFont(ofSize:weight:), monospacedDigitSystemFont(ofSize:weight:) (10.11+);
//   NSColor.secondaryLabelColor (10.10+).
// - NSAccessibility: setAccessibilityElement(_:), setAccessibilityRole(_:),
//   setAccessibilityLabel(_:), setAccessibilityValue(_:) (10.10+).
// - NSResponder.keyDown(with:), acceptsFirstResponder, nextResponder (10.0+); mouseDown(with:),
//   rightMouseDown(with:), otherMouseDown(with:), scrollWheel(with:) (10.0+), whose NSResponder
//   defaults pass the event to the next responder (the host).
// - NSView.layout() and needsLayout (10.7+), NSStackView orientation, spacing and edgeInsets
//   (10.9+), for the light indicator's capsule.
#if canImport(AppKit) && !canImport(UIKit)
import AppKit

/// The overlay view: a spinner (or a bar and its percentage) and a label on a rounded
/// material. VoiceOver reads it as one element: its title, and the percentage as its value.
/// Takes no clicks unless asked to.
@MainActor
final class AppKitOverlayCard: NSVisualEffectView {
    let spinner = NSProgressIndicator()
    let bar = NSProgressIndicator()
    private let titleLabel: NSTextField
    private let percentageLabel = NSTextField(labelWithString: "")
    /// Whether clicks on the card stop there, as the plan says.
    private var blocksClicks = false
    private var progress = OverlayProgress.indeterminate
    /// The card's shape: centred card or light-indicator capsule (``OverlayCardLayout``).
    private var shape = OverlayCardLayout.card
    private lazy var stack = NSStackView(views: [spinner, bar, titleLabel, percentageLabel])
    private lazy var barWidthConstraint = bar.widthAnchor.constraint(greaterThanOrEqualToConstant: 0)

    init(title: String) {
        self.titleLabel = NSTextField(labelWithString: title)
        super.init(frame: .zero)
        material = .hudWindow
        // The HUD material is dark in light mode too: the label colours must be the dark
        // appearance's (light text), or `labelColor` would draw black on it.
        appearance = NSAppearance(named: .darkAqua)
        blendingMode = .withinWindow
        state = .active
        wantsLayer = true
        // The blur is drawn by the view's own layers: clip them to the rounded corners too.
        layer?.masksToBounds = true

        spinner.style = .spinning
        spinner.isDisplayedWhenStopped = false
        let label = titleLabel
        label.font = NSFont.systemFont(ofSize: NSFont.systemFontSize, weight: .semibold)
        label.alignment = .center
        bar.style = .bar
        bar.isIndeterminate = false
        bar.minValue = 0
        bar.maxValue = 1
        bar.isHidden = true
        barWidthConstraint.isActive = true
        percentageLabel.font = NSFont.monospacedDigitSystemFont(ofSize: NSFont.smallSystemFontSize, weight: .regular)
        percentageLabel.textColor = .secondaryLabelColor
        percentageLabel.alignment = .center
        percentageLabel.isHidden = true
        stack.translatesAutoresizingMaskIntoConstraints = false
        addSubview(stack)
        NSLayoutConstraint.activate([
            stack.leadingAnchor.constraint(equalTo: leadingAnchor),
            stack.trailingAnchor.constraint(equalTo: trailingAnchor),
            stack.topAnchor.constraint(equalTo: topAnchor),
            stack.bottomAnchor.constraint(equalTo: bottomAnchor),
        ])
        setAccessibilityElement(true)
        setAccessibilityRole(.progressIndicator)
        setAccessibilityLabel(title)
        apply(OverlayCardLayout.card)
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) {
        fatalError("The overlay is built in code")
    }

    /// Applies what `plan` says of the card itself: its title (and VoiceOver label), its
    /// progress, its compact form as the light indicator (no title line, which VoiceOver still
    /// reads) and whether it takes clicks. (Not the host's content hidden from VoiceOver:
    /// `accessibilityModal` is a window's attribute, and a view has no way to keep VoiceOver
    /// inside itself.)
    func apply(_ plan: OverlayPlan) {
        titleLabel.stringValue = plan.title
        apply(OverlayCardLayout(plan))
        setAccessibilityLabel(plan.title)
        blocksClicks = plan.cardTakesInput
        show(plan.progress)
    }

    /// Takes `layout`'s shape: the stack's orientation, spacing and insets, the controls' size,
    /// the bar's width, the title line, and the corners (set at the next layout pass).
    private func apply(_ layout: OverlayCardLayout) {
        shape = layout
        stack.orientation = layout.pick(column: .vertical, row: .horizontal)
        stack.spacing = layout.spacing
        let padding = layout.padding
        stack.edgeInsets = NSEdgeInsets(
            top: padding.vertical,
            left: padding.horizontal,
            bottom: padding.vertical,
            right: padding.horizontal
        )
        let size = layout.pick(column: NSControl.ControlSize.regular, row: .small)
        spinner.controlSize = size
        bar.controlSize = size
        barWidthConstraint.constant = layout.minimumBarWidth
        titleLabel.isHidden = !layout.showsTitle
        needsLayout = true
    }

    /// Rounds the material as ``shape`` says for the card's height: a capsule, or 12 points.
    override func layout() {
        super.layout()
        layer?.cornerRadius = shape.cornerRadius(height: bounds.height)
    }

    /// Shows `progress`: the bar, its percentage and the accessibility value, or the spinner.
    private func show(_ progress: OverlayProgress) {
        self.progress = progress
        bar.isHidden = !progress.isDeterminate
        percentageLabel.isHidden = !progress.isDeterminate
        bar.doubleValue = progress.fractionCompleted ?? 0
        percentageLabel.stringValue = progress.percentageText() ?? ""
        setAccessibilityValue(progress.accessibilityValue())
        updateSpinner()
    }

    /// The spinner turns only while it is what the overlay shows, in a window
    /// (``OverlayProgress/spinnerAnimates(isHidden:isInWindow:)``).
    func updateSpinner() {
        spinner.isHidden = progress.isDeterminate
        if progress.spinnerAnimates(isHidden: isHidden, isInWindow: window != nil) {
            spinner.startAnimation(nil)
        } else {
            spinner.stopAnimation(nil)
        }
    }

    /// Stops the spinner when the card leaves its window, and starts it again when it returns.
    override func viewDidMoveToWindow() {
        super.viewDidMoveToWindow()
        updateSpinner()
    }

    /// Clicks on the overlay reach the host beneath unless it blocks them.
    override func hitTest(_ point: NSPoint) -> NSView? {
        blocksClicks ? super.hitTest(point) : nil
    }

    // A blocking card is hit: its clicks and scrolls stop here, rather than going up the
    // responder chain to the host (a scroll view would scroll, a table select a row).
    override func mouseDown(with event: NSEvent) {}
    override func rightMouseDown(with event: NSEvent) {}
    override func otherMouseDown(with event: NSEvent) {}
    override func scrollWheel(with event: NSEvent) {}
}

/// A clear view over a whole host that takes every click and scroll while it is not hidden,
/// and, made first responder while it blocks, every key that would go to the host's fields: the
/// cover of an overlay whose settings say `.blocksHost` (key equivalents: ``BlockedKeys``). Its
/// clicks, scrolls and keys stop here, rather than going up the responder chain to the host (a
/// table would select a row), and its next responder is the window, so that a menu command sent
/// to it skips the host and its view controller.
final class AppKitClickCover: NSView {
    /// Adds the cover to `host`, hidden, over all of it.
    func attach(to host: NSView) {
        isHidden = true
        translatesAutoresizingMaskIntoConstraints = false
        host.addSubview(self)
        NSLayoutConstraint.activate([
            leadingAnchor.constraint(equalTo: host.leadingAnchor),
            trailingAnchor.constraint(equalTo: host.trailingAnchor),
            topAnchor.constraint(equalTo: host.topAnchor),
            bottomAnchor.constraint(equalTo: host.bottomAnchor),
        ])
    }

    override func mouseDown(with event: NSEvent) {}
    override func rightMouseDown(with event: NSEvent) {}
    override func otherMouseDown(with event: NSEvent) {}
    override func scrollWheel(with event: NSEvent) {}
    override func keyDown(with event: NSEvent) {}
    override var acceptsFirstResponder: Bool { true }
    override var nextResponder: NSResponder? {
        get { window }
        set { super.nextResponder = newValue }
    }
}
#endif
