#!/usr/bin/env bash
# Starts (or stops) a redis-server and an nginx WebDAV cache (scripts/nginx-cache.conf) on
# 127.0.0.1, for trying the remote tier by hand and for CI's shared servers, each with its
# configuration, pidfile and data in a new private directory (mktemp -d). Installs redis-server and
# nginx with apt-get when they are missing (its output goes to standard error).
#
#   scripts/test-servers.sh start ENVFILE   # writes export lines to ENVFILE; exits non-zero when
#   . ENVFILE                               # a server does not answer on its port within 10 s
#   scripts/test-servers.sh stop ENVFILE    # stops both servers and removes the directory
#
# ENVFILE sets BLOBSTORE_TEST_REDIS_URL, BLOBSTORE_TEST_HTTP_URL and BLOBSTORE_TEST_SERVERS_DIR.
# Ports: $BLOBSTORE_TEST_REDIS_PORT and $BLOBSTORE_TEST_HTTP_PORT, by default free ports picked at
# random in 20000-29999.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
redis_server="$(command -v redis-server || echo /usr/bin/redis-server)"
nginx="$(command -v nginx || echo /usr/sbin/nginx)"

install_missing() {
  local missing=()
  [ -x "$redis_server" ] || missing+=(redis-server)
  [ -x "$nginx" ] || missing+=(nginx)
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing ${missing[*]}" >&2
  $sudo apt-get update -qq >&2
  $sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq "${missing[@]}" >&2
  redis_server="$(command -v redis-server || echo /usr/bin/redis-server)"
  nginx="$(command -v nginx || echo /usr/sbin/nginx)"
}

# Whether something accepts TCP connections on 127.0.0.1:$1.
answers() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A port in 20000-29999 that nothing answers on.
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 10000))
    answers "$port" || {
      echo "$port"
      return 0
    }
  done
  echo "no free port found in 20000-29999" >&2
  return 1
}

# Waits up to 10 s for $2 (a name) to answer on port $1; fails with the log $3 otherwise.
wait_for() {
  for _ in $(seq 100); do
    answers "$1" && return 0
    sleep 0.1
  done
  echo "$2 did not answer on 127.0.0.1:$1 within 10 s; its log ($3):" >&2
  tail -n 20 "$3" >&2 || true
  return 1
}

stop_dir() {
  local dir="$1"
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  for pidfile in "$dir/redis.pid" "$dir/nginx.pid"; do
    if [ -s "$pidfile" ]; then
      kill "$(cat "$pidfile")" 2>/dev/null || true
    fi
  done
  case "$dir" in
    "${TMPDIR:-/tmp}"/blobstore-test-servers.*) rm -rf -- "$dir" ;;
  esac
}

start() {
  local envfile="$1"
  install_missing
  local dir redis_port http_port
  dir="$(mktemp -d "${TMPDIR:-/tmp}/blobstore-test-servers.XXXXXX")"
  # Written first, so that `stop ENVFILE` cleans up even after a failed start.
  echo "export BLOBSTORE_TEST_SERVERS_DIR=$dir" >"$envfile"
  redis_port="${BLOBSTORE_TEST_REDIS_PORT:-$(free_port)}"
  http_port="${BLOBSTORE_TEST_HTTP_PORT:-$(free_port)}"
  [ "$redis_port" != "$http_port" ] || http_port="$(free_port)"
  mkdir -p "$dir/redis" "$dir/root"
  "$redis_server" --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no \
    --daemonize yes --dir "$dir/redis" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
    --maxmemory 256mb --maxmemory-policy allkeys-lru
  sed -e "s|@DAEMON@|on|" -e "s|@DIR@|$dir|g" -e "s|@PORT@|$http_port|" -e "s|@AUTH@||" \
    "$root/scripts/nginx-cache.conf" >"$dir/nginx.conf"
  "$nginx" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf"
  wait_for "$redis_port" redis-server "$dir/redis.log"
  wait_for "$http_port" nginx "$dir/error.log"
  {
    echo "export BLOBSTORE_TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
    echo "export BLOBSTORE_TEST_HTTP_URL=http://127.0.0.1:$http_port/cache"
  } >>"$envfile"
}

stop() {
  local envfile="$1" dir=""
  if [ -f "$envfile" ]; then
    dir="$(sed -n 's/^export BLOBSTORE_TEST_SERVERS_DIR=//p' "$envfile")"
  fi
  stop_dir "${dir:-${BLOBSTORE_TEST_SERVERS_DIR:-}}"
}

case "${1:-}" in
  start | stop)
    if [ $# -ne 2 ]; then
      echo "usage: $0 start|stop ENVFILE" >&2
      exit 64
    fi
    "$1" "$2"
    ;;
  *)
    echo "usage: $0 start|stop ENVFILE" >&2
    exit 64
    ;;
esac
