#!/usr/bin/env bash
# The caching proxies side by side: `blobstore serve`, nginx with proxy_cache and Varnish, in
# front of one local origin (nginx serving static files), each driven by wrk on this machine in
# the same run (docs/benchmarks.md, "Caching proxy", records one).
#
#   scripts/bench-proxy.sh [SECONDS]     # each wrk run lasts SECONDS (default 10)
#
# Measured, for each proxy: cached hits of a 4 KiB and a 1 MiB body with 1 connection and with 64
# (wrk -t2), and misses (a no-store 4 KiB response, so every request goes to the origin) with 1
# connection, beside the same requests sent to the origin directly. Prints one Markdown table:
# requests per second and the 50th, 90th and 99th latency percentiles.
#
# Installs wrk, varnish and nginx from Debian when missing (apt-get, as root or with sudo); every
# server listens on 127.0.0.1 only, on free ports, runs from a temporary directory and is stopped
# by PID when the script ends.
set -euo pipefail
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

# The origin: nginx serving 4 KiB and 1 MiB files, cacheable for an hour, and a no-store copy.
origin_port=$(free_port)
mkdir -p "$work/origin/root/nostore" "$work/origin/logs"
head -c 4096 /dev/urandom >"$work/origin/root/4k.bin"
head -c 1048576 /dev/urandom >"$work/origin/root/1m.bin"
cp "$work/origin/root/4k.bin" "$work/origin/root/nostore/4k.bin"
cat >"$work/origin/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $work/origin/nginx.pid; error_log $work/origin/logs/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/origin/body; proxy_temp_path $work/origin/proxy;
    fastcgi_temp_path $work/origin/fastcgi; uwsgi_temp_path $work/origin/uwsgi; scgi_temp_path $work/origin/scgi;
    server {
        listen 127.0.0.1:$origin_port;
        root $work/origin/root;
        location / { add_header Cache-Control "max-age=3600"; }
        location /nostore/ { add_header Cache-Control "no-store"; }
    }
}
CONF
/usr/sbin/nginx -c "$work/origin/nginx.conf" -p "$work/origin" &
pids+=($!)

# blobstore serve.
serve_port=$(free_port)
"$blobstore" serve --store "$work/blobstore" --origin "http://127.0.0.1:$origin_port" \
    --listen "127.0.0.1:$serve_port" --access-log /dev/null 2>"$work/serve.log" &
pids+=($!)

# nginx with proxy_cache, as its documentation sets it up: two workers (one per core here).
nginx_port=$(free_port)
mkdir -p "$work/nginx/cache" "$work/nginx/logs"
cat >"$work/nginx/nginx.conf" <<CONF
daemon off; worker_processes 2; user $(id -un) $(id -gn);
pid $work/nginx/nginx.pid; error_log $work/nginx/logs/error.log;
events { worker_connections 1024; }
http {
    access_log off;
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
pids+=($!)

# Varnish with its default VCL for the origin, 256 MiB of memory storage.
varnish_port=$(free_port)
mkdir -p "$work/varnish"
/usr/sbin/varnishd -F -j none -n "$work/varnish" -a "127.0.0.1:$varnish_port" -b "127.0.0.1:$origin_port" \
    -s malloc,256m -T none >"$work/varnish.log" 2>&1 &
pids+=($!)

for port in "$origin_port" "$serve_port" "$nginx_port" "$varnish_port"; do wait_port "$port"; done

# One wrk run: prints "requests/s | p50 | p90 | p99".
measure() {
    local url=$1 connections=$2 threads=1
    [ "$connections" -gt 1 ] && threads=2
    wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency "$url" | python3 -c '
import re, sys
text = sys.stdin.read()
rate = re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)
def ms(label):
    value, unit = re.search(r"^\s+" + str(label) + r"%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
note = f" ({errors.group(1)} non-2xx)" if errors else ""
print(f"{float(rate):,.0f}{note} | {ms(50):.3f} | {ms(90):.3f} | {ms(99):.3f}")'
}

echo "| workload | server | requests/s | p50 ms | p90 ms | p99 ms |"
echo "|---|---|---:|---:|---:|---:|"
for name in serve nginx varnish; do
    port_var="${name}_port"
    for file in 4k.bin 1m.bin; do
        if ! curl -fsS -o /dev/null "http://127.0.0.1:${!port_var}/$file"; then
            echo "$name does not serve /$file:" >&2
            cat "$work/serve.log" "$work/varnish.log" "$work"/*/logs/error.log >&2
            exit 1
        fi
    done
done
for workload in "4k.bin 1" "4k.bin 64" "1m.bin 1" "1m.bin 64"; do
    set -- $workload
    for name in serve nginx varnish; do
        port_var="${name}_port"
        label="blobstore serve"
        [ "$name" = nginx ] && label="nginx proxy_cache"
        [ "$name" = varnish ] && label="Varnish"
        echo "| hit $1, $2 conn | $label | $(measure "http://127.0.0.1:${!port_var}/$1" "$2") |"
    done
done
echo "| miss 4 KiB, 1 conn | origin directly | $(measure "http://127.0.0.1:$origin_port/nostore/4k.bin" 1) |"
for name in serve nginx varnish; do
    port_var="${name}_port"
    label="blobstore serve"
    [ "$name" = nginx ] && label="nginx proxy_cache"
    [ "$name" = varnish ] && label="Varnish"
    echo "| miss 4 KiB, 1 conn | $label | $(measure "http://127.0.0.1:${!port_var}/nostore/4k.bin" 1) |"
done
