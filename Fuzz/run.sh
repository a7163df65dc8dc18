#!/usr/bin/env bash
# Builds a libFuzzer harness (Fuzz/<Target>Fuzz.swift) with the sources it tests and runs it.
# See Fuzz/README.md, or run `Fuzz/run.sh --help`.
set -euo pipefail
shopt -s inherit_errexit

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD=.build/fuzz
SWIFTC="${SWIFTC:-swiftc}"
CLANG="${CLANG:-$(dirname "$(readlink -f "$(command -v "$SWIFTC")")")/clang}"
# What every harness depends on, and the C module maps every Swift compile needs.
LIBRARY_INPUTS=(Sources/BlobStore Sources/CCRC32C Sources/CSharedCounter Sources/CLinux Sources/CLibCrypto Sources/CLibSSL
    Fuzz/run.sh)
MODULE_MAPS=(-Xcc -fmodule-map-file=Sources/CLibCrypto/module.modulemap
    -Xcc -fmodule-map-file=Sources/CLibSSL/module.modulemap
    -Xcc "-fmodule-map-file=$BUILD/CCRC32C/module.modulemap"
    -Xcc "-fmodule-map-file=$BUILD/CSharedCounter/module.modulemap"
    -Xcc "-fmodule-map-file=$BUILD/CLinux/module.modulemap")
# SwiftPM compiles every target with the package's name, which `package` declarations need.
PACKAGE_NAME=(-package-name blobstore)
# The libraries the CLI sources import besides BlobStore, each compiled as a module of its own
# (build_library) for the CLI harnesses (libraries_of), in this order: each may import those
# before it.
CLI_LIBRARIES=(BlobStoreCache BlobStoreHTTP BlobStoreRemote BlobStoreProxy)

usage() {
    cat <<'EOF'
OVERVIEW: Build a libFuzzer harness with the sources it tests and run it.

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

# The module a harness is compiled into, with that module's sources, so that it reaches internal
# symbols: BlobStore for the journal and manifest harnesses, BlobStoreCLI for the argument parser
# and quantity harnesses, BlobStoreRemote for the cluster topology harness. The CLI and remote
# sources `import BlobStore` (and the CLI's the other libraries): for them BlobStore (and
# libraries_of) are compiled first as modules of their own (build_library) and linked in.
module_of() {
    case "$1" in
        ArgumentParser | Quantity) echo BlobStoreCLI ;;
        ClusterTopology) echo BlobStoreRemote ;;
        *) echo BlobStore ;;
    esac
}

# The libraries besides BlobStore that the sources of module $1 import, one a line.
libraries_of() {
    case "$1" in
        BlobStoreCLI) printf '%s\n' "${CLI_LIBRARIES[@]}" ;;
        *) ;;
    esac
}

# The longest input libFuzzer makes for a harness (-max_len; longer seeds are cut to it): a
# ManifestTable input is a whole manifest file, and its seed of 100 entries over several blocks
# takes about 6 KB.
max_len_of() {
    case "$1" in
        ManifestTable) echo 8192 ;;
        *) echo 4096 ;;
    esac
}

# Succeeds when the stamp file $1 exists and nothing under the other arguments is newer.
up_to_date() {
    local stamp="$1"
    shift
    [[ -f "$stamp" ]] && [[ -z "$(find "$@" -newer "$stamp" -print -quit)" ]]
}

# Snapshots Sources/BlobStore, its C targets and the directories given into $BUILD/src (the
# sources may be edited while swiftc runs), compiles crc32c.c and writes the C module maps
# (SwiftPM generates them; swiftc alone needs them). CSharedCounter and CLinux are header-only.
snapshot() {
    local module header
    for module in CCRC32C:crc32c.h CSharedCounter:shared_counter.h CLinux:clinux.h; do
        header="${module#*:}"
        module="${module%%:*}"
        mkdir -p "$BUILD/$module"
        printf 'module %s {\n    header "%s"\n    export *\n}\n' \
            "$module" "$ROOT/$BUILD/src/$module/include/$header" >"$BUILD/$module/module.modulemap"
    done
    rm -rf "$BUILD/src"
    mkdir -p "$BUILD/src"
    cp -R Sources/BlobStore Sources/CCRC32C Sources/CSharedCounter Sources/CLinux "$@" "$BUILD/src/"
    "$CLANG" -c -O2 -fsanitize=fuzzer-no-link,address -I"$BUILD/src/CCRC32C/include" \
        "$BUILD/src/CCRC32C/crc32c.c" -o "$BUILD/crc32c.o" >&2
}

# Prints the Swift sources of the snapshot's target $1, one a line.
snapshot_sources() { find "$BUILD/src/$1" -name '*.swift' | sort; }

# Compiles the snapshot's BlobStore, then each library named in the arguments against it, into the
# modules $BUILD/lib/<name>.{swiftmodule,o}, each unless it is up to date, for the harnesses that
# import them.
build_library() {
    local name stamp
    local -a library=()
    mkdir -p "$BUILD/lib"
    for name in BlobStore "$@"; do
        stamp="$BUILD/lib/$name.stamp"
        local -a inputs=("${LIBRARY_INPUTS[@]}")
        [[ "$name" == BlobStore ]] || inputs+=("Sources/$name")
        if up_to_date "$stamp" "${inputs[@]}"; then continue; fi
        rm -f "$stamp"
        touch "$stamp.new"
        echo "building $BUILD/lib/$name.o" >&2
        mapfile -t library < <(snapshot_sources "$name")
        "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -wmo -I "$BUILD/lib" "${PACKAGE_NAME[@]}" \
            -module-name "$name" -emit-module -emit-module-path "$BUILD/lib/$name.swiftmodule" \
            "${library[@]}" "${MODULE_MAPS[@]}" -c -o "$BUILD/lib/$name.o" >&2 || return 1
        mv "$stamp.new" "$stamp"
    done
}

# Prints the path of the fuzzer binary for $1, building it when any input is newer.
build() {
    local target="$1"
    local module name binary="$BUILD/$target-fuzzer"
    module="$(module_of "$target")"
    local -a inputs=("${LIBRARY_INPUTS[@]}" "Fuzz/${target}Fuzz.swift") libraries=()
    mapfile -t libraries < <(libraries_of "$module")
    [[ -d "Fuzz/Support/$module" ]] && inputs+=("Fuzz/Support/$module")
    if [[ "$module" != BlobStore ]]; then
        inputs+=("Sources/$module")
        for name in "${libraries[@]}"; do inputs+=("Sources/$name"); done
    fi

    # The stamp is taken before compiling, so a source edited during the build is rebuilt next time.
    local stamp="$binary.stamp"
    if [[ -x "$binary" ]] && up_to_date "$stamp" "${inputs[@]}"; then
        echo "$binary"
        return
    fi
    echo "building $binary" >&2
    mkdir -p "$BUILD"
    rm -f "$binary" "$stamp"
    touch "$stamp.new"

    local -a support=() compiled=() library=()
    mapfile -t support < <(find "Fuzz/Support/$module" -name '*.swift' 2>/dev/null | sort)
    # Failures are checked one by one: `run` is called where `set -e` does not apply.
    if [[ "$module" == BlobStore ]]; then
        snapshot || return 1
    else
        local -a dependencies=("Sources/$module")
        library=(-I "$BUILD/lib" "$BUILD/lib/BlobStore.o")
        for name in "${libraries[@]}"; do
            dependencies+=("Sources/$name")
            library+=("$BUILD/lib/$name.o")
        done
        snapshot "${dependencies[@]}" && build_library "${libraries[@]}" || return 1
    fi
    mapfile -t compiled < <(snapshot_sources "$module")
    if ! "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 "${PACKAGE_NAME[@]}" \
        -module-name "Fuzz$target" \
        "Fuzz/${target}Fuzz.swift" "${support[@]}" "${compiled[@]}" "${MODULE_MAPS[@]}" \
        "${library[@]}" "$BUILD/crc32c.o" -lssl -lcrypto -use-ld=lld \
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
