#if canImport(UIKit) && os(iOS)
import UIKit

/// Drives the status-bar network activity spinner
/// (`UIApplication.shared.isNetworkActivityIndicatorVisible`).
///
/// ``NetworkIndicatorManager/shared`` attaches one on iOS. Apple deprecated the status-bar
/// spinner in iOS 13 and it shows nothing on devices with a notch or Dynamic Island; attach an
/// in-app output (``ClosureNetworkIndicatorOutput``, ``NetworkIndicatorModel``) as well.
/// Called on the main actor only.
@MainActor
public final class StatusBarNetworkIndicatorOutput: NetworkIndicatorOutput {
    /// Creates the output.
    public init() {}

    /// Shows or hides the status-bar spinner.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        // Called through a protocol whose witness is marked deprecated: the deprecated property
        // is acknowledged in one place instead of warning in every build.
        let setter: any StatusBarSpinnerSetting = DeprecatedStatusBarSpinnerSetter()
        setter.setStatusBarSpinnerVisible(isVisible)
    }
}

@MainActor
private protocol StatusBarSpinnerSetting {
    func setStatusBarSpinnerVisible(_ isVisible: Bool)
}

@MainActor
private struct DeprecatedStatusBarSpinnerSetter: StatusBarSpinnerSetting {
    @available(iOS, deprecated: 13.0, message: "The status-bar spinner is deprecated; attach an in-app output too.")
    func setStatusBarSpinnerVisible(_ isVisible: Bool) {
        UIApplication.shared.isNetworkActivityIndicatorVisible = isVisible
    }
}
#endif
