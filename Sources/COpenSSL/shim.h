#ifndef TIMBRE_COPENSSL_SHIM_H
#define TIMBRE_COPENSSL_SHIM_H
#include <string.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#include <openssl/pkcs12.h>

// Macros and generated stack accessors that Swift does not import, as functions.
static inline int tossl_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
static inline X509 *tossl_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
static inline STACK_OF(X509) *tossl_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int tossl_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }
static inline void tossl_sk_X509_free(STACK_OF(X509) *sk) { sk_X509_free(sk); }
static inline void tossl_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }
static inline void tossl_free(void *p) { OPENSSL_free(p); }
static inline long tossl_bio_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline int tossl_ctx_set_min_proto(SSL_CTX *ctx, int v) { return (int)SSL_CTX_set_min_proto_version(ctx, v); }
static inline int tossl_ctx_set_max_proto(SSL_CTX *ctx, int v) { return (int)SSL_CTX_set_max_proto_version(ctx, v); }
static inline int tossl_tls1_2_version(void) { return TLS1_2_VERSION; }
static inline int tossl_tls1_3_version(void) { return TLS1_3_VERSION; }
// A renegotiation on a reused connection would run the verify callback again, long after the
// transfer that set it up ended; timbre refuses it instead.
static inline void tossl_ctx_refuse_renegotiation(SSL_CTX *ctx) { SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION); }
static inline int tossl_ctx_new_ex_index(CRYPTO_EX_free *free_func) { return SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, free_func); }
// Signed pin documents: which kind of public key a PEM holds, and whether bytes are one whole DER
// ECDSA signature (so a truncated one is named as such rather than as a wrong signature).
static inline int tossl_pkey_is_ed25519(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519; }
static inline int tossl_pkey_is_p256(const EVP_PKEY *key) {
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return 0;
    char name[64] = {0};
    size_t length = 0;
    if (EVP_PKEY_get_group_name(key, name, sizeof name, &length) != 1) return 0;
    return strcmp(name, "prime256v1") == 0 || strcmp(name, "P-256") == 0;
}
static inline int tossl_is_der_ecdsa_signature(const unsigned char *bytes, long length) {
    const unsigned char *cursor = bytes;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &cursor, length);
    if (sig == NULL) { ERR_clear_error(); return 0; }
    ECDSA_SIG_free(sig);
    return cursor == bytes + length;
}
// Client certificates (mTLS): a PKCS#12 file read from memory, and what the handshake needs to
// present it and to tell a server's rejection from other failures.
static inline PKCS12 *tossl_d2i_pkcs12(const unsigned char *bytes, long length) {
    const unsigned char *cursor = bytes;
    return d2i_PKCS12(NULL, &cursor, length);
}
static inline int tossl_ssl_add1_chain_cert(SSL *ssl, X509 *cert) { return (int)SSL_add1_chain_cert(ssl, cert); }
static inline int tossl_cb_read_alert(void) { return SSL_CB_READ_ALERT; }
#endif
