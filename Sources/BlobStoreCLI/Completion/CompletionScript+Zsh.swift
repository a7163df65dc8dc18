// The zsh script: `_blobstore`, a `#compdef` function on `_arguments`, one spec a subcommand.

extension CompletionScript {
    /// The zsh script.
    static func zsh() -> String {
        let subcommands = Subcommand.allCases.map { quoted($0.rawValue + ":" + escaped(summary($0.help.abstract))) }
        var branches = ""
        for subcommand in Subcommand.allCases {
            let help = subcommand.help
            let specs = help.allOptions.map(optionSpec) + help.arguments.map(argumentSpec)
            branches += "                \(subcommand.rawValue))\n"
            branches += "                    _arguments -s \\\n"
            branches += specs.map { "                        \($0)" }.joined(separator: " \\\n") + "\n"
            branches += "                    ;;\n"
        }
        let root = rootOptions.map { "        \(optionSpec($0)) \\\n" }.joined()
        return """
            #compdef blobstore
            # zsh completion for blobstore, written by 'blobstore completions zsh'.
            # Load it with: source <(blobstore completions zsh)   (after compinit)

            _blobstore() {
                local context state state_descr line
                typeset -A opt_args
                _arguments -C \\
            \(root)        '1:subcommand:->subcommand' \\
                    '*::argument:->argument'
                case $state in
                    subcommand)
                        local -a subcommands
                        subcommands=(
                            \(subcommands.joined(separator: "\n                "))
                        )
                        _describe -t subcommands 'subcommand' subcommands
                        ;;
                    argument)
                        case $line[1] in
            \(branches)            esac
                        ;;
                esac
            }

            if [[ "$funcstack[1]" == "_blobstore" ]]; then
                _blobstore "$@"
            else
                compdef _blobstore blobstore
            fi

            """
    }

    /// `option` for `_arguments`: `'--json[Print the report as a JSON object]'`,
    /// `'(-o --output)'{-o,--output=}'[Write…]:file:_files'`, `*` in front when it repeats.
    private static func optionSpec(_ option: OptionHelp) -> String {
        let description = "[" + escaped(summary(option.text)) + "]"
        let value = option.valueName.map { ":" + message($0) + ":" + action(option.completion) } ?? ""
        let repeats = option.isRepeatable ? "*" : ""
        let spelled = option.names.map { $0.hasPrefix("--") && option.valueName != nil ? $0 + "=" : $0 }
        guard spelled.count > 1 else { return quoted(repeats + spelled[0] + description + value) }
        let exclusions = option.isRepeatable ? "" : "(" + option.names.joined(separator: " ") + ")"
        return quoted(exclusions + repeats) + "{" + spelled.joined(separator: ",") + "}" + quoted(description + value)
    }

    /// `argument` for `_arguments`: `':key:'`, `'::file:_files'`, `'*:key:'`.
    private static func argumentSpec(_ argument: ArgumentHelp) -> String {
        let position =
            switch argument.arity {
            case .required: ":"
            case .optional: "::"
            case .oneOrMore: "*:"
            }
        return quoted(position + message(argument.name) + ":" + action(argument.completion))
    }

    /// What `_arguments` runs to complete a value.
    private static func action(_ completion: Completion) -> String {
        switch completion {
        case .anything: " "
        case .file: "_files"
        case .directory: "_files -/"
        case .words(let words): "(" + words.joined(separator: " ") + ")"
        }
    }

    /// A value name as `_arguments` shows it: `<host:port>` becomes `host port`.
    private static func message(_ valueName: String) -> String {
        let letters = valueName.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : " " }
        return String(letters).split(separator: " ").joined(separator: " ")
    }

    /// `text` with what `_arguments` and `_describe` read specially (`[`, `]`, `:`, `\`)
    /// escaped.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "[]:\\".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// `text` in single quotes for zsh.
    private static func quoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
