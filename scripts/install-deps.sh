#!/usr/bin/env bash
# Installs what building and testing BlobStore needs on Debian, when it is missing:
# libssl-dev (libcrypto: SHA-256 and MD5), e2fsprogs (chattr, for the read-only-store test), and
# redis-server and nginx-light (the remote tier's tests start private servers; docs/remote.md).
# Installing them starts no service the tests need: each test runs its own on a free port.
# Safe to run again; does nothing when everything is there.
set -euo pipefail

missing=()
dpkg -s libssl-dev >/dev/null 2>&1 || missing+=(libssl-dev)
command -v chattr >/dev/null 2>&1 || missing+=(e2fsprogs)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
