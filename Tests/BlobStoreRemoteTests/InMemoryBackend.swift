import BlobStore
import BlobStoreRemote
import Foundation
import Synchronization

/// A remote that is a dictionary in this process: for what ``TieredStore`` does with a remote,
/// without a server. `blockRecords()` makes record reads wait until `releaseRecords()`.
final class InMemoryBackend: RemoteBackend {
    private struct State {
        var blobs: [SHA256Digest: Data] = [:]
        var records: [SHA256Digest: Data] = [:]
        var recordsBlocked = false
    }

    private let state = Mutex(State())
    private let gate = NSCondition()

    var name: String { "memory://test" }
    var maximumValueSize: Int { .max }

    /// How many records it holds.
    var recordCount: Int { state.withLock { $0.records.count } }

    func blockRecords() { state.withLock { $0.recordsBlocked = true } }

    func releaseRecords() {
        gate.lock()
        state.withLock { $0.recordsBlocked = false }
        gate.broadcast()
        gate.unlock()
    }

    func containsBlob(_ digest: SHA256Digest) throws -> Bool {
        state.withLock { $0.blobs[digest] != nil }
    }

    func blob(_ digest: SHA256Digest, maximumSize: Int) throws -> Data? {
        try state.withLock { state in
            guard let data = state.blobs[digest] else { return nil }
            if data.count > maximumSize { throw BlobStoreError(.tooLarge, "larger than \(maximumSize)") }
            return data
        }
    }

    func putBlob(_ data: Data, digest: SHA256Digest) throws {
        state.withLock { $0.blobs[digest] = data }
    }

    func record(_ keyDigest: SHA256Digest, maximumSize: Int) throws -> Data? {
        gate.lock()
        while state.withLock({ $0.recordsBlocked }) { gate.wait() }
        gate.unlock()
        return state.withLock { $0.records[keyDigest] }
    }

    func putRecord(_ record: Data, keyDigest: SHA256Digest) throws {
        state.withLock { $0.records[keyDigest] = record }
    }

    func removeRecord(_ keyDigest: SHA256Digest) throws {
        _ = state.withLock { $0.records.removeValue(forKey: keyDigest) }
    }
}
