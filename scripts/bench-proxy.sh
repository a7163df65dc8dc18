#!/usr/bin/env bash
# The caching proxies side by side: `blobstore serve`, nginx with proxy_cache and Varnish, in
# front of one local origin (nginx serving static files), each driven by wrk on this machine in
# the same run (docs/benchmarks.md, "Caching proxy", records one).
#
#   scripts/bench-proxy.sh [SECONDS]     # each wrk run lasts SECONDS (default 10)
#
# Traffic shaped like a site's, each wrk thread going round its own slice of many distinct URLs
# (never one URL, which flatters every cache): cached 4 KiB hits over 1,000 URLs at 1 and 64
# connections, and over 20,000 at 64 (last: each proxy stores them first), cached 1 MiB hits over 32 URLs at 16, `no-store` 4 KiB responses at 16 (every
# request passes through to the origin), `no-cache` ones at 16 (every request revalidated: the
# origin answers 304 to blobstore serve; nginx and Varnish pass such responses through), and cold
# misses at 16 (every request a URL never asked for). Each proxy is measured in turn; blobstore
# serve twice, with its access log off and with the default log (standard error, into a file).
# Prints one Markdown table: requests per second, the 50th and 99th latency percentiles, and the
# proxy's CPU time and context switches per request (perf stat on its process tree); then the
# default log's cost, from 4 KiB hits at 64 connections with the log off and on, alternated
# three times (one pair of runs moves by more than the cost on a shared machine).
#
# Installs wrk, varnish and nginx from Debian when missing (apt-get, as root or with sudo); every
# server listens on 127.0.0.1 only, on free ports, runs from a temporary directory and is stopped
# by PID when the script ends.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
seconds="${1:-10}"

missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
[ -x /usr/sbin/varnishd ] || missing+=(varnish)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq "${missing[@]}"
fi
swift build -c release --product blobstore >&2
blobstore="$(swift build -c release --show-bin-path)/blobstore"

work="$(mktemp -d "${TMPDIR:-/tmp}/blobstore-bench-proxy.XXXXXX")"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
    for _ in $(seq 100); do
        python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2
    return 1
}

# The origin: nginx serving 20,000 distinct 4 KiB files (the rows over 1,000 URLs use the first
# 1,000; /many/ is all of them) and 32 distinct 1 MiB ones, cacheable for an hour; the same 4 KiB
# files `no-store` (every request passes through) and `no-cache` (every request is revalidated: a
# shared cache sends a conditional request and the origin answers 304); and any /cold/ path
# answered with a 4 KiB body (every request a URL never seen: a cold miss).
origin_port=$(free_port)
mkdir -p "$work/origin/root/f" "$work/origin/root/m" "$work/origin/logs"
python3 - "$work/origin/root" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(20000):
    with open(f"{root}/f/{i}.bin", "wb") as f: f.write(os.urandom(4096))
for i in range(32):
    with open(f"{root}/m/{i}.bin", "wb") as f: f.write(os.urandom(1 << 20))
PY
cat >"$work/origin/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $work/origin/nginx.pid; error_log $work/origin/logs/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $work/origin/body; proxy_temp_path $work/origin/proxy;
    fastcgi_temp_path $work/origin/fastcgi; uwsgi_temp_path $work/origin/uwsgi; scgi_temp_path $work/origin/scgi;
    server {
        listen 127.0.0.1:$origin_port;
        root $work/origin/root;
        location / { add_header Cache-Control "max-age=3600"; }
        location /nostore/ { alias $work/origin/root/f/; add_header Cache-Control "no-store"; }
        location /nocache/ { alias $work/origin/root/f/; add_header Cache-Control "no-cache"; }
        location /cold/ { add_header Cache-Control "max-age=3600"; try_files /f/0.bin =404; }
        location /many/ { alias $work/origin/root/f/; add_header Cache-Control "max-age=3600"; }
    }
}
CONF
/usr/sbin/nginx -c "$work/origin/nginx.conf" -p "$work/origin" &
pids+=($!)

# blobstore serve, with its access log off (/dev/null) and, a second one, with the default log
# (standard error, here into a file).
serve_port=$(free_port)
"$blobstore" serve --store "$work/blobstore" --origin "http://127.0.0.1:$origin_port" \
    --listen "127.0.0.1:$serve_port" --access-log /dev/null 2>"$work/serve.log" &
serve_pid=$!
pids+=($!)
serve_logged_port=$(free_port)
"$blobstore" serve --store "$work/blobstore-logged" --origin "http://127.0.0.1:$origin_port" \
    --listen "127.0.0.1:$serve_logged_port" 2>"$work/serve-logged.log" &
serve_logged_pid=$!
pids+=($!)

# nginx with proxy_cache, as its documentation sets it up: two workers (one per core here).
nginx_port=$(free_port)
mkdir -p "$work/nginx/cache" "$work/nginx/logs"
cat >"$work/nginx/nginx.conf" <<CONF
daemon off; worker_processes 2; user $(id -un) $(id -gn);
pid $work/nginx/nginx.pid; error_log $work/nginx/logs/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi; uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;
    proxy_cache_path $work/nginx/cache levels=1:2 keys_zone=bench:10m max_size=1g inactive=1h;
    upstream origin { server 127.0.0.1:$origin_port; keepalive 64; }
    server {
        listen 127.0.0.1:$nginx_port;
        location / {
            proxy_pass http://origin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache bench;
            proxy_cache_lock on;
        }
    }
}
CONF
/usr/sbin/nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
nginx_pid=$!
pids+=($!)

# Varnish with its default VCL for the origin, 256 MiB of memory storage.
varnish_port=$(free_port)
mkdir -p "$work/varnish"
/usr/sbin/varnishd -F -j none -n "$work/varnish" -a "127.0.0.1:$varnish_port" -b "127.0.0.1:$origin_port" \
    -s malloc,256m -T none >"$work/varnish.log" 2>&1 &
varnish_pid=$!
pids+=($!)

for port in "$origin_port" "$serve_port" "$serve_logged_port" "$nginx_port" "$varnish_port"; do
    wait_port "$port"
done
# nginx's and Varnish's work is done in child processes: perf stat counts the whole tree, as it is
# when it starts (nginx's cache loader comes and goes).
tree() {
    local list=$1 child
    for child in $(pgrep -P "$1"); do list="$list,$(tree "$child")"; done
    echo "$list"
}


# The requests: each wrk thread goes round its own slice of COUNT URLs under PREFIX (`<i>.bin`),
# or, with "unique", asks for a URL never asked before at each request.
cat >"$work/urls.lua" <<'LUA'
local next_thread = 0
function setup(thread)
    thread:set("thread_index", next_thread)
    thread:set("thread_count", tonumber(os.getenv("WRK_THREADS")))
    next_thread = next_thread + 1
end
function init(args)
    prefix, count, unique = args[1], tonumber(args[2]), args[3] == "unique"
    slice = math.max(1, math.floor(count / thread_count))
    first, step = thread_index * slice, 0
    run = tostring(os.time()) .. "-" .. thread_index
end
function request()
    step = step + 1
    if unique then return wrk.format(nil, prefix .. run .. "-" .. step .. ".bin") end
    return wrk.format(nil, prefix .. (first + step % slice) .. ".bin")
end
LUA

# One wrk run against PORT: prints "requests/s | p50 | p99 | CPU us per request | switches per
# request", the last two read by perf stat from the server's process (PID).
measure() {
    local port=$1 pid=$2 path=$3 count=$4 connections=$5 mode=${6:-} threads=1
    [ "$connections" -gt 1 ] && threads=2
    perf stat -x, -e task-clock,context-switches -p "$(tree "$pid")" -o "$work/perf.txt" &
    local perf_pid=$!
    sleep 0.2
    WRK_THREADS=$threads wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency -s "$work/urls.lua" \
        "http://127.0.0.1:$port" -- "$path" "$count" $mode >"$work/wrk.txt"
    kill -INT "$perf_pid"
    wait "$perf_pid" 2>/dev/null || true
    python3 - "$work/wrk.txt" "$work/perf.txt" "$seconds" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
perf = open(sys.argv[2]).read()
rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
requests = int(re.search(r"(\d+) requests in", text).group(1))
def ms(label):
    value, unit = re.search(r"^\s+" + str(label) + r"%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
def counter(name):
    for line in perf.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith(name):
            return float(fields[0]) if fields[0] not in ("<not counted>", "<not supported>") else 0.0
    return 0.0
cpu_us = counter("task-clock") * 1000 / max(requests, 1)
switches = counter("context-switches") / max(requests, 1)
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
socket_errors = re.search(r"Socket errors: (.*)", text)
note = f" ({errors.group(1)} non-2xx)" if errors else ""
note += f" (socket errors: {socket_errors.group(1)})" if socket_errors else ""
print(f"{rate:,.0f}{note} | {ms(50):.3f} | {ms(99):.3f} | {cpu_us:.1f} | {switches:.2f}")
PY
}

names=(serve serve_logged nginx varnish)
label() {
    case $1 in
        serve) echo "blobstore serve" ;;
        serve_logged) echo "blobstore serve, default log" ;;
        nginx) echo "nginx proxy_cache" ;;
        varnish) echo "Varnish" ;;
    esac
}
for name in "${names[@]}"; do
    port_var="${name}_port"
    for path in f/0.bin m/0.bin nostore/0.bin nocache/0.bin cold/x.bin; do
        if ! curl -fsS -o /dev/null "http://127.0.0.1:${!port_var}/$path"; then
            echo "$name does not serve /$path:" >&2
            cat "$work/serve.log" "$work/varnish.log" "$work"/*/logs/error.log >&2
            exit 1
        fi
    done
done
# Every cached URL is asked for once before it is measured.
warm() {
    local port=$1 prefix=$2 count=$3
    python3 - "$port" "$prefix" "$count" <<'PY'
import http.client, sys
port, prefix, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
connection = http.client.HTTPConnection("127.0.0.1", port)
for i in range(count):
    connection.request("GET", f"{prefix}{i}.bin")
    connection.getresponse().read()
PY
}
for name in "${names[@]}"; do
    port_var="${name}_port"
    warm "${!port_var}" /f/ 1000
    warm "${!port_var}" /m/ 32
    warm "${!port_var}" /nocache/ 1000
done

# The default log's cost: hits at 64 connections, the server without its log and the one with
# it alternated three times, right after the hit rows (before the rows that fill the caches with
# other responses); the medians' ratio, printed after the table.
log_cost() {
    local rates_off=() rates_on=()
    for _ in 1 2 3; do
        rates_off+=("$(measure "$serve_port" "$serve_pid" /f/ 1000 64 | cut -d'|' -f1 | tr -d ' ')")
        rates_on+=("$(measure "$serve_logged_port" "$serve_logged_pid" /f/ 1000 64 | cut -d'|' -f1 | tr -d ' ')")
    done
    python3 - "${rates_off[@]}" "${rates_on[@]}" <<'PY'
import re, statistics, sys
# Each run's rate as measure() prints it ("91,779", or with a note: "91,779(12non-2xx)").
runs = sys.argv[1:]
notes = [run for run in runs if "(" in run]
rates = [float(re.match(r"[\d,.]*", run).group(0).replace(",", "") or "nan") for run in runs]
off, on = rates[:3], rates[3:]
head = "Default access log's cost, 4 KiB hits over 1,000 URLs at 64 connections, three alternations: "
if len(off) != 3 or len(on) != 3 or any(rate != rate for rate in rates):
    print(head + f"n/a (runs: {runs})")
    sys.exit(0)
cost = 1 - statistics.median(on) / statistics.median(off)
print(head
      + f"{statistics.median(off):,.0f} req/s without it ({', '.join(f'{rate:,.0f}' for rate in off)}), "
      + f"{statistics.median(on):,.0f} with it ({', '.join(f'{rate:,.0f}' for rate in on)}): {cost:.1%}"
      + (f" (errors: {notes})." if notes else "."))
PY
}
echo "| workload | server | requests/s | p50 ms | p99 ms | CPU µs/request | switches/request |"
echo "|---|---|---:|---:|---:|---:|---:|"
row() {
    local title=$1 path=$2 count=$3 connections=$4 mode=${5:-}
    for name in "${names[@]}"; do
        port_var="${name}_port"
        pid_var="${name}_pid"
        echo "| $title | $(label "$name") | $(measure "${!port_var}" "${!pid_var}" "$path" "$count" "$connections" $mode) |"
    done
}
row "hit 4 KiB, 1,000 URLs, 1 conn" /f/ 1000 1
row "hit 4 KiB, 1,000 URLs, 64 conn" /f/ 1000 64
cost_line="$(log_cost)"
row "hit 1 MiB, 32 URLs, 16 conn" /m/ 32 16
row "no-store 4 KiB, 1,000 URLs, 16 conn" /nostore/ 1000 16
row "revalidated (304) 4 KiB, 1,000 URLs, 16 conn" /nocache/ 1000 16
row "cold miss 4 KiB, every URL new, 16 conn" /cold/ 10000 16 unique
# Hits over more URLs than a small cache holds: each proxy stores 20,000 distinct responses first.
for name in "${names[@]}"; do
    port_var="${name}_port"
    warm "${!port_var}" /many/ 20000
done
row "hit 4 KiB, 20,000 URLs, 64 conn" /many/ 20000 64
echo
echo "$cost_line"
