/// How ``TieredStore`` uses its remote tier.
public struct RemoteConfiguration: Sendable, Equatable {
    /// Read from the remote, never write to it (ccache's `read-only`). (default: `false`)
    public var readOnly: Bool
    /// Keep no local copy: reads go to the remote only, and writes only upload. (default: `false`)
    public var remoteOnly: Bool
    /// How long the remote is skipped after an error or a timeout. (default: 30 s)
    public var coolDown: Duration
    /// The largest value uploaded or downloaded; larger values stay local. (default: 64 MiB)
    public var maximumValueSize: Int

    /// - Parameters:
    ///   - readOnly: Never write to the remote.
    ///   - remoteOnly: Keep no local copy.
    ///   - coolDown: How long the remote is skipped after an error.
    ///   - maximumValueSize: The largest value uploaded or downloaded.
    public init(
        readOnly: Bool = false, remoteOnly: Bool = false, coolDown: Duration = .seconds(30),
        maximumValueSize: Int = 64 << 20
    ) {
        self.readOnly = readOnly
        self.remoteOnly = remoteOnly
        self.coolDown = coolDown
        self.maximumValueSize = maximumValueSize
    }
}
