#ifndef BLOBSTORE_CLIBSSL_SHIM_H
#define BLOBSTORE_CLIBSSL_SHIM_H
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

// OpenSSL macros Swift cannot call, as functions (man 3 SSL_set_tlsext_host_name,
// SSL_CTX_set_min_proto_version, SSL_CTX_set_options).

/// Sends `name` as the TLS server name indication (SNI).
static inline int blobstore_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// Refuses protocol versions before TLS 1.2.
static inline int blobstore_ssl_ctx_require_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

/// Reads a connection the server closed without a close_notify as the end of the stream (what
/// a server that drops idle clients does), not as a protocol error.
static inline void blobstore_ssl_ctx_ignore_unexpected_eof(SSL_CTX *context) {
    SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF);
}
#endif
