import Foundation
import Synchronization

@testable import BlobStore

/// A ``BlobStorage`` a user could write for their own tests: a dictionary behind a mutex. It
/// proves that the front-ends need nothing but the protocol, and counts the calls made to it.
/// `blockReads` makes every read wait until `releaseReads()` (for cancellation tests).
final class DictionaryStorage: BlobStorage {
    private struct State {
        var entries: [StoreKey: (value: Data, info: EntryInfo)] = [:]
        var puts = 0
        var readsBlocked = false
    }

    private let state = Mutex(State())
    private let readGate = NSCondition()

    /// How many puts it took.
    var puts: Int { state.withLock { $0.puts } }

    /// Makes reads wait until ``releaseReads()``.
    func blockReads() { state.withLock { $0.readsBlocked = true } }

    /// Lets blocked reads go on.
    func releaseReads() {
        readGate.lock()
        state.withLock { $0.readsBlocked = false }
        readGate.broadcast()
        readGate.unlock()
    }

    func entry(for key: StoreKey) throws -> StoredEntry? {
        readGate.lock()
        while state.withLock({ $0.readsBlocked }) { readGate.wait() }
        readGate.unlock()
        return state.withLock { state in
            guard let found = state.entries[key], !(found.info.expires.map { $0 <= Date() } ?? false) else {
                return nil
            }
            return StoredEntry(info: found.info, value: found.value, tier: .memory)
        }
    }

    func info(for key: StoreKey) throws -> EntryInfo? {
        try entry(for: key)?.info
    }

    func contains(_ key: StoreKey) throws -> Bool {
        try entry(for: key) != nil
    }

    func put(_ data: Data, for key: StoreKey, metadata: Data, expires: Date?, placement: StoragePlacement) throws
        -> SHA256Digest
    {
        let digest = SHA256Hasher.hash(data)
        let info = EntryInfo(
            key: key, digest: digest, size: UInt64(data.count), created: Date(), lastAccess: Date(), expires: expires,
            metadata: metadata)
        state.withLock { state in
            state.puts += 1
            state.entries[key] = (data, info)
        }
        return digest
    }

    func update(_ key: StoreKey, metadata: Data, expires: Date?) throws -> Bool {
        state.withLock { state in
            guard var found = state.entries[key] else { return false }
            found.info.metadata = metadata
            found.info.expires = expires
            state.entries[key] = found
            return true
        }
    }

    func remove(_ key: StoreKey) throws -> Bool {
        state.withLock { $0.entries.removeValue(forKey: key) != nil }
    }

    func removeAll() throws -> Int {
        state.withLock { state in
            defer { state.entries = [:] }
            return state.entries.count
        }
    }
}
