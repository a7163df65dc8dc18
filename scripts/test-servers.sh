#!/usr/bin/env bash
# Starts (or stops) a redis-server and an nginx WebDAV cache on 127.0.0.1 for trying the remote
# tier by hand and for CI, each with its own configuration, pidfile and data in one temporary
# directory. Installs redis-server and nginx with apt-get when they are missing.
#
#   eval "$(scripts/test-servers.sh start)"   # prints export lines: BLOBSTORE_TEST_REDIS_URL, ...
#   scripts/test-servers.sh stop
#
# Ports: $BLOBSTORE_TEST_REDIS_PORT (default 26379) and $BLOBSTORE_TEST_HTTP_PORT (default 28080).
# The directory is $BLOBSTORE_TEST_SERVERS_DIR (default /tmp/blobstore-test-servers).
set -euo pipefail

dir="${BLOBSTORE_TEST_SERVERS_DIR:-/tmp/blobstore-test-servers}"
redis_port="${BLOBSTORE_TEST_REDIS_PORT:-26379}"
http_port="${BLOBSTORE_TEST_HTTP_PORT:-28080}"
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
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq "${missing[@]}" >&2
  redis_server="$(command -v redis-server || echo /usr/bin/redis-server)"
  nginx="$(command -v nginx || echo /usr/sbin/nginx)"
}

stop() {
  for pidfile in "$dir/redis.pid" "$dir/nginx.pid"; do
    if [ -f "$pidfile" ]; then
      kill "$(cat "$pidfile")" 2>/dev/null || true
      rm -f "$pidfile"
    fi
  done
}

start() {
  install_missing
  stop
  mkdir -p "$dir/redis" "$dir/www" "$dir/nginx-tmp"
  "$redis_server" --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no \
    --daemonize yes --dir "$dir/redis" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
    --maxmemory 256mb --maxmemory-policy allkeys-lru
  local user=""
  [ "$(id -u)" -eq 0 ] && user="user root root;"
  cat >"$dir/nginx.conf" <<EOF
$user
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $dir/nginx-tmp/body;
    proxy_temp_path $dir/nginx-tmp/proxy;
    fastcgi_temp_path $dir/nginx-tmp/fastcgi;
    uwsgi_temp_path $dir/nginx-tmp/uwsgi;
    scgi_temp_path $dir/nginx-tmp/scgi;
    server {
        listen 127.0.0.1:$http_port;
        root $dir/www;
        client_max_body_size 0;
        location / {
            dav_methods PUT DELETE;
            create_full_put_path on;
            dav_access user:rw;
        }
    }
}
EOF
  "$nginx" -p "$dir" -e "$dir/nginx-error.log" -c "$dir/nginx.conf"
  for _ in $(seq 50); do
    if [ -s "$dir/redis.pid" ] && [ -s "$dir/nginx.pid" ]; then break; fi
    sleep 0.1
  done
  echo "export BLOBSTORE_TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
  echo "export BLOBSTORE_TEST_HTTP_URL=http://127.0.0.1:$http_port/cache"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 64
    ;;
esac
