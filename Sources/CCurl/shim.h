#ifndef TIMBRE_CCURL_SHIM_H
#define TIMBRE_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt are variadic: Swift cannot call them.
// These typed wrappers are the only way the Swift side talks to them.
static inline CURLcode tcurl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tcurl_set_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tcurl_set_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tcurl_set_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tcurl_set_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }

typedef size_t (*tcurl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode tcurl_set_data_callback(CURL *h, CURLoption o, tcurl_data_callback cb) { return curl_easy_setopt(h, o, cb); }

typedef CURLcode (*tcurl_ssl_ctx_callback)(CURL *curl, void *ssl_ctx, void *userdata);
static inline CURLcode tcurl_set_ssl_ctx_callback(CURL *h, tcurl_ssl_ctx_callback cb) { return curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, cb); }

static inline CURLcode tcurl_get_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tcurl_get_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tcurl_get_socket(CURL *h, curl_socket_t *v) { return curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, v); }

static inline CURLMcode tcurl_multi_set_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

// CURLMsg carries its result in a union; read it here.
static inline CURLcode tcurl_msg_result(const CURLMsg *msg) { return msg->data.result; }
#endif
