import BlobStore
import BlobStoreCache
import Foundation

/// A thumbnail cache: a `CachedStore` (a 64 KiB memory tier in front of a disk store) that
/// renders each thumbnail once, keeps its metadata as a typed object, and serves the recently
/// used ones from memory and the others from disk.
///
/// Run it with no argument (a store in a new temporary directory, removed at the end) or with
/// the directory of a store to keep: `swift run ImageCacheExample [DIR]`.
@main
struct ImageCacheExample {
    static let usage = "Usage: ImageCacheExample [DIR]"

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("-h") || arguments.contains("--help") {
            print("A thumbnail cache with a memory tier over a disk store in DIR (default: a temporary directory).")
            print(usage)
            return
        }
        guard arguments.count <= 1 else {
            FileHandle.standardError.write(Data("Error: Too many arguments.\n\(usage)\n".utf8))
            exit(64)
        }
        do {
            if let directory = arguments.first {
                try await run(storeAt: directory)
            } else {
                let scratch = FileManager.default.temporaryDirectory
                    .appendingPathComponent("image-cache-example-" + UUID().uuidString)
                // 0700: the store refuses a directory that other users may write.
                try FileManager.default.createDirectory(
                    at: scratch, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                defer { try? FileManager.default.removeItem(at: scratch) }
                try await run(storeAt: scratch.appendingPathComponent("store").path)
            }
        } catch {
            FileHandle.standardError.write(Data("Error: \(error.localizedDescription)\n".utf8))
            exit(1)
        }
    }

    /// The walk through the cache, with the store in `directory`. Each step is a function of its
    /// own: the synchronous forms are used everywhere but in the single-flight step, since inside
    /// an `async` function Swift picks the `async` overloads.
    static func run(storeAt directory: String) async throws {
        let renderer = ThumbnailRenderer()
        let disk = try BlobStore(at: directory)
        let cache = CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 64 << 10))
        print("store: \(directory)")
        print("memory tier: at most 64 KiB; a 64 × 64 RGBA thumbnail is 16 KiB")
        try getOrRender(cache, renderer)
        try await singleFlight(cache, renderer)
        try typedMetadata(cache)
        try memoryAndDiskHits(cache)
        try await disk.close()
        let reopened = try BlobStore(at: directory)
        let newCache = CachedStore(disk: reopened, memory: try MemoryTier(maxBytes: 64 << 10))
        try newProcess(newCache, renderer)
        try statistics(newCache, renderer)
        try await reopened.close()
    }

    /// Step 1: `value(for:orInsert:)` renders a thumbnail only when none is stored.
    static func getOrRender(_ cache: CachedStore, _ renderer: ThumbnailRenderer) throws {
        print("\n1. Get or render: value(for:orInsert:) renders a thumbnail only when none is stored")
        for photo in 1...6 {
            let key = StoreKey("thumb:photo-\(photo)@64")
            let pixels = try cache.value(for: key, orInsert: { renderer.render("photo-\(photo)", size: 64) })
            print("   \(key): \(pixels.count) bytes, renders so far: \(renderer.renders)")
        }
        let again = try cache.value(for: "thumb:photo-1@64", orInsert: { renderer.render("photo-1", size: 64) })
        print("   thumb:photo-1@64 again: \(again.count) bytes, renders so far: \(renderer.renders)")
    }

    /// Step 2: concurrent requests for one missing thumbnail render it once (single flight).
    static func singleFlight(_ cache: CachedStore, _ renderer: ThumbnailRenderer) async throws {
        print("\n2. Single flight: eight concurrent requests for a thumbnail that is not stored yet")
        let before = renderer.renders
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let pixels = try await cache.value(
                        for: "thumb:photo-7@64", orInsert: { try await renderer.renderSlowly("photo-7", size: 64) })
                    return pixels.count
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let distinct = Set(sizes).sorted().map(String.init).joined(separator: ", ")
        print("   thumb:photo-7@64: \(sizes.count) answers of \(distinct) bytes, renders: \(renderer.renders - before)")
    }

    /// Step 3: a thumbnail's metadata as a typed object.
    static func typedMetadata(_ cache: CachedStore) throws {
        print("\n3. Typed metadata: put(object:for:) and object(_:for:), JSON by default")
        try cache.put(object: ThumbnailInfo(photo: "photo-1", size: 64, format: "rgba8"), for: "info:photo-1@64")
        if let info = try cache.object(ThumbnailInfo.self, for: "info:photo-1@64") {
            print("   info:photo-1@64: \(info.photo), \(info.size) × \(info.size) pixels, \(info.format)")
        }
        let json = try cache.value(for: "info:photo-1@64").map { String(decoding: $0, as: UTF8.self) }
        print("   stored as \(json ?? "nothing")")
        let missing = try cache.object(ThumbnailInfo.self, for: "info:photo-9@64")
        print("   info:photo-9@64: \(missing == nil ? "nil, never stored" : "found")")
    }

    /// Step 4: which reads the memory tier answers, and which the disk store.
    static func memoryAndDiskHits(_ cache: CachedStore) throws {
        print("\n4. Memory and disk hits: the memory tier keeps the most recently used thumbnails")
        let inMemory = cache.memory?.keys.filter { $0.string.hasPrefix("thumb:") } ?? []
        print("   in memory, most recent first: \(inMemory.map(\.string).joined(separator: ", "))")
        for key: StoreKey in ["thumb:photo-7@64", "thumb:photo-2@64", "thumb:photo-2@64"] {
            print("   entry(for: \(key))?.tier: \(try tier(of: key, in: cache))")
        }
        print("   (a disk hit is copied into memory: the second read of photo-2 is a memory hit)")
    }

    /// Step 5: a store opened again, as by the next run, with an empty memory tier.
    static func newProcess(_ cache: CachedStore, _ renderer: ThumbnailRenderer) throws {
        print("\n5. The store opened again: the disk keeps every thumbnail, the new memory tier starts empty")
        let before = renderer.renders
        print("   entry(for: thumb:photo-1@64)?.tier: \(try tier(of: "thumb:photo-1@64", in: cache))")
        print("   entry(for: thumb:photo-1@64)?.tier: \(try tier(of: "thumb:photo-1@64", in: cache))")
        _ = try cache.value(for: "thumb:photo-3@64", orInsert: { renderer.render("photo-3", size: 64) })
        print("   value(for: thumb:photo-3@64, orInsert:): renders: \(renderer.renders - before)")
    }

    /// Step 6: what the tiers hold, and how many renders the cache saved.
    static func statistics(_ cache: CachedStore, _ renderer: ThumbnailRenderer) throws {
        print("\n6. Statistics")
        let avatar = try cache.value(for: "thumb:photo-1@64", orInsert: { renderer.render("photo-1", size: 64) })
        try cache.put(avatar, for: "avatar:alice@64")
        let stats = try cache.disk.stats()
        print(
            "   disk: \(stats.entries) entries in \(stats.distinctBlobs) blobs (avatar:alice@64 is photo-1's "
                + "thumbnail, stored once), \(stats.logicalBytes) bytes of values in \(stats.storedBytes) bytes on disk"
        )
        print("   disk reads since the store was opened again: \(stats.hits) hits, \(stats.misses) misses")
        if let memory = cache.memory {
            print("   memory: \(memory.count) entries, \(memory.totalCost) of \(memory.limits.maxBytes) bytes")
        }
        print("   renders: \(renderer.renders) in all, for 7 thumbnails")
    }

    /// Where `cache` finds `key`: `memory` or `disk`, or `nil` when it has no such entry.
    static func tier(of key: StoreKey, in cache: CachedStore) throws -> String {
        try cache.entry(for: key).map { "\($0.tier)" } ?? "nil"
    }
}
