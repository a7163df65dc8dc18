/// The index: key → entry, digest → references, size and location (and a chunked value's
/// recipe), pack → usage, and running totals. It is the compacted manifest, read in place (``ManifestTable``), with the changes the
/// journal made since held in memory. Opening a store never walks the blob directories or the
/// packs; every size is here.
///
/// Totals use wrapping arithmetic: sizes come from the journal, and a record with a valid
/// checksum but an absurd size must not trap the process (adds and subtracts still cancel).
struct StoreIndex: Sendable {
    /// A distinct blob and how many references it has: keys that refer to it, and the chunks of
    /// live recipes that name it (once per occurrence).
    struct BlobReference: Equatable, Sendable {
        var referenceCount: Int
        var size: UInt64
        /// This process wrote the blob or checked its digest; until then a put that reuses it
        /// hashes it first (a replayed journal says nothing about the file's health).
        var isVerified = false
        /// A file of its own, a needle in a pack, or chunks (each a blob of its own).
        var location: BlobLocation = .loose

        /// The disk the blob takes: whole blocks for a loose file, the needle for a packed one,
        /// nothing for a chunked one (its chunks count, each once).
        var allocatedBytes: UInt64 { StoreIndex.allocatedBytes(size: size, location: location) }
    }

    /// The unit in which file systems allocate a loose blob's space (ext4, XFS and btrfs use 4 KiB
    /// blocks by default); docs/design.md, "Disk use".
    static let blockSize: UInt64 = 4096

    /// The disk a blob of `size` bytes takes at `location`.
    static func allocatedBytes(size: UInt64, location: BlobLocation) -> UInt64 {
        switch location {
        case .loose: size == 0 ? 0 : ((size &- 1) / blockSize &+ 1) &* blockSize
        case .packed: PackFormat.needleSize(size)
        case .chunked: 0
        }
    }

    /// One key and its entry, stored once in ``records``.
    struct Record: Sendable {
        var key: StoreKey
        var entry: IndexEntry
    }

    /// The compacted generation's manifest, read in place; `nil` without one (or for a format-1
    /// manifest, whose entries are decoded into ``records``). Everything below is a change on
    /// top of it, made by the journal since (docs/design.md, "The index").
    private(set) var base: ManifestTable?
    /// The entries the journal added or changed since the manifest, densely and in no particular
    /// order. A key's place is in ``positions``; a removal moves the last record into the hole. A
    /// hash table keeps its buckets at most 3/4 full, so buckets of a 4-byte position instead of a
    /// whole entry save about 100 bytes of memory per entry (docs/design.md, "Memory").
    private var records: ContiguousArray<Record> = []
    private var positions: [StoreKey: UInt32] = [:]
    /// Keys of the manifest that ``records`` replaces or that were removed: the manifest's entry
    /// for them is not read.
    private var shadowed: Set<StoreKey> = []
    /// Access times of manifest entries that are later than the manifest's, by key; an access
    /// needs no lookup of the entry. A key here that the manifest lacks or that is shadowed is
    /// never read.
    private var baseAccess: [StoreKey: Int64] = [:]
    /// Blobs whose references changed since the manifest (all blobs, without one). A count of 0
    /// hides the manifest's blob: nothing refers to it any more.
    private var changedBlobs: [SHA256Digest: BlobReference] = [:]
    /// The recipes of chunked values the changes made live (with the manifest's chunk
    /// references, or in place of them); the manifest's own are in its blob blocks
    /// (``recipe(_:)``).
    private var recipes: [SHA256Digest: ChunkRecipe] = [:]
    /// Recipes of the manifest decoded lately for reads (``readableRecipe(_:)``), so that reads
    /// of one large value, a range at a time, decode its recipe once; at most
    /// ``decodedChunkLimit`` chunks in all. A manifest's recipe never changes: one the journal
    /// replaced or released is in ``recipes`` or not live, and is never looked up here.
    private var decodedRecipes: [SHA256Digest: ChunkRecipe] = [:]
    private var decodedChunks = 0
    static let decodedChunkLimit = 1 << 18
    /// Blobs of the manifest, not among the changes, that this process has verified (a set, so
    /// that a verified read of one needs no blob lookup).
    private var verifiedBaseBlobs: Set<SHA256Digest> = []
    /// Live entries.
    private(set) var count = 0
    /// Distinct blobs that some entry or live recipe refers to (a chunked value and each of its
    /// distinct chunks count).
    private(set) var distinctBlobs = 0
    /// Sum of the sizes of all entries (a blob shared by two keys counts twice).
    private(set) var logicalBytes: UInt64 = 0
    /// The disk the referenced loose blobs take (``BlobReference/allocatedBytes``).
    private(set) var looseBytes: UInt64 = 0
    /// Every pack this index has seen a needle or a size for, by number.
    private(set) var packs: [UInt32: PackUsage] = [:]
    /// One more than the highest pack number seen: the next pack a writer creates. Pack numbers
    /// are never reused, so a process that still maps a deleted pack never mistakes a new file
    /// for it.
    private(set) var nextPack: UInt32 = 1
    /// The sizes of the packs that count against the capacity: those with a live needle (dead
    /// needles in them included). A pack with nothing live is deleted by the next eviction
    /// round, compaction or gc (``deadPacks``).
    private(set) var countedPackBytes: UInt64 = 0
    /// Bytes of referenced needles in all packs.
    private(set) var livePackBytes: UInt64 = 0
    /// The disk the referenced blobs take: loose blobs in whole blocks, packs whole (dead needles
    /// included) while anything in them is live.
    var storedBytes: UInt64 { looseBytes &+ countedPackBytes }
    /// Dead bytes in the counted packs: what repacking could give back.
    var deadPackBytes: UInt64 { countedPackBytes &- livePackBytes }
    /// The pack writers append to (the newest), or `nil` before the first.
    var activePack: UInt32? { nextPack > 1 ? nextPack - 1 : nil }
    /// Loose blobs whose last reference this index saw go (overwrite, remove, eviction), with
    /// the disk they take: deleted by the next eviction round or compaction, unless referenced
    /// again first. Some may be gone already (another process deleted them). Packed blobs leave
    /// dead needles instead, which repacking reclaims.
    private(set) var garbage: [SHA256Digest: UInt64] = [:]
    private(set) var garbageBytes: UInt64 = 0
    /// What the live entries take in a manifest, roughly: compaction compares it with the
    /// journal and manifest sizes to tell how much of them is dead.
    private(set) var liveRecordBytes: UInt64 = 0
    /// The eviction policy's queue (SIEVE, S3-FIFO), once a process that evicts built it
    /// (`StoreState.preparePolicy`); kept up to date by every record applied and read noted.
    var policy: PolicyState?
    /// Reads noted while a compaction writes from a copy of this index (``deferMarks()``): kept
    /// aside, because marking the queue would copy the whole queue the copy shares. A compaction
    /// that succeeds drops them with their access records; one that fails marks them
    /// (``markDeferred()``), as their records will be appended.
    var deferredMarks: [StoreKey]?

    /// An empty index.
    init() {}

    /// An index of `manifest`'s entries, read in place: only its totals and packs are taken in.
    init(base manifest: ManifestTable) {
        base = manifest
        let totals = manifest.totals
        count = Int(clamping: totals.entries)
        distinctBlobs = Int(clamping: totals.blobs)
        logicalBytes = totals.logicalBytes
        looseBytes = totals.looseBytes
        liveRecordBytes = totals.liveRecordBytes
        for (number, usage) in manifest.packs {
            livePackBytes &+= usage.live
            updatePack(number) { $0 = usage }
        }
        nextPack = max(nextPack, manifest.nextPack)
    }

    /// Why the manifest is not whole, as far as lookups and scans have found; `nil` if nothing
    /// read from it failed its check.
    var manifestDamage: String? { base?.damage }

    /// Reads and checks the whole manifest (``ManifestTable/check()``), for `verify`.
    func checkManifest() { _ = base?.check() }

    subscript(key: StoreKey) -> IndexEntry? {
        if let position = positions[key] { return records[Int(position)].entry }
        return baseEntry(key)?.entry
    }

    /// `key`'s entry unless it has expired by `now` (milliseconds since the epoch): an expired
    /// entry reads as absent everywhere, and is left to eviction.
    func unexpired(_ key: StoreKey, at now: Int64) -> IndexEntry? {
        guard let entry = self[key], !entry.isExpired(at: now) else { return nil }
        return entry
    }

    /// `key`'s entry and where its blob is. A manifest's entry carries its blob's location, so
    /// a read of one needs no blob lookup unless the journal moved the blob since.
    func located(_ key: StoreKey) -> (entry: IndexEntry, location: BlobLocation)? {
        if let position = positions[key] {
            let entry = records[Int(position)].entry
            return (entry, blob(entry.digest)?.location ?? .loose)
        }
        guard let item = baseEntry(key) else { return nil }
        return (item.entry, changedBlobs[item.entry.digest]?.location ?? item.location)
    }

    /// What a read of an entry needs, from ``hit(_:at:)``.
    struct Hit {
        var entry: IndexEntry
        var location: BlobLocation
        /// This process verified the blob (``BlobReference/isVerified``).
        var isVerified: Bool
    }

    /// A read of `key` at `time`: its entry, where its blob is and whether this process verified
    /// it, with the access noted as ``touch(_:at:)`` notes it; `nil`, with nothing noted, when
    /// there is no entry or it expired. What ``located(_:)``, ``blob(_:)`` and ``touch(_:at:)``
    /// would find, in the fewest hash lookups (two for a changed entry): every read of a value
    /// runs this under the mutex.
    mutating func hit(_ key: StoreKey, at time: Int64) -> Hit? {
        if let position = positions[key].map(Int.init) {
            let entry = records[position].entry
            guard !entry.isExpired(at: time) else { return nil }
            if time > entry.lastAccess { records[position].entry.lastAccess = time }
            if policy != nil { mark(key) }
            let reference = blob(entry.digest)
            return Hit(
                entry: entry, location: reference?.location ?? .loose, isVerified: reference?.isVerified ?? false)
        }
        guard let base, shadowed.isEmpty || !shadowed.contains(key), var item = base.entry(for: key) else {
            return nil
        }
        let accessed = baseAccess.isEmpty ? nil : baseAccess[item.key]
        if let accessed, accessed > item.entry.lastAccess { item.entry.lastAccess = accessed }
        guard !item.entry.isExpired(at: time) else { return nil }
        if (accessed ?? .min) < time { baseAccess[key] = time }
        if policy != nil { mark(key) }
        let digest = item.entry.digest
        if let changed = changedBlobs[digest] {
            return Hit(entry: item.entry, location: changed.location, isVerified: changed.isVerified)
        }
        let verified = !verifiedBaseBlobs.isEmpty && verifiedBaseBlobs.contains(digest)
        return Hit(entry: item.entry, location: item.location, isVerified: verified)
    }

    /// What the index knows of `digest`, or `nil` when no entry refers to it.
    func blob(_ digest: SHA256Digest) -> BlobReference? {
        if let reference = changedBlobs[digest] { return reference.referenceCount > 0 ? reference : nil }
        guard let found = base?.blob(digest) else { return nil }
        return BlobReference(
            referenceCount: found.references, size: found.size,
            isVerified: !verifiedBaseBlobs.isEmpty && verifiedBaseBlobs.contains(digest), location: found.location)
    }

    /// The recipe of `digest`, when it is a live chunked value.
    func recipe(_ digest: SHA256Digest) -> ChunkRecipe? {
        guard let reference = blob(digest), reference.location == .chunked else { return nil }
        return recipes[digest] ?? base?.blob(digest, recipe: true)?.recipe
    }

    /// ``recipe(_:)`` of a value a read found chunked, keeping a recipe decoded from the
    /// manifest for the next read. A value the changes do not hold is the manifest's, so its
    /// recipe (decoded once) needs no lookup of the blob at all: a lookup of a blob block checks
    /// the whole block, and the recipe's block is as large as the recipe.
    mutating func readableRecipe(_ digest: SHA256Digest) -> ChunkRecipe? {
        if let changed = changedBlobs[digest] {
            guard changed.referenceCount > 0, changed.location == .chunked else { return nil }
            if let recipe = recipes[digest] { return recipe }
        }
        if let recipe = decodedRecipes[digest] { return recipe }
        guard let found = base?.blob(digest, recipe: true), found.location == .chunked, let recipe = found.recipe
        else { return nil }
        // One recipe larger than the whole cache is decoded for each read instead.
        guard recipe.chunks.count <= Self.decodedChunkLimit else { return recipe }
        if decodedChunks + recipe.chunks.count > Self.decodedChunkLimit {
            decodedRecipes.removeAll()
            decodedChunks = 0
        }
        decodedRecipes[digest] = recipe
        decodedChunks += recipe.chunks.count
        return recipe
    }

    /// `digest`'s recipe with where each of its chunks is now, as a manifest keeps it.
    func placedRecipe(_ digest: SHA256Digest) -> PlacedRecipe? {
        guard let recipe = recipe(digest) else { return nil }
        return PlacedRecipe(recipe, locations: recipe.chunks.map { blob($0.digest)?.location ?? .loose })
    }

    /// What a compaction writes: every entry with its blob's location, and the recipe of every
    /// chunked value they refer to. An entry of a chunked value whose recipe cannot be read (a
    /// damaged manifest block) is left out: it could not be read either.
    func manifestContents() -> ManifestContents {
        var contents = ManifestContents()
        contents.entries.reserveCapacity(count)
        var chunked: [SHA256Digest: Bool] = [:]
        forEachManifestEntry { item in
            if item.location == .chunked {
                let digest = item.entry.digest
                let readable =
                    chunked[digest]
                    ?? {
                        let placed = placedRecipe(digest)
                        if let placed { contents.recipes.append(placed) }
                        chunked[digest] = placed != nil
                        return placed != nil
                    }()
                guard readable else { return }
            }
            contents.entries.append(item)
        }
        return contents
    }

    /// Calls `body` with every entry and its key, in no particular order.
    func forEachEntry(_ body: (StoreKey, IndexEntry) -> Void) {
        base?.forEachEntry { item in
            if shadowed.isEmpty || !shadowed.contains(item.key) { body(item.key, withAccess(item).entry) }
        }
        for record in records { body(record.key, record.entry) }
    }

    /// Every entry with its key and its blob's location, as a manifest stores them.
    func forEachManifestEntry(_ body: (ManifestEntry) -> Void) {
        base?.forEachEntry { item in
            guard shadowed.isEmpty || !shadowed.contains(item.key) else { return }
            var item = withAccess(item)
            if let changed = changedBlobs[item.entry.digest] { item.location = changed.location }
            body(item)
        }
        for record in records {
            // A manifest's entry copied here by an access may refer to a blob only the manifest knows.
            let location = blob(record.entry.digest)?.location ?? .loose
            body(ManifestEntry(key: record.key, entry: record.entry, location: location))
        }
    }

    /// Calls `body` with every referenced blob, in no particular order.
    func forEachBlob(_ body: (SHA256Digest, BlobReference) -> Void) {
        // A blob reference holds no recipe: none is decoded (a recipe costs a microsecond a chunk).
        base?.forEachBlob(recipes: false) { blob in
            guard changedBlobs[blob.digest] == nil else { return }
            body(
                blob.digest, BlobReference(referenceCount: blob.references, size: blob.size, location: blob.location))
        }
        for (digest, reference) in changedBlobs where reference.referenceCount > 0 { body(digest, reference) }
    }

    /// The chunked values' counts and sizes (``ChunkStats``): every live recipe read, its chunks
    /// collected and counted once each. A recipe the manifest cannot give (a damaged block) is
    /// left out, as its value could not be read either.
    func chunkStats() -> ChunkStats {
        var stats = ChunkStats()
        var chunks: [SHA256Digest: Int] = [:]
        forEachBlob { digest, reference in
            guard reference.location == .chunked, let recipe = recipe(digest) else { return }
            stats.chunkedValues += 1
            stats.chunkedBytes &+= UInt64(recipe.length)
            for chunk in recipe.chunks { chunks[chunk.digest] = chunk.length }
        }
        stats.distinctChunks = chunks.count
        stats.distinctChunkBytes = chunks.values.reduce(0) { $0 &+ UInt64($1) }
        return stats
    }

    /// Every entry with its key, in no particular order.
    var entries: [(key: StoreKey, value: IndexEntry)] {
        var all: [(key: StoreKey, value: IndexEntry)] = []
        all.reserveCapacity(count)
        forEachEntry { all.append(($0, $1)) }
        return all
    }

    /// Applies one journal record. Records that no longer match (an eviction of a key that was
    /// overwritten since, an access to a removed key) change nothing.
    mutating func apply(_ record: JournalRecord) {
        switch record {
        case .put(let put):
            let entry = IndexEntry(
                digest: put.digest, size: put.size, created: put.created, lastAccess: put.created,
                expires: put.expires, metadata: put.metadata)
            store(entry, for: put.key, at: put.location, recipe: put.recipe)
            if policy != nil { policy!.put(put.key, weight: policy!.weight(size: put.size, location: put.location)) }
        case .access(let items):
            for item in items { touch(item.key, at: item.time) }
        case .remove(let key, let digest):
            if removeEntry(key, ifDigest: digest), policy != nil { policy!.remove(key) }
        case .evict(let key, let digest):
            if removeEntry(key, ifDigest: digest), policy != nil { policy!.evicted(key) }
        case .relocate(let move):
            relocate(move)
        }
    }

    /// Adds an entry of a manifest (creation and access times as they were): one of format 1,
    /// or one written that could not be mapped again, with its chunked value's `recipe`.
    mutating func insert(_ item: ManifestEntry, recipe: PlacedRecipe? = nil) {
        store(item.entry, for: item.key, at: item.location, recipe: recipe)
    }

    /// The pack table a manifest keeps: every pack with a live needle, the newest, and the next
    /// number.
    var packTable: ManifestPackTable {
        let kept = packs.filter { $0.value.live > 0 || $0.key == activePack }
        return ManifestPackTable(
            nextPack: nextPack,
            packs: kept.map { ManifestPackTable.Pack(number: $0.key, end: $0.value.end) }.sorted {
                $0.number < $1.number
            })
    }

    /// Notes that a writer placed a needle of `size` bytes at `location` (its bytes are there
    /// whether or not a record refers to them), so that the pack's end and the next pack number
    /// move past it.
    mutating func noteNeedle(at location: PackLocation, size: UInt64) {
        updatePack(location.pack) { $0.end = max($0.end, location.offset &+ PackFormat.needleSize(size)) }
    }

    /// Moves the next pack number to at least `number` (pack numbers are never reused).
    mutating func noteNextPack(_ number: UInt32) {
        nextPack = max(nextPack, number)
    }

    /// Forgets the ``deadPacks``, after their files were deleted. When the newest is among them,
    /// writers move on: the next needle goes to a pack of a new number (numbers are never
    /// reused, so the one after the deleted pack is skipped; a process that has not seen this
    /// finds the file gone and moves on too, ``PackFiles/append``).
    mutating func forgetDeadPacks() {
        let dead = deadPacks
        if let active = activePack, dead.contains(active) { nextPack = max(nextPack, active &+ 2) }
        for number in dead { packs[number] = nil }
    }

    /// The numbers of packs with nothing live, whose files can go: every such pack but the
    /// newest, and the newest too once it holds a dead needle (kept, it would take disk that
    /// nothing counts, up to a whole pack). The newest with no needle at all stays for appending.
    var deadPacks: [UInt32] {
        packs.compactMap { number, usage in
            usage.holdsOnlyDeadNeedles || (usage.live == 0 && number != activePack) ? number : nil
        }
    }

    /// The packed blobs in `numbers`, by pack and offset.
    func packedBlobs(in numbers: Set<UInt32>) -> [(digest: SHA256Digest, size: UInt64, location: PackLocation)] {
        var found: [(digest: SHA256Digest, size: UInt64, location: PackLocation)] = []
        forEachBlob { digest, reference in
            guard let location = reference.location.packed, numbers.contains(location.pack) else { return }
            found.append((digest, reference.size, location))
        }
        return found.sorted { ($0.location.pack, $0.location.offset) < ($1.location.pack, $1.location.offset) }
    }

    /// Makes room for about `count` more entries, before a journal or a format-1 manifest is read.
    mutating func reserveCapacity(_ count: Int) {
        records.reserveCapacity(records.count + count)
        positions.reserveCapacity(positions.count + count)
    }

    /// Forgets the garbage list, after its blobs were deleted.
    mutating func clearGarbage() {
        garbage.removeAll()
        garbageBytes = 0
    }

    /// Moves `key`'s last access forward to `time` (never back). For a manifest's entry only the
    /// time is kept, without a lookup.
    mutating func touch(_ key: StoreKey, at time: Int64) {
        if policy != nil { mark(key) }
        if let position = positions[key].map(Int.init) {
            if time > records[position].entry.lastAccess { records[position].entry.lastAccess = time }
            return
        }
        guard base != nil, shadowed.isEmpty || !shadowed.contains(key) else { return }
        if let known = baseAccess[key], known >= time { return }
        baseAccess[key] = time
    }

    /// Notes a read of `key` in the policy's queue, or keeps it aside while a compaction runs.
    private mutating func mark(_ key: StoreKey) {
        if deferredMarks != nil {
            deferredMarks!.append(key)
        } else {
            policy!.access(key)
        }
    }

    /// Keeps reads aside from the queue until ``markDeferred()``: a compaction is about to write
    /// from a copy of this index that shares the queue.
    mutating func deferMarks() {
        if policy != nil && deferredMarks == nil { deferredMarks = [] }
    }

    /// Marks the reads kept aside since ``deferMarks()``.
    mutating func markDeferred() {
        guard let keys = deferredMarks else { return }
        deferredMarks = nil
        for key in keys { policy?.access(key) }
    }

    /// Records that this process has checked `digest`'s file (or written it).
    mutating func markVerified(_ digest: SHA256Digest) {
        guard var reference = changedBlobs[digest] else {
            if base != nil { verifiedBaseBlobs.insert(digest) }
            return
        }
        guard reference.referenceCount > 0, !reference.isVerified else { return }
        reference.isVerified = true
        changedBlobs[digest] = reference
    }

    /// Keys ordered from least to most recently accessed (ties by key), for eviction.
    func keysByRecency() -> [StoreKey] {
        entries.sorted { ($0.value.lastAccess, $0.key) < ($1.value.lastAccess, $1.key) }.map(\.key)
    }

    /// Keys whose entry refers to `digest`.
    func keys(referring digest: SHA256Digest) -> [StoreKey] {
        var keys: [StoreKey] = []
        forEachEntry { key, entry in if entry.digest == digest { keys.append(key) } }
        return keys
    }

    // MARK: - Reference counting

    /// The manifest's entry for `key`, unless the changes replace or removed it.
    private func baseEntry(_ key: StoreKey) -> ManifestEntry? {
        guard let base, shadowed.isEmpty || !shadowed.contains(key), let item = base.entry(for: key) else {
            return nil
        }
        return withAccess(item)
    }

    /// A manifest's entry with the later access time an access gave it since.
    private func withAccess(_ item: ManifestEntry) -> ManifestEntry {
        guard !baseAccess.isEmpty, let time = baseAccess[item.key], time > item.entry.lastAccess else { return item }
        var item = item
        item.entry.lastAccess = time
        return item
    }

    /// Hides the manifest's entry for `key`: the changes replace or removed it.
    private mutating func shadow(_ key: StoreKey) {
        shadowed.insert(key)
        if !baseAccess.isEmpty { baseAccess[key] = nil }
    }

    /// Puts `entry` under `key`, replacing (and releasing) what was there; the blob is at
    /// `location` (and, chunked, made of `recipe`).
    private mutating func store(
        _ entry: IndexEntry, for key: StoreKey, at location: BlobLocation, recipe: PlacedRecipe?
    ) {
        precondition(records.count < UInt32.max, "the index holds at most 2^32 - 1 changed entries")
        // One hash lookup for a key the changes do not hold yet; an overwrite puts the old
        // position back.
        if let position = positions.updateValue(UInt32(records.count), forKey: key) {
            positions[key] = position
            let old = records[Int(position)].entry
            records[Int(position)].entry = entry
            // Retain first: an overwrite with the same content must not make it garbage.
            retain(entry, key: key, at: location, recipe: recipe)
            release(old, key: key)
            return
        }
        let old = baseEntry(key)?.entry
        records.append(Record(key: key, entry: entry))
        retain(entry, key: key, at: location, recipe: recipe)
        if let old {
            shadow(key)
            release(old, key: key)
        } else {
            count &+= 1
        }
    }

    /// Removes `key`'s entry (only if it refers to `digest`, when given); whether it did.
    @discardableResult
    private mutating func removeEntry(_ key: StoreKey, ifDigest digest: SHA256Digest?) -> Bool {
        if let position = positions[key].map(Int.init) {
            guard digest == nil || records[position].entry.digest == digest else { return false }
            let old = records[position].entry
            positions[key] = nil
            let last = records.count - 1
            if position != last {
                records.swapAt(position, last)
                positions[records[position].key] = UInt32(position)
            }
            records.removeLast()
            count &-= 1
            release(old, key: key)
            return true
        }
        guard let old = baseEntry(key)?.entry, digest == nil || old.digest == digest else { return false }
        shadow(key)
        count &-= 1
        release(old, key: key)
        return true
    }

    /// Manifest bytes of an entry, give or take a few varint bytes.
    static func recordBytes(_ entry: IndexEntry, key: StoreKey) -> UInt64 {
        UInt64(key.bytes.count + entry.metadata.count + 64)
    }

    private mutating func retain(
        _ entry: IndexEntry, key: StoreKey, at location: BlobLocation, recipe: PlacedRecipe?
    ) {
        logicalBytes &+= entry.size
        liveRecordBytes &+= Self.recordBytes(entry, key: key)
        retainBlob(entry.digest, size: entry.size, at: location, recipe: recipe)
    }

    private mutating func release(_ entry: IndexEntry, key: StoreKey) {
        logicalBytes &-= entry.size
        liveRecordBytes &-= Self.recordBytes(entry, key: key)
        releaseBlob(entry.digest)
    }

    /// One more reference to `digest` at `location`. A chunked value's first reference retains
    /// its chunks, at the locations `recipe` gives; a put record always carries the recipe, and
    /// the decoder refuses a chunked location without one (`.loose` stands in, should one come).
    private mutating func retainBlob(
        _ digest: SHA256Digest, size: UInt64, at location: BlobLocation, recipe: PlacedRecipe?
    ) {
        let location = location == .chunked && recipe == nil ? .loose : location
        guard var reference = blob(digest) else {
            distinctBlobs &+= 1
            changedBlobs[digest] = BlobReference(referenceCount: 1, size: size, location: location)
            addAllocation(size: size, at: location)
            if !garbage.isEmpty, let bytes = garbage.removeValue(forKey: digest) { garbageBytes &-= bytes }
            if location == .chunked, let recipe { adopt(recipe) }
            return
        }
        reference.referenceCount += 1
        guard reference.location != location || (location == .chunked && recipe != nil) else {
            changedBlobs[digest] = reference
            return
        }
        // A put that found the old copy unsound wrote a new one: every reference moves to it. A
        // chunked value put again carries its recipe with where each chunk is now (a chunk
        // found unsound written anew): the new recipe's chunks are retained, the old one's
        // released, so a chunk that did not move keeps its count.
        let abandoned = reference.location == .chunked ? self.recipe(digest) : nil
        removeAllocation(size: reference.size, at: reference.location)
        addAllocation(size: reference.size, at: location)
        reference.location = location
        changedBlobs[digest] = reference
        recipes[digest] = nil
        // The new chunks first, so that those the two recipes share stay live throughout.
        if location == .chunked, let recipe { adopt(recipe) }
        if let abandoned { release(abandoned) }
    }

    /// One reference less to `digest`; a chunked value's last releases its chunks, unless the
    /// reference is a recipe's (`asChunk`): a chunk is never chunked but in a damaged journal or
    /// manifest, and a chain of such values must not make releases recurse once per link.
    private mutating func releaseBlob(_ digest: SHA256Digest, asChunk: Bool = false) {
        guard var reference = blob(digest) else { return }
        guard reference.referenceCount <= 1 else {
            reference.referenceCount -= 1
            changedBlobs[digest] = reference
            return
        }
        let abandoned = reference.location == .chunked && !asChunk ? recipe(digest) : nil
        distinctBlobs &-= 1
        if base == nil {
            changedBlobs[digest] = nil
        } else {
            reference.referenceCount = 0
            changedBlobs[digest] = reference
        }
        removeAllocation(size: reference.size, at: reference.location)
        if reference.location == .loose {
            let bytes = reference.allocatedBytes
            if let old = garbage.updateValue(bytes, forKey: digest) { garbageBytes &-= old }
            garbageBytes &+= bytes
        }
        if let abandoned {
            recipes[digest] = nil
            release(abandoned)
        }
    }

    /// Keeps `placed`'s recipe and retains each of its chunks (a chunk named twice, twice).
    private mutating func adopt(_ placed: PlacedRecipe) {
        recipes[placed.recipe.digest] = placed.recipe
        for (chunk, location) in zip(placed.recipe.chunks, placed.locations) {
            retainBlob(chunk.digest, size: UInt64(chunk.length), at: location, recipe: nil)
        }
    }

    /// Releases each chunk of a recipe whose value is no longer chunked or live (its recipe is
    /// forgotten first: a damaged journal that made a value its own chunk's chunk cannot loop).
    private mutating func release(_ recipe: ChunkRecipe) {
        for chunk in recipe.chunks { releaseBlob(chunk.digest, asChunk: true) }
    }

    // MARK: - Disk use and packs

    private mutating func addAllocation(size: UInt64, at location: BlobLocation) {
        switch location {
        case .loose:
            looseBytes &+= Self.allocatedBytes(size: size, location: location)
        case .packed(let packed):
            let needle = PackFormat.needleSize(size)
            livePackBytes &+= needle
            updatePack(packed.pack) {
                $0.live &+= needle
                $0.end = max($0.end, packed.offset &+ needle)
            }
        case .chunked:
            break
        }
    }

    private mutating func removeAllocation(size: UInt64, at location: BlobLocation) {
        switch location {
        case .loose:
            looseBytes &-= Self.allocatedBytes(size: size, location: location)
        case .packed(let packed):
            let needle = PackFormat.needleSize(size)
            livePackBytes &-= needle
            updatePack(packed.pack) { $0.live &-= needle }
        case .chunked:
            break
        }
    }

    /// A repack copied a needle: the blob moves if it is still where the record says it was.
    private mutating func relocate(_ move: JournalRecord.RelocateRecord) {
        noteNeedle(at: move.to, size: move.size)
        guard var reference = blob(move.digest), reference.location == .packed(move.from),
            reference.size == move.size
        else { return }
        removeAllocation(size: reference.size, at: reference.location)
        addAllocation(size: reference.size, at: .packed(move.to))
        reference.location = .packed(move.to)
        changedBlobs[move.digest] = reference
    }

    /// What a pack adds to ``countedPackBytes``: its end while something in it is live, nothing
    /// otherwise.
    private func contribution(_ number: UInt32) -> UInt64 {
        guard let usage = packs[number], usage.live > 0 else { return 0 }
        return usage.end
    }

    /// Changes one pack's usage (creating it), keeping ``countedPackBytes`` and ``nextPack`` right.
    private mutating func updatePack(_ number: UInt32, _ change: (inout PackUsage) -> Void) {
        countedPackBytes &-= contribution(number)
        nextPack = max(nextPack, number &+ 1)
        change(&packs[number, default: PackUsage()])
        countedPackBytes &+= contribution(number)
    }
}
