import Foundation

// On Apple platforms CGRect, CGSize and CGFloat's geometry live in CoreGraphics, which
// `MemberImportVisibility` wants imported where they are used; on Linux, Foundation has them.
#if canImport(CoreGraphics)
import CoreGraphics
#endif

/// Where an overlay goes over a host view: centred in the part of the host the user can see.
///
/// Plain Foundation geometry, so that it is built and tested on Linux; the UIKit output feeds it
/// a host's numbers and turns the answers into Auto Layout constraints. A scroll view's (and so
/// a table view's) bounds origin is its content offset: its bounds are the window onto the
/// content that is on screen, and its adjusted content insets are the parts of that window
/// behind bars, the safe area or the keyboard. A plain view passes its bounds and its safe-area
/// insets. Centring in what remains keeps the overlay in sight however far the content is
/// scrolled, instead of in the middle of a long table's content.
struct OverlayPlacement: Equatable, Sendable {
    /// Edge insets, in points (UIKit's `UIEdgeInsets` does not exist on Linux).
    struct Insets: Equatable, Sendable {
        var top: CGFloat
        var left: CGFloat
        var bottom: CGFloat
        var right: CGFloat

        /// No insets.
        static let zero = Insets(top: 0, left: 0, bottom: 0, right: 0)
    }

    /// The host's bounds, in its own coordinate space (for a scroll view, origin = content offset).
    var bounds: CGRect
    /// The parts of the bounds the user cannot see. Negative or non-finite insets count as zero:
    /// the overlay never goes outside the bounds.
    var insets: Insets

    /// The placement over a host with `bounds`: a scroll view passes its adjusted content insets
    /// (`scrollViewInsets`), which its frame guide does not leave out; any other view passes
    /// `nil`, and no insets apply, since it centres in its safe-area guide, which leaves the
    /// bars out already.
    init(bounds: CGRect, scrollViewInsets: Insets?) {
        self.init(bounds: bounds, insets: scrollViewInsets ?? .zero)
    }

    init(bounds: CGRect, insets: Insets) {
        self.bounds = bounds
        self.insets = insets
    }

    /// The layout guide an overlay centres in, by host kind: a scroll view's frame guide
    /// (`scrollViewFrame`, the window onto its content, which does not scroll), any other view's
    /// safe-area guide. The shells pass their guides; the choice is made here, where it is tested.
    static func centringGuide<Guide>(scrollViewFrame: Guide?, safeArea: Guide) -> Guide {
        scrollViewFrame ?? safeArea
    }

    /// The region to centre in: the bounds minus the insets. Along an axis where the insets
    /// leave nothing (a keyboard taller than what the navigation bar leaves of a short view), the
    /// whole extent of the bounds: an overlay centred in the bounds is better than none.
    var visibleRect: CGRect {
        let x = Self.visibleSpan(start: bounds.minX, length: bounds.width, insets: (insets.left, insets.right))
        let y = Self.visibleSpan(start: bounds.minY, length: bounds.height, insets: (insets.top, insets.bottom))
        return CGRect(x: x.start, y: y.start, width: x.length, height: y.length)
    }

    /// The largest size the overlay may take: the size of ``visibleRect``, so that no part of it
    /// is hidden. `nil` while the host has no size yet (it has not been laid out): the overlay
    /// then keeps its natural size instead of shrinking to nothing.
    var maximumOverlaySize: CGSize? {
        guard bounds.width > 0, bounds.height > 0 else { return nil }
        return visibleRect.size
    }

    /// How far the centre of ``visibleRect`` lies from the centre of ``bounds``: the constants of
    /// the Auto Layout constraints that centre the overlay on the host's frame (on a scroll
    /// view's `frameLayoutGuide`, which does not move with the content).
    var centerOffset: CGSize {
        let visible = visibleRect
        return CGSize(width: visible.midX - bounds.midX, height: visible.midY - bounds.midY)
    }

    /// The constants of the four constraints that place the overlay on the host's frame guide (a
    /// scroll view's `frameLayoutGuide`, any other view's safe-area guide), in order: the centre
    /// x and y offsets (``centerOffset``), then how much narrower and shorter than the guide the
    /// overlay must stay (``visibleRect`` minus ``bounds``; zero for a host with no insets, and
    /// before the host has a size).
    var guideConstants: [CGFloat] {
        let visible = visibleRect
        let offset = centerOffset
        return [offset.width, offset.height, visible.width - bounds.width, visible.height - bounds.height]
    }

    /// The positions at which `new` differs from `old`: the only constraints to touch, so that a
    /// call on every layout pass changes nothing that stays the same.
    static func changedIndices(from old: [CGFloat], to new: [CGFloat]) -> [Int] {
        zip(old, new).enumerated().compactMap { index, pair in pair.0 == pair.1 ? nil : index }
    }

    /// One axis of ``visibleRect``.
    private static func visibleSpan(
        start: CGFloat,
        length: CGFloat,
        insets: (leading: CGFloat, trailing: CGFloat)
    ) -> (start: CGFloat, length: CGFloat) {
        let leading = clamped(insets.leading)
        let remaining = length - leading - clamped(insets.trailing)
        return remaining > 0 ? (start + leading, remaining) : (start, length)
    }

    private static func clamped(_ inset: CGFloat) -> CGFloat {
        inset.isFinite ? max(inset, 0) : 0
    }
}
