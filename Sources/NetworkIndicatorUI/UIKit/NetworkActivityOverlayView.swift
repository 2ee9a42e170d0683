// Apple APIs used, with the availability Apple's documentation gives (the package needs iOS 13
// and tvOS 13, so none needs an `#available` check):
// - UIView (init(frame:), didMoveToWindow(), window, layer, clipsToBounds,
//   isUserInteractionEnabled, isHidden), UILabel, and the UIAccessibility properties
//   isAccessibilityElement and accessibilityLabel: iOS 2.0+; accessibilityViewIsModal: iOS 5.0+, tvOS 9.0+; UIStackView, NSLayoutConstraint
//   and layout anchors: iOS 9.0+, tvOS 9.0+; UIVisualEffectView and UIBlurEffect: iOS 8.0+,
//   tvOS 9.0+; CALayer.cornerRadius and zPosition.
// - UIBlurEffect.Style.systemMaterial: iOS 13.0+, Mac Catalyst 13.1+, visionOS 1.0+; not in
//   tvOS, which uses UIBlurEffect.Style.regular (iOS 10.0+, tvOS 10.0+).
// - CALayer.cornerCurve with .continuous: iOS 13.0+, tvOS 13.0+.
// - UIView.layoutSubviews() and setNeedsLayout() (iOS 2.0+), UIStackView axis and spacing
//   (iOS 9.0+, tvOS 9.0+), for the light indicator's capsule.
// - UIActivityIndicatorView(style:) with .medium, UIColor.label: iOS 13.0+, tvOS 13.0+.
// - UIFont.preferredFont(forTextStyle:) (iOS 7.0+), adjustsFontForContentSizeCategory (iOS 10.0+).
// - UIFontMetrics(forTextStyle:).scaledFont(for:) (iOS 11.0+, tvOS 11.0+); the accessibility
//   trait .updatesFrequently (iOS 5.0+, tvOS 9.0+).
// - UIProgressView(progressViewStyle:) and progress (iOS 2.0+, tvOS 9.0+), accessibilityValue
//   (iOS 3.0+, tvOS 9.0+), NSLayoutDimension.constraint(greaterThanOrEqualToConstant:) (iOS 9.0+),
//   UIFont.monospacedDigitSystemFont(ofSize:weight:) (iOS 9.0+, tvOS 9.0+),
//   UIColor.secondaryLabel (iOS 13.0+, tvOS 13.0+).
// - UIView.hitTest(_:with:) (iOS 2.0+), UIView.gestureRecognizerShouldBegin(_:) (iOS 6.0+, tvOS 9.0+): a view may stop a gesture
//   from being recognized on touches that land on it, as UISlider stops a swipe that starts on
//   its thumb; recognizers of the views above it (a scroll view's pan) get the touches of its
//   subviews (UIView.addGestureRecognizer(_:)).
#if canImport(UIKit) && !os(watchOS)
import UIKit

/// A spinner and a title, "Loading" by default, on a rounded, blurred material background: the
/// classic activity overlay shown over a table while its content loads. When
/// ``fractionCompleted`` is set, a progress bar and a percentage replace the spinner. As the
/// light indicator of a screen with content, it is a small capsule at the top edge instead: the
/// spinner, or a short bar beside its percentage, and no title line (``OverlayCardLayout``).
///
/// ``NetworkActivityOverlayOutput`` shows one over a host view while the indicator is visible,
/// as its `overlayView`. It takes touches only when the output's settings say so
/// (`.blocksCard`, `.blocksHost`); otherwise the view beneath stays usable (to scroll, or to
/// cancel the load). Main actor only, like every view.
@MainActor
final class NetworkActivityOverlayView: UIView {
    /// The spinner, animating while the view is in a window's hierarchy and not hidden.
    let activityIndicator = UIActivityIndicatorView(style: .medium)
    /// The title, in the preferred font for headlines (it follows Dynamic Type). To change its
    /// text, set ``title``, which VoiceOver reads too.
    let titleLabel = UILabel()
    /// The bar shown instead of the spinner while ``fractionCompleted`` is known; hidden
    /// otherwise.
    let progressView = UIProgressView(progressViewStyle: .default)
    /// The percentage shown under the bar ("40%", in the user's language); hidden with it.
    let percentageLabel = UILabel()

    /// How far the load is, from 0 to 1, shown as a bar and a rounded-down percentage that
    /// VoiceOver reads as the overlay's value ("40 percent"); `nil` (the default) shows the
    /// spinner. ``NetworkActivityOverlayOutput`` sets it from its manager's
    /// progress. Values outside 0...1 are clamped. Main actor.
    var fractionCompleted: Double? {
        get { progress.fractionCompleted }
        set { show(OverlayProgress(fractionCompleted: newValue)) }
    }

    private var progress = OverlayProgress.indeterminate
    /// The card's shape: centred card or light-indicator capsule (``OverlayCardLayout``).
    private var shape = OverlayCardLayout.card
    private lazy var stack = UIStackView(arrangedSubviews: [
        activityIndicator, progressView, titleLabel, percentageLabel,
    ])
    /// The stack's insets in the material (leading, trailing, top, bottom) and the bar's
    /// narrowest width, set from ``shape``.
    private lazy var insetConstraints = [
        stack.leadingAnchor.constraint(equalTo: background.contentView.leadingAnchor),
        background.contentView.trailingAnchor.constraint(equalTo: stack.trailingAnchor),
        stack.topAnchor.constraint(equalTo: background.contentView.topAnchor),
        background.contentView.bottomAnchor.constraint(equalTo: stack.bottomAnchor),
    ]
    private lazy var barWidthConstraint = progressView.widthAnchor.constraint(greaterThanOrEqualToConstant: 0)

    /// The title shown under the spinner, and the label VoiceOver reads for the whole overlay.
    var title: String? {
        get { titleLabel.text }
        set {
            titleLabel.text = newValue
            accessibilityLabel = newValue
        }
    }

    private let background = UIVisualEffectView(effect: UIBlurEffect(style: NetworkActivityOverlayView.materialStyle))

    private static var materialStyle: UIBlurEffect.Style {
        #if os(tvOS)
        return .regular
        #else
        return .systemMaterial
        #endif
    }

    /// Creates the overlay titled `title`, or, if `title` is `nil`, "Loading" in the app's
    /// language (the package translates it into English, German, French, Spanish and Japanese).
    init(title: String? = nil) {
        super.init(frame: .zero)
        titleLabel.font = UIFont.preferredFont(forTextStyle: .headline)
        titleLabel.adjustsFontForContentSizeCategory = true
        titleLabel.textColor = .label
        titleLabel.textAlignment = .center
        titleLabel.numberOfLines = 0
        activityIndicator.hidesWhenStopped = false

        background.layer.cornerCurve = .continuous
        background.clipsToBounds = true

        progressView.isHidden = true
        percentageLabel.isHidden = true
        // Scaled by the subheadline's metrics, so that it follows Dynamic Type changes too.
        percentageLabel.font = UIFontMetrics(forTextStyle: .subheadline).scaledFont(
            for: UIFont.monospacedDigitSystemFont(ofSize: 15, weight: .regular)
        )
        percentageLabel.adjustsFontForContentSizeCategory = true
        percentageLabel.textColor = .secondaryLabel
        percentageLabel.textAlignment = .center

        stack.alignment = .center
        addSubview(background)
        background.contentView.addSubview(stack)
        for view in [background, stack] as [UIView] { view.translatesAutoresizingMaskIntoConstraints = false }
        NSLayoutConstraint.activate(
            [
                background.leadingAnchor.constraint(equalTo: leadingAnchor),
                background.trailingAnchor.constraint(equalTo: trailingAnchor),
                background.topAnchor.constraint(equalTo: topAnchor),
                background.bottomAnchor.constraint(equalTo: bottomAnchor),
                barWidthConstraint,
            ] + insetConstraints
        )
        apply(OverlayCardLayout.card)

        // VoiceOver reads the overlay as one element, its title; touches go through to the host
        // until a plan says the card takes them.
        isAccessibilityElement = true
        // Its value (the percentage) changes while it is read.
        accessibilityTraits.insert(AccessibilityAnnouncement.updatesFrequentlyTrait)
        self.title = title ?? OverlayLabel(nil).text()
        isUserInteractionEnabled = false
        // Above the rows a table or collection view adds later, which would otherwise cover it.
        layer.zPosition = 1_000
    }

    /// Not supported: the overlay is built in code.
    @available(*, unavailable)
    required init?(coder: NSCoder) {
        fatalError("NetworkActivityOverlayView is built in code; use init(title:)")
    }

    /// Hiding the view stops the spinner; showing it in a window starts it again.
    override var isHidden: Bool {
        didSet { updateAnimation() }
    }

    /// Starts the spinner when the view joins a window and stops it when it leaves, so that a
    /// hidden overlay costs nothing.
    override func didMoveToWindow() {
        super.didMoveToWindow()
        updateAnimation()
    }

    /// Shows `progress`: the bar, its percentage and the accessibility value, or the spinner.
    func show(_ progress: OverlayProgress) {
        self.progress = progress
        activityIndicator.isHidden = progress.isDeterminate
        progressView.isHidden = !progress.isDeterminate
        percentageLabel.isHidden = !progress.isDeterminate
        progressView.progress = Float(progress.fractionCompleted ?? 0)
        percentageLabel.text = progress.percentageText()
        accessibilityValue = progress.accessibilityValue()
        updateAnimation()
    }

    /// A card that takes touches is not dragged through: the host's gestures (a table's scroll,
    /// its refresh control's pull) do not begin on it. (One that does not is not hit, and not asked.)
    override func gestureRecognizerShouldBegin(_ gestureRecognizer: UIGestureRecognizer) -> Bool {
        gestureRecognizer.view === self
    }

    /// A touch anywhere on a card that takes touches lands on the card itself, not on its
    /// material or stack: the card is then the view asked whether a gesture may begin.
    override func hitTest(_ point: CGPoint, with event: UIEvent?) -> UIView? {
        super.hitTest(point, with: event).map { _ in self }
    }

    /// Applies what `plan` says of the card itself: its title (and VoiceOver label), its
    /// progress, its compact form as the light indicator (no title line, which VoiceOver still
    /// reads), whether it takes touches, and whether VoiceOver is kept inside it (its siblings,
    /// the host's content, are ignored while a blocking card is drawn).
    func apply(_ plan: OverlayPlan) {
        title = plan.title
        show(plan.progress)
        apply(OverlayCardLayout(plan))
        isUserInteractionEnabled = plan.cardTakesInput
        accessibilityViewIsModal = plan.hidesHostFromAccessibility
    }

    /// Takes `layout`'s shape: the stack's axis, spacing and insets, the bar's width, the
    /// title line, and the corners (set at the next layout pass, from the height).
    private func apply(_ layout: OverlayCardLayout) {
        shape = layout
        stack.axis = layout.pick(column: .vertical, row: .horizontal)
        stack.spacing = layout.spacing
        let padding = layout.padding
        for (constraint, inset) in zip(
            insetConstraints,
            [padding.horizontal, padding.horizontal, padding.vertical, padding.vertical]
        ) {
            constraint.constant = inset
        }
        barWidthConstraint.constant = layout.minimumBarWidth
        titleLabel.isHidden = !layout.showsTitle
        setNeedsLayout()
    }

    /// Rounds the material as ``shape`` says for the view's height: a capsule, or 12 points.
    override func layoutSubviews() {
        super.layoutSubviews()
        background.layer.cornerRadius = shape.cornerRadius(height: bounds.height)
    }

    /// Spins as the tested rule says (``OverlayProgress/spinnerAnimates(isHidden:isInWindow:)``).
    private func updateAnimation() {
        if progress.spinnerAnimates(isHidden: isHidden, isInWindow: window != nil) {
            activityIndicator.startAnimating()
        } else {
            activityIndicator.stopAnimating()
        }
    }
}
#endif
