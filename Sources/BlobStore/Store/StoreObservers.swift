import Synchronization

/// The streams ``BlobStore/events(bufferingPolicy:)`` handed out, and the one way events reach
/// them. Publishing costs one atomic load when nobody listens.
final class StoreObservers: Sendable {
    private let continuations = Mutex<[Int: AsyncStream<StoreEvent>.Continuation]>([:])
    private let nextID = Atomic(0)
    private let count = Atomic(0)

    /// A new stream of the events published from now on; it ends when its consumer stops
    /// iterating (the stream is dropped or its task cancelled).
    func stream(bufferingPolicy: AsyncStream<StoreEvent>.Continuation.BufferingPolicy) -> AsyncStream<StoreEvent> {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let (stream, continuation) = AsyncStream.makeStream(of: StoreEvent.self, bufferingPolicy: bufferingPolicy)
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        continuations.withLock { $0[id] = continuation }
        count.add(1, ordering: .relaxed)
        return stream
    }

    /// Whether any stream is listening.
    var isObserved: Bool { count.load(ordering: .relaxed) > 0 }

    /// Hands `events` to every stream, in order.
    func publish(_ events: @autoclosure () -> [StoreEvent]) {
        guard isObserved else { return }
        let events = events()
        let targets = continuations.withLock { Array($0.values) }
        for continuation in targets {
            for event in events { continuation.yield(event) }
        }
    }

    /// Ends every stream (the store closed); each removes itself as it terminates.
    func finishAll() {
        let targets = continuations.withLock { Array($0.values) }
        for continuation in targets { continuation.finish() }
    }

    private func remove(_ id: Int) {
        if continuations.withLock({ $0.removeValue(forKey: id) }) != nil { count.add(-1, ordering: .relaxed) }
    }
}
