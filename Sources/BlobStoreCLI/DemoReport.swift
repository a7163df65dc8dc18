import BlobStore

/// What `demo` did: the files it stored twice, the bytes put and added to disk, the values that
/// read back different, and the store's statistics after it. `demo --json` prints it with these
/// field names (`bytesSaved` is `bytesPut - bytesAdded`).
struct DemoReport: Encodable {
    /// The directory whose files were stored.
    var source: String
    /// The store's directory.
    var store: String
    /// Regular files found under ``source``.
    var files: Int
    /// Values put: two per file.
    var valuesPut: Int
    /// Bytes put, counting each value (logical).
    var bytesPut: UInt64
    /// Bytes of content no entry referred to before: new blobs.
    var bytesAdded: UInt64
    /// Values that read back different from their file.
    var mismatches: Int
    /// The store's statistics once every value was put and read back.
    var stats: StoreStats

    /// Bytes put that deduplication did not store again.
    var bytesSaved: UInt64 { bytesPut - bytesAdded }

    enum CodingKeys: String, CodingKey {
        case source, store, files, valuesPut, bytesPut, bytesAdded, bytesSaved, mismatches, stats
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(store, forKey: .store)
        try container.encode(files, forKey: .files)
        try container.encode(valuesPut, forKey: .valuesPut)
        try container.encode(bytesPut, forKey: .bytesPut)
        try container.encode(bytesAdded, forKey: .bytesAdded)
        try container.encode(bytesSaved, forKey: .bytesSaved)
        try container.encode(mismatches, forKey: .mismatches)
        try container.encode(stats, forKey: .stats)
    }
}
