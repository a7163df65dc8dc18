/// What the cache records about a thumbnail, stored as a typed object next to its pixels.
struct ThumbnailInfo: Codable, Equatable {
    /// The photo it shows.
    var photo: String
    /// Its width and height in pixels.
    var size: Int
    /// How its bytes are laid out.
    var format: String
}
