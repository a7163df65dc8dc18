/// What one crash-torture key holds: nothing, or the value of one version
/// (`TortureContent.bytes(key:version:)`).
enum KeyState: Hashable, CustomStringConvertible {
    case absent
    case version(Int)

    var description: String {
        switch self {
        case .absent: "absent"
        case .version(let version): "v\(version)"
        }
    }
}
