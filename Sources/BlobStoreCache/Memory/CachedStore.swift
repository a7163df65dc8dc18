import BlobStore
import Foundation
import Synchronization

/// A `BlobStore` with an optional ``MemoryTier`` in front of it: a `BlobStorage` whose reads
/// look in memory first.
///
/// A memory hit on an entry the disk holds too records an access there, so the disk tier's
/// eviction order sees it. A disk hit is copied into memory when it fits, or when the tier
/// admits it in place of its least recently used entry (``MemoryTier/admit(_:for:)``: asked for
/// more often lately). Writes go to both
/// tiers, or to memory only (`StoragePlacement.memoryOnly`) for values not worth a disk write.
///
/// The memory tier belongs to this process; each memory hit is checked against the disk entry
/// (the same digest, metadata and expiry, as the hit's access is recorded there), so a value
/// another process overwrote or removed is never served from memory: the read goes to disk.
/// A server answering thousands of hits a second on a few hot keys can trade that for speed
/// with a recheck interval: a hit within the interval of its last check is served without asking
/// the disk store (whose lock every thread would otherwise take on every hit), so another
/// process's change is seen up to that much later, and hot entries' accesses are recorded once
/// per interval. This process's own writes are always seen at once.
///
/// ```swift
/// let disk = try BlobStore(at: "/var/cache/myapp")
/// let cache = CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 64 << 20))
/// try cache.put(Data("hello".utf8), for: "greeting")
/// let hit = try cache.entry(for: "greeting")  // hit?.tier == .memory
/// ```
public final class CachedStore: BlobStorage, EntryOpener {
    /// The disk store.
    public let disk: BlobStore
    /// The memory tier, or `nil` to read and write the disk store only.
    public let memory: MemoryTier?
    /// Held while a value is copied into memory after a disk write or read, so that a slower
    /// thread cannot put back a value that a faster one replaced.
    private let memoryWrites = Mutex(())
    /// How long a memory hit checked against the disk store is served without checking again.
    public let recheckInterval: Duration

    /// A cache over `disk`.
    ///
    /// - Parameters:
    ///   - disk: The store that keeps values across runs.
    ///   - memory: The memory tier in front of it, or `nil` for none.
    ///   - recheckInterval: How long a memory hit found current on disk is served without
    ///     checking again. Default zero: every hit is checked.
    public init(disk: BlobStore, memory: MemoryTier? = nil, recheckInterval: Duration = .zero) {
        self.disk = disk
        self.memory = memory
        self.recheckInterval = recheckInterval
    }

    // MARK: - Writing

    /// Stores `data` under `key`, replacing any previous value in both tiers.
    ///
    /// - Parameters:
    ///   - data: The value; may be empty.
    ///   - key: Any bytes up to 16 MiB.
    ///   - metadata: Opaque bytes kept with the entry.
    ///   - expires: After this date the entry reads as missing in both tiers.
    ///   - placement: Both tiers (the default) or memory only.
    /// - Returns: The SHA-256 of `data`.
    /// - Throws: `BlobStoreError` from the disk store.
    @discardableResult
    public func put(
        _ data: Data, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil,
        placement: StoragePlacement = .memoryAndDisk
    ) throws -> SHA256Digest {
        switch placement {
        case .memoryAndDisk:
            // Dropped first, so that a failed disk write leaves no older value in memory.
            memory?.remove(key)
            let digest = try disk.put(data, for: key, metadata: metadata, expires: expires, expecting: nil)
            try remember(
                MemoryEntry(value: data, metadata: metadata, expires: expires, isOnDisk: true, digest: digest), for: key
            )
            return digest
        case .memoryOnly:
            if try disk.contains(key) { try disk.remove(key) }
            let entry = MemoryEntry(value: data, metadata: metadata, expires: expires, isOnDisk: false)
            try remember(entry, for: key)
            return entry.digest
        }
    }

    /// Stores the file at `url` under `key`: on disk streamed (`BlobStore.put(contentsOf:for:metadata:expires:)`),
    /// without a copy in memory (a value stored from a file is typically too large to be worth
    /// it; a read of it puts it there as the tier admits a disk hit); for
    /// `StoragePlacement.memoryOnly`, read whole into the memory tier when it fits there, else
    /// kept nowhere (and the entry under `key` removed).
    ///
    /// - Returns: The SHA-256 of the file's contents.
    /// - Throws: `BlobStoreError` from the disk store, or the error reading the file.
    @discardableResult
    public func put(
        contentsOf url: URL, for key: StoreKey, metadata: Data, expires: Date?, placement: StoragePlacement
    ) throws -> SHA256Digest {
        switch placement {
        case .memoryAndDisk:
            memory?.remove(key)
            return try disk.put(contentsOf: url, for: key, metadata: metadata, expires: expires)
        case .memoryOnly:
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? Int.max
            if let memory, size <= memory.limits.maxBytes {
                return try put(
                    Data(contentsOf: url), for: key, metadata: metadata, expires: expires, placement: placement)
            }
            // Larger than the memory tier: kept nowhere, and no older value outlives it.
            memory?.remove(key)
            if try disk.contains(key) { try disk.remove(key) }
            return try SHA256Hasher.hash(contentsOf: url)
        }
    }

    /// Removes `key` from both tiers; returns whether either held it.
    @discardableResult
    public func remove(_ key: StoreKey) throws -> Bool {
        let inMemory = memory?.remove(key) ?? false
        let onDisk = try disk.remove(key)
        return inMemory || onDisk
    }

    /// Replaces `key`'s metadata and expiry in both tiers, keeping its value; returns whether
    /// either tier held it. On disk no blob is read or written (`BlobStore.update(_:metadata:expires:)`);
    /// the memory copy of a disk entry is dropped first (the next read takes the new one from
    /// disk), and a memory-only entry is changed in memory.
    @discardableResult
    public func update(_ key: StoreKey, metadata: Data, expires: Date?) throws -> Bool {
        if let memory, let hit = memory.entry(for: key), !hit.isOnDisk {
            return memory.insert(
                MemoryEntry(value: hit.value, metadata: metadata, expires: expires, isOnDisk: false), for: key)
        }
        memory?.remove(key)
        return try disk.update(key, metadata: metadata, expires: expires)
    }

    /// Removes every entry from both tiers; returns how many the disk store held
    /// (`BlobStore.removeAll()`).
    @discardableResult
    public func removeAll() throws -> Int {
        memory?.removeAll()
        return try disk.removeAll()
    }

    // MARK: - Reading

    /// The value under `key` with its metadata and expiry, from memory when it is there, else
    /// from disk (then kept in memory as the tier admits it); `nil` when neither tier has an unexpired
    /// entry.
    ///
    /// A memory hit on an entry the disk holds too records an access in the disk store; when the
    /// disk store no longer has the same entry (another process removed or overwrote it, or
    /// changed its metadata), the memory entry is dropped and the entry is read from disk (a miss
    /// when the disk has none). A disk read is verified as `BlobStore.blob(_:)` verifies,
    /// and a damaged blob is a miss.
    ///
    /// - Throws: `BlobStoreError` from the disk store.
    public func entry(for key: StoreKey) throws -> StoredEntry? {
        if let hit = try memoryHit(for: key) {
            return StoredEntry(info: hit.info(for: key), value: hit.value, tier: .memory)
        }
        guard let stored = try disk.entry(for: key) else { return nil }
        try remember(stored, for: key)
        return stored
    }

    /// Keeps a disk hit in memory if the tier admits it (``MemoryTier/admit(_:for:)``), with what a
    /// reader made of its metadata when there is that (the tier keeps the entry without it when
    /// only that fits), as ``remember(_:for:admitting:)`` keeps an entry.
    private func remember(_ stored: StoredEntry, for key: StoreKey, decoded: (any DecodedMetadata)? = nil) throws {
        let info = stored.info
        var entry = MemoryEntry(
            value: stored.value, metadata: info.metadata, expires: info.expires, isOnDisk: true,
            digest: info.digest, created: info.created)
        entry.decoded = decoded
        try remember(entry, for: key, admitting: true)
    }

    /// The entry under `key` from memory when it is there (checked as ``entry(for:)`` checks a
    /// memory hit), else from disk (`BlobStore.entry(for:readingUpTo:)`): a value up to
    /// `maxBytes` read and kept in memory as the tier admits it, a larger one opened and not kept.
    public func entry(for key: StoreKey, readingUpTo maxBytes: Int) throws -> EntryRead? {
        try entryVerifyingNow(for: key, readingUpTo: maxBytes)
    }

    /// ``entry(for:readingUpTo:)`` for a reader that verifies a large value where it chooses
    /// (`BlobStore.entryOpening(for:readingUpTo:)`): a value in a file of its own on disk comes
    /// back opened, its verification still to do.
    package func entryOpening(for key: StoreKey, readingUpTo maxBytes: Int) throws -> EntryOpening? {
        try entryOpening(for: key, readingUpTo: maxBytes, decoding: { _ in nil })?.opening
    }

    /// ``entryOpening(for:readingUpTo:)``, with what `decode` makes of the entry's metadata, made
    /// once per entry held in memory: kept with the memory tier's entry
    /// (``MemoryTier/attach(_:to:madeFrom:)``) and handed back at each hit on it, so that a hit
    /// on any entry the tier holds costs no decoding, however many entries that is.
    package func entryOpening(
        for key: StoreKey, readingUpTo maxBytes: Int, decoding decode: (Data) -> (any DecodedMetadata)?
    ) throws -> (opening: EntryOpening, decoded: (any DecodedMetadata)?)? {
        if let hit = try memoryHit(for: key) {
            let opening = EntryOpening.read(
                .value(StoredEntry(info: hit.info(for: key), value: hit.value, tier: .memory)))
            if let known = hit.decoded { return (opening, known) }
            let decoded = decode(hit.metadata)
            if let decoded, let memory { memory.attach(decoded, to: key, madeFrom: hit) }
            return (opening, decoded)
        }
        guard let opening = try disk.entryOpening(for: key, readingUpTo: maxBytes) else { return nil }
        let decoded = decode(opening.info.metadata)
        if case .read(.value(let stored)) = opening { try remember(stored, for: key, decoded: decoded) }
        return (opening, decoded)
    }

    /// Writes the value under `key` to `destination` from memory when it is there (checked as
    /// ``entry(for:)`` checks a memory hit), else from disk a piece at a time
    /// (`BlobStore.writeValue(for:to:)`), without keeping it in memory: a value read this way is
    /// typically too large to be worth it.
    public func writeValue(for key: StoreKey, to destination: FileHandle) throws -> EntryInfo? {
        if let hit = try memoryHit(for: key) {
            try destination.write(contentsOf: hit.value)
            return hit.info(for: key)
        }
        return try disk.writeValue(for: key, to: destination)
    }

    /// The memory tier's entry under `key` if it may be served: a memory-only one, or one the
    /// disk still holds unchanged (asked at most once per ``recheckInterval``). A hit the disk
    /// no longer holds is dropped.
    private func memoryHit(for key: StoreKey) throws -> MemoryEntry? {
        guard let memory, let hit = memory.entry(for: key) else { return nil }
        let now = MonotonicInstant.now
        if !hit.isOnDisk || hit.checked.map({ now - $0 < recheckInterval }) == true { return hit }
        if try isCurrent(hit, key) {
            if recheckInterval > .zero { memory.noteChecked(key, digest: hit.digest, at: now) }
            return hit
        }
        memory.remove(key)
        return nil
    }

    /// What the disk store knows of `key` (`BlobStore.info(for:)`); `nil` for a value kept
    /// in memory only.
    public func info(for key: StoreKey) throws -> EntryInfo? {
        try disk.info(for: key)
    }

    /// Whether either tier has an unexpired entry under `key`. Reads no value, records no access.
    public func contains(_ key: StoreKey) throws -> Bool {
        if memory?.contains(key) == true { return true }
        return try disk.contains(key)
    }

    /// Whether the disk still holds the entry a memory hit was made from (recording the access
    /// there): the same digest, metadata and expiry. Another process may have overwritten or
    /// removed it since.
    private func isCurrent(_ hit: MemoryEntry, _ key: StoreKey) throws -> Bool {
        try disk.touch(key, ifUnchanged: hit.digest, metadata: hit.metadata, expires: hit.expires)
    }

    /// Keeps `entry` in memory if the disk still holds what it was made from: the entry with its
    /// digest and the same metadata, or, for a memory-only value, no entry. Checked and inserted
    /// under one lock, so that of two racing writers (or a reader and a writer) the memory tier
    /// ends with the value the disk ends with, or none. A value read from disk (`admitting`) is
    /// kept only as ``MemoryTier/admit(_:for:)`` decides; a value put, always.
    private func remember(_ entry: MemoryEntry, for key: StoreKey, admitting: Bool = false) throws {
        guard let memory else { return }
        try memoryWrites.withLock { _ in
            let matching = try disk.entry(key, holds: entry.digest, metadata: entry.metadata)
            if entry.isOnDisk {
                guard matching == true else {
                    memory.remove(key)
                    return
                }
            } else if matching != nil {
                return
            }
            if admitting { memory.admit(entry, for: key) } else { memory.insert(entry, for: key) }
        }
    }
}
