import Foundation

/// A key-value store of blobs: what the disk store (``BlobStore``), the memory and disk store
/// (`CachedStore`, of `BlobStoreCache`) and the tiered store of `BlobStoreRemote` have in common,
/// so that a front-end (the typed objects of `BlobStoreCache`, the HTTP cache of
/// `BlobStoreHTTP`) runs on any of them, and a test can hand it a double.
///
/// Each key holds one value with opaque metadata and an optional expiry. A conforming type
/// returns nothing it cannot vouch for: no expired entry, and no value that fails its digest
/// (``StoredEntry/info`` names it). Every method is thread-safe; every one has an `async` form
/// that runs it off the caller's thread (``BlobStorage/entry(for:)-6zecv``).
///
/// The conveniences every storage gets from these requirements: ``value(for:)-4hc2q``,
/// ``put(_:for:metadata:expires:)-8ecn7``, get-or-compute with single flight
/// (``value(for:orInsert:metadata:expires:)-4wn9h``) and the `async` forms; with
/// `BlobStoreCache`, typed objects (`put(object:for:…)`, `object(_:for:coder:)`).
public protocol BlobStorage: AnyObject, Sendable {
    /// The unexpired entry under `key`, value and information in one read, verified; records
    /// an access where the storage keeps them. `nil` when there is none, or when its value is
    /// damaged (a damaged value is never returned).
    func entry(for key: StoreKey) throws -> StoredEntry?

    /// What the storage's lasting tier (the disk store, for a memory and disk store) knows of the
    /// unexpired entry under `key`, without reading the value or recording an access; `nil` when
    /// it has none, also for a value kept in memory only (``StoragePlacement/memoryOnly``).
    func info(for key: StoreKey) throws -> EntryInfo?

    /// Whether any tier holds an unexpired entry under `key`. Reads no value.
    func contains(_ key: StoreKey) throws -> Bool

    /// Stores `data` under `key`, replacing any entry there.
    ///
    /// - Parameters:
    ///   - data: The value; may be empty.
    ///   - key: The key.
    ///   - metadata: Opaque bytes kept with the entry.
    ///   - expires: After this date the entry reads as missing; `nil` for never.
    ///   - placement: ``StoragePlacement/memoryAndDisk``, or ``StoragePlacement/memoryOnly`` for a
    ///     value not worth a disk write (a storage without a memory tier then keeps nothing).
    /// - Returns: The SHA-256 of `data`.
    @discardableResult
    func put(_ data: Data, for key: StoreKey, metadata: Data, expires: Date?, placement: StoragePlacement) throws
        -> SHA256Digest

    /// The unexpired entry under `key` as ``entry(for:)`` reads it, except that a value larger
    /// than `maxBytes` is not read into memory: it comes opened for reading instead. `nil` as for
    /// ``entry(for:)``. The default reads every value (``entry(for:)``); the disk store opens the
    /// large ones, so a server can send a value of any size a piece at a time.
    func entry(for key: StoreKey, readingUpTo maxBytes: Int) throws -> EntryRead?

    /// Writes the value of the unexpired entry under `key` to `destination`, from its current
    /// offset, and returns the entry's information; `nil`, with nothing written, when there is
    /// none or its value is damaged. The value is verified as ``entry(for:)`` verifies it, before
    /// its first byte is written, and the access is recorded as it records it. The default reads
    /// the value whole (``entry(for:)``); the disk store copies it a piece at a time, so a large
    /// value costs no more memory than a small one.
    func writeValue(for key: StoreKey, to destination: FileHandle) throws -> EntryInfo?

    /// Stores the contents of the file at `url` under `key`, as
    /// ``put(_:for:metadata:expires:placement:)`` stores a value in memory. The default reads the
    /// file whole; the disk store streams it, so a large file costs no more memory than a small one.
    ///
    /// - Parameters:
    ///   - url: A file URL; the file is only read, and may be removed once this returns.
    ///   - key: The key.
    ///   - metadata: Opaque bytes kept with the entry.
    ///   - expires: After this date the entry reads as missing; `nil` for never.
    ///   - placement: As for ``put(_:for:metadata:expires:placement:)``.
    /// - Returns: The SHA-256 of the file's contents.
    @discardableResult
    func put(contentsOf url: URL, for key: StoreKey, metadata: Data, expires: Date?, placement: StoragePlacement)
        throws -> SHA256Digest

    /// Replaces the metadata and expiry of the entry under `key`, keeping its value; returns
    /// whether there was an entry. Writes no value where the storage can avoid it.
    @discardableResult
    func update(_ key: StoreKey, metadata: Data, expires: Date?) throws -> Bool

    /// Removes the entry under `key`; returns whether there was one.
    @discardableResult
    func remove(_ key: StoreKey) throws -> Bool

    /// Removes every entry; returns how many the lasting tier held.
    @discardableResult
    func removeAll() throws -> Int
}

extension BlobStorage {
    /// The value under `key`, or `nil` as for ``entry(for:)``.
    public func value(for key: StoreKey) throws -> Data? {
        try entry(for: key)?.value
    }

    /// The entry under `key` with its value read whole (``entry(for:)``), whatever its size.
    public func entry(for key: StoreKey, readingUpTo maxBytes: Int) throws -> EntryRead? {
        try entry(for: key).map(EntryRead.value)
    }

    /// Writes the value under `key` to `destination`, read whole by ``entry(for:)``.
    public func writeValue(for key: StoreKey, to destination: FileHandle) throws -> EntryInfo? {
        guard let found = try entry(for: key) else { return nil }
        try destination.write(contentsOf: found.value)
        return found.info
    }

    /// Stores the contents of the file at `url`, read whole, with
    /// ``put(_:for:metadata:expires:placement:)``.
    @discardableResult
    public func put(
        contentsOf url: URL, for key: StoreKey, metadata: Data, expires: Date?, placement: StoragePlacement
    ) throws -> SHA256Digest {
        try put(Data(contentsOf: url), for: key, metadata: metadata, expires: expires, placement: placement)
    }

    /// Stores `data` under `key` in every tier (``StoragePlacement/memoryAndDisk``).
    ///
    /// - Returns: The SHA-256 of `data`.
    @discardableResult
    public func put(_ data: Data, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil) throws
        -> SHA256Digest
    {
        try put(data, for: key, metadata: metadata, expires: expires, placement: .memoryAndDisk)
    }
}
