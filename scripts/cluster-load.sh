#!/usr/bin/env bash
# The remote tier's load test against a Redis Cluster (docs/remote.md, "Load test"): starts a
# cluster with scripts/redis-cluster.sh (three masters, three replicas), runs several
# blobstore-cluster-load worker processes, each with its own local store, putting and getting a
# shared set of values through the cluster for a bounded time, kills one master (SIGKILL) while
# they run and restarts it later, then prints operations per second, the remote hit ratio before,
# during and after the failover, and the wrong bytes. Exits 1 when a byte was wrong, an error
# reached a caller, or nothing ran after the failover; stops the cluster in any case.
#
#   scripts/cluster-load.sh            # short (CI): 3 processes, 12 s, kill at 3 s, restart at 8 s
#   scripts/cluster-load.sh --long     # by hand: 6 processes, 120 s, kill at 30 s, restart at 75 s,
#                                      # a release build
#
# Knobs (environment; the defaults are the short ones, --long changes them):
#   LOAD_PROCESSES (3 | 6)      worker processes
#   LOAD_SECONDS (12 | 120)     how long they run
#   LOAD_KILL_AT (3 | 30)       seconds from the start to the kill of a master
#   LOAD_RESTART_AT (8 | 75)    seconds from the start to its restart
#   LOAD_KEYS (400 | 5000)      shared keys
#   LOAD_VALUE_SIZE (4096 | 16384)  a value is from half to one and a half times this
#   LOAD_LOCAL_FRACTION (25)    each local store's capacity, in percent of all the values
#   LOAD_COOL_DOWN_MS (1000)    the tier's cool-down after a remote error
#   BLOBSTORE_CLUSTER_LOAD      the blobstore-cluster-load binary (default: swift build it)
#   BLOBSTORE_CLUSTER_NODE_TIMEOUT and the other knobs of scripts/redis-cluster.sh
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
long=0
case "${1:-}" in
  "") ;;
  --long) long=1 ;;
  *)
    echo "usage: $0 [--long]" >&2
    exit 64
    ;;
esac

if [ "$long" -eq 1 ]; then
  processes="${LOAD_PROCESSES:-6}" seconds="${LOAD_SECONDS:-120}" kill_at="${LOAD_KILL_AT:-30}"
  restart_at="${LOAD_RESTART_AT:-75}" keys="${LOAD_KEYS:-5000}" size="${LOAD_VALUE_SIZE:-16384}"
  configuration=release
else
  processes="${LOAD_PROCESSES:-3}" seconds="${LOAD_SECONDS:-12}" kill_at="${LOAD_KILL_AT:-3}"
  restart_at="${LOAD_RESTART_AT:-8}" keys="${LOAD_KEYS:-400}" size="${LOAD_VALUE_SIZE:-4096}"
  configuration=debug
fi
fraction="${LOAD_LOCAL_FRACTION:-25}" cool_down="${LOAD_COOL_DOWN_MS:-1000}"
[ "$kill_at" -lt "$restart_at" ] && [ "$restart_at" -lt "$seconds" ] || {
  echo "need LOAD_KILL_AT < LOAD_RESTART_AT < LOAD_SECONDS" >&2
  exit 64
}

binary="${BLOBSTORE_CLUSTER_LOAD:-}"
if [ -z "$binary" ]; then
  (cd "$root" && swift build -c "$configuration" --product blobstore-cluster-load >&2)
  binary="$(cd "$root" && swift build -c "$configuration" --show-bin-path)/blobstore-cluster-load"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/blobstore-cluster-load.XXXXXX")"
envfile="$work/cluster.env"
cleanup() {
  "$root/scripts/redis-cluster.sh" stop "$envfile" || true
  rm -rf -- "$work"
}
trap cleanup EXIT
"$root/scripts/redis-cluster.sh" start "$envfile"
# shellcheck source=/dev/null
. "$envfile"

cli() {
  local port="$1"
  shift
  REDISCLI_AUTH="$BLOBSTORE_CLUSTER_ADMIN_PASSWORD" redis-cli -h 127.0.0.1 -p "$port" "$@"
}
now_ms() { date +%s%3N; }

# The average value is `size` bytes: each store holds `fraction` percent of them.
capacity=$((keys * size * fraction / 100))
start=$(($(now_ms) + 1500))
pids=()
for index in $(seq "$processes"); do
  "$binary" worker --remote "$BLOBSTORE_CLUSTER_URL" --store "$work/store-$index" --keys "$keys" \
    --size "$size" --seconds "$seconds" --start "$start" --capacity "$capacity" \
    --cool-down "$cool_down" --seed "$index" >"$work/worker-$index.jsonl" &
  pids+=("$!")
done
echo "cluster load: $processes processes, $seconds s, $keys keys of about $size bytes, local stores of" \
  "$fraction% ($capacity bytes), cool-down $cool_down ms, $configuration build"

sleep_until() { # $1: milliseconds from the start
  local left=$((start + $1 - $(now_ms)))
  [ "$left" -le 0 ] || sleep "$(printf '%d.%03d' $((left / 1000)) $((left % 1000)))"
}

first_port="${BLOBSTORE_CLUSTER_PORTS%% *}"
sleep_until $((kill_at * 1000))
# The first master that serves slots, as CLUSTER NODES lists it.
victim="$(cli "$first_port" CLUSTER NODES | awk '$3 ~ /master/ && $3 !~ /fail/ && $9 != "" { split($2, a, "[:@]"); print a[2]; exit }')"
kill -9 "$(cat "$BLOBSTORE_CLUSTER_DIR/$victim/redis.pid")"
killed=$(($(now_ms) - start))
live=""
for port in $BLOBSTORE_CLUSTER_PORTS; do [ "$port" = "$victim" ] || live="$port"; done
# Healthy again: the cluster flags the victim failed, a replica serves its slots, and every slot is ok.
healthy=""
for _ in $(seq 600); do
  line="$(cli "$live" CLUSTER NODES 2>/dev/null | awk -v port=":$victim@" 'index($2, port) { print $3, $9 }')" || true
  info="$(cli "$live" CLUSTER INFO 2>/dev/null | tr -d '\r')" || true
  case "$line" in
    *fail*) if [ -z "$(awk '{ print $2 }' <<<"$line")" ] && grep -qx 'cluster_state:ok' <<<"$info" &&
      grep -qx 'cluster_slots_ok:16384' <<<"$info"; then
      healthy=$(($(now_ms) - start))
      break
    fi ;;
  esac
  sleep 0.05
done
[ -n "$healthy" ] || {
  echo "the cluster did not recover within 30 s of the kill" >&2
  exit 1
}
sleep_until $((restart_at * 1000))
"$root/scripts/redis-cluster.sh" restart "$envfile" "$victim"
restarted=$(($(now_ms) - start))

status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
[ "$status" -eq 0 ] || {
  echo "a worker failed" >&2
  exit 1
}
"$binary" report --kill "$killed" --healthy "$healthy" --restart "$restarted" --master "127.0.0.1:$victim" \
  "$work"/worker-*.jsonl
