import BlobStore
import Foundation

/// The keys, values and miss keys of one workload of the shared peer benchmark, read from the
/// files `gen_data.py` prepared (CONTRACT.md, "Data"). Loading is never timed.
struct PeerWorkload {
    var keys: [StoreKey]
    /// Entry i's expected bytes; entries with the same content share one `Data`.
    var values: [Data]
    var missKeys: [StoreKey]

    /// Sum of the value lengths, duplicates included.
    var logicalBytes: Int { values.reduce(0) { $0 + $1.count } }

    /// Reads workload `name` (`small` or `large`) from `directory`, limited to the first `count`
    /// entries when `count` is given.
    static func load(_ name: String, from directory: String, count: Int?) throws -> PeerWorkload {
        let manifestData = try Data(contentsOf: URL(fileURLWithPath: directory + "/manifest.json"))
        guard let manifest = try JSONSerialization.jsonObject(with: manifestData) as? [String: Any],
            let parameters = manifest[name] as? [String: Any],
            let entries = parameters["entries"] as? Int,
            let valueSize = parameters["value_size"] as? Int,
            let blobsFile = parameters["blobs_file"] as? String,
            let keyTemplate = parameters["key_template"] as? String
        else { throw BenchError("\(directory)/manifest.json has no usable '\(name)' workload") }
        let n = min(count ?? entries, entries)
        let blobs = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + blobsFile))
        let keys = (0..<n).map { StoreKey(expand(keyTemplate, $0)) }
        switch name {
        case "small":
            guard let mapFile = parameters["map_file"] as? String,
                let missTemplate = parameters["miss_template"] as? String,
                let missStart = parameters["miss_start"] as? Int
            else { throw BenchError("manifest.json: the small workload lacks map_file or miss keys") }
            let map = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + mapFile))
            guard map.count >= entries * 4 else { throw BenchError("\(mapFile) is shorter than \(entries) entries") }
            var shared: [UInt32: Data] = [:]
            let values: [Data] = (0..<n).map { i in
                let b = map.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self) }
                let blob = UInt32(littleEndian: b)
                if let value = shared[blob] { return value }
                let start = Int(blob) * valueSize
                let value = Data(blobs[start..<(start + valueSize)])
                shared[blob] = value
                return value
            }
            let missKeys = (0..<n).map { StoreKey(expand(missTemplate, missStart + $0)) }
            return PeerWorkload(keys: keys, values: values, missKeys: missKeys)
        case "large":
            guard blobs.count >= n * valueSize else { throw BenchError("\(blobsFile) is shorter than \(n) values") }
            let values = (0..<n).map { Data(blobs[($0 * valueSize)..<(($0 + 1) * valueSize)]) }
            return PeerWorkload(keys: keys, values: values, missKeys: [])
        default:
            throw BenchError("unknown workload '\(name)' (small or large)")
        }
    }

    /// `template` with `{i}` replaced by `i`, as Python's `str.format(i=...)` does for these keys.
    private static func expand(_ template: String, _ i: Int) -> String {
        template.replacingOccurrences(of: "{i}", with: String(i))
    }
}
