import BlobStore
import BlobStoreRemote

/// `blobstore rm <key> ...`: its description, its value, and its run below.
struct RemoveCommand: SubcommandValue {
    /// The keys, taken as given (one at least).
    var keys: [String] = []

    static let spec = CommandSpec<RemoveCommand>(
        .rm,
        abstract: "Remove keys.",
        discussion: "Removes every key given that is stored; exits 1 if any was not. A value's blob is deleted by "
            + "garbage collection once no key refers to it. With --remote, the key's record is removed "
            + "from the remote too (its blob stays, for the remote's eviction).",
        remote: .tiered,
        arguments: [.oneOrMore("<key>", help: "The keys to remove, taken as given.", .text(), \.keys)])

    func run(in runner: Runner) throws -> Int32 { try runner.remove(self) }
}

extension Runner {
    /// `rm <key> ...`: removes each key, and its record in the remote, if any. Keys missing
    /// locally (with `--remote-only`: without a record in the remote) are named together and exit
    /// 1, after the others are removed, as `rm(1)` does.
    func remove(_ command: RemoveCommand) throws -> Int32 {
        let keys = command.keys
        let remote = try remoteBackend()
        let remoteOnly = options.remoteOnly && remote != nil
        let missing = try withStore(creating: remoteOnly, miss: Self.noValue(keys)) { store in
            let tiered = tiered(store, remote)
            defer { finishRemote(tiered) }
            return try keys.filter { key in
                guard let tiered else { return try !store.remove(StoreKey(key)) }
                // Remote-only: the remote's DEL does not say whether it held the key; its record does.
                let held = remoteOnly ? try tiered.info(for: StoreKey(key)) != nil : false
                let removed = try tiered.remove(StoreKey(key))
                return !(removed || held)
            }
        }
        guard missing.isEmpty else { throw keysNotFound(missing) }
        return ExitCode.success
    }
}
