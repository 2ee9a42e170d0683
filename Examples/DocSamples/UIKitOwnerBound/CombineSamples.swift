#if canImport(UIKit) && canImport(Combine)
import Combine
import NetworkIndicator
import UIKit

// docs:begin uikit-combine
final class DownloadsTabController: UIViewController {
    private var cancellables: Set<AnyCancellable> = []

    override func viewDidLoad() {
        super.viewDidLoad()
        NetworkIndicatorManager.shared.activeTaskCountPublisher
            .map { $0 > 0 ? "\($0)" : nil }
            .sink { [weak self] badge in self?.tabBarItem.badgeValue = badge }
            .store(in: &cancellables)
        NetworkIndicatorManager.shared.visibilityPublisher
            .removeDuplicates()
            .sink { [weak self] isVisible in self?.view.alpha = isVisible ? 0.8 : 1 }
            .store(in: &cancellables)
    }
}
// docs:end
#endif
