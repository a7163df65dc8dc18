import Foundation

/// The regular files under `directory`, recursively, as paths relative to it (links and other
/// kinds of file left out; a link to a directory is not entered).
public func regularFiles(under directory: String) -> [String] {
    guard let walk = FileManager.default.enumerator(atPath: directory) else { return [] }
    var files: [String] = []
    while let path = walk.nextObject() as? String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + path)
        if attributes?[.type] as? FileAttributeType == .typeRegular { files.append(path) }
    }
    return files
}
