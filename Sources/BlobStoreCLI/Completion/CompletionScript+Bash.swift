// The bash script: `_blobstore`, registered with `complete -F`, reads COMP_WORDS and COMP_CWORD.

extension CompletionScript {
    /// The bash script.
    static func bash() -> String {
        let subcommands = Subcommand.allCases.map(\.rawValue).joined(separator: " ")
        var branches = branch("\"\"", options: rootOptions, arguments: ["words:" + subcommands], repeats: false)
        for subcommand in Subcommand.allCases {
            let help = subcommand.help
            branches += branch(
                subcommand.rawValue, options: help.allOptions, arguments: help.arguments.map { kind($0.completion) },
                repeats: help.arguments.last?.arity == .oneOrMore)
        }
        return """
            # bash completion for blobstore, written by 'blobstore completions bash'.
            # Load it with: source <(blobstore completions bash)

            # Sets COMPREPLY for the word being completed ($cur): a file (file), a directory
            # (directory), one of some words (words:<word> ...), or nothing (anything).
            _blobstore_complete() {
                case "$1" in
                    file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
                    directory) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
                    words:*) COMPREPLY=($(compgen -W "${1#words:}" -- "$cur")) ;;
                    *) COMPREPLY=() ;;
                esac
            }

            _blobstore() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
                local subcommand="" at=0 i word options valued values=() arguments=() repeats=0
                # The subcommand: the first word that is neither an option nor an option's value.
                valued=" \(valuedNames(rootOptions)) "
                for ((i = 1; i < COMP_CWORD; i++)); do
                    word="${COMP_WORDS[i]}"
                    if [[ "$word" == "--" ]]; then break; fi
                    if [[ "$valued" == *" $word "* ]]; then ((i++)); continue; fi
                    if [[ "$word" == -* ]]; then continue; fi
                    subcommand="$word"
                    at=$i
                    break
                done
                # What the subcommand takes: its options, those with a value, how each value
                # completes (pairs of name and kind), how each argument completes, and whether
                # the last one repeats.
                case "$subcommand" in
            \(branches)        *) return ;;
                esac
                # The value of the option before the cursor.
                for ((i = 0; i < ${#values[@]}; i += 2)); do
                    if [[ "$prev" == "${values[i]}" ]]; then
                        _blobstore_complete "${values[i+1]}"
                        return
                    fi
                done
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W "$options" -- "$cur"))
                    return
                fi
                # The argument at the cursor: count those before it, after the subcommand.
                local position=0 ended=0
                for ((i = at + 1; at > 0 && i < COMP_CWORD; i++)); do
                    word="${COMP_WORDS[i]}"
                    if ((ended)); then ((position++)); continue; fi
                    if [[ "$word" == "--" ]]; then ended=1; continue; fi
                    if [[ "$valued" == *" $word "* ]]; then ((i++)); continue; fi
                    if [[ "$word" == -* ]]; then continue; fi
                    ((position++))
                done
                if ((position >= ${#arguments[@]})); then
                    ((repeats)) || return
                    position=$((${#arguments[@]} - 1))
                fi
                _blobstore_complete "${arguments[position]}"
            }

            complete -F _blobstore blobstore

            """
    }

    /// One case of `_blobstore`'s `case "$subcommand"`: sets `options`, `valued`, `values`,
    /// `arguments` and `repeats`.
    private static func branch(_ pattern: String, options: [OptionHelp], arguments: [String], repeats: Bool) -> String {
        let values = options.filter { $0.valueName != nil }.flatMap { option in
            option.names.flatMap { [$0, quoted(kind(option.completion))] }
        }
        return """
                    \(pattern))
                        options="\(options.flatMap(\.names).joined(separator: " "))"
                        valued=" \(valuedNames(options)) "
                        values=(\(values.joined(separator: " ")))
                        arguments=(\(arguments.map(quoted).joined(separator: " ")))
                        repeats=\(repeats ? 1 : 0)
                        ;;

            """
    }

    /// The names of the options that take a value, separated by spaces.
    private static func valuedNames(_ options: [OptionHelp]) -> String {
        options.filter { $0.valueName != nil }.flatMap(\.names).joined(separator: " ")
    }

    /// `completion` as `_blobstore_complete` takes it.
    private static func kind(_ completion: Completion) -> String {
        switch completion {
        case .anything: "anything"
        case .file: "file"
        case .directory: "directory"
        case .words(let words): "words:" + words.joined(separator: " ")
        }
    }

    /// `word` in double quotes (names and words have no `"`, `$`, `\` or backquote).
    private static func quoted(_ word: String) -> String { "\"" + word + "\"" }
}
