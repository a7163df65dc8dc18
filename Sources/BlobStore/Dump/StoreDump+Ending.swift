extension StoreDump {
    /// How a journal's records end, as ``StoreDump/forEachRecord(_:)`` found them.
    public enum JournalEnding: Sendable, Equatable {
        /// Every byte after the header belongs to a whole, valid record.
        case clean
        /// The last `byteCount` bytes, from `offset`, are an incomplete record or zero fill: a
        /// write a crash cut off, or one in progress. Opening the store truncates them; nothing
        /// acknowledged is lost.
        case tornTail(offset: Int, byteCount: Int)
        /// The record at `offset` is damaged (`reason`): it and everything after it, `byteCount`
        /// bytes, are not read. Opening the store drops them and saves them in `quarantine/`.
        case damaged(offset: Int, byteCount: Int, reason: String)
        /// No record can be read: the file is missing, or its header is not valid.
        case unreadable(reason: String)
    }
}
