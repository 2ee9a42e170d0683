#if canImport(UIKit)
import NetworkIndicator
import NetworkIndicatorUI
import UIKit

// docs:begin uikit-app-delegate
@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        NetworkIndicatorManager.shared.addOutput(StatusBarNetworkIndicatorOutput.shared)
        return true
    }
}
// docs:end
#endif
