import Foundation
import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession loads tracked for their whole life, with a terminal spinner on standard error.
enum URLSessionExample {
    @MainActor
    static func run(urls arguments: [String]) async {
        let urls = (arguments.isEmpty ? ["https://www.swift.org"] : arguments).compactMap(URL.init(string:))
        let manager = NetworkIndicatorManager()
        let spinner = TerminalSpinnerOutput(label: "Fetching \(urls.count) URL(s)")
        manager.addOutput(spinner)
        let session = URLSession(configuration: .ephemeral)

        await withTaskGroup(of: String.self) { group in
            for url in urls {
                group.addTask {
                    do {
                        let (data, response) = try await session.data(from: url, tracking: manager)
                        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                        return "\(url): HTTP \(status), \(data.count) bytes"
                    } catch {
                        return "\(url): \(error.localizedDescription)"
                    }
                }
            }
            for await line in group {
                spinner.printLine(line)
            }
        }
        await waitUntilIndicatorHidden(manager)
        session.finishTasksAndInvalidate()
        withExtendedLifetime(spinner) {}  // the manager holds its outputs weakly
    }
}
