// Apple APIs used, with the availability Apple's documentation gives:
// - Combine (PassthroughSubject, Deferred, AnyPublisher, handleEvents, subscribe(on:),
//   eraseToAnyPublisher), DispatchQueue as a Combine Scheduler: iOS 13.0+, macOS 10.15+,
//   tvOS 13.0+, watchOS 6.0+, the package's floor.
#if canImport(Combine)
public import Combine
import Dispatch

extension NetworkIndicatorManager {
    /// A Combine publisher of the indicator's visibility: the current value first, then every
    /// change, as the outputs are told, for apps built on Combine.
    ///
    /// ```swift
    /// manager.visibilityPublisher
    ///     .sink { [weak self] isVisible in self?.spinner.isHidden = !isVisible }
    ///     .store(in: &cancellables)
    /// ```
    ///
    /// Each subscription is an owner-bound ``observeVisibility(owner:_:)`` of its own, made on
    /// the main queue: values arrive on the main thread, the first (the current value, whatever
    /// thread subscribed) a few main-queue hops after the subscription. Cancelling the subscription (or releasing its `AnyCancellable`) ends it; it never
    /// keeps the manager alive, and when the manager is deallocated it sends `false` (if the
    /// indicator was showing) and nothing more, without completing. Subscribe from any thread.
    public var visibilityPublisher: AnyPublisher<Bool, Never> {
        publisher { manager, lifetime, subject in
            manager.observeVisibility(owner: lifetime) { _, isVisible in subject.send(isVisible) }
        }
    }

    /// A Combine publisher of the number of active tasks: the last reconciled count first, then
    /// each new count, coalesced as for ``observeActiveTaskCount(_:)``.
    ///
    /// ```swift
    /// manager.activeTaskCountPublisher
    ///     .map { $0 > 0 ? "\($0)" : nil }
    ///     .assign(to: \.badgeValue, on: tabBarItem)
    ///     .store(in: &cancellables)
    /// ```
    ///
    /// Each subscription is an owner-bound ``observeActiveTaskCount(owner:_:)`` of its own, made
    /// on the main queue: values arrive on the main thread, and while it lives every change of
    /// the count asks for a main-queue hop. Cancelling the subscription ends it; it never keeps
    /// the manager alive and does not complete. Subscribe from any thread: the count still
    /// comes first, on the main thread.
    public var activeTaskCountPublisher: AnyPublisher<Int, Never> {
        publisher { manager, lifetime, subject in
            manager.observeActiveTaskCount(owner: lifetime) { _, count in subject.send(count) }
        }
    }

    /// A publisher whose every subscription gets a subject of its own, fed by an observation
    /// that `observe` makes on the main queue, bound to a lifetime that the subscription keeps
    /// until it is cancelled.
    ///
    /// The observation tells its current value at once, and a `PassthroughSubject` drops what
    /// is sent before its subscriber has asked for it. So the observation starts on the
    /// subscriber's first request, and requests run on the main queue (`subscribe(on:)`): the
    /// request reaches the subject in that main-queue job, before the hop that starts the
    /// observation, whatever thread subscribed.
    private func publisher<Value>(
        _ observe:
            @escaping @MainActor (NetworkIndicatorManager, CombineSubscriptionLifetime, SubjectBox<Value>) -> Void
    ) -> AnyPublisher<Value, Never> {
        Deferred { [weak self] () -> AnyPublisher<Value, Never> in
            let subject = SubjectBox<Value>()
            let lifetime = CombineSubscriptionLifetime()
            return subject.subject
                .handleEvents(
                    // Holds the lifetime until the subscription ends; then the observation ends
                    // at its next call, finding its owner gone.
                    receiveCancel: { lifetime.cancel() },
                    receiveRequest: { [weak self] _ in
                        guard lifetime.start() else { return }
                        self?.driver.scheduler.enqueue { [weak self] in
                            guard let self, !lifetime.isCancelled else { return }
                            observe(self, lifetime, subject)
                        }
                    }
                )
                .eraseToAnyPublisher()
        }
        .subscribe(on: DispatchQueue.main)
        .eraseToAnyPublisher()
    }
}

/// The owner of one Combine subscription's observation: alive while the subscription is.
final class CombineSubscriptionLifetime: Sendable {
    private let cancelled = LockedState(false)
    private let started = LockedState(false)

    var isCancelled: Bool { cancelled.withLock { $0 } }

    func cancel() { cancelled.withLock { $0 = true } }

    /// `true` the first time only: the observation starts once, at the first request.
    func start() -> Bool {
        started.withLock { started in
            defer { started = true }
            return !started
        }
    }
}

/// One subscription's subject, handed from the subscribing thread to the main queue.
///
/// `@unchecked Sendable`: the subject is made on the subscribing thread and afterwards only
/// sent to, on the main actor; Combine's subjects guard their subscribers with a lock of their
/// own, so a send on the main thread while the subscriber attaches on another is supported.
final class SubjectBox<Value>: @unchecked Sendable {
    let subject = PassthroughSubject<Value, Never>()

    func send(_ value: Value) { subject.send(value) }
}
#endif
