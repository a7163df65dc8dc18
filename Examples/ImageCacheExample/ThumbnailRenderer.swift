import Foundation
import Synchronization

/// Renders thumbnails, slowly, and counts how often it had to: a stand-in for decoding a photo
/// and scaling it down, the work a thumbnail cache exists to save.
final class ThumbnailRenderer: Sendable {
    /// How many thumbnails were rendered.
    private let count = Mutex(0)

    /// How many thumbnails were rendered so far.
    var renders: Int { count.withLock { $0 } }

    /// The RGBA pixels of a `size` × `size` thumbnail of `photo`: a gradient tinted by the
    /// photo's name, 4 bytes a pixel. The same photo and size always give the same bytes.
    func render(_ photo: String, size: Int) -> Data {
        count.withLock { $0 += 1 }
        let tint = UInt8(truncatingIfNeeded: photo.utf8.reduce(0) { $0 &+ Int($1) })
        var pixels = Data(capacity: size * size * 4)
        for y in 0..<size {
            for x in 0..<size {
                pixels.append(contentsOf: [UInt8(x * 255 / size), UInt8(y * 255 / size), tint, 255])
            }
        }
        return pixels
    }

    /// ``render(_:size:)`` after a pause, as a slow decoder would take, so that concurrent
    /// requests for one thumbnail overlap.
    func renderSlowly(_ photo: String, size: Int) async throws -> Data {
        try await Task.sleep(for: .milliseconds(100))
        return render(photo, size: size)
    }
}
