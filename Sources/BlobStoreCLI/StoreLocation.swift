/// Where the store is when `--store` is not given.
public enum StoreLocation {
    /// `$BLOBSTORE_DIR`, else `$XDG_CACHE_HOME/blobstore`, else `$HOME/.cache/blobstore`, else
    /// `nil`. Empty variables count as unset; a relative `XDG_CACHE_HOME` is ignored, as the XDG
    /// Base Directory specification asks.
    ///
    /// - Parameter environment: The process environment.
    /// - Returns: The store directory, or `nil` when none of the variables is usable.
    public static func defaultDirectory(environment: [String: String]) -> String? {
        defaultChoice(environment: environment)?.directory
    }

    /// The default store directory and the variable it comes from (`BLOBSTORE_DIR`,
    /// `XDG_CACHE_HOME` or `HOME`), as ``defaultDirectory(environment:)`` chooses it; named in the
    /// message for a missing store, since the user did not type the path.
    static func defaultChoice(environment: [String: String]) -> (directory: String, variable: String)? {
        if let directory = environment["BLOBSTORE_DIR"], !directory.isEmpty {
            return (directory, "BLOBSTORE_DIR")
        }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return (cache + "/blobstore", "XDG_CACHE_HOME")
        }
        if let home = environment["HOME"], !home.isEmpty {
            return (home + "/.cache/blobstore", "HOME")
        }
        return nil
    }
}
