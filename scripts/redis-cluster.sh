#!/usr/bin/env bash
# Starts (or stops) a local Redis Cluster on 127.0.0.1: three masters and three replicas of
# Debian's redis-server (by default), created with `redis-cli --cluster create`, on free ports,
# each node with its configuration, pidfile, log and nodes.conf in a new private directory
# (mktemp -d), stopped by PID. The remote tier's cluster tests (Tests/BlobStoreRemoteTests) and
# scripts/cluster-load.sh start their clusters with it; docs/remote.md, "Redis Cluster".
#
#   scripts/redis-cluster.sh start ENVFILE   # writes export lines to ENVFILE; exits non-zero
#   . ENVFILE                                # when the cluster is not ready within 30 s
#   scripts/redis-cluster.sh restart ENVFILE PORT   # starts a node that was killed again
#   scripts/redis-cluster.sh stop ENVFILE    # stops every node by its pidfile, removes the directory
#
# ENVFILE sets BLOBSTORE_CLUSTER_DIR, BLOBSTORE_CLUSTER_PORTS (every node's port, masters first
# as created), BLOBSTORE_CLUSTER_USER and BLOBSTORE_CLUSTER_PASSWORD (an ACL user on every node,
# with a new random password), BLOBSTORE_CLUSTER_ADMIN_PASSWORD (the default user's, which
# redis-cli and the replicas use) and BLOBSTORE_CLUSTER_URL
# (redis+cluster://USER:PASSWORD@127.0.0.1:PORT,… with the masters as seeds).
# A node's configuration is <dir>/<port>/redis.conf (daemonize yes); `restart` starts the node
# from it, under the same pidfile, and it rejoins as its nodes.conf says. A node holds none of the
# caller's descriptors (launch_node).
#
# Knobs: BLOBSTORE_CLUSTER_MASTERS (3), BLOBSTORE_CLUSTER_REPLICAS (replicas per master, 1),
# BLOBSTORE_CLUSTER_NODE_TIMEOUT (cluster-node-timeout in ms, 1000: a failover takes about 2 s),
# BLOBSTORE_CLUSTER_MAXMEMORY (per node, 256mb, allkeys-lru), BLOBSTORE_CLUSTER_TLS_DIR (a
# directory of scripts/test-certificates.sh: every node then speaks TLS only, clients, replication
# and the cluster bus, with server.pem signed by ca.pem, and asks no client certificate; the URL
# is rediss+cluster://). Ports are picked at random in
# 11000-16999 (their cluster bus ports, +10000, in 21000-26999, below Linux's ephemeral range)
# where nothing answers on the port or its bus port.
set -euo pipefail

redis_server="$(command -v redis-server || echo /usr/bin/redis-server)"
redis_cli="$(command -v redis-cli || echo /usr/bin/redis-cli)"
tls_dir="${BLOBSTORE_CLUSTER_TLS_DIR:-}"

# Whether something accepts TCP connections on 127.0.0.1:$1.
answers() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A port in 11000-16999 where neither it nor its bus port answers, and not among "$@".
free_port() {
  local port
  for _ in $(seq 200); do
    port=$((11000 + RANDOM % 6000))
    case " $* " in *" $port "*) continue ;; esac
    if ! answers "$port" && ! answers $((port + 10000)); then
      echo "$port"
      return 0
    fi
  done
  echo "no free port found in 11000-16999" >&2
  return 1
}

# Starts redis-server with the configuration $1 (it daemonizes) holding none of this script's
# descriptors but 0-2: a daemon that kept a pipe or socket of whoever ran the script would keep it
# open for as long as the node runs, and so keep a reader of the pipe waiting, or a parent that
# watches such a socket (Foundation's Process does) from seeing the script end.
launch_node() {
  (
    for fd in /proc/self/fd/*; do
      fd="${fd##*/}"
      [ "$fd" -gt 2 ] && eval "exec $fd>&-"
    done
    exec "$redis_server" "$1"
  )
}

# redis-cli as the default user, on node $1 (over TLS with BLOBSTORE_CLUSTER_TLS_DIR).
cli() {
  local port="$1"
  shift
  local -a tls=()
  [ -z "$tls_dir" ] || tls=(--tls --cacert "$tls_dir/ca.pem")
  REDISCLI_AUTH="$admin_password" "$redis_cli" -h 127.0.0.1 -p "$port" "${tls[@]}" "$@"
}

# Waits up to $2 seconds until `cli $1 CLUSTER INFO` says cluster_state:ok and knows $3 nodes.
wait_until_ok() {
  local port="$1" seconds="$2" nodes="$3" info
  for _ in $(seq $((seconds * 10))); do
    info="$(cli "$port" CLUSTER INFO 2>/dev/null | tr -d '\r')" || true
    if grep -qx 'cluster_state:ok' <<<"$info" && grep -qx "cluster_known_nodes:$nodes" <<<"$info"; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

# Whether process $1 runs: exists and is not a zombie (a daemonized node that was killed stays
# one until its parent, often not an init that reaps, collects it).
alive() {
  local state
  state="$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)" || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

stop_dir() {
  local dir="$1" pidfile pid
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  local -a pids=()
  for pidfile in "$dir"/*/redis.pid; do
    [ -s "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    alive "$pid" && kill "$pid" 2>/dev/null && pids+=("$pid")
  done
  # SIGTERM, then SIGKILL what is still there after 5 s (nothing is saved: `save ""`).
  for _ in $(seq 50); do
    local running=0
    for pid in "${pids[@]}"; do alive "$pid" && running=1; done
    [ "$running" -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do alive "$pid" && kill -9 "$pid" 2>/dev/null; done
  case "$dir" in
    "${TMPDIR:-/tmp}"/blobstore-redis-cluster.*) rm -rf -- "$dir" ;;
  esac
}

start() {
  local envfile="$1"
  local masters="${BLOBSTORE_CLUSTER_MASTERS:-3}" replicas="${BLOBSTORE_CLUSTER_REPLICAS:-1}"
  local timeout="${BLOBSTORE_CLUSTER_NODE_TIMEOUT:-1000}" maxmemory="${BLOBSTORE_CLUSTER_MAXMEMORY:-256mb}"
  [ -x "$redis_server" ] && [ -x "$redis_cli" ] || {
    echo "redis-server and redis-cli are not installed: run scripts/install-deps.sh" >&2
    return 1
  }
  local dir user=blobstore password port
  dir="$(mktemp -d "${TMPDIR:-/tmp}/blobstore-redis-cluster.XXXXXX")"
  # Written first, so that `stop ENVFILE` cleans up even after a failed start.
  echo "export BLOBSTORE_CLUSTER_DIR=$dir" >"$envfile"
  password="$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  admin_password="$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  local -a ports=()
  for _ in $(seq $((masters * (replicas + 1)))); do
    port="$(free_port "${ports[@]}")"
    ports+=("$port")
    mkdir -p "$dir/$port"
    if [ -n "$tls_dir" ]; then
      cat >"$dir/$port/redis.conf" <<EOF
port 0
tls-port $port
tls-cert-file $tls_dir/server.pem
tls-key-file $tls_dir/server.key
tls-ca-cert-file $tls_dir/ca.pem
tls-auth-clients no
tls-replication yes
tls-cluster yes
EOF
    else
      echo "port $port" >"$dir/$port/redis.conf"
    fi
    cat >>"$dir/$port/redis.conf" <<EOF
bind 127.0.0.1
daemonize yes
dir $dir/$port
pidfile $dir/$port/redis.pid
logfile $dir/$port/redis.log
save ""
appendonly no
maxmemory $maxmemory
maxmemory-policy allkeys-lru
cluster-enabled yes
cluster-config-file nodes.conf
cluster-node-timeout $timeout
cluster-replica-validity-factor 0
requirepass $admin_password
masterauth $admin_password
user $user on >$password ~* &* +@all
EOF
    launch_node "$dir/$port/redis.conf"
  done
  for port in "${ports[@]}"; do
    for _ in $(seq 100); do
      answers "$port" && break
      sleep 0.1
    done
    answers "$port" || {
      echo "redis-server did not answer on 127.0.0.1:$port within 10 s; its log:" >&2
      tail -n 20 "$dir/$port/redis.log" >&2 || true
      return 1
    }
  done
  local -a nodes=()
  for port in "${ports[@]}"; do nodes+=("127.0.0.1:$port"); done
  cli "${ports[0]}" --cluster create "${nodes[@]}" --cluster-replicas "$replicas" --cluster-yes \
    >"$dir/create.log" 2>&1 || {
    echo "redis-cli --cluster create failed:" >&2
    tail -n 20 "$dir/create.log" >&2
    return 1
  }
  for port in "${ports[@]}"; do
    wait_until_ok "$port" 30 "${#ports[@]}" || {
      echo "the cluster is not ok on 127.0.0.1:$port within 30 s:" >&2
      cli "$port" CLUSTER INFO >&2 || true
      return 1
    }
  done
  local seeds=""
  for port in "${ports[@]:0:$masters}"; do seeds+="${seeds:+,}127.0.0.1:$port"; done
  {
    echo "export BLOBSTORE_CLUSTER_PORTS=\"${ports[*]}\""
    echo "export BLOBSTORE_CLUSTER_USER=$user"
    echo "export BLOBSTORE_CLUSTER_PASSWORD=$password"
    echo "export BLOBSTORE_CLUSTER_ADMIN_PASSWORD=$admin_password"
    echo "export BLOBSTORE_CLUSTER_URL=redis${tls_dir:+s}+cluster://$user:$password@$seeds"
  } >>"$envfile"
}

# Starts node $2 of the cluster of ENVFILE $1 again (after a kill): it rejoins as its nodes.conf
# says, a replica of the master that took over.
restart() {
  local envfile="$1" port="$2" dir
  dir="$(sed -n 's/^export BLOBSTORE_CLUSTER_DIR=//p' "$envfile")"
  [ -f "$dir/$port/redis.conf" ] || {
    echo "no node $port in ${dir:-$envfile}" >&2
    return 1
  }
  launch_node "$dir/$port/redis.conf"
  for _ in $(seq 100); do
    answers "$port" && return 0
    sleep 0.1
  done
  echo "redis-server did not answer on 127.0.0.1:$port within 10 s; its log:" >&2
  tail -n 20 "$dir/$port/redis.log" >&2 || true
  return 1
}

stop() {
  local envfile="$1" dir=""
  if [ -f "$envfile" ]; then
    dir="$(sed -n 's/^export BLOBSTORE_CLUSTER_DIR=//p' "$envfile")"
  fi
  stop_dir "${dir:-${BLOBSTORE_CLUSTER_DIR:-}}"
}

usage() {
  echo "usage: $0 start|stop ENVFILE | restart ENVFILE PORT" >&2
  exit 64
}

case "${1:-}" in
  start | stop)
    [ $# -eq 2 ] || usage
    "$1" "$2"
    ;;
  restart)
    [ $# -eq 3 ] || usage
    restart "$2" "$3"
    ;;
  *) usage ;;
esac
