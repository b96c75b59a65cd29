#ifndef TIMBRE_COPENSSL_SHIM_H
#define TIMBRE_COPENSSL_SHIM_H
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
#endif
