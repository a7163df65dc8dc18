#!/usr/bin/env bash
# Builds a libFuzzer harness (Fuzz/<Target>Fuzz.swift) with the library sources and runs it.
# See Fuzz/README.md, or run `Fuzz/run.sh --help`.
set -euo pipefail
shopt -s inherit_errexit

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD=.build/fuzz
SWIFTC="${SWIFTC:-swiftc}"
CLANG="${CLANG:-$(dirname "$(readlink -f "$(command -v "$SWIFTC")")")/clang}"

usage() {
    cat <<'EOF'
OVERVIEW: Build a libFuzzer harness with the BlobStore sources and run it.

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
Environment: SWIFTC, CLANG override the compilers.
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

# Prints the path of the fuzzer binary for $1, building it when any input is newer.
build() {
    local target="$1"
    local binary="$BUILD/$target-fuzzer"
    mkdir -p "$BUILD/CCRC32C"

    local -a support=()
    mapfile -t support < <(find Fuzz/Support -name '*.swift' 2>/dev/null | sort)

    # The stamp is taken before compiling, so a source edited during the build is rebuilt next time.
    local stamp="$binary.stamp"
    if [[ -x "$binary" && -f "$stamp" ]] && [[ -z "$(find Sources/BlobStore Sources/CCRC32C Sources/CLibCrypto \
        Fuzz/Support "Fuzz/${target}Fuzz.swift" Fuzz/run.sh -newer "$stamp" -print -quit)" ]]; then
        echo "$binary"
        return
    fi

    # SwiftPM generates the C target's module map; swiftc alone needs one.
    cat >"$BUILD/CCRC32C/module.modulemap" <<EOF
module CCRC32C {
    header "$ROOT/$BUILD/src/CCRC32C/include/crc32c.h"
    export *
}
EOF
    echo "building $binary" >&2
    rm -f "$binary" "$stamp"
    touch "$stamp.new"
    # Compile a snapshot: the sources may be edited while swiftc runs.
    rm -rf "$BUILD/src"
    mkdir -p "$BUILD/src"
    cp -R Sources/BlobStore Sources/CCRC32C "$BUILD/src/"
    local -a library=()
    mapfile -t library < <(find "$BUILD/src/BlobStore" -name '*.swift' | sort)
    "$CLANG" -c -O2 -fsanitize=fuzzer-no-link,address -I"$BUILD/src/CCRC32C/include" \
        "$BUILD/src/CCRC32C/crc32c.c" -o "$BUILD/crc32c.o"
    if ! "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 \
        -module-name "Fuzz$target" \
        "Fuzz/${target}Fuzz.swift" "${support[@]}" "${library[@]}" \
        -Xcc -fmodule-map-file=Sources/CLibCrypto/module.modulemap \
        -Xcc -fmodule-map-file="$BUILD/CCRC32C/module.modulemap" \
        "$BUILD/crc32c.o" -lcrypto -use-ld=lld \
        -o "$binary" >&2; then
        rm -f "$binary"
        return 1
    fi
    mv "$stamp.new" "$stamp"
    echo "$binary"
}

# MARK: - Run

# Fuzzes $1 for $2 seconds; returns 1 on a finding.
run() {
    local target="$1" seconds="$2"
    shift 2
    [[ -f "Fuzz/${target}Fuzz.swift" ]] || usage_error "unknown target '$target' (see 'Fuzz/run.sh --list')"

    local binary
    binary="$(build "$target")"

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

    echo "fuzzing $target for ${seconds}s (corpus $corpus, log $log)"
    local status=0
    # Swift's own backtracer would run on every trap and hold libFuzzer up; libFuzzer prints
    # the stack itself.
    SWIFT_BACKTRACE=enable=no FUZZ_REPRO_DIR="$artifacts" \
        "$binary" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$@" "$corpus" >"$log" 2>&1 || status=$?

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
