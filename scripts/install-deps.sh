#!/usr/bin/env bash
# Installs what building and testing BlobStore needs on Debian, when it is missing:
# libssl-dev (libcrypto: SHA-256 and MD5; libssl: the remote tier's TLS), openssl (the TLS tests
# make a test CA and certificates with it, scripts/test-certificates.sh), e2fsprogs (chattr, for
# the read-only-store test), python3 (the HTTP server the BlobStoreHTTP and `blobstore fetch` tests start on 127.0.0.1), and
# redis-server, redis-tools and nginx (the remote tier's tests start private servers, and a Redis
# Cluster with scripts/redis-cluster.sh, which redis-cli creates; docs/remote.md).
# The tests need no system service: each starts its own server on a free port of 127.0.0.1 (CI
# adds a shared pair from scripts/test-servers.sh for the CLI acceptance tests), so the
# packages are installed with RUNLEVEL=1, which tells invoke-rc.d not to start their services.
# Safe to run again; does nothing when everything is there.
set -euo pipefail

missing=()
dpkg -s libssl-dev >/dev/null 2>&1 || missing+=(libssl-dev)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v chattr >/dev/null 2>&1 || missing+=(e2fsprogs)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
[ -x /usr/bin/redis-cli ] || missing+=(redis-tools)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing ${missing[*]}" >&2
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq "${missing[@]}"
