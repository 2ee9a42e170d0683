import Foundation
import NetworkIndicator

/// `swift run NetworkIndicatorDemo` runs the offline demo.
@main
enum NetworkIndicatorDemo {
    @MainActor
    static func main() async {
        await runOfflineDemo()
    }
}
