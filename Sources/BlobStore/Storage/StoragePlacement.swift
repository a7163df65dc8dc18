/// Where a ``BlobStorage`` keeps a value it is given.
public enum StoragePlacement: Sendable, Equatable {
    /// In the lasting tier (the disk store), and in memory when the storage has a memory tier and
    /// the value fits.
    case memoryAndDisk
    /// In memory only, for a value not worth a disk write: any entry under the key in a lasting
    /// tier is removed, so that no older value outlives it there. A storage without a memory tier
    /// keeps nothing.
    case memoryOnly
}
