/// The task events' last step, on the main actor: the hop hands over what the tree took
/// (`IndicatorTree+TaskEvents.swift`), and each watching output hears its batch.
extension OutputDelivery {
    /// Tells each watching output the events of its node and below, in one batch, in order.
    func deliver(_ events: [(event: NetworkActivityTaskEvent, hearers: [IndicatorTree.NodeID])]) {
        var batches: [(output: any NetworkActivityTaskEventOutput, events: [NetworkActivityTaskEvent])] = []
        var positions: [ObjectIdentifier: Int] = [:]
        for (event, hearers) in events {
            // An output attached to a scope and to an ancestor hears each event once.
            var told = Set<ObjectIdentifier>()
            for node in hearers {
                for target in outlet(node)?.attached ?? [] where target.receivesTaskEvents {
                    guard let output = target.output as? any NetworkActivityTaskEventOutput else { continue }
                    let id = ObjectIdentifier(output)
                    guard told.insert(id).inserted else { continue }
                    if let position = positions[id] {
                        batches[position].events.append(event)
                    } else {
                        positions[id] = batches.count
                        batches.append((output, [event]))
                    }
                }
            }
        }
        for batch in batches { batch.output.networkIndicatorTasksDidChange(batch.events) }
    }
}
