#ifndef TIMBRE_CLIBSECRET_SHIM_H
#define TIMBRE_CLIBSECRET_SHIM_H
#include <libsecret/secret.h>
static inline const char *tsecret_collection_default(void) { return SECRET_COLLECTION_DEFAULT; }
static inline const char *tsecret_collection_session(void) { return SECRET_COLLECTION_SESSION; }
#endif
