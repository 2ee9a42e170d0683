import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI

/// A screen whose work is an `AsyncSequence`: the event stream counts as one task in the
/// screen's scope ("Live") from its first element's request until it ends or the view goes away.
@MainActor
struct LiveEventsView: View {
    var body: some View {
        EventList()
            .navigationTitle("Live events")
            .networkActivityOverlay(label: "Listening")
            .networkActivityScope("Live")
    }
}

/// Inside the scope, so that the environment's manager is the "Live" child.
@MainActor
private struct EventList: View {
    @Environment(\.networkIndicator) private var networkIndicator
    @State private var events: [SimulatedAPI.Event] = []
    @State private var run = 0

    var body: some View {
        List {
            Section {
                Button("Listen again") { run += 1 }
            }
            Section("Events") {
                ForEach(events) { Text($0.text) }
            }
        }
        .task(id: run) {
            events = []
            do {
                let tracked = SimulatedAPI.events().trackingNetworkActivity(in: networkIndicator, label: "events")
                for try await event in tracked {
                    events.append(event)
                }
            } catch {
                // Cancelled: the view went away or the user listens again.
            }
        }
    }
}
