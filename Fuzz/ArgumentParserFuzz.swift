// libFuzzer harness for ArgumentParser.parse. Build and run with `Fuzz/run.sh ArgumentParser 60`;
// Fuzz/README.md lists the properties.
//
// The input is a command line: arguments separated by NUL or newline, any bytes in between
// (see argumentVector). The dictionary Fuzz/Dictionaries/ArgumentParser.dict supplies the
// subcommand and option names.

import BlobStore

@testable import BlobStoreCLI
@testable import BlobStoreCLIFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let arguments = argumentVector(Array(UnsafeBufferPointer(start: data, count: size)))
    let line = "[" + arguments.map(quoted).joined(separator: ", ") + "]"
    // (a) parse is total: it returns or throws, and throws only CommandLineError (its signature).
    let result = parse(arguments)
    // (b) Parsing is deterministic.
    check(parse(arguments) == result, "\(line) parses differently the second time")

    // (c) -h or --help (also --help=…) before the first `--` wins over anything else.
    let options = arguments.prefix { $0 != "--" }
    if options.contains(where: {
        $0 == "-h" || $0 == "--help" || $0.unicodeScalars.starts(with: "--help=".unicodeScalars)
    }) {
        guard case .success(let invocation) = result, case .help = invocation.command else {
            fail("\(line) asks for help, but parses as \(result)")
        }
    }
    // (d) After `--` every argument is an argument: one that looks like an option parses like a
    //     plain word in its place (same kind of result).
    if let dashes = arguments.firstIndex(of: "--") {
        var plain = arguments
        for index in plain.indices.dropFirst(dashes + 1) where looksLikeAnOption(plain[index]) {
            plain[index] = "x"
        }
        let plainResult = parse(plain)
        check(
            outcomeKind(plainResult) == outcomeKind(result),
            "after '--', options are arguments, but \(line) parses as \(result) and, with plain words after '--', "
                + "as \(plainResult)")
    }

    switch result {
    case .success(let invocation):
        checkAccepted(invocation, arguments, line)
    case .failure(let error):
        // (h) The error says something and names a subcommand of the line, and its usage renders.
        check(!error.message.isEmpty, "\(line): an empty error message")
        if let subcommand = error.subcommand {
            check(arguments.contains(subcommand.rawValue), "\(line): the error names \(subcommand)")
        }
        check(HelpText.usageError(error).hasPrefix("Error: \(error.message)\n"), "\(line): usage error text")
    }
    return 0
}

private func parse(_ arguments: [String]) -> Result<Invocation, CommandLineError> {
    Result { () throws(CommandLineError) in try ArgumentParser.parse(arguments) }
}

private func checkAccepted(_ invocation: Invocation, _ arguments: [String], _ line: String) {
    // (e) The canonical spellings of an accepted invocation parse back to it.
    for style in ArgumentStyle.allCases {
        let canonical = canonicalArguments(invocation, style: style)
        let again = parse(canonical)
        check(
            again == .success(invocation),
            "\(line) parses as \(invocation); its \(style) spelling [\(canonical.map(quoted).joined(separator: ", "))] "
                + "as \(again)")
    }

    // (f) Keys, files and directories are taken exactly as given: byte for byte an argument, or
    //     the part of one after `=`.
    let givens = Set(
        arguments.flatMap { argument -> [[UInt8]] in
            let bytes = Array(argument.utf8)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return [bytes] }
            return [bytes, Array(bytes[(equals + 1)...])]
        })
    var texts: [String?] = [invocation.options.store, invocation.options.remoteCA]
    switch invocation.command {
    case .put(let key, let file, _): texts += [key, file]
    case .get(let keys, let output): texts += keys + [output]
    case .remove(let keys): texts += keys
    case .has(let key): texts.append(key)
    case .demo(let directory, _): texts.append(directory)
    case .fetch(let url, let output, let fetch):
        texts += [url, output]
        for field in fetch.headers {
            let prefix = Array((field.name + ":").utf8)
            check(
                givens.contains { $0.starts(with: prefix) },
                "\(line): the header \(quoted(field.name)) is not one of the arguments as given")
        }
    default: break
    }
    for case let text? in texts {
        check(givens.contains(Array(text.utf8)), "\(line): \(quoted(text)) is not one of the arguments as given")
    }

    // (g) Accepted values are in their ranges.
    if let store = invocation.options.store { check(!store.isEmpty, "\(line): an empty store accepted") }
    if let remoteCA = invocation.options.remoteCA { check(!remoteCA.isEmpty, "\(line): an empty CA file accepted") }
    switch invocation.command {
    case .get(_, let output?), .fetch(_, let output?, _):
        check(!output.isEmpty, "\(line): an empty output file accepted")
    case .collectGarbage(let collect):
        check(collect.capacity.map { $0 >= 1 } ?? true, "\(line): capacity \(collect.capacity!)")
        check(collect.maxEntries.map { $0 >= 1 } ?? true, "\(line): max entries \(collect.maxEntries!)")
        check(collect.maxAge.map { $0 >= .milliseconds(1) } ?? true, "\(line): max age \(collect.maxAge!)")
        check(collect.grace.map { $0 >= .zero } ?? true, "\(line): grace \(collect.grace!)")
    case .config(let changes, _):
        if case .set(let capacity)? = changes.capacity { check(capacity >= 1, "\(line): capacity \(capacity)") }
        if case .set(let entries)? = changes.maxEntries { check(entries >= 1, "\(line): max entries \(entries)") }
        if case .set(let age)? = changes.maxAge { check(age >= .milliseconds(1), "\(line): max age \(age)") }
        if let lowWater = changes.lowWater {
            check((0.5...1).contains(lowWater), "\(line): low water \(lowWater)")
        }
    default:
        break
    }
}
