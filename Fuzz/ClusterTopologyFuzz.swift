// libFuzzer harness for the Redis Cluster client's parsers of untrusted input: the bounded RESP
// decoder with arrays, the CLUSTER SHARDS and CLUSTER SLOTS topology parsers, the MOVED / ASK /
// CLUSTERDOWN error replies and the hash slot. Build and run with `Fuzz/run.sh ClusterTopology 60`;
// Fuzz/README.md lists the properties.
//
// The input is read three ways: as a RESP reply (a topology, parsed both ways), as the text of an
// error reply (after a leading `-`), and as a key.

import BlobStore
import Foundation

@testable import BlobStoreRemote
@testable import BlobStoreRemoteFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let reply = decodedTopologyReply(bytes) {
        for (name, parse) in [
            ("SHARDS", { try ClusterTopology(shardsReply: $0, askedHost: "asked.test") }),
            ("SLOTS", { try ClusterTopology(slotsReply: $0, askedHost: "asked.test") }),
        ] as [(String, (RESPValue) throws -> ClusterTopology)] {
            guard let topology = try? parse(reply) else { continue }
            checkTopologyInvariants(topology, name)
            // (b) written back as either reply, it parses to the same routing.
            guard let viaSlots = try? ClusterTopology(slotsReply: slotsReply(topology), askedHost: "other.test"),
                let viaShards = try? ClusterTopology(shardsReply: shardsReply(topology), askedHost: "other.test")
            else { fail("\(name): a topology written back as a reply does not parse") }
            checkSameRouting(topology, viaSlots, "\(name) then SLOTS")
            checkSameRouting(topology, viaShards, "\(name) then SHARDS")
            // (c) a MOVED patch changes that slot only.
            guard topology.masters.count < HashSlot.count else { continue }
            var patched = topology
            let slot = HashSlot.slot(of: bytes)
            patched.assign(slot, to: ClusterNode(host: "moved.test", port: 1))
            check(patched.master(forSlot: slot) == ClusterNode(host: "moved.test", port: 1), "MOVED did not patch")
            check(
                patched.servedSlots == topology.servedSlots + (topology.master(forSlot: slot) == nil ? 1 : 0),
                "MOVED changed other slots")
        }
    }
    // (e) error replies: a redirection names a slot in range and a valid node, and reads back.
    let text = String(decoding: bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...], as: UTF8.self)
    let answering = ClusterNode(host: "answering.test", port: 7000)
    switch ClusterErrorReply(text, answeredBy: answering) {
    case .moved(let slot, let node), .ask(let slot, let node):
        check((0..<HashSlot.count).contains(slot), "a redirection to slot \(slot)")
        check(ClusterNode.isValidHost(node.host) && node.port > 0, "a redirection to \(node)")
        let kind = text.hasPrefix("MOVED") ? "MOVED" : "ASK"
        let again = ClusterErrorReply("\(kind) \(slot) \(node)", answeredBy: answering)
        check(again == ClusterErrorReply(text, answeredBy: answering), "a redirection does not read back: \(text)")
    case .unavailable(let message):
        // At most 200 bytes of the node's text (a character cut at the end becomes U+FFFD), or
        // a message of ours.
        check(message.utf8.count <= 200 + 2, "an unavailable message of \(message.utf8.count) bytes")
    case nil:
        break
    }
    // (f) the slot is CRC-16/XMODEM of the hash tag, or of the key without one.
    let hashed = HashSlot.hashedPart(of: bytes)
    check(HashSlot.crc16(hashed) == referenceCRC16(hashed), "the CRC16 table disagrees with the bitwise CRC")
    check(HashSlot.slot(of: bytes) == Int(referenceCRC16(hashed) % 16384), "the slot is not CRC16 mod 16384")
    if hashed.count != bytes.count {
        check(HashSlot.slot(of: bytes) == HashSlot.slot(of: Array("{".utf8) + hashed + Array("}x".utf8)), "a hash tag")
    }
    return 0
}
