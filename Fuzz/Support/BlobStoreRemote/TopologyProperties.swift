// Shared by the harnesses of the BlobStoreRemote module (the target BlobStoreRemoteFuzzSupport, declared only for
// fuzz builds: Package.swift).
// Their input needs no transformation to replay: libFuzzer's crash-<sha1> file is the repro.

import BlobStore
import Foundation
import Glibc

@testable import BlobStoreRemote

/// Traps with `message` unless `condition` holds.
@inline(__always)
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

/// Prints `PROPERTY VIOLATED: message` to standard error and traps.
func fail(_ message: String) -> Never {
    let report = "PROPERTY VIOLATED: \(message)\n"
    _ = report.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    fatalError(message)
}

/// The RESP value `bytes` start with, decoded with the topology limits, and whether the decoder
/// consumed exactly that value; `nil` when the bytes are not one.
func decodedTopologyReply(_ bytes: [UInt8]) -> RESPValue? {
    var buffer = RESPBuffer(bytes)
    var decoder = RESPDecoder(limits: ClusterTopology.replyLimits)
    guard let value = try? decoder.decode(from: &buffer) else { return nil }
    // (d) the value written back decodes to itself, within the same limits.
    var again = RESPBuffer(value.encoded)
    var redecoder = RESPDecoder(limits: ClusterTopology.replyLimits)
    let reread = try? redecoder.decode(from: &again)
    check(reread == value && again.isAtEnd, "a decoded value does not decode back from its encoding: \(value)")
    return value
}

/// (b, c) What a topology routes: the same master for every slot, and the same replicas for
/// each master.
func checkSameRouting(_ a: ClusterTopology, _ b: ClusterTopology, _ what: String) {
    for slot in 0..<HashSlot.count where a.master(forSlot: slot) != b.master(forSlot: slot) {
        fail(
            "\(what): slot \(slot) goes to \(String(describing: a.master(forSlot: slot))), then to "
                + "\(String(describing: b.master(forSlot: slot)))")
    }
    let ranges = a.ranges
    for (index, master) in a.masters.enumerated() where !ranges[index].isEmpty {
        guard let other = b.masters.firstIndex(of: master) else { fail("\(what): master \(master) is gone") }
        check(Set(a.replicas[index]) == Set(b.replicas[other]), "\(what): the replicas of \(master) differ")
    }
}

/// (a) The invariants of any topology a parse returns.
func checkTopologyInvariants(_ topology: ClusterTopology, _ what: String) {
    var served = 0
    for slot in 0..<HashSlot.count {
        guard let master = topology.master(forSlot: slot) else { continue }
        served += 1
        check(topology.masters.contains(master), "\(what): slot \(slot)'s master is not among the masters")
        check(ClusterNode.isValidHost(master.host) && master.port > 0, "\(what): a master \(master) that is invalid")
    }
    check(served == topology.servedSlots, "\(what): servedSlots \(topology.servedSlots), counted \(served)")
    check(topology.replicas.count == topology.masters.count, "\(what): replicas and masters out of step")
    for (index, replicas) in topology.replicas.enumerated() {
        check(replicas.count <= ClusterTopology.maximumReplicas, "\(what): more replicas than kept")
        check(!replicas.contains(topology.masters[index]), "\(what): a master among its own replicas")
    }
    let ranges = topology.ranges.joined().sorted { $0.lowerBound < $1.lowerBound }
    check(ranges.reduce(0) { $0 + $1.count } == served, "\(what): the ranges do not count the served slots")
    for (left, right) in zip(ranges, ranges.dropFirst()) {
        check(left.upperBound < right.lowerBound, "\(what): ranges \(left) and \(right) overlap")
    }
}

// MARK: - Writing replies back

private func bulk(_ text: String) -> RESPValue { .bulk(Data(text.utf8)) }

/// `topology` as a `CLUSTER SLOTS` reply: one entry per range, the master then its replicas.
func slotsReply(_ topology: ClusterTopology) -> RESPValue {
    var entries: [RESPValue] = []
    for (index, ranges) in topology.ranges.enumerated() {
        let nodes = ([topology.masters[index]] + topology.replicas[index]).map { node -> RESPValue in
            .array([bulk(node.host), .integer(Int64(node.port)), bulk("0123456789abcdef"), .array([])])
        }
        for range in ranges {
            entries.append(.array([.integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))] + nodes))
        }
    }
    return .array(entries)
}

/// `topology` as a `CLUSTER SHARDS` reply: one shard per master that serves slots.
func shardsReply(_ topology: ClusterTopology) -> RESPValue {
    var shards: [RESPValue] = []
    for (index, ranges) in topology.ranges.enumerated() where !ranges.isEmpty {
        let slots = ranges.flatMap { [RESPValue.integer(Int64($0.lowerBound)), .integer(Int64($0.upperBound))] }
        let nodes = ([(topology.masters[index], "master")] + topology.replicas[index].map { ($0, "replica") }).map {
            node, role -> RESPValue in
            .array([
                bulk("id"), bulk("x"), bulk("port"), .integer(Int64(node.port)), bulk("ip"), bulk(node.host),
                bulk("endpoint"), bulk(node.host), bulk("role"), bulk(role), bulk("health"), bulk("online"),
            ])
        }
        shards.append(.array([bulk("slots"), .array(slots), bulk("nodes"), .array(nodes)]))
    }
    return .array(shards)
}

// MARK: - Hash slots

/// CRC-16/XMODEM bit by bit, as the spec's reference code computes it.
func referenceCRC16(_ bytes: some Sequence<UInt8>) -> UInt16 {
    var crc: UInt16 = 0
    for byte in bytes {
        crc ^= UInt16(byte) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
    }
    return crc
}
