/// Where the store is when `--store` is not given.
public enum StoreLocation {
    /// `$BLOBSTORE_DIR`, else `$XDG_CACHE_HOME/blobstore`, else `$HOME/.cache/blobstore`, else
    /// `nil`. Empty variables count as unset; a relative `XDG_CACHE_HOME` is ignored, as the XDG
    /// Base Directory specification asks.
    ///
    /// - Parameter environment: The process environment.
    /// - Returns: The store directory, or `nil` when none of the variables is usable.
    public static func defaultDirectory(environment: [String: String]) -> String? {
        if let directory = environment["BLOBSTORE_DIR"], !directory.isEmpty {
            return directory
        }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return cache + "/blobstore"
        }
        if let home = environment["HOME"], !home.isEmpty {
            return home + "/.cache/blobstore"
        }
        return nil
    }
}
