/// What ``BlobStore/verify(repair:progress:)-i6ta`` checked and found, step by step (modelled on
/// cacache's verify report).
public struct VerifyReport: Sendable, Equatable, Codable {
    /// One step of the check: what it looked at, how much, and how long it took.
    public struct Step: Sendable, Equatable, Codable {
        /// `"index"`, `"blobs"`, `"entries"` or `"repair"`.
        public var name: String
        /// Items looked at (records, blob files, entries, repairs).
        public var count: Int
        /// Bytes looked at.
        public var bytes: UInt64
        public var seconds: Double

        public init(name: String, count: Int, bytes: UInt64, seconds: Double) {
            self.name = name
            self.count = count
            self.bytes = bytes
            self.seconds = seconds
        }
    }

    /// A file under `blobs/` whose bytes do not hash to its name (or whose size is wrong).
    public struct CorruptBlob: Sendable, Equatable, Codable {
        public var digest: SHA256Digest
        /// The file's absolute path.
        public var path: String
        /// What was wrong: `"content does not hash to its name"`, `"size N, expected M"`, …
        public var reason: String
        /// The keys that referred to it.
        public var keys: [String]

        public init(digest: SHA256Digest, path: String, reason: String, keys: [String]) {
            self.digest = digest
            self.path = path
            self.reason = reason
            self.keys = keys
        }
    }

    /// An entry whose blob file does not exist.
    public struct MissingBlob: Sendable, Equatable, Codable {
        public var digest: SHA256Digest
        public var keys: [String]

        public init(digest: SHA256Digest, keys: [String]) {
            self.digest = digest
            self.keys = keys
        }
    }

    public var steps: [Step] = []
    /// Entries and distinct blobs in the index.
    public var entries = 0
    public var referencedBlobs = 0
    /// Blob files rehashed, and their bytes.
    public var blobsChecked = 0
    public var bytesChecked: UInt64 = 0
    public var corruptBlobs: [CorruptBlob] = []
    public var missingBlobs: [MissingBlob] = []
    /// Sound blob files no entry refers to: not damage, garbage that `gc` deletes.
    public var unreferencedBlobs = 0
    public var unreferencedBytes: UInt64 = 0
    /// Absolute paths inside the store that do not belong there (wrong names, wrong places, links
    /// and other file types under `blobs/`, unknown names at the top), sorted.
    public var strayFiles: [String] = []
    /// What opening the store found in its manifest and journal.
    public var recovery = RecoveryReport()
    /// With `repair`: blobs moved to `quarantine/`, entries dropped, stray files moved.
    public var quarantinedBlobs = 0
    public var droppedEntries = 0
    public var quarantinedStrayFiles = 0
    public var seconds: Double = 0

    public init() {}

    /// `true` when nothing damaged or out of place was found (unreferenced blobs are garbage,
    /// not damage, and do not count).
    public var isClean: Bool {
        corruptBlobs.isEmpty && missingBlobs.isEmpty && strayFiles.isEmpty && recovery.isClean
    }
}
