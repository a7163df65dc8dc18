#!/usr/bin/env python3
"""The eviction policies' oracle: libCacheSim's own LRU, SIEVE and S3-FIFO on our traces.

    scripts/hit-ratio-oracle.py [--sizes 0.001,0.01,0.1] [--policies lru,sieve,s3fifo]
                                [--format auto|csv|oracleGeneral] [--json | --compare OURS.jsonl]
                                TRACE [TRACE ...]

Runs every trace through `libcachesim` (PyPI, the Python bindings of libCacheSim; written against
0.3.5) at every cache size with every policy, and prints the request miss ratio and the byte miss
ratio of each run: a Markdown table, or with --json one JSON object a line:

    {"trace": "zipf", "policy": "lru", "fraction": 0.01, "cache_bytes": 853241,
     "requests": 200000, "miss_ratio": 0.58765, "byte_miss_ratio": 0.5452, "engine": "libcachesim"}

With --compare OURS.jsonl (lines of the same shape from `blobstore-bench hit-ratio`, engine
"model" or "store") it prints one Markdown table putting our miss ratios beside libcachesim's,
the difference in percentage points, the rows over 1 point, and a line per policy and size saying
whether every difference is within 1 point. It is a report: the exit status is 0 whatever the
differences. Both modes also print, per trace and size, how many fewer misses SIEVE and S3-FIFO
have than LRU, (lru - x) / lru in %, from libcachesim's figures (and from ours with --compare);
with --json that table goes to standard error so standard output stays JSON lines.

Traces
  CSV: a header line naming the columns `time,id,size` (any order; other columns are ignored),
  then one request a line: a logical time, the object id as a decimal UInt64, the object's size
  in bytes; CRLF line ends are accepted. Blank lines are skipped (libcachesim's CSV reader reads
  each, even a trailing one, as a request for object 0 of size 1; such a trace is not
  cross-checked, see below).
  oracleGeneral: libCacheSim's binary format, 24-byte little-endian records
  <uint32 time, uint64 id, uint32 size, int64 next access vtime>; a compressed `.zst` trace must
  be decompressed first (`zstd -d`).
  --format auto (the default) takes `.oracleGeneral` and `.bin` files as oracleGeneral and any
  other file as CSV. A trace's name in the output is its file name without its last extension
  (Python's Path.stem, Swift's deletingPathExtension()).

Cache sizes
  Each fraction is of the trace's footprint: the sum of the sizes of its distinct objects, each
  counted once with the size of its first request. cache_bytes = floor(fraction x footprint),
  computed exactly from the fraction as written (decimal, not binary floating point), and at
  least 1. libcachesim is given that integer: a Python float as a cache size means a fraction of
  the working set to libcachesim (and 1000.0 is rejected), so sizes are always passed as ints.
  Caches are size-aware: an object takes its size in bytes, no metadata is counted
  (consider_obj_metadata off), and an object larger than the cache is a miss and is not inserted.

Policies
  lru -> libcachesim.LRU, sieve -> libcachesim.Sieve, s3fifo -> libcachesim.S3FIFO with its
  defaults written out (small_size_ratio 0.1, ghost_size_ratio 0.9, move_to_main_threshold 2).

How the figures are obtained
  The script parses the trace itself and feeds every request to the cache with
  `cache.get(libcachesim.Request)` (one Request reused, its obj_id and obj_size set per
  request), counting hits and hit bytes: miss_ratio = 1 - hits / requests and byte_miss_ratio =
  1 - hit bytes / requested bytes, the very expressions of libcachesim's process_trace (which
  returns the pair (request miss ratio, byte miss ratio), no warm-up excluded). It does so rather
  than hand the file to libcachesim's reader because that reader, unconfigured, reads a CSV
  trace as obj_id 0 and size 1 on every line without a word (its column numbers default to 0),
  and skips requests of size 0 by default (ignore_size_zero_req); parsing here also gives the
  footprint as defined above and checks every line.
  Unless --no-cross-check is given, each run is repeated with libcachesim's own C reader
  (TraceReader with the CSV columns set from the header, 1-based, has_header set, size-0
  requests kept; or ORACLE_GENERAL_TRACE) and `process_trace`; the two must give the same
  figures, else the script says so on standard error and exits with status 3.
  Request times are read and checked but not given to the cache: this build of libcachesim
  expires nothing (an object re-requested 3e9 time units later is still a hit, whatever
  default_ttl), and LRU, SIEVE and S3-FIFO do not look at time.
  When an object's size changes between requests, libcachesim keeps the size it was inserted
  with while it stays cached (a hit does not resize it); the byte counts use each request's own
  size. The script counts such objects and says so on standard error.

Exit status: 0; 2 for bad arguments or an unreadable trace; 3 if the cross-check disagrees.
"""

import argparse
import json
import struct
import sys
import time
from array import array
from decimal import Decimal, InvalidOperation
from pathlib import Path

try:
    import libcachesim
except ImportError:  # pragma: no cover - depends on the machine
    sys.exit("hit-ratio-oracle: the Python package libcachesim is missing: pip install libcachesim")

POLICIES = ("lru", "sieve", "s3fifo")
POLICY_TITLES = {"lru": "LRU", "sieve": "SIEVE", "s3fifo": "S3-FIFO"}
UINT64_MAX = (1 << 64) - 1
INT64_MAX = (1 << 63) - 1
ORACLE_GENERAL = struct.Struct("<IQIq")  # time, obj_id, obj_size, next_access_vtime
WITHIN_PP = 1.0  # the bound, in percentage points


def make_cache(policy, cache_bytes, hashpower):
    """A libcachesim cache of `cache_bytes` bytes (an int: a float would be a ratio)."""
    assert isinstance(cache_bytes, int) and cache_bytes >= 1
    common = dict(hashpower=hashpower, consider_obj_metadata=False)
    if policy == "lru":
        return libcachesim.LRU(cache_bytes, **common)
    if policy == "sieve":
        return libcachesim.Sieve(cache_bytes, **common)
    if policy == "s3fifo":
        return libcachesim.S3FIFO(cache_bytes, small_size_ratio=0.1, ghost_size_ratio=0.9,
                                  move_to_main_threshold=2, **common)
    raise ValueError(policy)


class TraceFileError(Exception):
    pass


class Trace:
    """A trace read into two arrays (ids, sizes), with what the runs need to know about it."""

    def __init__(self, path, fmt):
        self.path = path
        self.fmt = fmt
        self.name = Path(path).stem
        self.ids = array("Q")
        self.sizes = array("Q")
        self.columns = None  # CSV: 1-based (time, id, size) columns, for libcachesim's reader
        self.blank_lines = 0  # CSV: skipped here; libcachesim's reader makes each a request
        if fmt == "csv":
            self._read_csv()
        else:
            self._read_oracle_general()
        if not self.ids:
            raise TraceFileError(f"{path}: no requests")
        first = {}
        resized = set()
        for obj_id, size in zip(self.ids, self.sizes):
            known = first.setdefault(obj_id, size)
            if known != size:
                resized.add(obj_id)
        self.objects = len(first)
        self.footprint = sum(first.values())
        self.resized = len(resized)
        self.requests = len(self.ids)

    def _read_csv(self):
        with open(self.path, "r", encoding="utf-8", newline="") as f:
            header = f.readline()
            names = [c.strip() for c in header.strip().split(",")]
            missing = [c for c in ("time", "id", "size") if c not in names]
            if missing:
                raise TraceFileError(
                    f"{self.path}:1: the header {header.strip()!r} lacks {', '.join(missing)}; "
                    "a CSV trace starts with the line time,id,size")
            t_col, id_col, size_col = (names.index(c) for c in ("time", "id", "size"))
            width = len(names)
            self.columns = (t_col + 1, id_col + 1, size_col + 1)
            ids, sizes = self.ids, self.sizes
            for number, line in enumerate(f, start=2):
                line = line.strip()
                if not line:
                    self.blank_lines += 1
                    continue
                fields = line.split(",")
                if len(fields) != width:
                    raise TraceFileError(
                        f"{self.path}:{number}: {len(fields)} fields, the header has {width}")
                try:
                    t, obj_id, size = (int(fields[t_col]), int(fields[id_col]),
                                       int(fields[size_col]))
                except ValueError:
                    raise TraceFileError(
                        f"{self.path}:{number}: {line!r} is not time,id,size in decimal")
                if not 0 <= obj_id <= UINT64_MAX:
                    raise TraceFileError(f"{self.path}:{number}: id {obj_id} is not a UInt64")
                if not 0 <= size <= INT64_MAX:
                    raise TraceFileError(f"{self.path}:{number}: size {size} is out of range")
                if t < 0:
                    raise TraceFileError(f"{self.path}:{number}: negative time {t}")
                ids.append(obj_id)
                sizes.append(size)

    def _read_oracle_general(self):
        if self.path.endswith(".zst"):
            raise TraceFileError(f"{self.path}: compressed; decompress it first (zstd -d)")
        with open(self.path, "rb") as f:
            data = f.read()
        if len(data) % ORACLE_GENERAL.size:
            raise TraceFileError(
                f"{self.path}: {len(data)} bytes is not a whole number of "
                f"{ORACLE_GENERAL.size}-byte oracleGeneral records (truncated, or not that format)")
        ids, sizes = self.ids, self.sizes
        for _t, obj_id, size, _next in ORACLE_GENERAL.iter_unpack(data):
            ids.append(obj_id)
            sizes.append(size)

    def hashpower(self):
        """Buckets for the distinct objects (libcachesim's default, 2^24, is sized for big
        traces); the figures do not depend on it, the memory touched does."""
        return min(max(self.objects.bit_length() + 1, 12), 28)

    def cache_bytes(self, fraction_text):
        exact = Decimal(fraction_text) * self.footprint
        return max(1, int(exact.to_integral_value(rounding="ROUND_FLOOR")))

    def run(self, policy, cache_bytes):
        """(miss ratio, byte miss ratio) with requests built here and cache.get."""
        cache = make_cache(policy, cache_bytes, self.hashpower())
        get = cache.get
        req = libcachesim.Request()
        hits = 0
        bytes_req = 0
        bytes_hit = 0
        for obj_id, size in zip(self.ids, self.sizes):
            req.obj_id = obj_id
            req.obj_size = size
            bytes_req += size
            if get(req):
                hits += 1
                bytes_hit += size
        n = len(self.ids)
        miss = 1.0 - hits / n if n else 0.0
        byte_miss = 1.0 - bytes_hit / bytes_req if bytes_req else 0.0
        return miss, byte_miss

    def reader(self):
        """libcachesim's own reader of this file, set up to read what we read."""
        if self.fmt == "csv":
            params = libcachesim.ReaderInitParam(has_header=True, has_header_set=True,
                                                 delimiter=",", ignore_size_zero_req=False)
            params.time_field, params.obj_id_field, params.obj_size_field = self.columns
            return libcachesim.TraceReader(self.path, libcachesim.TraceType.CSV_TRACE, params)
        params = libcachesim.ReaderInitParam(ignore_size_zero_req=False)
        return libcachesim.TraceReader(self.path, libcachesim.TraceType.ORACLE_GENERAL_TRACE,
                                       params)

    def run_with_reader(self, reader, policy, cache_bytes):
        cache = make_cache(policy, cache_bytes, self.hashpower())
        return tuple(cache.process_trace(reader))


def trace_format(path, requested):
    if requested != "auto":
        return requested
    suffixes = Path(path).suffixes
    if suffixes and suffixes[-1] == ".zst":
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in (".oracleGeneral", ".bin"):
        return "oracleGeneral"
    return "csv"


def parse_sizes(text):
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            value = Decimal(part)
        except InvalidOperation:
            raise argparse.ArgumentTypeError(f"{part!r} is not a number")
        if not value.is_finite() or value <= 0:
            raise argparse.ArgumentTypeError(f"{part!r}: a size is a fraction above 0")
        out.append(part)
    if not out:
        raise argparse.ArgumentTypeError("no sizes")
    return out


def parse_policies(text):
    out = [p.strip().lower() for p in text.split(",") if p.strip()]
    bad = [p for p in out if p not in POLICIES]
    if bad or not out:
        raise argparse.ArgumentTypeError(
            f"unknown policy {', '.join(bad) or '(none)'}; choose from {','.join(POLICIES)}")
    return out


def fraction_key(value):
    """Fractions from two files match when equal to 12 significant digits."""
    return float(f"{float(value):.12g}")


def pct(ratio):
    return f"{100.0 * ratio:.2f} %"


def size_label(fraction):
    return f"{100.0 * fraction:g} %"


def pp(diff):
    return f"{100.0 * diff:+.2f}"


def reduction(lru, other):
    if lru is None or other is None:
        return "—"
    if lru == 0:
        return "n/a (LRU has no misses)"
    return f"{100.0 * (lru - other) / lru:+.1f} %"


def results_table(rows):
    lines = ["| trace | requests | policy | size | cache bytes | miss ratio | byte miss ratio |",
             "|---|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['trace']} | {r['requests']} | {POLICY_TITLES[r['policy']]} | "
                     f"{size_label(r['fraction'])} | {r['cache_bytes']} | {pct(r['miss_ratio'])} | "
                     f"{pct(r['byte_miss_ratio'])} |")
    return lines


def reductions_table(rows):
    """Fewer misses than LRU, per trace, size and engine, from whatever rows have all three."""
    table = {}
    order = []
    for r in rows:
        key = (r["trace"], fraction_key(r["fraction"]), r["engine"])
        if key not in table:
            table[key] = {}
            order.append(key)
        table[key][r["policy"]] = r
    engines = sorted({k[2] for k in order}, key=lambda e: (e != "libcachesim", str(e)))
    traces = list(dict.fromkeys(k[0] for k in order))
    order.sort(key=lambda k: (traces.index(k[0]), k[1], engines.index(k[2])))
    lines = ["| trace | size | engine | LRU miss ratio | SIEVE vs LRU | S3-FIFO vs LRU | "
             "LRU byte miss ratio | SIEVE vs LRU (bytes) | S3-FIFO vs LRU (bytes) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for key in order:
        by = table[key]
        if "lru" not in by:
            continue

        def get(policy, field):
            return by[policy][field] if policy in by else None

        lines.append(
            f"| {key[0]} | {size_label(key[1])} | {key[2]} | {pct(by['lru']['miss_ratio'])} | "
            f"{reduction(get('lru', 'miss_ratio'), get('sieve', 'miss_ratio'))} | "
            f"{reduction(get('lru', 'miss_ratio'), get('s3fifo', 'miss_ratio'))} | "
            f"{pct(by['lru']['byte_miss_ratio'])} | "
            f"{reduction(get('lru', 'byte_miss_ratio'), get('sieve', 'byte_miss_ratio'))} | "
            f"{reduction(get('lru', 'byte_miss_ratio'), get('s3fifo', 'byte_miss_ratio'))} |")
    if len(lines) == 2:
        lines.append("| (no trace and size with an LRU run) | | | | | | | | |")
    return lines


def read_ours(path):
    rows = []
    with open(path, "r", encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                row = json.loads(line)
                for field in ("trace", "policy", "fraction", "miss_ratio", "byte_miss_ratio"):
                    if field not in row:
                        raise ValueError(f"no {field!r}")
                row["policy"] = str(row["policy"]).lower()
                row["fraction"] = float(row["fraction"])
                row["miss_ratio"] = float(row["miss_ratio"])
                row["byte_miss_ratio"] = float(row["byte_miss_ratio"])
                row.setdefault("engine", "ours")
            except (ValueError, TypeError) as error:
                raise TraceFileError(f"{path}:{number}: not a result line: {error}")
            rows.append(row)
    return rows


def compare(oracle_rows, ours_rows, out):
    index = {(r["trace"], r["policy"], fraction_key(r["fraction"])): r for r in oracle_rows}
    matched = []
    unmatched = []
    for ours in ours_rows:
        key = (ours["trace"], ours["policy"], fraction_key(ours["fraction"]))
        if key in index:
            matched.append((ours, index[key]))
        else:
            unmatched.append(ours)
    matched.sort(key=lambda pair: (pair[1]["trace"], pair[1]["fraction"],
                                   POLICIES.index(pair[1]["policy"]) if pair[1]["policy"] in POLICIES else 9,
                                   str(pair[0]["engine"])))

    out.append("| trace | size | policy | ours (engine) miss ratio | libcachesim miss ratio | "
               "difference (pp) | ours byte miss ratio | libcachesim byte miss ratio | "
               "difference (pp) | notes |")
    out.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---|")
    over = []
    groups = {}
    for ours, lcs in matched:
        d_req = ours["miss_ratio"] - lcs["miss_ratio"]
        d_byte = ours["byte_miss_ratio"] - lcs["byte_miss_ratio"]
        notes = []
        if abs(d_req) * 100 > WITHIN_PP:
            notes.append("**requests over 1 pp**")
        if abs(d_byte) * 100 > WITHIN_PP:
            notes.append("**bytes over 1 pp**")
        if "cache_bytes" in ours and ours["cache_bytes"] != lcs["cache_bytes"]:
            notes.append(f"cache bytes {ours['cache_bytes']} vs {lcs['cache_bytes']}")
        if "requests" in ours and ours["requests"] != lcs["requests"]:
            notes.append(f"requests {ours['requests']} vs {lcs['requests']}")
        row = (f"| {lcs['trace']} | {size_label(lcs['fraction'])} | "
               f"{POLICY_TITLES.get(lcs['policy'], lcs['policy'])} | "
               f"{pct(ours['miss_ratio'])} ({ours['engine']}) | {pct(lcs['miss_ratio'])} | "
               f"{pp(d_req)} | "
               f"{pct(ours['byte_miss_ratio'])} | {pct(lcs['byte_miss_ratio'])} | {pp(d_byte)} | "
               f"{'; '.join(notes)} |")
        out.append(row)
        if abs(d_req) * 100 > WITHIN_PP or abs(d_byte) * 100 > WITHIN_PP:
            over.append(row)
        group = groups.setdefault((lcs["policy"], fraction_key(lcs["fraction"])), [])
        group.append((abs(d_req), abs(d_byte), lcs["trace"], ours["engine"]))
    if not matched:
        out.append("| (no line of ours matches a trace, policy and size run here) | | | | | | | | | |")

    out.append("")
    out.append(f"Rows over {WITHIN_PP:g} percentage point:")
    out.append("")
    if over:
        out.extend(["| trace | size | policy | ours (engine) miss ratio | libcachesim miss ratio | "
                    "difference (pp) | ours byte miss ratio | libcachesim byte miss ratio | "
                    "difference (pp) | notes |",
                    "|---|---:|---|---:|---:|---:|---:|---:|---:|---|"])
        out.extend(over)
    else:
        out.append("none.")

    out.append("")
    for (policy, fraction), group in sorted(
            groups.items(), key=lambda g: (POLICIES.index(g[0][0]) if g[0][0] in POLICIES else 9, g[0][1])):
        worst_req = max(group, key=lambda g: g[0])
        worst_byte = max(group, key=lambda g: g[1])
        req_ok = worst_req[0] * 100 <= WITHIN_PP
        byte_ok = worst_byte[1] * 100 <= WITHIN_PP
        verdict = "within" if req_ok and byte_ok else "NOT within"
        out.append(
            f"- {POLICY_TITLES.get(policy, policy)} at {size_label(fraction)}: {verdict} {WITHIN_PP:g} pp "
            f"over {len(group)} comparison(s); requests {'within' if req_ok else 'OVER'} "
            f"(largest {100 * worst_req[0]:.2f} pp, {worst_req[2]}, {worst_req[3]}), bytes "
            f"{'within' if byte_ok else 'OVER'} (largest {100 * worst_byte[1]:.2f} pp, "
            f"{worst_byte[2]}, {worst_byte[3]}).")
    missing = sorted({(r["trace"], r["policy"], r["fraction"])
                      for r in oracle_rows} - {(l["trace"], l["policy"], l["fraction"])
                                               for _, l in matched})
    if missing:
        out.append("")
        out.append("Run here, absent from ours: " + ", ".join(
            f"{t} {p} {size_label(f)}" for t, p, f in missing) + ".")
    if unmatched:
        out.append("")
        out.append("In ours, not run here (trace, policy or size not given to this script): "
                   + ", ".join(f"{r['trace']} {r['policy']} {size_label(r['fraction'])} "
                               f"({r['engine']})" for r in unmatched) + ".")
    return matched


def main():
    parser = argparse.ArgumentParser(
        prog="hit-ratio-oracle.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  scripts/hit-ratio-oracle.py trace.csv\n"
               "  scripts/hit-ratio-oracle.py --json --sizes 0.001,0.01,0.1 a.csv b.oracleGeneral"
               " > lcs.jsonl\n"
               "  scripts/hit-ratio-oracle.py --compare ours.jsonl a.csv b.oracleGeneral")
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="trace files (CSV or oracleGeneral)")
    parser.add_argument("--format", choices=("auto", "csv", "oracleGeneral"), default="auto",
                        help="trace format; auto (default): .oracleGeneral and .bin are "
                             "oracleGeneral, anything else CSV")
    parser.add_argument("--sizes", type=parse_sizes, default=parse_sizes("0.001,0.01,0.1"),
                        help="cache sizes as fractions of each trace's footprint in bytes "
                             "(default 0.001,0.01,0.1)")
    parser.add_argument("--policies", type=parse_policies, default=list(POLICIES),
                        help="comma-separated, from lru,sieve,s3fifo (default all three)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--json", action="store_true",
                      help="one JSON object per line on standard output (the LRU-reduction "
                           "table goes to standard error)")
    mode.add_argument("--compare", metavar="OURS.jsonl",
                      help="JSON lines of our replayer, same shape: print ours beside libcachesim's")
    parser.add_argument("--no-cross-check", dest="cross_check", action="store_false",
                        help="skip repeating each run with libcachesim's own trace reader and "
                             "process_trace")
    parser.add_argument("-v", "--verbose", action="store_true", help="time each run on standard error")
    args = parser.parse_args()

    def note(message):
        print(message, file=sys.stderr, flush=True)

    ours_rows = None
    if args.compare:
        try:
            ours_rows = read_ours(args.compare)
        except (OSError, TraceFileError) as error:
            parser.exit(2, f"hit-ratio-oracle: {error}\n")

    stems = [Path(p).stem for p in args.traces]
    clashes = sorted({s for s in stems if stems.count(s) > 1})
    if clashes:
        parser.exit(2, f"hit-ratio-oracle: two traces are named {', '.join(clashes)} (the file name "
                       "without its extension names a trace in the output); rename one\n")

    rows = []
    disagreements = []
    started = time.perf_counter()
    for path in args.traces:
        t0 = time.perf_counter()
        fmt = trace_format(path, args.format)
        try:
            trace = Trace(path, fmt)
        except (OSError, UnicodeDecodeError, TraceFileError) as error:
            parser.exit(2, f"hit-ratio-oracle: {error}\n")
        t_read = time.perf_counter() - t0
        note(f"# {trace.name} ({fmt}): {trace.requests} requests, {trace.objects} objects, "
             f"footprint {trace.footprint} bytes; read in {t_read:.2f} s")
        if trace.resized:
            note(f"#   {trace.resized} object(s) change size between requests: the footprint counts "
                 "each with its first size; libcachesim keeps the size an object was inserted with "
                 "while it stays cached")
        if trace.blank_lines:
            note(f"#   {trace.blank_lines} blank line(s) skipped; libcachesim's CSV reader would read "
                 "each as a request for object 0 of size 1, so this trace is not cross-checked")
        reader = trace.reader() if args.cross_check and not trace.blank_lines else None
        for fraction_text in args.sizes:
            cache_bytes = trace.cache_bytes(fraction_text)
            for policy in args.policies:
                t1 = time.perf_counter()
                miss, byte_miss = trace.run(policy, cache_bytes)
                t2 = time.perf_counter()
                if reader is not None:
                    check = trace.run_with_reader(reader, policy, cache_bytes)
                    if abs(check[0] - miss) > 1e-12 or abs(check[1] - byte_miss) > 1e-12:
                        disagreements.append(
                            f"{trace.name} {policy} {fraction_text}: cache.get loop gives "
                            f"({miss!r}, {byte_miss!r}), libcachesim's reader + process_trace "
                            f"({check[0]!r}, {check[1]!r})")
                if args.verbose:
                    note(f"#   {policy} {fraction_text} ({cache_bytes} bytes): {t2 - t1:.2f} s"
                         + (f", cross-check {time.perf_counter() - t2:.2f} s" if reader else ""))
                rows.append({"trace": trace.name, "policy": policy, "fraction": float(fraction_text),
                             "cache_bytes": cache_bytes, "requests": trace.requests,
                             "miss_ratio": miss, "byte_miss_ratio": byte_miss,
                             "engine": "libcachesim"})
        note(f"#   {len(args.sizes) * len(args.policies)} runs"
             f"{' (each cross-checked)' if reader else ''} in {time.perf_counter() - t0:.2f} s")
        # Not reader.close(): in libcachesim 0.3.5 the reader's destructor closes it again, a
        # double free that aborts the interpreter. Dropping the last reference closes it once.
        del reader
    elapsed = time.perf_counter() - started

    out = []
    if args.json:
        for r in rows:
            print(json.dumps(r))
        note("")
        note(f"Fewer misses than LRU, (lru - x) / lru, libcachesim {libcachesim.__version__}:")
        note("")
        note("\n".join(reductions_table(rows)))
    elif ours_rows is not None:
        out.append(f"Ours beside libcachesim {libcachesim.__version__} (difference = ours − "
                   f"libcachesim, in percentage points; bound {WITHIN_PP:g} pp):")
        out.append("")
        compare(rows, ours_rows, out)
        out.append("")
        out.append("Fewer misses than LRU, (lru − x) / lru, per engine:")
        out.append("")
        traces = {r["trace"] for r in rows}
        ours_known = [dict(r) for r in ours_rows if r["trace"] in traces]
        out.extend(reductions_table(rows + ours_known))
    else:
        out.append(f"libcachesim {libcachesim.__version__}, cache sizes as fractions of each "
                   "trace's footprint:")
        out.append("")
        out.extend(results_table(rows))
        out.append("")
        out.append("Fewer misses than LRU, (lru − x) / lru:")
        out.append("")
        out.extend(reductions_table(rows))
    if out:
        print("\n".join(out))
    note(f"# total {elapsed:.2f} s")
    if disagreements:
        note("hit-ratio-oracle: the cross-check disagrees (requests built here vs libcachesim's "
             "reader):")
        for line in disagreements:
            note("  " + line)
        sys.exit(3)


if __name__ == "__main__":
    main()
