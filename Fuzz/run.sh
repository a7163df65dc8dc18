#!/usr/bin/env bash
# Builds a libFuzzer harness (Fuzz/<Target>Fuzz.swift, a target of the package when BLOBSTORE_FUZZ=1)
# and runs it.
# See Fuzz/README.md, or run `Fuzz/run.sh --help`.
set -euo pipefail
shopt -s inherit_errexit

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD=.build/fuzz
# The harnesses are targets of the package, declared when BLOBSTORE_FUZZ=1 (Package.swift, "Fuzz
# harnesses"): SwiftPM builds each with the modules it depends on, all instrumented for libFuzzer
# and AddressSanitizer, optimized, and compiled for testing (`@testable import` reaches internal
# symbols). The build lives in .build/fuzz/swiftpm, apart from the package's own.
#
# SwiftPM passes its two sanitizers to swiftc as two flags, in the order of a set, which changes
# from one run to the next, and swiftc keeps only the last `-sanitize=`: some builds had AddressSanitizer
# without libFuzzer's coverage (the fuzzer saw only its harness's 34 counters and could not
# learn). `-Xswiftc -sanitize=fuzzer,address` comes after both and asks for the two at once;
# `--sanitize` stays for the link (libFuzzer's runtime and `main`).
SWIFT_BUILD=(swift build --scratch-path "$BUILD/swiftpm" -c release --sanitize fuzzer --sanitize address
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)

usage() {
    cat <<'EOF'
OVERVIEW: Build a libFuzzer harness of the package and run it.

USAGE: Fuzz/run.sh <target> <seconds> [-- <libfuzzer-option>...]
       Fuzz/run.sh all <seconds>
       Fuzz/run.sh --list
       Fuzz/run.sh --help

ARGUMENTS:
  <target>    A harness: Fuzz/<target>Fuzz.swift (see --list), or `all` for each in turn.
  <seconds>   How long to fuzz each target (-max_total_time).

OPTIONS:
  --list      Print the targets, one a line.
  -h, --help  Show this help.

Builds into .build/fuzz/, fuzzes a scratch corpus .build/fuzz/corpus-<target> seeded from
Fuzz/Corpus/<target>, and writes findings to .build/fuzz/artifacts-<target>/<run>/.
Exits 0 when nothing was found, 1 on a finding, 64 on a usage error.
Copy findings worth keeping to Fuzz/FailCases/<target>/ (see Fuzz/README.md).
The harnesses are the package's `<target>Fuzz` executables, declared when BLOBSTORE_FUZZ=1
(Package.swift); SwiftPM builds them into .build/fuzz/swiftpm.
EOF
}

usage_error() {
    echo "Error: $1" >&2
    echo "Usage: Fuzz/run.sh <target> <seconds> | all <seconds> | --list | --help" >&2
    echo "See 'Fuzz/run.sh --help' for more information." >&2
    exit 64
}

list_targets() {
    find Fuzz -maxdepth 1 -name '*Fuzz.swift' -printf '%f\n' | sed 's/Fuzz\.swift$//' | sort
}

# MARK: - Build

# The longest input libFuzzer makes for a harness (-max_len; longer seeds are cut to it): a
# ManifestTable input is a whole manifest file, and its seed of 100 entries over several blocks
# takes about 6 KB.
max_len_of() {
    case "$1" in
        ManifestTable) echo 8192 ;;
        *) echo 4096 ;;
    esac
}

# Builds the package's product $1 with the fuzz settings, or with `swift build` arguments given
# after it instead (SwiftPM rebuilds only what changed), and prints the path of the executable.
build_product() {
    local product="$1" bin
    shift
    local -a settings=("${SWIFT_BUILD[@]}")
    [[ "$#" -eq 0 ]] || settings=(swift build "$@")
    BLOBSTORE_FUZZ=1 "${settings[@]}" --product "$product" >&2 || return 1
    bin="$(BLOBSTORE_FUZZ=1 "${settings[@]}" --show-bin-path)" || return 1
    echo "$bin/$product"
}

# Builds the harness $1 and prints the path of its fuzzer, $BUILD/<target>-fuzzer (a link to the
# executable SwiftPM built).
build() {
    local target="$1" executable
    executable="$(build_product "${target}Fuzz")" || return 1
    mkdir -p "$BUILD"
    ln -sfn "$executable" "$BUILD/$target-fuzzer"
    echo "$BUILD/$target-fuzzer"
}

# MARK: - Run

# Fuzzes $1 for $2 seconds; returns 1 on a finding.
run() {
    local target="$1" seconds="$2"
    shift 2
    [[ -f "Fuzz/${target}Fuzz.swift" ]] || usage_error "unknown target '$target' (see 'Fuzz/run.sh --list')"

    local binary
    if ! binary="$(build "$target")"; then
        echo "$target: the build failed"
        return 1
    fi

    # Every earlier finding must stay fixed: replay Fuzz/FailCases/<target>/ first.
    local -a failcases=()
    if [[ -d "Fuzz/FailCases/$target" ]]; then
        mapfile -t failcases < <(find "Fuzz/FailCases/$target" -maxdepth 1 -type f | sort)
    fi
    if [[ "${#failcases[@]}" -gt 0 ]]; then
        if ! SWIFT_BACKTRACE=enable=no "$binary" "${failcases[@]}" >"$BUILD/replay-$target.log" 2>&1; then
            echo "$target: a fail case in Fuzz/FailCases/$target fails again (log: $BUILD/replay-$target.log)"
            grep -m1 -E 'PROPERTY VIOLATED|Fatal error|ERROR:' "$BUILD/replay-$target.log" || true
            return 1
        fi
        echo "$target: ${#failcases[@]} fail cases replayed, all pass"
    fi

    local corpus="$BUILD/corpus-$target"
    local artifacts
    artifacts="$BUILD/artifacts-$target/$(date +%Y%m%d-%H%M%S)"
    mkdir -p "$corpus" "$artifacts"
    if [[ -d "Fuzz/Corpus/$target" ]]; then
        find "Fuzz/Corpus/$target" -maxdepth 1 -type f -exec cp -n {} "$corpus/" \;
    fi
    local log="$artifacts/fuzz.log"
    # Names and spellings the fuzzer could hardly guess byte by byte (the CLI harnesses).
    local -a dictionary=()
    if [[ -f "Fuzz/Dictionaries/$target.dict" ]]; then dictionary=(-dict="Fuzz/Dictionaries/$target.dict"); fi

    echo "fuzzing $target for ${seconds}s (corpus $corpus, log $log)"
    local status=0
    # Swift's own backtracer would run on every trap and hold libFuzzer up; libFuzzer prints
    # the stack itself.
    SWIFT_BACKTRACE=enable=no FUZZ_REPRO_DIR="$artifacts" \
        "$binary" -max_total_time="$seconds" -max_len="$(max_len_of "$target")" -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "${dictionary[@]}" "$@" "$corpus" >"$log" 2>&1 || status=$?

    local execs rate
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
    if [[ -z "$execs" ]]; then
        # A crash skips the final stats; the last status line still counts the runs.
        execs="$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')"
        rate="$(grep -o 'exec/s: [0-9]*' "$log" | tail -1 | sed 's/exec\/s: //')"
    fi

    local -a findings=()
    mapfile -t findings < <(find "$artifacts" -type f ! -name fuzz.log | sort)
    if [[ "$status" -eq 0 && "${#findings[@]}" -eq 0 ]]; then
        echo "$target: ${execs:-?} executions (${rate:-?}/s) in ${seconds}s, no crash"
        return 0
    fi
    echo "$target: ${execs:-?} executions (${rate:-?}/s), CRASH FOUND (libFuzzer exit $status)"
    grep -m1 -E 'PROPERTY VIOLATED|Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer' "$log" || true
    for finding in "${findings[@]}"; do echo "  $finding"; done
    echo "  log: $log"
    return 1
}

# MARK: - Arguments

case "${1:-}" in
    -h | --help | help) usage ;;
    --list) list_targets ;;
    # For Fuzz/make-seeds.sh: builds the make-seeds program (declared with the harnesses, built
    # without the sanitizers: a program with a main of its own), prints its path.
    --build-seeds-writer) build_product make-seeds --scratch-path "$BUILD/make-seeds" -c release -Xswiftc -enable-testing ;;
    "") usage_error "missing target" ;;
    *)
        target="$1"
        seconds="${2:-}"
        [[ "$seconds" =~ ^[0-9]+$ ]] || usage_error "missing or invalid <seconds>: '${seconds}'"
        shift 2
        if [[ "${1:-}" == "--" ]]; then shift; fi
        if [[ "$target" == all ]]; then
            failed=0
            for each in $(list_targets); do run "$each" "$seconds" "$@" || failed=1; done
            exit "$failed"
        fi
        run "$target" "$seconds" "$@"
        ;;
esac
