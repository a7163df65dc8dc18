import BlobStore
import BlobStoreRemote

/// `blobstore has <key>`: its description, its value, and its run below.
struct HasCommand: SubcommandValue {
    /// The key, taken as given.
    var key = ""

    static let spec = CommandSpec<HasCommand>(
        .has,
        abstract: "Exit 0 if a key is stored, 1 if it is not.",
        discussion: "Prints nothing. With --remote, a key the remote holds counts as stored; nothing is downloaded.",
        remote: .tiered,
        arguments: [.required("<key>", help: "The key, taken as given.", .text(), \.key)])

    func run(in runner: Runner) throws -> Int32 { try runner.has(self) }
}

extension Runner {
    /// `has <key>`: exit 0 if the key is stored, locally or in the remote (if any), 1 if not;
    /// prints nothing.
    func has(_ command: HasCommand) throws -> Int32 {
        let key = command.key
        let remote = try remoteBackend()
        let found = try withStore(creating: remote != nil, miss: "No value for key '\(key)'") { store in
            guard let tiered = tiered(store, remote) else { return try store.contains(StoreKey(key)) }
            defer { finishRemote(tiered) }
            return try tiered.contains(StoreKey(key))
        }
        return found ? ExitCode.success : ExitCode.keyNotFound
    }
}
