#!/usr/bin/env bash
# Makes the certificates the TLS tests use (Tests/BlobStoreRemoteTests/TLSTests.swift), with
# openssl, in DIR (created when missing; nothing outside it is touched):
#
#   ca.pem, ca.key              a test CA, valid for 2 days from now
#   other-ca.pem                another CA, which signed none of the certificates below
#   server.pem, server.key      signed by ca.pem for IP 127.0.0.1 and DNS localhost, valid now; also
#                               a client certificate (the nodes of a Redis Cluster over TLS present
#                               it to each other on the cluster bus, which always asks for one)
#   expired.pem, expired.key    signed by ca.pem for the same names, expired in 2020
#   wrong-host.pem, wrong-host.key  signed by ca.pem for DNS other.example only, valid now
#
#   scripts/test-certificates.sh DIR
#
# Keys are EC P-256 (quick to make). The CA signs with `openssl ca`, whose -startdate and -enddate
# date the expired certificate in the past (`openssl x509 -req` cannot, before OpenSSL 3.4).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 64
fi
dir="$1"
mkdir -p "$dir"
cd "$dir"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# A CA: self-signed, CA:true.
make_ca() {
  key "$1.key"
  openssl req -x509 -new -key "$1.key" -out "$1.pem" -days 2 -subj "/CN=BlobStore test $1" \
    -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign,cRLSign"
}
make_ca ca
make_ca other-ca
rm -f other-ca.key

mkdir -p ca-db
: >ca-db/index.txt
echo 1000 >ca-db/serial
cat >ca.cnf <<CONF
[ ca ]
default_ca = test_ca
[ test_ca ]
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
certificate = ca.pem
private_key = ca.key
default_md = sha256
policy = any
unique_subject = no
copy_extensions = none
[ any ]
commonName = supplied
[ server ]
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth,clientAuth
subjectAltName = \$ENV::NAMES
CONF

# A server certificate signed by ca.pem: $1 the name, $2 the subjectAltName, then openssl ca's
# validity options.
make_server() {
  local name="$1" names="$2"
  shift 2
  key "$name.key"
  openssl req -new -key "$name.key" -out "$name.csr" -subj "/CN=$name"
  NAMES="$names" openssl ca -batch -notext -config ca.cnf -extensions server -in "$name.csr" -out "$name.pem" \
    "$@" 2>/dev/null
  rm -f "$name.csr"
}
make_server server "IP:127.0.0.1,DNS:localhost" -days 1
make_server expired "IP:127.0.0.1,DNS:localhost" -startdate 20200101000000Z -enddate 20200102000000Z
make_server wrong-host "DNS:other.example" -days 1
